/*
 * bp_layout.h - which partitions of the topic belong to which bucket.
 *
 * Pure math on (allocations, partition count, layout kind); the producer
 * and every consumer compute the same answer independently, which is what
 * lets them agree without talking to each other. bp_layout_compute()
 * hands the partitions out in the buckets' priority order under one of
 * two layouts: contiguous, bucket sizes as the reference computes them, or
 * growth-stable, where a partition's bucket depends only on its number and
 * the allocations. All of it is in bp_layout.c, in that order.
 */
#ifndef BP_LAYOUT_H
#define BP_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "bp_config.h"
#include "bp_limits.h"


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

/* The priority order of the buckets, which both layouts share. */

/**
 * Fills \p order with the bucket indexes in priority order: allocation
 * descending, ties in configuration order. Both layouts hand partitions out
 * in this order.
 */
void bp_layout_priority_order(const uint32_t *allocation, int n, int *order);

/* The contiguous layout: bucket sizes as the reference computes them. */

/**
 * Contiguous sizes exactly as the reference computes them (single precision
 * shares, Math.round, leftovers round robin, truncated at the partition
 * count), before our rule that every bucket gets one partition. Used by the
 * layout and by the tests as the reference oracle's counterpart.
 */
void bp_layout_reference_sizes(const uint32_t *allocation,
                               int n,
                               int32_t partition_cnt,
                               int32_t *sizes);

/* The growth-stable layout. */

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

#endif /* BP_LAYOUT_H */
