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

/* One-byte delimiter (the usual case). No bucket name contains the
 * delimiter (bp_config refuses it), so key k names bucket b exactly when
 * k starts with b's name and the byte after it is the delimiter, or k is
 * the name itself: one test per bucket, no scan for the delimiter. */
static int bucket_by_byte(const bp_config_t *cfg, const unsigned char *k,
                          size_t keylen) {
        unsigned char d = (unsigned char)cfg->delimiter[0];
        int i;

        for (i = 0; i < cfg->bucket_cnt; i++) {
                const bp_bucket_def_t *b = &cfg->buckets[i];
                size_t n                 = b->name_len;
                if ((keylen > n ? k[n] == d : keylen == n) &&
                    k[0] == (unsigned char)b->name[0] &&
                    !memcmp(k, b->name, n))
                        return i;
        }
        return BP_KEY_UNKNOWN;
}

/* Bytes [off, off + 8) of s (len bytes; zero beyond) as a word, and the
 * mask of the bytes that exist. */
static void word_at(const unsigned char *s, size_t len, size_t off,
                    uint64_t *word, uint64_t *mask) {
        unsigned char w[8] = {0}, m[8] = {0};
        size_t i;
        for (i = 0; i < 8 && off + i < len; i++) {
                w[i] = s[off + i];
                m[i] = 0xff;
        }
        memcpy(word, w, 8);
        memcpy(mask, m, 8);
}

void bp_key_matcher_init(bp_key_matcher_t *m, const bp_config_t *cfg) {
        unsigned char span[16];
        size_t n, s;
        int i;

        memset(m, 0, sizeof(*m));
        if (cfg->delimiter_len != 1)
                return;
        for (i = 0; i < cfg->bucket_cnt; i++)
                if (cfg->buckets[i].name_len > 15)
                        return;
        for (i = 0; i < cfg->bucket_cnt; i++) {
                n = cfg->buckets[i].name_len;
                s = n + 1;
                memcpy(span, cfg->buckets[i].name, n);
                span[n] = (unsigned char)cfg->delimiter[0];
                word_at(span, s, 0, &m->b[i].head, &m->b[i].head_mask);
                m->b[i].tail_off = s > 8 ? s - 8 : 0;
                if (s > 8)
                        word_at(span, s, s - 8, &m->b[i].tail,
                                &m->b[i].tail_mask);
                m->b[i].min_len = s > 8 ? s : 8;
        }
        m->bucket_cnt = cfg->bucket_cnt;
}

int bp_key_bucket(const bp_config_t *cfg, const void *key, size_t keylen) {
        size_t window, prefix;
        long at;
        int i;

        if (!key || keylen == 0)
                return BP_KEY_NONE;
        if (cfg->delimiter_len == 1)
                return bucket_by_byte(cfg, key, keylen);
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
