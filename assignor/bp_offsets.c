/*
 * bp_offsets.c - where a newly assigned bucket partition starts, so that no
 * record is skipped:
 *   1. the group's committed offset, when it has one;
 *   2. else the highest offset a sibling bucket group committed for it
 *      (the partition moved between buckets when the topic grew);
 *   3. else the beginning, when the group has committed before (a partition
 *      added to the topic: auto.offset.reset=latest would skip what was
 *      written to it before this assignment, KAFKA-12261);
 *   4. else auto.offset.reset (a brand-new group).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp_consumer.h"
#include "bp_scheduler.h"

/* Committed offsets of this consumer's group for every partition of the
 * topic, or NULL when they cannot be read. */
static rd_kafka_topic_partition_list_t *
own_committed(bp_client_t *c, rd_kafka_t *rk, int32_t partition_cnt) {
        rd_kafka_topic_partition_list_t *all =
            rd_kafka_topic_partition_list_new(partition_cnt);
        rd_kafka_resp_err_t err;
        int32_t p;

        for (p = 0; p < partition_cnt; p++)
                rd_kafka_topic_partition_list_add(all, c->cfg.topic, p);
        err = rd_kafka_committed(rk, all, BP_REBALANCE_TIMEOUT_MS);
        if (err) {
                bp_client_log(c, 4,
                              "cannot read committed offsets (%s): new "
                              "partitions follow auto.offset.reset",
                              rd_kafka_err2str(err));
                rd_kafka_topic_partition_list_destroy(all);
                return NULL;
        }
        return all;
}

/* Raises best[p] to the offsets group \p group committed for \p missing. */
static void sibling_offsets(bp_client_t *c, rd_kafka_t *rk, const char *group,
                            const rd_kafka_topic_partition_list_t *missing,
                            int64_t *best, int32_t partition_cnt) {
        rd_kafka_ListConsumerGroupOffsets_t *req =
            rd_kafka_ListConsumerGroupOffsets_new(group, missing);
        rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
        rd_kafka_AdminOptions_t *opt = rd_kafka_AdminOptions_new(
            rk, RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPOFFSETS);
        rd_kafka_event_t *ev;
        const rd_kafka_ListConsumerGroupOffsets_result_t *res;
        const rd_kafka_group_result_t **groups;
        const rd_kafka_topic_partition_list_t *parts;
        size_t gcnt = 0;
        int i;
        char errstr[256];

        rd_kafka_AdminOptions_set_request_timeout(opt, BP_REBALANCE_TIMEOUT_MS,
                                                  errstr, sizeof(errstr));
        rd_kafka_ListConsumerGroupOffsets(rk, &req, 1, opt, q);
        ev = rd_kafka_queue_poll(q, BP_REBALANCE_TIMEOUT_MS + 1000);
        res = ev ? rd_kafka_event_ListConsumerGroupOffsets_result(ev) : NULL;
        if (!res || rd_kafka_event_error(ev)) {
                bp_client_log(c, 4,
                              "cannot read the offsets of sibling group "
                              "\"%s\" (%s)",
                              group,
                              ev ? rd_kafka_event_error_string(ev)
                                 : "timed out");
        } else {
                groups = rd_kafka_ListConsumerGroupOffsets_result_groups(
                    res, &gcnt);
                parts = gcnt == 1 ? rd_kafka_group_result_partitions(groups[0])
                                  : NULL;
                for (i = 0; parts && i < parts->cnt; i++) {
                        const rd_kafka_topic_partition_t *e = &parts->elems[i];
                        if (!e->err && e->offset >= 0 && e->partition >= 0 &&
                            e->partition < partition_cnt &&
                            e->offset > best[e->partition])
                                best[e->partition] = e->offset;
                }
        }
        if (ev)
                rd_kafka_event_destroy(ev);
        rd_kafka_AdminOptions_destroy(opt);
        rd_kafka_queue_destroy(q);
        rd_kafka_ListConsumerGroupOffsets_destroy(req);
}

/* Highest sibling offsets for the partitions in \p missing, in best[]. */
static void siblings(bp_client_t *c, rd_kafka_t *rk,
                     const rd_kafka_topic_partition_list_t *missing,
                     int64_t *best, int32_t partition_cnt) {
        char group[sizeof(c->base_group_id) + BP_MAX_NAME_LEN + 2];
        int b;

        /* Sibling groups exist by name only with one group per bucket and a
         * consumer serving a single bucket. */
        if (!c->cfg.group_per_bucket || !c->base_group_id[0] ||
            c->cfg.consumer_bucket_cnt != 1)
                return;
        for (b = 0; b < c->cfg.bucket_cnt; b++) {
                if (b == c->cfg.consumer_buckets[0])
                        continue;
                snprintf(group, sizeof(group), "%s.%s", c->base_group_id,
                         c->cfg.buckets[b].name);
                sibling_offsets(c, rk, group, missing, best, partition_cnt);
        }
}

void bp_offsets_decide(bp_client_t *c,
                       rd_kafka_t *rk,
                       rd_kafka_topic_partition_list_t *assigned,
                       int32_t partition_cnt) {
        rd_kafka_topic_partition_list_t *all, *missing;
        int64_t *best;
        int committed_before = 0, i;
        int32_t p;

        if (!(all = own_committed(c, rk, partition_cnt)))
                return;
        bp_scheduler_note_committed(c, all);
        for (i = 0; i < all->cnt; i++)
                committed_before |= all->elems[i].offset >= 0;

        missing = rd_kafka_topic_partition_list_new(assigned->cnt);
        for (i = 0; i < assigned->cnt; i++) {
                rd_kafka_topic_partition_t *e = &assigned->elems[i];
                if (strcmp(e->topic, c->cfg.topic) || e->partition < 0 ||
                    e->partition >= partition_cnt)
                        continue;
                if (all->elems[e->partition].offset < 0)
                        rd_kafka_topic_partition_list_add(missing, e->topic,
                                                          e->partition);
        }
        best = malloc(sizeof(*best) * (size_t)partition_cnt);
        if (best && missing->cnt > 0) {
                for (p = 0; p < partition_cnt; p++)
                        best[p] = -1;
                siblings(c, rk, missing, best, partition_cnt);
                for (i = 0; i < assigned->cnt; i++) {
                        rd_kafka_topic_partition_t *e = &assigned->elems[i];
                        if (strcmp(e->topic, c->cfg.topic) ||
                            e->partition < 0 || e->partition >= partition_cnt ||
                            all->elems[e->partition].offset >= 0)
                                continue;
                        if (best[e->partition] >= 0)
                                e->offset = best[e->partition];
                        else if (committed_before)
                                e->offset = RD_KAFKA_OFFSET_BEGINNING;
                }
        }
        free(best);
        rd_kafka_topic_partition_list_destroy(missing);
        rd_kafka_topic_partition_list_destroy(all);
}
