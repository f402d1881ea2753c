/*
 * bp_key.c - bucket lookup from a record key, bounded in the bytes read.
 */
#include "bp_key.h"

#include <string.h>

/* Position of the first delimiter within key[0, window), or -1. */
static long find_delimiter(const bp_config_t *cfg, const unsigned char *key,
                           size_t window) {
        size_t i, dlen = cfg->delimiter_len;
        const unsigned char *hit;

        if (dlen == 1) {
                hit = memchr(key, cfg->delimiter[0], window);
                return hit ? (long)(hit - key) : -1;
        }
        for (i = 0; i + dlen <= window; i++)
                if (key[i] == (unsigned char)cfg->delimiter[0] &&
                    !memcmp(key + i, cfg->delimiter, dlen))
                        return (long)i;
        return -1;
}

int bp_key_bucket(const bp_config_t *cfg, const void *key, size_t keylen) {
        size_t window, prefix;
        long at;
        int i;

        if (!key || keylen == 0)
                return BP_KEY_NONE;
        window = cfg->max_name_len + cfg->delimiter_len;
        if (window > keylen)
                window = keylen;
        at = find_delimiter(cfg, key, window);
        if (at >= 0)
                prefix = (size_t)at;
        else if (keylen <= cfg->max_name_len)
                prefix = keylen;
        else
                return BP_KEY_UNKNOWN; /* prefix longer than any name */

        for (i = 0; i < cfg->bucket_cnt; i++)
                if (cfg->buckets[i].name_len == prefix &&
                    !memcmp(cfg->buckets[i].name, key, prefix))
                        return i;
        return BP_KEY_UNKNOWN;
}
