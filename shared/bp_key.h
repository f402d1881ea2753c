/*
 * bp_key.h - reading the bucket out of a record key.
 */
#ifndef BP_KEY_H
#define BP_KEY_H

#include <stddef.h>

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

#endif /* BP_KEY_H */
