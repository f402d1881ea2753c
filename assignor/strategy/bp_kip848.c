/*
 * bp_kip848.c - the keep-and-pause strategy, which serves two values of
 * bp_strategy_t: BP_STRATEGY_KEEP_AND_PAUSE (a bucket consumer on the next
 * generation consumer group protocol, KIP-848) and
 * BP_STRATEGY_CONVERTED_GROUP (a classic member of a group the broker
 * converted to that protocol, bp_migrate.c).
 *
 * The broker computes the assignment from real partition numbers and
 * librdkafka acknowledges exactly the list it received, so nothing is
 * mapped. At an assignment:
 *
 *   1. the layout is read for at least as many partitions as the broker
 *      assigned (they exist);
 *   2. the partitions of the consumer's buckets get their start offsets
 *      (bp_start_offsets.h);
 *   3. the new partitions of its buckets join the held set with the
 *      scheduler's pause state (bp_tracking_adding(), incremental only);
 *   4. every other partition of the bucket topic is paused before it is
 *      assigned, so it is never fetched (librdkafka keeps an application's
 *      pause through the assignment);
 *   5. the list is assigned as given: incrementally on the consumer
 *      protocol, eagerly (the whole list) for a classic member;
 *   6. the held set is made equal to the buckets' partitions assigned now.
 *
 * A revocation (consumer protocol only: a classic member's revocation is
 * the classic strategy's) takes the revoked partitions out of the held
 * set, then unassigns the broker's list unchanged. The decision that this
 * strategy serves an event is made once, in bp_rebalance.c.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bucket_priority.h"
#include "bp_client_layout.h"
#include "bp_clock.h"
#include "bp_consumer_side.h"
#include "bp_strategy.h"
#include "bp_start_offsets.h"
#include "bp_tracking.h"

/* Whether partition \p p of the bucket topic is one of the consumer's
 * buckets' under layout \p l (an unknown layout reads nothing), while the
 * consumer is active. */
static int serves(const bp_client_t *c, const bp_layout_t *l, int32_t p) {
        return c->mode == BP_MODE_ACTIVE && bp_offsets_serves(c, l, p);
}

/* One past the highest partition of the bucket topic in \p partitions (0
 * when it has none): how many partitions the topic has at least. */
static int32_t assigned_width(const bp_client_t *c,
                              const rd_kafka_topic_partition_list_t *list) {
        int32_t width = 0;
        int i;

        for (i = 0; list && i < list->cnt; i++)
                if (bp_is_bucket_topic(c, list->elems[i].topic) &&
                    list->elems[i].partition >= width)
                        width = list->elems[i].partition + 1;
        return width;
}

/* The layout to judge \p partitions by: the topic's partition count from
 * fresh metadata, else the last layout known. NULL when the consumer is
 * not active or none can be had.
 *
 * Metadata that has fewer partitions than the broker assigned (a broker
 * that has not seen the topic grow yet) is asked again until it has them,
 * up to BP_REBALANCE_TIMEOUT_MS: a layout is only right at the topic's own
 * count, so the highest partition assigned cannot stand in for it (at 12
 * -> 24 partitions, a member given partitions up to 17 would judge by a
 * layout of 18 and read other buckets' partitions). Without an answer,
 * the last layout judges, for the same reason; what it does not cover
 * stays paused, and the log says so.
 *
 * A list without a partition of the bucket topic (the empty assignment
 * that follows a revocation on this protocol) has nothing to judge: the
 * last layout, and no round trip. librdkafka pauses every assigned
 * partition while the callback runs, and a Metadata request wakes the
 * fetcher to see them paused; the resume does not wake it again, so the
 * partitions kept would wait for its next wake-up, up to a second
 * (docs/benchmarks-results.md, KIP-848). */
