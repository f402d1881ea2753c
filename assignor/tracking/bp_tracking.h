/*
 * bp_tracking.h - the tracking part of the consumer side: the hooks that
 * keep what an active bucket consumer tracks while it runs (c->consumer,
 * bp_consumer_side.h): the records each bucket delivered and the
 * partitions it holds, with their start and lag (both counted in held/,
 * bp_held.h) and, for a consumer of several buckets, its scheduler
 * (bp_scheduler.h). In the order a consumer's life calls them
 * (bp_tracking.c):
 *
 *   on_new()          bp_tracking_on_new(): the counters, and the
 *                     scheduler when it serves two buckets or more;
 *   a rebalance       the strategies (bp_strategy.h) call
 *                     bp_tracking_adding() / bp_tracking_assigning() with
 *                     the partitions of its buckets, bp_tracking_removing()
 *                     / bp_tracking_revoking() as they go, and the start
 *                     offsets part reports where each starts
 *                     (bp_tracking_committed());
 *   on_consume        each record counted for its bucket, and the
 *                     scheduler woken when a decision may change;
 *   on_destroy        the scheduler stopped, the held set freed.
 *
 * What the application reads of it: bp_consumer_bucket_stats()
 * (bp_consumer_stats.c, public: include/bucket_priority.h).
 */
#ifndef BP_TRACKING_H
#define BP_TRACKING_H

#include "bp_rdk.h"

#include "bp_client.h"
#include "bp_layout.h"

/**
 * Called from on_new() for every client: for an active bucket consumer,
 * starts counting (its own on_consume and on_destroy interceptors) and,
 * when it serves more than one bucket, starts the scheduler. Failure only
 * means no statistics or no scheduling (logged).
 */
void bp_tracking_on_new(bp_client_t *c,
                        rd_kafka_t *rk,
                        const rd_kafka_conf_t *conf);

/**
 * Called by bp_offsets_decide() with the group's committed offsets of every
 * partition of the bucket topic (RD_KAFKA_OFFSET_INVALID when none): where
 * a newly assigned partition starts, before the consumer has a position.
 */
void bp_tracking_committed(bp_client_t *c,
                           const rd_kafka_topic_partition_list_t *all);

/**
 * Called by the classic strategy (bp_classic_map()) with the list the
 * application is about to assign (start offsets decided) and the layout
 * it was mapped with: it becomes the held set, and the scheduler pauses
 * or resumes its partitions for the current lags before rd_kafka_assign():
 * no record of a lower bucket slips through a rebalance.
 */
void bp_tracking_assigning(bp_client_t *c,
                           rd_kafka_t *rk,
                           const rd_kafka_topic_partition_list_t *assigned,
                           const bp_layout_t *layout);

/**
 * The consumer protocol (KIP-848, bp_kip848.c), before an incremental
 * assignment: the partitions of \p added (start offsets decided) that the
 * consumer's buckets have under \p layout join the held set, the others
 * keep their entries, and the scheduler pauses or resumes the new ones
 * for the current lags before they are assigned.
 */
void bp_tracking_adding(bp_client_t *c,
                        rd_kafka_t *rk,
                        const rd_kafka_topic_partition_list_t *added,
                        const bp_layout_t *layout);

/**
 * The consumer protocol, before an incremental revocation: the partitions
 * of \p removed leave the held set (so the scheduler never pauses or
 * resumes them again, and their lag leaves the statistics); the scheduler
 * decides again over the partitions still held. No pause is in progress
 * when this returns.
 */
void bp_tracking_removing(bp_client_t *c,
                          const rd_kafka_topic_partition_list_t *removed);

/**
 * Called by the rebalance callbacks before they unassign (revocation, lost
 * partitions, errors): nothing is held until the next assignment, and no
 * pause is in progress when this returns.
 */
void bp_tracking_revoking(bp_client_t *c);

#endif /* BP_TRACKING_H */
