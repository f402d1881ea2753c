/*
 * bp_explicit.c - records of the bucket topic written to a partition the
 * application chose itself (see bp_producer.h).
 *
 * librdkafka calls a partitioner only for records produced with
 * RD_KAFKA_PARTITION_UA. A host that picks the partition itself (rsyslog's
 * omkafka unless partitions.auto="on", a round robin of its own, a fixed
 * partition) bypasses the bucket partitioner, and its records land
 * wherever it put them. The plugin cannot move them: on_send() is the only
 * place it sees them, and rdkafka.h declares the message given to on_send()
 * immutable ("The rkmessage object is NOT mutable and MUST NOT be modified
 * by the interceptor"). So it judges them: each such record is counted for
 * its key's bucket (explicit), and counted again (misplaced) when the
 * partition is not one of that bucket's; the first misplaced record of a
 * client is logged with the fix.
 *
 * Judging needs the topic's partition count, which a producer learns only
 * from its partitioner's calls: a host that never lets the partitioner run
 * gives none. The first explicit record then starts a thread that asks the
 * client for the topic's metadata (in slices, so that on_destroy() need not
 * wait long) and keeps the count; records written before it answers are
 * counted as explicit only, and the first of them is judged when it does.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "bp_client_layout.h"
#include "bp_escape.h"
#include "bp_key.h"
#include "bp_list.h"
#include "bp_producer.h"
#include "bp_producer_side.h"
#include "bp_topic_count.h"

/* The metadata request's slice (ms), and how long the thread asks. */
#define EXPLICIT_COUNT_SLICE_MS 200
#define EXPLICIT_COUNT_TOTAL_MS 30000

static int32_t partition_count(bp_client_t *c) {
        const bp_layout_t *l =
            atomic_load_explicit(&c->current, memory_order_acquire);
        if (l)
                return l->partition_cnt;
        return atomic_load_explicit(&c->producer->explicit_cnt,
                                    memory_order_acquire);
}

/* Logs the first misplaced record (once per client). */
static void log_misplaced(bp_client_t *c, const bp_layout_t *l, int b,
                          int32_t partition, const char *key_shown) {
        char ranges[256];

        if (l->count[b] == 0)
                snprintf(ranges, sizeof(ranges), "none");
        else
                bp_ranges_format(ranges, sizeof(ranges),
                                 l->partitions + l->first[b], l->count[b]);
        bp_client_log_once(
            c, BP_ONCE_EXPLICIT, 3,
            "record to topic \"%s\" written to partition %d, chosen by the "
            "application (no partitioner runs): key \"%s\" is bucket "
            "\"%s\", partitions %s of %d. Let the client choose (rsyslog: "
            "partitions.auto=\"on\"); more are counted as misplaced, not "
            "logged",
            c->cfg.topic, (int)partition, key_shown, c->cfg.buckets[b].name,
            ranges, (int)l->partition_cnt);
}

/* Judges a record of bucket b at partition (its key shown in \p shown,
 * or, when shown is empty, escaped from key/keylen if it must be logged):
 * counts it as misplaced and logs the first. 0 when the count is not
 * known yet. */
static int judge(bp_client_t *c, int b, int32_t partition, const char *shown,
                 const void *key, size_t keylen) {
        char escaped[4 * BP_KEY_PREVIEW_LEN + 8];
        int32_t cnt = partition_count(c);
        const bp_layout_t *l;

        if (cnt <= 0 || !(l = bp_client_layout(c, cnt)))
                return 0;
        if (partition < l->partition_cnt && l->bucket_of[partition] == b)
                return 1;
        atomic_fetch_add_explicit(&c->counters[b].misplaced, 1,
                                  memory_order_relaxed);
        if (atomic_load(&c->logged_once) & BP_ONCE_EXPLICIT)
                return 1;
        if (!shown[0]) {
                bp_escape(key, keylen, BP_KEY_PREVIEW_LEN, escaped,
                          sizeof(escaped));
                shown = escaped;
        }
        log_misplaced(c, l, b, partition, shown);
        return 1;
}

static void *count_thread(void *arg) {
        bp_client_t *c         = arg;
        bp_producer_side_t *p  = c->producer;
        int32_t cnt            = -1;
        int waited;

        for (waited = 0; cnt < 0 && waited < EXPLICIT_COUNT_TOTAL_MS &&
                         !atomic_load(&p->explicit_stop);
             waited += EXPLICIT_COUNT_SLICE_MS)
                cnt = bp_topic_partition_count(c->rk, c->cfg.topic,
                                               EXPLICIT_COUNT_SLICE_MS);
        if (cnt <= 0)
                return NULL;
        atomic_store_explicit(&p->explicit_cnt, cnt, memory_order_release);
        pthread_mutex_lock(&p->explicit_lock);
        if (p->first_bucket >= 0)
                judge(c, p->first_bucket, p->first_partition, p->first_key,
                      NULL, 0);
        p->first_bucket = -1;
        pthread_mutex_unlock(&p->explicit_lock);
        return NULL;
}

/* The count is not known: keeps the first record for the thread, which
 * it starts once. */
static void wait_for_count(bp_client_t *c, int b, int32_t partition,
                           const void *key, size_t keylen) {
        bp_producer_side_t *p = c->producer;

        pthread_mutex_lock(&p->explicit_lock);
        if (partition_count(c) > 0) { /* answered meanwhile */
                pthread_mutex_unlock(&p->explicit_lock);
                judge(c, b, partition, "", key, keylen);
                return;
        }
        if (!p->first_kept) {
                p->first_kept      = 1;
                p->first_bucket    = b;
                p->first_partition = partition;
                bp_escape(key, keylen, BP_KEY_PREVIEW_LEN, p->first_key,
                          sizeof(p->first_key));
        }
        if (!p->explicit_started &&
            pthread_create(&p->explicit_thread, NULL, count_thread, c) == 0)
                p->explicit_started = 1;
        pthread_mutex_unlock(&p->explicit_lock);
}

void bp_explicit_seen(bp_client_t *c, const rd_kafka_message_t *m) {
        int b = bp_key_bucket(&c->cfg, m->key, m->key_len);

        if (b < 0) {
                atomic_fetch_add_explicit(&c->explicit_other, 1,
                                          memory_order_relaxed);
                return;
        }
        atomic_fetch_add_explicit(&c->counters[b].explicit_partition, 1,
                                  memory_order_relaxed);
        if (!judge(c, b, m->partition, "", m->key, m->key_len))
                wait_for_count(c, b, m->partition, m->key, m->key_len);
}

void bp_explicit_on_destroy(bp_client_t *c) {
        bp_producer_side_t *p = c->producer;

        atomic_store(&p->explicit_stop, 1);
        if (p->explicit_started)
                pthread_join(p->explicit_thread, NULL);
        p->explicit_started = 0;
}
