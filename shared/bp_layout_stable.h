/*
 * bp_layout_stable.h - the growth-stable layout.
 */
#ifndef BP_LAYOUT_STABLE_H
#define BP_LAYOUT_STABLE_H

#include <stdint.h>

#include "bp_limits.h"

/**
 * Stable layout: writes the bucket of each partition 0..partition_cnt-1.
 * The bucket of partition p depends only on p and the allocations.
 */
void bp_layout_stable_assign(const uint32_t *allocation,
                             int n,
                             int32_t partition_cnt,
                             uint8_t *bucket_of);

/**
 * The smallest partition count at which every bucket holds at least one
 * partition under the stable layout.
 */
int32_t bp_layout_stable_min(const uint32_t *allocation, int n);

#endif /* BP_LAYOUT_STABLE_H */
