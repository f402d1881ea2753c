/*
 * bp_held.c - measurement: the bucket topic's partitions a consumer holds,
 * where each starts, and their lag (see bp_held.h).
 */
#include "bp_held.h"

#include <stdlib.h>
#include <string.h>

#include "bp_list.h"

static bp_start_kind_t reset_kind(const rd_kafka_conf_t *conf) {
        char v[32];
        size_t size = sizeof(v);

        if (rd_kafka_conf_get(conf, "auto.offset.reset", v, &size) !=
            RD_KAFKA_CONF_OK)
                return BP_START_LATEST; /* librdkafka's default */
        if (!strcmp(v, "smallest") || !strcmp(v, "earliest") ||
            !strcmp(v, "beginning"))
                return BP_START_EARLIEST;
        if (!strcmp(v, "largest") || !strcmp(v, "latest") ||
            !strcmp(v, "end"))
                return BP_START_LATEST;
        return BP_START_UNKNOWN; /* "error" */
}

void bp_held_init(bp_held_t *h, rd_kafka_t *rk, const char *topic,
                  const rd_kafka_conf_t *conf, int64_t settle_ms) {
        memset(h, 0, sizeof(*h));
        h->rk         = rk;
        h->topic      = topic;
        h->reset_kind = reset_kind(conf);
        h->settle_ms  = settle_ms;
        pthread_mutex_init(&h->lock, NULL);
}

void bp_held_destroy(bp_held_t *h) {
        pthread_mutex_destroy(&h->lock);
        free(h->part);
        free(h->committed);
        h->part      = NULL;
        h->committed = NULL;
}

void bp_held_note_committed(bp_held_t *h,
                            const rd_kafka_topic_partition_list_t *all) {
        int i;

        pthread_mutex_lock(&h->lock);
        bp_grow((void **)&h->committed, &h->committed_cnt, all->cnt,
                sizeof(*h->committed));
        for (i = 0; i < h->committed_cnt; i++)
                h->committed[i] = RD_KAFKA_OFFSET_INVALID;
        for (i = 0; i < all->cnt; i++) {
                const rd_kafka_topic_partition_t *e = &all->elems[i];
                if (e->partition >= 0 && e->partition < h->committed_cnt)
                        h->committed[e->partition] =
                            e->err ? RD_KAFKA_OFFSET_INVALID : e->offset;
        }
        pthread_mutex_unlock(&h->lock);
}

/* Fills \p p for partition \p e (of bucket \p bucket, rank \p r) newly
 * held: where it starts (the list's offset, else the committed offset
 * noted, else auto.offset.reset) and its watermark now. */
static void start_entry(const bp_held_t *h, bp_held_part_t *p,
                        const rd_kafka_topic_partition_t *e, int bucket,
                        int r, int64_t now) {
        int64_t lo, hi;

        memset(p, 0, sizeof(*p));
        p->partition = e->partition;
        p->bucket    = bucket;
        p->rank      = r;
        p->start     = -1;
        p->probed    = -1;
        if (e->offset >= 0) {
                p->start_kind = BP_START_OFFSET;
                p->start      = e->offset;
        } else if (e->offset == RD_KAFKA_OFFSET_BEGINNING) {
                p->start_kind = BP_START_EARLIEST;
        } else if (e->offset == RD_KAFKA_OFFSET_END) {
                p->start_kind = BP_START_LATEST;
        } else if (e->partition < h->committed_cnt &&
                   h->committed[e->partition] >= 0) {
                p->start_kind = BP_START_OFFSET;
                p->start      = h->committed[e->partition];
        } else {
                p->start_kind = h->reset_kind;
        }
        p->since_ms  = now;
        p->owed      = (bp_sched_owed_t){.owed_to = -1, .at = -1,
                                         .since_ms = now};
        p->stall     = (bp_sched_stall_t){.at = -1};
        p->hwm_since = rd_kafka_get_watermark_offsets(h->rk, h->topic,
                                                      e->partition, &lo, &hi)
                           ? -1
                           : hi;
}

/* The index of partition \p partition in \p part[0..cnt-1], or -1. */
static int find(const bp_held_part_t *part, int32_t cnt, int32_t partition) {
        int32_t i;
        for (i = 0; i < cnt; i++)
                if (part[i].partition == partition)
                        return (int)i;
        return -1;
}

/* Adds to the held set the partitions of \p list that a bucket \p d
 * serves has under \p l and that it does not hold yet; with \p keep NULL
 * the set was emptied first, else \p keep[0..kept-1] is the set before,
 * whose entries the partitions still listed keep. */