static const bp_layout_t *
layout_for(bp_client_t *c, rd_kafka_t *rk,
           const rd_kafka_topic_partition_list_t *partitions) {
        static const struct timespec retry = {0, 100 * 1000 * 1000};
        int64_t deadline, left;
        const bp_layout_t *l;
        int32_t cnt, width;

        if (c->mode != BP_MODE_ACTIVE)
                return NULL;
        if (!(width = assigned_width(c, partitions)))
                return atomic_load_explicit(&c->current, memory_order_acquire);
        /* Asked on the consumer itself, not through a helper client: the
         * request also gives the consumer the topic's partitions, which
         * pause_others() pauses before they are assigned (librdkafka
         * ignores a pause of a partition it does not know yet; seen with
         * confluent-kafka-go on librdkafka 2.15.1, client_go_exported_kip848). */
        deadline = bp_clock_ms() + BP_REBALANCE_TIMEOUT_MS;
        cnt      = bp_topic_partition_count(rk, c->cfg.topic,
                                            BP_REBALANCE_TIMEOUT_MS);
        while (cnt > 0 && cnt < width &&
               (left = deadline - bp_clock_ms()) > 0) {
                nanosleep(&retry, NULL);
                cnt = bp_topic_partition_count(rk, c->cfg.topic, (int)left);
        }
        l = cnt > 0 ? bp_client_layout(c, cnt)
                    : atomic_load_explicit(&c->current, memory_order_acquire);
        if (!l || l->partition_cnt < width) {
                char kept[64] = "every partition of it stays paused";

                if (l)
                        snprintf(kept, sizeof(kept),
                                 "its partitions from %d on stay paused",
                                 (int)l->partition_cnt);
                bp_client_log(c, 4,
                              "no metadata of topic \"%s\" has partition "
                              "%d, which the broker assigned (%s): %s "
                              "until the next assignment",
                              c->cfg.topic, (int)width - 1,
                              cnt > 0 ? "metadata older than the assignment"
                                      : "no answer",
                              kept);
        }
        return l;
}

/* The held set (statistics, lag, the scheduler's partitions) made equal
 * to the partitions of the consumer's buckets in its assignment now (an
 * assignment that failed, or an application's callback that assigned
 * something else); partitions held before keep their entries. */
static void note_held(bp_client_t *c, rd_kafka_t *rk, const bp_layout_t *l) {
        rd_kafka_topic_partition_list_t *a = NULL, *held;
        int i;

        if (!l || rd_kafka_assignment(rk, &a) || !a) {
                bp_tracking_revoking(c);
                return;
        }
        held = rd_kafka_topic_partition_list_new(a->cnt);
        for (i = 0; i < a->cnt; i++)
                if (bp_is_bucket_topic(c, a->elems[i].topic) &&
                    serves(c, l, a->elems[i].partition))
                        rd_kafka_topic_partition_list_add(
                            held, c->cfg.topic, a->elems[i].partition)
                            ->offset = a->elems[i].offset;
        bp_tracking_assigning(c, rk, held, l);
        rd_kafka_topic_partition_list_destroy(held);
        rd_kafka_topic_partition_list_destroy(a);
}

/* Just before \p assigned is assigned: pauses its partitions of the
 * bucket topic that are not the consumer's bucket's (all of them when the
 * consumer is not active), so they are never fetched. */
static void pause_others(bp_client_t *c, rd_kafka_t *rk,
                         const rd_kafka_topic_partition_list_t *assigned,
                         const bp_layout_t *l) {
        rd_kafka_topic_partition_list_t *others =
            rd_kafka_topic_partition_list_new(assigned->cnt);
        rd_kafka_resp_err_t err;
        int i;

        for (i = 0; i < assigned->cnt; i++)
                if (bp_is_bucket_topic(c, assigned->elems[i].topic) &&
                    !serves(c, l, assigned->elems[i].partition))
                        rd_kafka_topic_partition_list_add(
                            others, c->cfg.topic, assigned->elems[i].partition);
        if (others->cnt > 0 && (err = rd_kafka_pause_partitions(rk, others)))
                bp_client_log(c, 3,
                              "cannot pause the %d assigned partitions "
                              "outside bucket \"%s\" (%s): their records "
                              "reach this consumer",
                              others->cnt, c->cfg.consumer_bucket_text,
                              rd_kafka_err2str(err));
        rd_kafka_topic_partition_list_destroy(others);
}

rd_kafka_topic_partition_list_t *
bp_kip848_given(bp_client_t *c,
                rd_kafka_t *rk,
                const rd_kafka_topic_partition_list_t *partitions) {
        const bp_layout_t *l;
        rd_kafka_topic_partition_list_t *given;

        if (partitions == c->consumer->run.mapped_in_flight)
                return rd_kafka_topic_partition_list_copy(partitions);
        l     = layout_for(c, rk, partitions);
        given = bp_offsets_given(c, rk, partitions, l);
        /* Not from the plugin's callbacks (rebalances taken as events, Go's
         * helper): no callback returns after the application assigns, so
         * the partitions outside the bucket are paused now. An
         * application's pause outlasts the assignment that follows. */
        pause_others(c, rk, given, l);
        return given;
}

