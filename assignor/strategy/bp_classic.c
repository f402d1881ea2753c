/*
 * bp_classic.c - the classic mapping strategy (BP_STRATEGY_CLASSIC_MAPPING).
 *
 * On the classic group protocol the group's roundrobin assignor spreads
 * the bucket topic's partition numbers 0..P-1 evenly over the members of
 * the bucket's group, but knows nothing of buckets. So this consumer reads
 * what it was given as indexes, not partitions:
 *
 *   1. the layout every member agrees on is read for the topic's partition
 *      count now (a disagreement heals at the next rebalance);
 *   2. B, the ascending partitions of its buckets under that layout;
 *   3. assigned index i becomes partition B[i] when i < |B| and is dropped
 *      otherwise (bp_mapping.h): the members' indexes are disjoint and
 *      cover 0..P-1, so together they hold each partition of B once;
 *   4. the mapped partitions' start offsets are decided (bp_start_offsets.h)
 *      and they become the held set (bp_tracking.h).
 *
 * Partitions of other topics pass unchanged. A revocation unassigns all.
 * A consumer whose configuration is incomplete reads no partition of the
 * bucket topic. The decision that this strategy serves an event is made
 * once, in bp_rebalance.c.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bucket_priority.h"
#include "bp_client_layout.h"
#include "bp_mapping.h"
#include "bp_strategy.h"
#include "bp_consumer_side.h"
#include "bp_start_offsets.h"
#include "bp_tracking.h"

/* The layout every member must agree on: fresh metadata, else the last
 * known count (a disagreement heals at the next rebalance). */
static const bp_layout_t *agreed_layout(bp_client_t *c, rd_kafka_t *rk,
                                        char *errstr, size_t errstr_size) {
        /* A consumer of one bucket assigns exactly its partitions and
         * pauses none: its count comes through a helper client, which does
         * not wait behind the consumer's fetch (bp_reader.c). A consumer of
         * several buckets pauses new partitions before they are assigned
         * (bp_scheduler_assigning()), which librdkafka ignores for a
         * partition it does not know yet: asked on the consumer itself,
         * the request gives it the topic's partitions. */
        int32_t cnt =
            c->cfg.consumer_bucket_cnt == 1
                ? bp_reader_partition_count(c, rk, BP_REBALANCE_TIMEOUT_MS)
                : bp_topic_partition_count(rk, c->cfg.topic,
                                           BP_REBALANCE_TIMEOUT_MS);
        const bp_layout_t *l;

        if (cnt < 0) {
                l = atomic_load_explicit(&c->current, memory_order_acquire);
                if (l) {
                        bp_client_log(c, 4,
                                      "no fresh metadata for topic \"%s\"; "
                                      "mapping with the last known %d "
                                      "partitions",
                                      c->cfg.topic, (int)l->partition_cnt);
                        return l;
                }
                snprintf(errstr, errstr_size,
                         "cannot read the partition count of topic \"%s\"",
                         c->cfg.topic);
                return NULL;
        }
        l = bp_client_layout(c, cnt);
        if (!l)
                snprintf(errstr, errstr_size,
                         "no bucket layout for topic \"%s\" at %d partitions "
                         "(see the earlier error)",
                         c->cfg.topic, (int)cnt);
        return l;
}

/* \p partitions without those of the bucket topic: what a consumer whose
 * configuration is incomplete reads (never another bucket's partitions;
 * other topics still flow). */
static rd_kafka_topic_partition_list_t *
without_bucket_topic(bp_client_t *c,
                     const rd_kafka_topic_partition_list_t *partitions) {
        rd_kafka_topic_partition_list_t *out =
            rd_kafka_topic_partition_list_new(partitions->cnt);
        int i;

        bp_client_log_once(c, BP_ONCE_BROKEN, 3,
                           "%s; this consumer reads no partition of "
                           "topic \"%s\"",
                           c->broken_reason, c->cfg.topic);
        for (i = 0; i < partitions->cnt; i++)
                if (!bp_is_bucket_topic(c, partitions->elems[i].topic))
                        rd_kafka_topic_partition_list_add(
                            out, partitions->elems[i].topic,
                            partitions->elems[i].partition);
        return out;
}

/* Steps 2 and 3: \p partitions with the bucket topic's indexes mapped
 * onto the buckets' partitions under \p l, or NULL (no memory). */
static rd_kafka_topic_partition_list_t *
mapped_under(bp_client_t *c, const rd_kafka_topic_partition_list_t *partitions,
             const bp_layout_t *l, char *errstr, size_t errstr_size) {
        rd_kafka_topic_partition_list_t *out;
        int32_t *b, b_cnt, q;
        int i;

        b = malloc(sizeof(*b) * (size_t)l->partition_cnt);
        if (!b) {
                snprintf(errstr, errstr_size, "out of memory");
                return NULL;
        }
        b_cnt = bp_mapping_partitions(l, c->cfg.consumer_buckets,
                                      c->cfg.consumer_bucket_cnt, b);
        out = rd_kafka_topic_partition_list_new(partitions->cnt);
        for (i = 0; i < partitions->cnt; i++) {
                const rd_kafka_topic_partition_t *e = &partitions->elems[i];
                if (!bp_is_bucket_topic(c, e->topic)) {
                        rd_kafka_topic_partition_list_add(out, e->topic,
                                                          e->partition)
                            ->offset = e->offset;
                        continue;
                }
                q = bp_mapping_map(b, b_cnt, e->partition);
                if (q >= 0)
                        rd_kafka_topic_partition_list_add(out, e->topic, q)
                            ->offset = RD_KAFKA_OFFSET_INVALID;
        }
        free(b);
        return out;
}

