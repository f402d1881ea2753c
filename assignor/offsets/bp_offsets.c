/*
 * bp_offsets.c - where a newly assigned bucket partition starts, so that no
 * record is skipped and none of another bucket is read:
 *   1. the group's committed offset, unless a sibling group committed
 *      further (the partition was another bucket's since: the topic grew,
 *      or a layout change handed it over and back);
 *   2. else the highest offset a sibling bucket group committed for it
 *      (the partition moved between buckets);
 *   3. else the beginning, when the group has committed before (a partition
 *      added to the topic: auto.offset.reset=latest would skip what was
 *      written to it before this assignment, KAFKA-12261);
 *   4. else auto.offset.reset (a brand-new group).
 * The sibling groups' commits are read by bp_siblings.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp_change.h"
#include "bp_clock.h"
#include "bp_consumer_side.h"
#include "bp_start_offsets.h"
#include "bp_tracking.h"

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

/* A partition taken over from a sibling group whose end lies past that
 * group's commit: the sibling has records there it has not read (its
 * consumers were switched to another layout before it drained, or it
 * still reads with the old one), and this consumer reads them in its
 * place. Logged loudly: the procedure of docs/layout-change.md drains
 * first. */
static void check_drained(bp_client_t *c, rd_kafka_t *rk, int32_t p,
                          int64_t from, int from_bucket) {
        int64_t lo = -1, hi = -1;
        int home = from_bucket >= 0 ? c->change_home[from_bucket] : -1;

        /* A bucket that a layout change removes still writes to the
         * partitions its records go to afterwards: this consumer is their
         * new home, and goes on where that group stopped. */
        if (home >= 0 && (c->consumer->props.consumer_mask & (1ull << home)))
                return;
        if (rd_kafka_query_watermark_offsets(rk, c->cfg.topic, p, &lo, &hi,
                                             BP_REBALANCE_TIMEOUT_MS) ||
            hi <= from)
                return;
        bp_client_log_once(
            c, BP_ONCE_TAKEOVER, 3,
            "consumer of bucket \"%s\" takes over %s [%d] at offset %lld, "
            "where another bucket's group stopped, but the partition holds "
            "%lld more records that group has not read: they are processed "
            "here, by this bucket. Another bucket's consumers still use the "
            "layout that gives it this partition, or were switched before "
            "it was drained: during a layout change, start a consumer step "
            "only once bp-audit reports the partitions drained "
            "(docs/layout-change.md). Logged once",
            c->cfg.consumer_bucket_text, c->cfg.topic, (int)p,
            (long long)from, (long long)(hi - from));
}

int bp_offsets_serves(const bp_client_t *c, const bp_layout_t *l,
                      int32_t p) {
        return l && p >= 0 && p < l->partition_cnt &&
               l->bucket_of[p] < l->bucket_cnt &&
               (c->consumer->props.consumer_mask & (1ull << l->bucket_of[p]));
}

/* Members of one group that map with different layouts leave some
 * partitions unread and read others twice, and nothing in the protocol
 * tells them. What each member can see: its own group's commits. A commit
 * that advanced since the last rebalance on a partition that is not this
 * consumer's bucket's, under this layout or the one before, was made by a
 * member reading with another layout (or by a consumer without the
 * plugin). Keeps this rebalance's commits for the next one. */
static void check_members(bp_client_t *c, rd_kafka_t *rk,
                          const rd_kafka_topic_partition_list_t *all,
                          int32_t partition_cnt) {
        const bp_layout_t *l =
            atomic_load_explicit(&c->current, memory_order_acquire);
        int64_t *prev = c->consumer->run.change_seen.commits;
        char fp[9], group[256] = "";
        size_t size = sizeof(group);
        int32_t p;

        if (prev && c->consumer->run.change_seen.cnt == partition_cnt)
                for (p = 0; p < partition_cnt; p++) {
                        int64_t now = all->elems[p].offset;
                        if (now <= prev[p] || prev[p] < 0 || bp_offsets_serves(c, l, p) ||
                            bp_offsets_serves(
                                c, c->consumer->run.change_seen.layout, p))
                                continue;
                        bp_layout_fingerprint(l, &c->cfg, fp);
                        rd_kafka_conf_get(rd_kafka_conf(rk), "group.id",
                                          group, &size);
                        bp_client_log_once(
                            c, BP_ONCE_DISAGREE, 3,
                            "group \"%s\" committed on %s [%d] (offset "
                            "%lld, was %lld) since the last rebalance, but "
                            "that partition is not bucket \"%s\"'s under "
                            "this consumer's layout (fingerprint %s): a "
                            "member of the group reads with another layout "
                            "(other bucket.priority.* properties, or another "
                            "step of a layout change) or without the plugin. "
                            "Give every member the same properties "
                            "(docs/operations.md). Logged once",
                            group,
                            c->cfg.topic, (int)p, (long long)now,
                            (long long)prev[p], c->cfg.consumer_bucket_text,
                            fp);
                        break;
                }
        if (!prev || c->consumer->run.change_seen.cnt != partition_cnt) {
                free(prev);
                prev = calloc((size_t)partition_cnt, sizeof(*prev));
                c->consumer->run.change_seen.commits = prev;
                c->consumer->run.change_seen.cnt     = prev ? partition_cnt : 0;
        }
        for (p = 0; prev && p < partition_cnt; p++)
                prev[p] = all->elems[p].offset;
        c->consumer->run.change_seen.layout = l;
}