static void add_listed(bp_held_t *h, const bp_deliveries_t *d,
                       const rd_kafka_topic_partition_list_t *list,
                       const bp_layout_t *l, int64_t now,
                       const bp_held_part_t *keep, int32_t kept) {
        int i, r, k;

        for (i = 0; i < list->cnt; i++) {
                const rd_kafka_topic_partition_t *e = &list->elems[i];

                if (strcmp(e->topic, h->topic) || e->partition < 0 ||
                    e->partition >= l->partition_cnt ||
                    l->bucket_of[e->partition] >= l->bucket_cnt ||
                    (r = d->rank_of[l->bucket_of[e->partition]]) < 0 ||
                    find(h->part, h->cnt, e->partition) >= 0 ||
                    bp_grow((void **)&h->part, &h->cap, h->cnt + 1,
                            sizeof(*h->part)))
                        continue;
                k = keep ? find(keep, kept, e->partition) : -1;
                if (k >= 0 && keep[k].bucket == l->bucket_of[e->partition])
                        h->part[h->cnt++] = keep[k]; /* still assigned */
                else
                        start_entry(h, &h->part[h->cnt++], e,
                                    l->bucket_of[e->partition], r, now);
        }
        /* Committed offsets are only good for this assignment. */
        for (i = 0; i < h->committed_cnt; i++)
                h->committed[i] = RD_KAFKA_OFFSET_INVALID;
}

void bp_held_assign(bp_held_t *h,
                    const bp_deliveries_t *d,
                    const rd_kafka_topic_partition_list_t *assigned,
                    const bp_layout_t *l,
                    int64_t now) {
        bp_held_part_t *before = NULL;
        int32_t kept           = h->cnt;

        /* Partitions held before and assigned still (an incremental
         * assignment) keep where they started and since when. */
        if (kept > 0 &&
            (before = malloc(sizeof(*before) * (size_t)kept)) != NULL)
                memcpy(before, h->part, sizeof(*before) * (size_t)kept);
        h->cnt = 0;
        add_listed(h, d, assigned, l, now, before, before ? kept : 0);
        free(before);
}

void bp_held_add(bp_held_t *h,
                 const bp_deliveries_t *d,
                 const rd_kafka_topic_partition_list_t *added,
                 const bp_layout_t *l,
                 int64_t now) {
        add_listed(h, d, added, l, now, NULL, 0);
}

/* Whether \p list names partition \p partition of the bucket topic. */
static int listed(const bp_held_t *h,
                  const rd_kafka_topic_partition_list_t *list,
                  int32_t partition) {
        int i;
        for (i = 0; i < list->cnt; i++)
                if (list->elems[i].partition == partition &&
                    !strcmp(list->elems[i].topic, h->topic))
                        return 1;
        return 0;
}

void bp_held_remove(bp_held_t *h,
                    const rd_kafka_topic_partition_list_t *removed) {
        int32_t i, n = 0;

        for (i = 0; i < h->cnt; i++)
                if (!listed(h, removed, h->part[i].partition))
                        h->part[n++] = h->part[i];
        h->cnt = n;
}

/* Before the consumer has a position on a partition, it is where the
 * partition starts. */
void bp_held_measure(const bp_held_t *h, bp_held_part_t *p, int k,
                     int64_t now) {
        rd_kafka_topic_partition_list_t *pos =
            rd_kafka_topic_partition_list_new(k > 0 ? k : 1);
        int i;

        for (i = 0; i < k; i++)
                rd_kafka_topic_partition_list_add(pos, h->topic,
                                                  p[i].partition);
        if (k > 0)
                rd_kafka_position(h->rk, pos);
        for (i = 0; i < k; i++) {
                int64_t lo = -1, hi = -1, at = -1;

                if (rd_kafka_get_watermark_offsets(h->rk, h->topic,
                                                   p[i].partition, &lo, &hi))
                        lo = hi = -1;
                p[i].position = !pos->elems[i].err &&
                                        pos->elems[i].offset >= 0
                                    ? pos->elems[i].offset
                                    : -1;
                if (p[i].position >= 0)
                        at = p[i].position;
                else if (p[i].start_kind == BP_START_OFFSET)
                        at = p[i].start;
                else if (p[i].start_kind == BP_START_EARLIEST)
                        at = lo >= 0 ? lo : -1;
                else if (p[i].start_kind == BP_START_LATEST) {
                        if (p[i].start < 0 && hi >= 0)
                                p[i].start = hi;
                        at = p[i].start;
                }
                p[i].stale = now < p[i].since_ms + h->settle_ms &&
                             hi == p[i].hwm_since;
                if (p[i].probed > hi)
                        hi = p[i].probed; /* the leader knows more */
                p[i].hwm = hi;
                p[i].lag = hi >= 0 && at >= 0 ? (hi > at ? hi - at : 0) : -1;
                p[i].at  = at;
        }
        rd_kafka_topic_partition_list_destroy(pos);
}