rd_kafka_topic_partition_list_t *
bp_classic_map(bp_client_t *c,
               rd_kafka_t *rk,
               const rd_kafka_topic_partition_list_t *partitions,
               int bucket_topic,
               char *errstr,
               size_t errstr_size) {
        rd_kafka_topic_partition_list_t *out;
        const bp_layout_t *l;

        if (c && c->cfg.consumer_bucket_cnt > 0 && c->mode == BP_MODE_BROKEN &&
            c->cfg.topic_set)
                return without_bucket_topic(c, partitions);
        if (!c || c->cfg.consumer_bucket_cnt == 0 ||
            c->mode != BP_MODE_ACTIVE ||
            partitions == c->consumer->run.mapped_in_flight || !bucket_topic)
                /* nothing to map, or mapped already */
                return rd_kafka_topic_partition_list_copy(partitions);

        if (!(l = agreed_layout(c, rk, errstr, errstr_size)) ||
            !(out = mapped_under(c, partitions, l, errstr, errstr_size)))
                return NULL;
        bp_offsets_decide(c, rk, out, l->partition_cnt);
        bp_tracking_assigning(c, rk, out, l);
        return out;
}

static void assign_or_log(bp_client_t *c, rd_kafka_t *rk,
                          const rd_kafka_topic_partition_list_t *list) {
        rd_kafka_resp_err_t err = rd_kafka_assign(rk, list);
        if (err && c)
                bp_client_log(c, 3, "rd_kafka_assign() failed: %s",
                              rd_kafka_err2str(err));
}

/* The list to assign for \p partitions, or NULL when this consumer takes
 * nothing until the next rebalance (logged, the held set emptied). */
static rd_kafka_topic_partition_list_t *
mapped_or_nothing(bp_client_t *c, rd_kafka_t *rk,
                  const rd_kafka_topic_partition_list_t *partitions,
                  int bucket_topic) {
        char errstr[512];
        rd_kafka_topic_partition_list_t *mapped = bp_classic_map(
            c, rk, partitions, bucket_topic, errstr, sizeof(errstr));

        if (!mapped && c) {
                bp_client_log(c, 3,
                              "this consumer takes no partition until the "
                              "next rebalance: %s",
                              errstr);
                bp_tracking_revoking(c);
        }
        return mapped;
}

void bp_classic_rebalance(bp_client_t *c,
                          rd_kafka_t *rk,
                          rd_kafka_resp_err_t err,
                          rd_kafka_topic_partition_list_t *partitions,
                          int bucket_topic) {
        rd_kafka_topic_partition_list_t *mapped;

        switch (err) {
        case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
                mapped = mapped_or_nothing(c, rk, partitions, bucket_topic);
                assign_or_log(c, rk, mapped);
                if (mapped)
                        rd_kafka_topic_partition_list_destroy(mapped);
                return;
        case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
                if (c && rd_kafka_assignment_lost(rk))
                        bp_client_log(c, 4,
                                      "assignment lost (session timed out "
                                      "or fenced): dropped without "
                                      "committing");
                if (c)
                        bp_tracking_revoking(c);
                assign_or_log(c, rk, NULL);
                return;
        default:
                if (c) {
                        bp_client_log(c, 3, "rebalance error: %s",
                                      rd_kafka_err2str(err));
                        bp_tracking_revoking(c);
                }
                assign_or_log(c, rk, NULL);
                return;
        }
}

void bp_classic_chain(bp_client_t *c,
                      rd_kafka_t *rk,
                      rd_kafka_resp_err_t err,
                      rd_kafka_topic_partition_list_t *partitions,
                      int bucket_topic,
                      void *opaque) {
        rd_kafka_topic_partition_list_t *given = NULL;

        switch (err) {
        case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
                given = mapped_or_nothing(c, rk, partitions, bucket_topic);
                if (!given)
                        given = rd_kafka_topic_partition_list_new(0);
                break;
        case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
                /* What the application assigned, not the group's indexes:
                 * an application that commits or cleans up per partition
                 * on revocation must see its own partitions. */
                bp_tracking_revoking(c);
                if (rd_kafka_assignment(rk, &given))
                        given = NULL;
                break;
        default:
                bp_tracking_revoking(c);
                break;
        }
        c->consumer->run.mapped_in_flight = given;
        c->consumer->run.app_rebalance_cb(rk, err, given ? given : partitions,
                                          opaque);
        c->consumer->run.mapped_in_flight = NULL;
        if (given)
                rd_kafka_topic_partition_list_destroy(given);
}
