/*
 * bp_layout.h - which partitions of the topic belong to which bucket.
 *
 * Pure math on (allocations, partition count, layout kind); the producer
 * and every consumer compute the same answer independently, which is what
 * lets them agree without talking to each other.
 */
#ifndef BP_LAYOUT_H
#define BP_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "bp_config.h"
/* The two layouts and the order they share, for the callers of both. */
#include "bp_layout_contiguous.h"
#include "bp_layout_order.h"
#include "bp_layout_stable.h"

/** An immutable layout for one partition count. */
typedef struct bp_layout {
        int32_t partition_cnt;
        int bucket_cnt;
        int32_t first[BP_MAX_BUCKETS]; /**< Start of bucket i in partitions */
        int32_t count[BP_MAX_BUCKETS]; /**< Partitions of bucket i */
        int32_t *partitions; /**< Grouped by bucket, ascending in each. */
        uint8_t *bucket_of;  /**< Bucket index of each partition. */
} bp_layout_t;

/**
 * Computes the layout of \p partition_cnt partitions for the buckets and
 * allocations of \p cfg, with cfg->layout. Returns a new layout (free it
 * with bp_layout_destroy()) or NULL with \p errstr saying why (fewer
 * partitions than buckets for the contiguous layout, no buckets, out of
 * memory). With the stable layout a bucket may hold no partition when its
 * share of the topic is below one partition (see bp_layout_stable_min()).
 */
bp_layout_t *bp_layout_compute(const bp_config_t *cfg,
                               int32_t partition_cnt,
                               char *errstr,
                               size_t errstr_size);

/** Frees a layout from bp_layout_compute(). NULL is ignored. */
void bp_layout_destroy(bp_layout_t *layout);

#endif /* BP_LAYOUT_H */
