/*
 * bp_kip848.h - the keep-and-pause strategy: a bucket consumer on the next
 * generation consumer group protocol (KIP-848, group.protocol=consumer),
 * or a classic member of a group the broker converted (bp_migrate.h),
 * keeps what the broker assigns and pauses what is not its bucket.
 *
 * The broker computes the assignment and librdkafka acknowledges exactly
 * the list it received, so the plugin does not map it (the steps:
 * bp_kip848.c). Revocations unassign the broker's list unchanged.
 *
 * A consumer of several buckets (bp_scheduler.h) follows the increments:
 * before an assignment, the new partitions of its buckets join the held
 * set and get the scheduler's pause state (bp_tracking_adding()); before a
 * revocation, the revoked ones leave it (bp_tracking_removing()), so the
 * scheduler pauses and resumes only partitions of its buckets still
 * assigned, and the others keep their start and lag. The scheduler never
 * sees the partitions kept paused here: they are not in the held set.
 * Configuration: bp_kip848_conf.h.
 */
#ifndef BP_KIP848_H
#define BP_KIP848_H

#include "bp_rdk.h"

#include "bp_client.h"
#include "bp_consumer_side.h"

/**
 * The plugin's own rebalance callback under strategy \p s
 * (BP_STRATEGY_KEEP_AND_PAUSE: assigns or unassigns the broker's list
 * incrementally; BP_STRATEGY_CONVERTED_GROUP, assignments only: assigns
 * the group's whole list), pausing what is not the consumer's buckets'.
 */
void bp_kip848_rebalance(bp_client_t *c,
                         rd_kafka_t *rk,
                         bp_strategy_t s,
                         rd_kafka_resp_err_t err,
                         rd_kafka_topic_partition_list_t *partitions);

/**
 * In front of the application's rebalance callback: hands it the broker's
 * list (start offsets set on the bucket's partitions), which it assigns
 * or unassigns itself, then pauses what is not the consumer's bucket.
 */
void bp_kip848_chain(bp_client_t *c,
                     rd_kafka_t *rk,
                     rd_kafka_resp_err_t err,
                     rd_kafka_topic_partition_list_t *partitions,
                     void *opaque);

/**
 * bp_assignment_map() on the consumer protocol: a copy of \p partitions
 * with the start offsets of the bucket's partitions set (nothing else
 * changes); the partitions outside the bucket are paused at once, since
 * no callback of the plugin runs after the application assigns the copy
 * (rebalances taken as events). A list this consumer is handing the
 * application right now is copied. Never NULL unless out of memory.
 */
rd_kafka_topic_partition_list_t *
bp_kip848_given(bp_client_t *c,
                rd_kafka_t *rk,
                const rd_kafka_topic_partition_list_t *partitions);

/**
 * A record of partition \p partition outside the consumer's bucket reached
 * the application (an application that resumed it): paused again.
 */
void bp_kip848_pause_one(rd_kafka_t *rk,
                         const char *topic, int32_t partition);

#endif /* BP_KIP848_H */
