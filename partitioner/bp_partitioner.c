/*
 * bp_partitioner.c - the partitioner callback: from (topic handle, key,
 * partition count) to a partition of the key's bucket.
 *
 * Hot path: one registry lookup, one topic name compare, a bounded scan of
 * the key for the delimiter, one atomic increment. No lock, no allocation.
 */
#include <string.h>

#include "bucket_priority.h"
#include "bp_escape.h"
#include "bp_key.h"
#include "bp_properties.h"
#include "bp_client.h"
#include "bp_client_layout.h"
#include "bp_producer.h"
#include "bp_registry.h"

/* An out-of-range partition: librdkafka fails the record at once with
 * RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION instead of queueing it. */
static int32_t fail_record(int32_t partition_cnt) {
        return partition_cnt;
}

/* One of the \p count partitions of bucket b: round robin, or murmur2 of
 * the key (per-key order). Counts the record. */
static inline int32_t pick(bp_client_t *c, const bp_layout_t *l, int b,
                           int32_t count, const rd_kafka_topic_t *rkt,
                           const void *key, size_t keylen) {
        uint64_t seq = atomic_fetch_add_explicit(&c->counters[b].next, 1,
                                                 memory_order_relaxed);
        if (c->cfg.within == BP_WITHIN_HASH)
                return l->partitions[l->first[b] +
                                     rd_kafka_msg_partitioner_murmur2(
                                         rkt, key, keylen, count, NULL, NULL)];
        return l->partitions[l->first[b] + (int32_t)(seq % (uint64_t)count)];
}

/* A partition of bucket b, or a failure if b has none at this count. */
static int32_t place_in_bucket(bp_client_t *c, const bp_layout_t *l, int b,
                               const rd_kafka_topic_t *rkt, const void *key,
                               size_t keylen, int32_t partition_cnt) {
        int32_t count = l->count[b];

        if (__builtin_expect(count == 0, 0)) {
                atomic_fetch_add_explicit(&c->counters[b].failed, 1,
                                          memory_order_relaxed);
                atomic_fetch_add_explicit(&c->unroutable, 1,
                                          memory_order_relaxed);
                if (c->cfg.next.set) {
                        bp_client_log_once(
                            c, BP_ONCE_EMPTY_BUCKET, 3,
                            "records for bucket \"%s\" of topic \"%s\" "
                            "fail: at %d partitions, step %d of the layout "
                            "change gives them no partition (bp-layout "
                            "--next-* shows the steps)",
                            c->cfg.buckets[b].name, c->cfg.topic,
                            (int)partition_cnt, c->cfg.next.step);
                        return fail_record(partition_cnt);
                }
                bp_client_log_once(
                    c, BP_ONCE_EMPTY_BUCKET, 3,
                    "records for bucket \"%s\" of topic \"%s\" fail: at %d "
                    "partitions the stable layout gives it no partition; "
                    "grow the topic to at least %d partitions (bp-layout "
                    "shows the layout)",
                    c->cfg.buckets[b].name, c->cfg.topic, (int)partition_cnt,
                    (int)bp_layout_stable_min(c->cfg.allocation,
                                              c->cfg.bucket_cnt));
                return fail_record(partition_cnt);
        }
        return pick(c, l, b, count, rkt, key, keylen);
}

static int32_t route_fallback(bp_client_t *c, const bp_layout_t *l,
                              const rd_kafka_topic_t *rkt, const void *key,
                              size_t keylen, int32_t partition_cnt,
                              void *rkt_opaque, void *msg_opaque) {
        char shown[4 * BP_KEY_PREVIEW_LEN + 8];
        uint64_t seq;

        switch (c->cfg.fallback_kind) {
        case BP_FALLBACK_BUCKET:
                atomic_fetch_add_explicit(
                    &c->counters[c->cfg.fallback_bucket].fallback, 1,
                    memory_order_relaxed);
                return place_in_bucket(c, l, c->cfg.fallback_bucket, rkt, key,
                                       keylen, partition_cnt);
        case BP_FALLBACK_DISCARD:
                atomic_fetch_add_explicit(&c->discarded, 1,
                                          memory_order_relaxed);
                bp_escape(key, keylen, BP_KEY_PREVIEW_LEN, shown,
                          sizeof(shown));
                bp_client_log_once(
                    c, BP_ONCE_DISCARD, 4,
                    "record to topic \"%s\" with key \"%s\" names no bucket; "
                    BP_PROP_FALLBACK_PARTITIONER "=discard fails its "
                    "delivery (Local: Unknown partition). Further discards "
                    "are counted in bp_stats(), not logged",
                    c->cfg.topic, shown);
                return fail_record(partition_cnt);
        case BP_FALLBACK_BUILTIN:
        default:
                atomic_fetch_add_explicit(&c->fallback_other, 1,
                                          memory_order_relaxed);
                if (c->cfg.fallback_builtin == BP_BUILTIN_ROUNDROBIN) {
                        seq = atomic_fetch_add_explicit(
                            &c->fallback_rr, 1, memory_order_relaxed);
                        return (int32_t)(seq % (uint64_t)partition_cnt);
                }
                return c->fallback_fn(rkt, key, keylen, partition_cnt,
                                      rkt_opaque, msg_opaque);
        }
}

