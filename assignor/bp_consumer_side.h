/*
 * bp_consumer_side.h - the consumer side's face to the entry point: the
 * consumer's part of the client's state (c->consumer) and its creation
 * hook (bp_consumer_on_new(), bp_consumer.c).
 *
 * The consumer side in parts, from the top down (each explained at the top
 * of its header):
 *   bp_consumer.c  creation and the safety net;
 *   strategy/      a rebalance event: the one decision and the three
 *                  strategies (bp_strategy.h);
 *   offsets/       where each assigned partition starts (bp_start_offsets.h);
 *   conf/          what the properties become (bp_conf.h);
 *   tracking/      the hooks that follow records and rebalances, and the
 *                  statistics (bp_tracking.h);
 *   scheduler/     a consumer of several buckets: which bucket delivers
 *                  (bp_scheduler.h);
 *   held/          what is counted: deliveries, partitions held, lag
 *                  (bp_held.h).
 *
 * The state comes in two parts: what the consumer's configuration said
 * (props), and what it turned out to be once it runs (run: its mode, the
 * rebalance callback put in front of the application's, the list it is
 * handing that callback, the safety net's state, the caches, and what a
 * bucket consumer tracks while it runs, bp_tracking.h). The entry point
 * makes it with the client's state, copies it with the configuration and
 * frees it with it.
 */
#ifndef BP_CONSUMER_SIDE_H
#define BP_CONSUMER_SIDE_H

#include <stdatomic.h>
#include <stdint.h>

#include "bp_rdk.h"
#include "bp_held.h"
#include "bp_client.h"

struct bp_scheduler;

/** How long a rebalance waits for each answer of the cluster (metadata,
 *  committed offsets, the sibling groups' commits). */
#define BP_REBALANCE_TIMEOUT_MS 10000

typedef void(bp_rebalance_fn_t)(rd_kafka_t *rk,
                                rd_kafka_resp_err_t err,
                                rd_kafka_topic_partition_list_t *partitions,
                                void *opaque);

/** What group.protocol said, as the plugin keeps it. */
typedef enum {
        BP_PROTOCOL_CLASSIC,       /**< Unset or "classic". */
        BP_PROTOCOL_CONSUMER,      /**< "consumer", librdkafka has it. */
        BP_PROTOCOL_CONSUMER_HELD  /**< "consumer" set after the bucket:
                                    *   librdkafka keeps "classic" until
                                    *   on_new() (bp_kip848_conf.c). */
} bp_protocol_choice_t;

/** What a bucket consumer turned out to be once it runs: the one value
 *  the decision of each rebalance event starts from
 *  (decide_strategy(), bp_rebalance.c). */
typedef enum {
        /** The classic protocol: maps its assignments as indexes, and
         *  asks at each assignment whether the broker converted its group
         *  (bp_migrate.c). */
        BP_CONSUMER_CLASSIC,
        /** The classic protocol, on a cluster that cannot tell this
         *  client its group's type (an unsupported request, no answer):
         *  it no longer asks, and maps. */
        BP_CONSUMER_CLASSIC_UNASKED,
        /** A classic member of a group the broker runs as a consumer group
         *  (a migration under way, bp_migrate.c): it keeps and pauses
         *  until the group is classic again. */
        BP_CONSUMER_CONVERTED,
        /** The next generation group protocol (KIP-848, bp_kip848.c): it
         *  keeps what the broker assigns and pauses the partitions
         *  outside its buckets. */
        BP_CONSUMER_KIP848
} bp_consumer_mode_t;

/** Configuration time: what the properties said (copied with the
 *  configuration). */
typedef struct bp_consumer_props {
        char base_group_id[256];   /**< group.id as the user set it. */
        char user_strategy[128];   /**< partition.assignment.strategy. */
        bp_protocol_choice_t protocol; /**< group.protocol. */
        int remote_assignor_user_set; /**< The user chose
                                       *   group.remote.assignor. */
        int refresh_user_set;      /**< The user chose the refresh. */
        unsigned sched_user_set;   /**< Bit i: the user set the i-th
                                    *   property tuned for a consumer of
                                    *   several buckets
                                    *   (bp_consumer_conf.c). */
        unsigned sched_set;        /**< Bit i: we set it (a bucket list). */
        uint64_t consumer_mask;    /**< Bit b: this consumer serves b. */
} bp_consumer_props_t;