void bp_kip848_pause_one(rd_kafka_t *rk,
                         const char *topic, int32_t partition) {
        rd_kafka_topic_partition_list_t *one =
            rd_kafka_topic_partition_list_new(1);

        rd_kafka_topic_partition_list_add(one, topic, partition);
        rd_kafka_pause_partitions(rk, one);
        rd_kafka_topic_partition_list_destroy(one);
}

/* Logs and frees an error of an incremental (un)assignment. */
static void log_if_failed(bp_client_t *c, const char *what,
                          rd_kafka_error_t *error) {
        if (!error)
                return;
        bp_client_log(c, 3, "%s failed: %s", what,
                      rd_kafka_error_string(error));
        rd_kafka_error_destroy(error);
}

/* Steps 1 to 6 for \p partitions, assigned incrementally or, for a
 * classic member of a converted group, eagerly. */
static void keep_and_pause(bp_client_t *c, rd_kafka_t *rk, bp_strategy_t s,
                           const rd_kafka_topic_partition_list_t *partitions) {
        const bp_layout_t *l = layout_for(c, rk, partitions);
        rd_kafka_topic_partition_list_t *given =
            bp_offsets_given(c, rk, partitions, l);
        rd_kafka_resp_err_t err;

        if (s == BP_STRATEGY_CONVERTED_GROUP) {
                pause_others(c, rk, given, l); /* before, as below */
                err = rd_kafka_assign(rk, given);
                if (err)
                        bp_client_log(c, 3, "rd_kafka_assign() failed: %s",
                                      rd_kafka_err2str(err));
        } else {
                /* The new partitions' pause state first (a scheduler's
                 * decision), as on the classic protocol: librdkafka keeps
                 * an application's pause through the assignment. */
                bp_tracking_adding(c, rk, given, l);
                /* Paused before they are assigned, so the fetcher never
                 * starts on them: librdkafka keeps an application's pause
                 * through the assignment. */
                pause_others(c, rk, given, l);
                log_if_failed(c, "rd_kafka_incremental_assign()",
                              rd_kafka_incremental_assign(rk, given));
        }
        rd_kafka_topic_partition_list_destroy(given);
        note_held(c, rk, l);
}

void bp_kip848_rebalance(bp_client_t *c,
                         rd_kafka_t *rk,
                         bp_strategy_t s,
                         rd_kafka_resp_err_t err,
                         rd_kafka_topic_partition_list_t *partitions) {
        switch (err) {
        case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
                keep_and_pause(c, rk, s, partitions);
                return;
        case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
                if (rd_kafka_assignment_lost(rk))
                        bp_client_log(c, 4,
                                      "assignment lost (session timed out "
                                      "or fenced): dropped without "
                                      "committing");
                /* Out of the held set before they go: the scheduler never
                 * pauses or resumes a partition no longer assigned. */
                bp_tracking_removing(c, partitions);
                log_if_failed(c, "rd_kafka_incremental_unassign()",
                              rd_kafka_incremental_unassign(rk, partitions));
                note_held(c, rk,
                          atomic_load_explicit(&c->current,
                                               memory_order_acquire));
                return;
        default:
                bp_client_log(c, 3, "rebalance error: %s",
                              rd_kafka_err2str(err));
                bp_tracking_revoking(c);
                rd_kafka_assign(rk, NULL);
                return;
        }
}

void bp_kip848_chain(bp_client_t *c,
                     rd_kafka_t *rk,
                     rd_kafka_resp_err_t err,
                     rd_kafka_topic_partition_list_t *partitions,
                     void *opaque) {
        rd_kafka_topic_partition_list_t *given = NULL;
        const bp_layout_t *l = NULL;

        if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
                l     = layout_for(c, rk, partitions);
                given = bp_offsets_given(c, rk, partitions, l);
                bp_tracking_adding(c, rk, given, l);
                pause_others(c, rk, given, l); /* before, as above */
        } else if (err == RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS) {
                bp_tracking_removing(c, partitions);
        } else {
                bp_tracking_revoking(c);
        }
        /* The application assigns (or unassigns) the list itself, as its
         * client does after the callback when it did not. */
        c->consumer->run.mapped_in_flight = given;
        c->consumer->run.app_rebalance_cb(rk, err, given ? given : partitions,
                                          opaque);
        c->consumer->run.mapped_in_flight = NULL;
        if (given) {
                /* Again: an application may have resumed what it was
                 * handed. */
                pause_others(c, rk, given, l);
                rd_kafka_topic_partition_list_destroy(given);
        } else {
                l = atomic_load_explicit(&c->current, memory_order_acquire);
        }
        note_held(c, rk, l);
}
