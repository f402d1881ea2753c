/*
 * bp_strategy.h - the strategies part of the consumer side: what a bucket
 * consumer does with a rebalance event, decided once per event.
 *
 * An event enters in one of three ways: the plugin's own rebalance
 * callback (bp_rebalance_cb(), public), the callback put in front of the
 * application's (bp_rebalance_chain()), or a list the application passes
 * to bp_assignment_map() (public). Each of them asks the one decision
 * (decide_strategy() in bp_rebalance.c) which strategy serves this client
 * and this event, a bp_strategy_t, and hands the event to it:
 *
 *   BP_STRATEGY_CLASSIC_MAPPING  the classic group protocol: the group's
 *                                roundrobin assignor spreads partition
 *                                numbers 0..P-1 over the members; they are
 *                                read as indexes into the bucket's own
 *                                partitions (bp_classic.c);
 *   BP_STRATEGY_KEEP_AND_PAUSE   the consumer group protocol (KIP-848):
 *                                the broker's list is kept as it is and
 *                                what is not the bucket's is paused
 *                                (bp_kip848.c);
 *   BP_STRATEGY_CONVERTED_GROUP  a classic member of a group the broker
 *                                converted to that protocol (recognised in
 *                                bp_migrate.c): kept and paused too.
 *
 * Each strategy does its whole job: start offsets (bp_start_offsets.h), the held
 * set and the scheduler (bp_tracking.h), the assign or unassign call. The
 * consumer's mode, which the decision starts from, is in
 * bp_consumer_side.h.
 */
#ifndef BP_STRATEGY_H
#define BP_STRATEGY_H

#include "bp_rdk.h"
#include "bp_client.h"

/** Which strategy serves one rebalance event, decided once per event
 *  (decide_strategy(), bp_rebalance.c). */
typedef enum {
        /** Map the group's indexes onto the bucket's partitions
         *  (bp_classic.c). */
        BP_STRATEGY_CLASSIC_MAPPING,
        /** Keep what the broker assigned, incrementally, and pause what
         *  is not the consumer's (bp_kip848.c). */
        BP_STRATEGY_KEEP_AND_PAUSE,
        /** A classic member of a converted group: keep the whole eager
         *  assignment and pause what is not the consumer's
         *  (bp_kip848.c, bp_migrate.c). */
        BP_STRATEGY_CONVERTED_GROUP
} bp_strategy_t;

/*
 * bp_rebalance.c: the rebalance callback put in front of an
 * application's own (bp_assignment_map() and bp_rebalance_cb() are public:
 * include/bucket_priority.h).
 */

/**
 * The rebalance callback put in front of an application's own (see
 * bp_consumer_on_new()): maps the assignment and hands the application's
 * callback the mapped list, and on revocation the partitions it holds.
 */
void bp_rebalance_chain(rd_kafka_t *rk,
                        rd_kafka_resp_err_t err,
                        rd_kafka_topic_partition_list_t *partitions,
                        void *opaque);

/*
 * bp_classic.c: the classic mapping strategy: a bucket consumer on the
 * classic group protocol maps the group's assignment, read as indexes,
 * onto its buckets' partitions (the algorithm: bp_classic.c).
 */

/*
 * Each entry takes \p bucket_topic, whether the list holds a partition of
 * the bucket topic, as the decision found it (bp_rebalance.c).
 */

/**
 * bp_assignment_map() on the classic protocol: the list to assign for
 * \p partitions as the group gave them (start offsets decided, the held
 * set updated), a copy when there is nothing to map (no bucket, another
 * topic, a list already mapped in this rebalance), or NULL with
 * \p errstr set. \p c may be NULL (a client without the plugin).
 */
rd_kafka_topic_partition_list_t *
bp_classic_map(bp_client_t *c,
               rd_kafka_t *rk,
               const rd_kafka_topic_partition_list_t *partitions,
               int bucket_topic,
               char *errstr,
               size_t errstr_size);

/**
 * The plugin's own rebalance callback on the classic protocol: assigns
 * the mapped list, or nothing (revocation, error, no layout).
 */
