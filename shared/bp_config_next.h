/*
 * bp_config_next.h - the configuration a live layout change moves to.
 */
#ifndef BP_CONFIG_NEXT_H
#define BP_CONFIG_NEXT_H

#include <stddef.h>

#include "bp_config.h"

/**
 * Fills \p next with the configuration the change of \p cfg moves to: cfg
 * with next.buckets, next.allocation and next.layout where set, and its
 * fallback resolved against the next buckets. Returns 0, or -1 with
 * \p errstr naming the property and why (counts that differ, a fallback
 * bucket the change removes, a built-in fallback partitioner).
 */
int bp_config_next(const bp_config_t *cfg,
                   bp_config_t *next,
                   char *errstr,
                   size_t errstr_size);

#endif /* BP_CONFIG_NEXT_H */
