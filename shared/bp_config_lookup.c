/*
 * bp_config_lookup.c - finding a bucket of a configuration by its name.
 */
#include "bp_config.h"

#include <string.h>

int bp_config_find_bucket(const bp_config_t *cfg,
                          const char *name,
                          size_t len) {
        int i;
        for (i = 0; i < cfg->bucket_cnt; i++)
                if (cfg->buckets[i].name_len == len &&
                    !memcmp(cfg->buckets[i].name, name, len))
                        return i;
        return -1;
}
