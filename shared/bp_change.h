/*
 * bp_change.h - a live layout change, planned so that no record is ever
 * read by another bucket's consumers.
 *
 * The layout a topic moves to is given by bucket.priority.next.* beside the
 * current one. A partition that changes bucket must never hold records of
 * two buckets while its readers change: the old bucket's producers stop
 * writing to it, its consumers read it to the end, and only then do the
 * new bucket's consumers take it over and its producers write to it. The
 * change therefore runs in numbered steps (bucket.priority.next.step),
 * each rolling either the producers or the consumers:
 *
 *   3 steps when every bucket keeps at least one partition through the
 *   change: 1 producers write only to partitions their bucket keeps,
 *   2 consumers read the new layout, 3 producers write the new layout;
 *
 *   5 steps when a bucket keeps none ("homeless", as when two blocks of
 *   the contiguous layout swap ends): 1 producers as above, homeless
 *   buckets still on their old partitions; 2 consumers read a changing
 *   layout in which each homeless bucket holds its old partitions and the
 *   ones it gains; 3 homeless buckets' producers move to the partitions
 *   they gain; 4 consumers read the new layout; 5 producers write it.
 *
 * Before each consumer step the partitions whose reader changes must be
 * drained by their old reader (bp_change_drain()). Pure math on two
 * configurations and a partition count: no librdkafka.
 */
#ifndef BP_CHANGE_H
#define BP_CHANGE_H

#include <stddef.h>
#include <stdint.h>

#include "bp_config.h"
#include "bp_layout.h"
#include "bp_properties.h"

/** Largest bucket.priority.next.step value. */
#define BP_CHANGE_MAX_STEP BP_MAX_STEP

/** bucket_of value of a partition no bucket of the current configuration
 *  reads (it goes to a bucket that the change adds). */
#define BP_LAYOUT_NOBODY 255

/** Who rolls at a step of the change. */
typedef enum {
        BP_STEP_PRODUCERS = 0,
        BP_STEP_CONSUMERS = 1
} bp_step_kind_t;

/** A change of one topic at one partition count. */
typedef struct bp_change_plan {
        bp_config_t next;      /**< The configuration the change moves to. */
        bp_layout_t *from;     /**< The current layout. */
        bp_layout_t *to;       /**< The next layout (next's bucket indexes). */
        int32_t partition_cnt;
        /** For each current bucket: the next bucket its records belong to
         *  after the change (same name, else next's fallback bucket), or -1
         *  when they are discarded after it. */
        int target[BP_MAX_BUCKETS];
        /** For each next bucket: the current bucket of the same name, or -1
         *  (a bucket the change adds). */
        int same[BP_MAX_BUCKETS];
        /** 1 for a current bucket that keeps no partition (see above). */
        int homeless[BP_MAX_BUCKETS];
        int homeless_cnt;
        int step_cnt; /**< 3, or 5 with homeless buckets. */
        /** Non-empty when the plan cannot be followed past step 1: why,
         *  naming the bucket. Producers then stay at step 1, which is
         *  always safe. */
        char refused[400];
} bp_change_plan_t;

/**
 * Plans the change of \p cfg (cfg->next.set) at \p partition_cnt: the
 * next configuration (bp_config_next()) and both layouts computed, then
 * bp_change_plan_of(). Returns a plan (free it with
 * bp_change_plan_destroy()), or NULL with \p errstr when a layout cannot
 * be computed. A plan that cannot be followed past step 1 is returned with
 * plan->refused set.
 */
bp_change_plan_t *bp_change_plan_new(const bp_config_t *cfg,
                                     int32_t partition_cnt,
                                     char *errstr,
                                     size_t errstr_size);

/**
 * Plans the change of \p cfg to \p next (bp_config_next() of cfg) from
 * their layouts at one partition count, already computed: \p from
 * (bp_layout_compute() of cfg) and \p to (of next). The plan takes both:
 * they are freed with it, or at once when NULL is returned. NULL when
 * either is NULL (its computation's \p errstr stands) or out of memory
 * (with \p errstr). For a caller that computes the current layout anyway
 * (plugin/bp_client_layout.c); the rest as bp_change_plan_new().
 */
bp_change_plan_t *bp_change_plan_of(const bp_config_t *cfg,
                                    const bp_config_t *next,
                                    bp_layout_t *from,
                                    bp_layout_t *to,
                                    char *errstr,
                                    size_t errstr_size);

/** Frees a plan. NULL is ignored. */
void bp_change_plan_destroy(bp_change_plan_t *plan);

/** Who rolls at step \p step (1..plan->step_cnt). */
bp_step_kind_t bp_change_step_kind(const bp_change_plan_t *plan, int step);

/**
 * The layout a producer routes with at step \p step, in the current
 * configuration's bucket indexes: each bucket's partitions are the ones
 * its records go to (first/count/partitions); bucket_of is the current
 * layout's. A bucket with no partition there has its records failed.
 * Steps from plan->step_cnt on are routed by the next properties
 * themselves, not through this call: they give the last earlier step.
 * Returns NULL when out of memory.
 */
bp_layout_t *bp_change_route_layout(const bp_change_plan_t *plan, int step);

/**
 * The layout a consumer reads at step \p step, in the current
 * configuration's bucket indexes: the current layout before the first
 * consumer step, the changing one during a 5-step plan's second step, the
 * next one from the last consumer step on. Partitions of a bucket the
 * change adds are BP_LAYOUT_NOBODY's. Returns NULL when out of memory.
 */
bp_layout_t *bp_change_read_layout(const bp_change_plan_t *plan, int step);

/**
 * Bucket (current index, or BP_LAYOUT_NOBODY for one the change adds, with
 * its next index in \p next_bucket) reading partition \p p at step
 * \p step. \p next_bucket may be NULL.
 */
int bp_change_reader(const bp_change_plan_t *plan,
                     int step,
                     int32_t p,
                     int *next_bucket);

/**
 * The partitions that must be drained before consumer step \p step may
 * start: their reader changes at that step. Writes 1 to drain[p] for each
 * (room for partition_cnt) and returns how many; 0 for a producer step.
 * Their old reader is bp_change_reader(plan, step - 1, p, NULL).
 */
int32_t bp_change_drain(const bp_change_plan_t *plan,
                        int step,
                        uint8_t *drain);

/**
 * A short fingerprint of what a layout does: FNV-1a over the partition
 * count and each bucket's name (from \p cfg) and partitions, written as 8
 * hex digits into \p out (9 bytes). Two clients with the same fingerprint
 * route or read the same partitions per bucket, whatever the properties
 * that made the layout.
 */
void bp_layout_fingerprint(const bp_layout_t *l,
                           const bp_config_t *cfg,
                           char out[9]);

#endif /* BP_CHANGE_H */
