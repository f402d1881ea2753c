/*
 * bp_key.h - reading the bucket out of a record key.
 */
#ifndef BP_KEY_H
#define BP_KEY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bp_config.h"

/** bp_key_bucket() results that are not a bucket index. */
#define BP_KEY_NONE -1    /**< NULL or empty key. */
#define BP_KEY_UNKNOWN -2 /**< The key names no configured bucket. */

/**
 * Returns the index of the bucket named by \p key: the bytes before the
 * first delimiter, or the whole key when it has none, matched exactly
 * against the bucket names. Reads at most (longest name + delimiter length)
 * bytes of the key, whatever its length; keys may hold any bytes, NUL too.
 */
int bp_key_bucket(const bp_config_t *cfg, const void *key, size_t keylen);

/** bp_key_match() result: the matcher cannot tell, ask bp_key_bucket(). */
#define BP_KEY_UNDECIDED -3

/**
 * The bucket names with the delimiter after them, as 64-bit words, so that
 * a key's prefix is checked with two loads and two compares per bucket.
 * Built when every name is at most 15 bytes and the delimiter is one byte;
 * otherwise empty and bp_key_match() always answers BP_KEY_UNDECIDED.
 */
typedef struct bp_key_matcher {
        int bucket_cnt; /**< 0: matcher not usable. */
        struct {
                uint64_t head, head_mask; /**< bytes 0..7 of name+delim */
                uint64_t tail, tail_mask; /**< bytes span-8..span-1 */
                size_t tail_off;          /**< span - 8, or 0 */
                size_t min_len;           /**< max(span, 8) */
        } b[BP_MAX_BUCKETS];
} bp_key_matcher_t;

/** Builds \p m from \p cfg (see bp_key_matcher_t). */
void bp_key_matcher_init(bp_key_matcher_t *m, const bp_config_t *cfg);

/**
 * The bucket of \p key, as bp_key_bucket() would say, for keys of at least
 * 8 bytes that start with a bucket name and the delimiter; anything else
 * (short keys, keys naming no bucket) gets BP_KEY_UNDECIDED.
 */
static inline int bp_key_match(const bp_key_matcher_t *m, const void *key,
                               size_t keylen) {
        const unsigned char *k = key;
        uint64_t head, tail;
        int i;

        if (!key || keylen < 8)
                return BP_KEY_UNDECIDED;
        memcpy(&head, k, 8);
        for (i = 0; i < m->bucket_cnt; i++) {
                if ((head & m->b[i].head_mask) != m->b[i].head ||
                    keylen < m->b[i].min_len)
                        continue;
                memcpy(&tail, k + m->b[i].tail_off, 8);
                if ((tail & m->b[i].tail_mask) == m->b[i].tail)
                        return i;
        }
        return BP_KEY_UNDECIDED;
}

#endif /* BP_KEY_H */
