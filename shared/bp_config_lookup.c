/*
 * bp_config_lookup.c - answers read from a configuration: a bucket by its
 * name, and how a consumer of several buckets holds the lower ones.
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

bp_hold_t bp_config_hold(const bp_config_t *cfg) {
        if (cfg->hold != BP_HOLD_DEFAULT)
                return cfg->hold;
        /* A lag threshold is what pausing lets lag; weighted ignores it. */
        if (cfg->schedule == BP_SCHEDULE_STRICT && cfg->lag_threshold > 0)
                return BP_HOLD_PAUSE;
        return BP_HOLD_QUEUE;
}