/** Run time, from on_new() on: what the group turned out to be, the
 *  event under way, and the caches. */
typedef struct bp_consumer_run {
        bp_consumer_mode_t mode;   /**< Its poll thread writes it. */
        _Atomic int64_t safety_layout_tried_ms; /**< Last metadata try. */
        /** The application's own rebalance callback, which
         *  bp_rebalance_chain() calls with the mapped list (NULL: none). */
        bp_rebalance_fn_t *app_rebalance_cb;
        /** The list bp_rebalance_chain() is handing the application right
         *  now (its poll thread only): given to bp_assignment_map() again by
         *  an application that chains it, it is copied, not mapped twice. */
        const rd_kafka_topic_partition_list_t *mapped_in_flight;
        /** Consumer taking rebalances as events it does not map: 1 once it
         *  asked to join its group; the safety net then pauses whatever it
         *  is assigned (bp_consumer.c). */
        _Atomic int unmapped_joined;
        /** Its group's commits at the last rebalance, and the layout it
         *  read with then (bp_offsets.c). */
        struct {
                int64_t *commits;
                int32_t cnt;
                const bp_layout_t *layout;
        } change_seen;
        /** When a helper client last got no answer where the consumer
         *  did (bp_clock_ms(); 0: never): for BP_READER_RETRY_MS after,
         *  the partition count is asked of the consumer and the sibling
         *  groups are not read (bp_reader.c). */
        int64_t helpers_failed_ms;
        int64_t siblings_skip_logged_ms; /**< bp_siblings.c said it skips. */
        /** The brokers a helper client bootstraps from when the
         *  consumer's configuration names none (the host gave them with
         *  rd_kafka_brokers_add()): learned from the consumer once, at its
         *  first rebalance (bp_reader.c); NULL until then. Its poll
         *  thread only. */
        char *lent_brokers;
        /** What the sibling groups had committed, per partition of the
         *  topic, when this consumer last read them under \c layout
         *  (bp_siblings.c): read[p] set once every sibling group answered
         *  for p; best[p] the highest commit (-1: none), from[p] its
         *  bucket. Its poll thread only. */
        struct {
                const bp_layout_t *layout;
                int32_t cnt;
                uint8_t *read;
                int64_t *best;
                int *from;
        } siblings_seen;
        /** The sibling reads begun at creation (bp_prefetch.c): the
         *  first rebalance takes what they found, on_destroy() ends and
         *  frees them. Atomic: set on the application's thread, read on
         *  librdkafka's. */
        struct bp_prefetch *_Atomic prefetch;

        /* An active bucket consumer, from on_new() to on_destroy()
         * (bp_tracking.c): */
        int tracking;                /**< What follows is kept. */
        bp_deliveries_t deliveries;  /**< Records each bucket delivered. */
        bp_held_t held;              /**< Partitions held, their lag. */
        struct bp_scheduler *sched;  /**< Several buckets: the scheduler. */
} bp_consumer_run_t;

typedef struct bp_consumer_side {
        bp_consumer_props_t props; /**< Configuration time. */
        bp_consumer_run_t run;     /**< Run time. */
} bp_consumer_side_t;

/** A fresh consumer side, or NULL (no memory). */
bp_consumer_side_t *bp_consumer_side_new(void);

/** A copy of \p src's configuration-time part (for on_conf_dup), or NULL. */
bp_consumer_side_t *bp_consumer_side_dup(const bp_consumer_side_t *src);

/** Frees it. NULL is ignored. */
void bp_consumer_side_destroy(bp_consumer_side_t *k);

/*
 * bp_consumer.c: the consumer side at client creation, called by the
 * entry point (entry/bp_entry.c): checks what the configuration became,
 * puts the mapping in front of the application's own rebalance callback,
 * installs the safety net and starts tracking the consumer's buckets.
 */

/** Called from on_new() for every client. */
rd_kafka_resp_err_t bp_consumer_on_new(bp_client_t *c,
                                       rd_kafka_t *rk,
                                       const rd_kafka_conf_t *conf,
                                       char *errstr,
                                       size_t errstr_size);

#endif /* BP_CONSUMER_SIDE_H */
