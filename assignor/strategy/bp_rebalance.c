/*
 * bp_rebalance.c - the three ways a rebalance event enters the consumer
 * side, and the one decision each of them makes first.
 *
 * An event enters through the plugin's own rebalance callback
 * (bp_rebalance_cb()), through the callback put in front of the
 * application's (bp_rebalance_chain()), or as a list the application
 * passes to bp_assignment_map() (rebalances taken as events, or an
 * application's callback that maps). Each asks decide_strategy() once
 * which strategy serves this client and this event (bp_strategy_t), then
 * hands the event to that strategy, which does the whole job:
 *
 *   BP_STRATEGY_CLASSIC_MAPPING   bp_classic.c (the classic protocol)
 *   BP_STRATEGY_KEEP_AND_PAUSE    bp_kip848.c  (the consumer protocol)
 *   BP_STRATEGY_CONVERTED_GROUP   bp_kip848.c  (a classic member of a
 *                                 group converted, bp_migrate.c)
 */
#include <stdio.h>
#include <string.h>

#include "bucket_priority.h"
#include "bp_registry.h"
#include "bp_strategy.h"
#include "bp_consumer_side.h"

/* 1 if \p list (NULL: none) holds a partition of the bucket topic. */
static int has_bucket_topic(const bp_client_t *c,
                            const rd_kafka_topic_partition_list_t *list) {
        int i;
        for (i = 0; list && i < list->cnt; i++)
                if (bp_is_bucket_topic(c, list->elems[i].topic))
                        return 1;
        return 0;
}

/* The one decision: which strategy serves event \p err on \p partitions
 * for client \p c (NULL: a client without the plugin, which the classic
 * strategy passes through); *bucket_topic set when the list holds a
 * partition of the bucket topic (the strategies need not look again).
 * The consumer protocol keeps and pauses everything; on the classic
 * protocol only an assignment of the bucket topic can be kept and paused,
 * when the broker says the group is converted (asked once per event: not
 * for a list of this event the application hands back). */
static bp_strategy_t
decide_strategy(bp_client_t *c, rd_kafka_t *rk, rd_kafka_resp_err_t err,
                const rd_kafka_topic_partition_list_t *partitions,
                int *bucket_topic) {
        *bucket_topic = c && has_bucket_topic(c, partitions);
        if (!c)
                return BP_STRATEGY_CLASSIC_MAPPING;
        if (c->consumer->run.mode == BP_CONSUMER_KIP848)
                return BP_STRATEGY_KEEP_AND_PAUSE;
        if (err != RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS || !*bucket_topic)
                return BP_STRATEGY_CLASSIC_MAPPING;
        if (partitions == c->consumer->run.mapped_in_flight)
                return c->consumer->run.mode == BP_CONSUMER_CONVERTED
                           ? BP_STRATEGY_CONVERTED_GROUP
                           : BP_STRATEGY_CLASSIC_MAPPING;
        return bp_migrate_group_converted(c, rk)
                   ? BP_STRATEGY_CONVERTED_GROUP
                   : BP_STRATEGY_CLASSIC_MAPPING;
}

rd_kafka_topic_partition_list_t *
bp_assignment_map(rd_kafka_t *rk,
                  const rd_kafka_topic_partition_list_t *partitions,
                  char *errstr,
                  size_t errstr_size) {
        bp_client_t *c = bp_registry_find(rk);
        int bucket_topic;

        if (errstr_size)
                errstr[0] = '\0';
        switch (decide_strategy(c, rk, RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS,
                                partitions, &bucket_topic)) {
        case BP_STRATEGY_KEEP_AND_PAUSE:
        case BP_STRATEGY_CONVERTED_GROUP:
                return bp_kip848_given(c, rk, partitions);
        case BP_STRATEGY_CLASSIC_MAPPING:
        default:
                return bp_classic_map(c, rk, partitions, bucket_topic, errstr,
                                      errstr_size);
        }
}