/* Where each assigned partition starts: the highest commit of this group
 * and its siblings (a stale commit of this group, from before the
 * partition went to another bucket and came back, must not re-read what
 * that bucket processed), else the beginning or auto.offset.reset. */
void bp_offsets_decide(bp_client_t *c,
                       rd_kafka_t *rk,
                       rd_kafka_topic_partition_list_t *assigned,
                       int32_t partition_cnt) {
        rd_kafka_topic_partition_list_t *all, *mine;
        int64_t *best, own;
        int *from;
        int committed_before = 0, i;
        int32_t p;

        if (!(all = own_committed(c, rk, partition_cnt)))
                return;
        bp_tracking_committed(c, all);
        for (i = 0; i < all->cnt; i++)
                committed_before |= all->elems[i].offset >= 0;
        check_members(c, rk, all, partition_cnt);

        mine = rd_kafka_topic_partition_list_new(assigned->cnt);
        for (i = 0; i < assigned->cnt; i++) {
                rd_kafka_topic_partition_t *e = &assigned->elems[i];
                if (bp_is_bucket_topic(c, e->topic) && e->partition >= 0 &&
                    e->partition < partition_cnt)
                        rd_kafka_topic_partition_list_add(mine, e->topic,
                                                          e->partition);
        }
        best = malloc(sizeof(*best) * (size_t)partition_cnt);
        from = malloc(sizeof(*from) * (size_t)partition_cnt);
        if (best && from && mine->cnt > 0) {
                for (p = 0; p < partition_cnt; p++) {
                        best[p] = -1;
                        from[p] = -1;
                }
                /* What the reads begun at creation found joins the
                 * record first (waiting for them if they still run:
                 * bp_prefetch.c). */
                int64_t t0 = bp_clock_us();
                bp_prefetch_collect(c);
                bp_siblings_read(c, rk, mine, best, from, partition_cnt,
                                 bp_clock_us() - t0);
                for (i = 0; i < assigned->cnt; i++) {
                        rd_kafka_topic_partition_t *e = &assigned->elems[i];
                        if (!bp_is_bucket_topic(c, e->topic) ||
                            e->partition < 0 || e->partition >= partition_cnt)
                                continue;
                        own = all->elems[e->partition].offset;
                        if (best[e->partition] > own && best[e->partition] >= 0) {
                                e->offset = best[e->partition];
                                check_drained(c, rk, e->partition, e->offset,
                                              from[e->partition]);
                        } else if (own < 0 && committed_before)
                                e->offset = RD_KAFKA_OFFSET_BEGINNING;
                }
        }
        free(best);
        free(from);
        rd_kafka_topic_partition_list_destroy(mine);
        rd_kafka_topic_partition_list_destroy(all);
}

rd_kafka_topic_partition_list_t *
bp_offsets_given(bp_client_t *c, rd_kafka_t *rk,
                 const rd_kafka_topic_partition_list_t *partitions,
                 const bp_layout_t *l) {
        rd_kafka_topic_partition_list_t *out, *mine;
        int i, j;

        out = rd_kafka_topic_partition_list_copy(partitions);
        if (!l)
                return out;
        mine = rd_kafka_topic_partition_list_new(out->cnt);
        for (i = 0; i < out->cnt; i++)
                if (bp_is_bucket_topic(c, out->elems[i].topic) &&
                    c->mode == BP_MODE_ACTIVE &&
                    bp_offsets_serves(c, l, out->elems[i].partition) &&
                    out->elems[i].offset == RD_KAFKA_OFFSET_INVALID)
                        rd_kafka_topic_partition_list_add(
                            mine, c->cfg.topic, out->elems[i].partition)
                            ->offset = RD_KAFKA_OFFSET_INVALID;
        if (mine->cnt > 0)
                bp_offsets_decide(c, rk, mine, l->partition_cnt);
        for (i = 0, j = 0; i < out->cnt && j < mine->cnt; i++)
                if (bp_is_bucket_topic(c, out->elems[i].topic) &&
                    out->elems[i].partition == mine->elems[j].partition)
                        out->elems[i].offset = mine->elems[j++].offset;
        rd_kafka_topic_partition_list_destroy(mine);
        return out;
}