void bp_classic_rebalance(bp_client_t *c,
                          rd_kafka_t *rk,
                          rd_kafka_resp_err_t err,
                          rd_kafka_topic_partition_list_t *partitions,
                          int bucket_topic);

/**
 * In front of the application's rebalance callback on the classic
 * protocol: hands it the mapped list, and on revocation the partitions
 * it holds, which it assigns or unassigns itself.
 */
void bp_classic_chain(bp_client_t *c,
                      rd_kafka_t *rk,
                      rd_kafka_resp_err_t err,
                      rd_kafka_topic_partition_list_t *partitions,
                      int bucket_topic,
                      void *opaque);

/*
 * bp_kip848.c: the keep-and-pause strategy: a bucket consumer on the next
 * generation consumer group protocol (KIP-848, group.protocol=consumer),
 * or a classic member of a group the broker converted (bp_migrate.c),
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
 * Configuration: bp_kip848_conf.c.
 */

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

/*
 * bp_migrate.c: a classic bucket consumer whose group the broker has
 * turned into a consumer group: Kafka's online migration between the
 * classic and the consumer protocol (KIP-848), members restarted one by
 * one.
 *
 * Once one member of a classic group joins with group.protocol=consumer,
 * the broker converts the group; the classic members keep JoinGroup and
 * SyncGroup, but the broker's server-side assignor computes what they get
 * (real partition numbers of the whole topic), not the classic leader's
 * roundrobin. Mapped as indexes (bp_classic.c) those numbers leave the
 * bucket's partitions unread or read twice. So at each assignment a
 * classic bucket consumer asks the brokers what its group is (the
 * consumer groups they list, ListConsumerGroups filtered by type; not the
 * group's coordinator: see bp_migrate.c): in a consumer group it keeps
 * what it was given and pauses the rest, as a member on the consumer
 * protocol does (bp_kip848.c); in a classic group it maps as before. The
 * group returns to classic when its last consumer-protocol member leaves;
 * the next assignment sees that.
 *
 * How the group is recognised: librdkafka 2.10 and later are asked (the
 * type filter exists from 2.6, but the consumer side is tested with 2.10
 * and later). Older ones are not asked, and map as before: their
 * classic DescribeGroups request does tell a consumer group (Kafka 4.4
 * answers it with the state Dead and no members), but librdkafka 2.0.2
 * deadlocked when the request was made from the rebalance callback
 * (test_mock_consumer hung in rd_kafka_assign()). A consumer that is no
 * member yet is not asked; a cluster that cannot tell group types to the
 * client (an unsupported request or filter, no answer in
 * BP_MIGRATE_TIMEOUT_MS) is asked once: the consumer then maps as on the
 * classic protocol.
 */

/** How long an assignment waits for the brokers' list (ms). */
#define BP_MIGRATE_TIMEOUT_MS 3000

/** What the broker runs a group as. */
typedef enum {
        BP_GROUP_UNKNOWN,  /**< No answer (timeout, error). */
        BP_GROUP_CLASSIC,  /**< A classic group. */
        BP_GROUP_CONSUMER  /**< A consumer group (KIP-848), classic
                            *   members included. */
} bp_group_kind_t;

/**
 * Asks the broker what the consumer's group (its effective group.id) is,
 * waiting at most \p timeout_ms.
 */
bp_group_kind_t bp_migrate_group_kind(bp_client_t *c, rd_kafka_t *rk,
                                      int timeout_ms);

/**
 * At an assignment of partitions of the bucket topic to a classic bucket
 * consumer: whether they are to be kept and paused rather than mapped,
 * because the group is a consumer group now. Asks the broker (once per
 * rebalance event: bp_rebalance.c decides there), moves the consumer's
 * mode between BP_CONSUMER_CLASSIC and BP_CONSUMER_CONVERTED and logs each
 * change; keeps the last answer when the broker gives none, and stops
 * asking (BP_CONSUMER_CLASSIC_UNASKED) when the cluster cannot tell group
 * types.
 */
int bp_migrate_group_converted(bp_client_t *c, rd_kafka_t *rk);

#endif /* BP_STRATEGY_H */
