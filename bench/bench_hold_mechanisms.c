/*
 * bench_hold_mechanisms.c - the holding mechanisms of bp-bench-hold (see
 * bench_hold_mechanisms.h): pausing the bulk partitions, and moving the
 * critical records to the front of the consumer queue from a thread.
 */
#include "bench_hold_mechanisms.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "testkit.h"

/* The critical partition's lag from the cached high watermark (unknown
 * counts as lag). */
static int64_t critical_lag(holder_t *h) {
        rd_kafka_topic_partition_list_t *l =
            rd_kafka_topic_partition_list_new(1);
        int64_t lo, hi, pos;
        rd_kafka_topic_partition_list_add(l, h->topic, 0);
        rd_kafka_position(h->rk, l);
        pos = l->elems[0].offset;
        rd_kafka_topic_partition_list_destroy(l);
        if (rd_kafka_get_watermark_offsets(h->rk, h->topic, 0, &lo, &hi) ||
            hi < 0)
                return 1;
        return hi - (pos < 0 ? lo : pos);
}

void *hold_by_pause(void *arg) {
        holder_t *h = arg;
        rd_kafka_topic_partition_list_t *bulk =
            rd_kafka_topic_partition_list_new(BENCH_HOLD_PARTITIONS - 1);
        int p, paused = 0;
        for (p = 1; p < BENCH_HOLD_PARTITIONS; p++)
                rd_kafka_topic_partition_list_add(bulk, h->topic, p);
        while (!atomic_load(&h->stop)) {
                int64_t lag = critical_lag(h);
                if (lag > 0 && !paused) {
                        rd_kafka_pause_partitions(h->rk, bulk);
                        paused = 1;
                        h->actions++;
                } else if (lag <= 0 && paused) {
                        rd_kafka_resume_partitions(h->rk, bulk);
                        paused = 0;
                }
                tk_sleep_us(1000);
        }
        rd_kafka_topic_partition_list_destroy(bulk);
        return NULL;
}

/* librdkafka calls this when the critical queue gets a record while
 * empty: wake the splicing thread. */
static void critical_arrived(rd_kafka_t *rk, void *arg) {
        holder_t *h = arg;
        (void)rk;
        pthread_mutex_lock(&h->lock);
        h->woken = 1;
        pthread_cond_signal(&h->cond);
        pthread_mutex_unlock(&h->lock);
}

/* Moves the critical queue's records to the front of the consumer queue. */
static void splice_critical_first(holder_t *h) {
        rd_kafka_queue_forward(h->bulk_q, NULL);     /* bulk waits aside */
        rd_kafka_queue_forward(h->consumer_q, h->holding_q);
        rd_kafka_queue_forward(h->consumer_q, NULL); /* now empty */
        rd_kafka_queue_forward(h->critical_q, h->consumer_q);
        rd_kafka_queue_forward(h->critical_q, NULL);
        rd_kafka_queue_forward(h->holding_q, h->consumer_q);
        rd_kafka_queue_forward(h->holding_q, NULL);
        rd_kafka_queue_forward(h->bulk_q, h->consumer_q);
        /* A poll that began while the consumer queue pointed at the
         * holding queue waits there: let it return. */
        rd_kafka_queue_yield(h->holding_q);
        h->actions++;
}

void *hold_by_splice(void *arg) {
        holder_t *h = arg;
        while (!atomic_load(&h->stop)) {
                pthread_mutex_lock(&h->lock);
                if (!h->woken) {
                        struct timespec until;
                        clock_gettime(CLOCK_REALTIME, &until);
                        until.tv_nsec += 1000000;
                        if (until.tv_nsec >= 1000000000) {
                                until.tv_sec++;
                                until.tv_nsec -= 1000000000;
                        }
                        pthread_cond_timedwait(&h->cond, &h->lock, &until);
                }
                h->woken = 0;
                pthread_mutex_unlock(&h->lock);
                if (rd_kafka_queue_length(h->critical_q) > 0)
                        splice_critical_first(h);
        }
        return NULL;
}

/* Forwards each partition's fetch queue to its class's queue. */
void splice_setup(holder_t *h) {
        int p;
        h->consumer_q = rd_kafka_queue_get_consumer(h->rk);
        h->critical_q = rd_kafka_queue_new(h->rk);
        h->bulk_q     = rd_kafka_queue_new(h->rk);
        h->holding_q  = rd_kafka_queue_new(h->rk);
        rd_kafka_queue_cb_event_enable(h->critical_q, critical_arrived, h);
        rd_kafka_queue_forward(h->bulk_q, h->consumer_q);
        for (p = 0; p < BENCH_HOLD_PARTITIONS; p++) {
                rd_kafka_queue_t *q =
                    rd_kafka_queue_get_partition(h->rk, h->topic, p);
                if (!q) {
                        fprintf(stderr, "bp-bench-hold: partition %d "
                                        "unknown\n", p);
                        exit(1);
                }
                rd_kafka_queue_forward(q, p == 0 ? h->critical_q : h->bulk_q);
                rd_kafka_queue_destroy(q);
        }
}

void splice_teardown(holder_t *h) {
        int p;
        for (p = 0; p < BENCH_HOLD_PARTITIONS; p++) {
                rd_kafka_queue_t *q =
                    rd_kafka_queue_get_partition(h->rk, h->topic, p);
                if (q) {
                        rd_kafka_queue_forward(q, NULL);
                        rd_kafka_queue_destroy(q);
                }
        }
        rd_kafka_queue_forward(h->bulk_q, NULL);
        rd_kafka_queue_destroy(h->critical_q);
        rd_kafka_queue_destroy(h->bulk_q);
        rd_kafka_queue_destroy(h->holding_q);
        rd_kafka_queue_destroy(h->consumer_q);
}
