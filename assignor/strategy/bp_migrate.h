/*
 * bp_migrate.h - a classic bucket consumer whose group the broker has
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
 * classic bucket consumer asks the broker what its group is
 * (DescribeConsumerGroups): in a consumer group it keeps what it was given
 * and pauses the rest, as a member on the consumer protocol does
 * (bp_kip848.h); in a classic group it maps as before. The group returns
 * to classic when its last consumer-protocol member leaves; the next
 * assignment sees that.
 *
 * How the group is recognised: librdkafka 2.10 and later report the
 * group's type. Older ones are not asked, and map as before: their
 * classic DescribeGroups request does tell a consumer group (Kafka 4.4
 * answers it with the state Dead and no members), but librdkafka 2.0.2
 * deadlocked when the request was made from the rebalance callback
 * (test_mock_consumer hung in rd_kafka_assign()). A consumer that is no
 * member yet is not asked; a cluster that cannot describe groups to the
 * client (an unsupported request, no answer in BP_MIGRATE_TIMEOUT_MS) is
 * asked once: the consumer then maps as on the classic protocol.
 */
#ifndef BP_MIGRATE_H
#define BP_MIGRATE_H

#include "bp_rdk.h"

#include "bp_client.h"

/** How long an assignment waits for the broker's description (ms). */
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
 * asking (BP_CONSUMER_CLASSIC_UNASKED) when it cannot describe groups.
 */
int bp_migrate_group_converted(bp_client_t *c, rd_kafka_t *rk);

#endif /* BP_MIGRATE_H */