/* Every case but the common one, as it always was: no client of ours,
 * incomplete configuration, other topics, a new partition count, keys
 * without a bucket, buckets without partitions. */
__attribute__((noinline)) static int32_t
partition_slow(bp_client_t *c, const rd_kafka_topic_t *rkt, const void *key,
               size_t keylen, int32_t partition_cnt, void *rkt_opaque,
               void *msg_opaque) {
        const bp_layout_t *l;
        int b;

        if (__builtin_expect(!c, 0)) {
                /* Not a client of ours (or the registry was full): refuse
                 * rather than guess a partition. */
                return fail_record(partition_cnt);
        }
        if (__builtin_expect(c->mode == BP_MODE_BROKEN, 0) &&
            (!c->cfg.topic_set ||
             bp_is_bucket_topic(c, rd_kafka_topic_name(rkt)))) {
                /* Incomplete configuration: without a topic name every
                 * record could be a bucket record, so none is guessed. */
                atomic_fetch_add_explicit(&c->unroutable, 1,
                                          memory_order_relaxed);
                bp_client_log_once(c, BP_ONCE_BROKEN, 3,
                                   "record to topic \"%s\" fails: %s",
                                   rd_kafka_topic_name(rkt), c->broken_reason);
                return fail_record(partition_cnt);
        }
        if (c->mode != BP_MODE_ACTIVE || !bp_is_bucket_topic_cached(c, rkt))
                return c->other(rkt, key, keylen, partition_cnt, rkt_opaque,
                                msg_opaque);
        l = bp_client_layout(c, partition_cnt);
        if (__builtin_expect(!l, 0)) {
                atomic_fetch_add_explicit(&c->unroutable, 1,
                                          memory_order_relaxed);
                return fail_record(partition_cnt);
        }
        b = bp_key_bucket(&c->cfg, key, keylen);
        if (__builtin_expect(b < 0, 0))
                return route_fallback(c, l, rkt, key, keylen, partition_cnt,
                                      rkt_opaque, msg_opaque);
        return place_in_bucket(c, l, b, rkt, key, keylen, partition_cnt);
}

int32_t bp_partitioner(const rd_kafka_topic_t *rkt,
                       const void *key,
                       size_t keylen,
                       int32_t partition_cnt,
                       void *rkt_opaque,
                       void *msg_opaque) {
        bp_client_t *c = bp_registry_find_cached(rkt);
        const bp_layout_t *l;
        int32_t count;
        int b;

        /* The common case: an active client, its bucket topic's known
         * handle, the current layout, a key naming a bucket that has
         * partitions. */
        if (__builtin_expect(!c || rkt != atomic_load_explicit(
                                            &c->bucket_rkt,
                                            memory_order_relaxed),
                             0))
                goto slow;
        l = atomic_load_explicit(&c->current, memory_order_acquire);
        if (__builtin_expect(!l || l->partition_cnt != partition_cnt, 0))
                goto slow;
        b = bp_key_match(&c->matcher, key, keylen);
        if (__builtin_expect(b < 0 || (count = l->count[b]) == 0, 0))
                goto slow;
        return pick(c, l, b, count, rkt, key, keylen);
slow:
        return partition_slow(c, rkt, key, keylen, partition_cnt, rkt_opaque,
                              msg_opaque);
}