void bp_rebalance_cb(rd_kafka_t *rk,
                     rd_kafka_resp_err_t err,
                     rd_kafka_topic_partition_list_t *partitions,
                     void *opaque) {
        bp_client_t *c = bp_registry_find(rk);
        int bucket_topic;
        bp_strategy_t s =
            decide_strategy(c, rk, err, partitions, &bucket_topic);

        (void)opaque;
        switch (s) {
        case BP_STRATEGY_KEEP_AND_PAUSE:
        case BP_STRATEGY_CONVERTED_GROUP:
                bp_kip848_rebalance(c, rk, s, err, partitions);
                return;
        case BP_STRATEGY_CLASSIC_MAPPING:
        default:
                bp_classic_rebalance(c, rk, err, partitions, bucket_topic);
                return;
        }
}

void bp_rebalance_chain(rd_kafka_t *rk,
                        rd_kafka_resp_err_t err,
                        rd_kafka_topic_partition_list_t *partitions,
                        void *opaque) {
        bp_client_t *c = bp_registry_find(rk);
        int bucket_topic;

        if (!c || !c->consumer->run.app_rebalance_cb) {
                bp_rebalance_cb(rk, err, partitions, opaque);
                return;
        }
        switch (decide_strategy(c, rk, err, partitions, &bucket_topic)) {
        case BP_STRATEGY_KEEP_AND_PAUSE:
        case BP_STRATEGY_CONVERTED_GROUP:
                bp_kip848_chain(c, rk, err, partitions, opaque);
                return;
        case BP_STRATEGY_CLASSIC_MAPPING:
        default:
                bp_classic_chain(c, rk, err, partitions, bucket_topic,
                                 opaque);
                return;
        }
}

/* A client's own entry (not one of its topic handles) named \p arg. */
static int is_named(const void *handle, const bp_client_t *c, void *arg) {
        return c->rk == handle && !strcmp(rd_kafka_name(c->rk), arg);
}

/* The client named \p name that loaded the plugin, or NULL. */
static rd_kafka_t *client_by_name(const char *name) {
        bp_client_t *c = name ? bp_registry_search(is_named, (void *)name)
                              : NULL;
        return c ? c->rk : NULL;
}

int bp_assignment_map_by_name(const char *client_name,
                              const char *const *topics,
                              const int32_t *partitions,
                              int cnt,
                              int32_t *out_index,
                              int32_t *out_partitions,
                              int64_t *out_offsets,
                              char *errstr,
                              size_t errstr_size) {
        rd_kafka_t *rk = client_by_name(client_name);
        rd_kafka_topic_partition_list_t *in, *out;
        int i, j, n;

        if (!rk || cnt < 0 || (cnt > 0 && (!topics || !partitions ||
                                            !out_index || !out_partitions ||
                                            !out_offsets))) {
                snprintf(errstr, errstr_size,
                         rk ? "bp_assignment_map_by_name: bad arguments"
                            : "bp_assignment_map_by_name: no client named "
                              "\"%.64s\" loaded bucket-priority",
                         client_name ? client_name : "(null)");
                return -1;
        }
        in = rd_kafka_topic_partition_list_new(cnt);
        for (i = 0; i < cnt; i++)
                rd_kafka_topic_partition_list_add(in, topics[i],
                                                  partitions[i]);
        out = bp_assignment_map(rk, in, errstr, errstr_size);
        rd_kafka_topic_partition_list_destroy(in);
        if (!out)
                return -1;
        for (j = 0, n = 0; j < out->cnt && n < cnt; j++) {
                for (i = 0; i < cnt && strcmp(topics[i], out->elems[j].topic);
                     i++)
                        ;
                out_index[n]        = i < cnt ? i : 0;
                out_partitions[n]   = out->elems[j].partition;
                out_offsets[n++]    = out->elems[j].offset;
        }
        rd_kafka_topic_partition_list_destroy(out);
        return n;
}
