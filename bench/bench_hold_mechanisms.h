/*
 * bench_hold_mechanisms.h - the two ways bp-bench-hold's single consumer
 * holds the bulk class back (bench_hold_candidates.c measures them against
 * two dedicated consumers): a thread that pauses the bulk partitions while
 * the critical one lags, and a thread that moves critical records to the
 * front of the consumer queue. No plugin involved.
 */
#ifndef BENCH_HOLD_MECHANISMS_H
#define BENCH_HOLD_MECHANISMS_H

#include <librdkafka/rdkafka.h>
#include <pthread.h>
#include <stdatomic.h>

#define BENCH_HOLD_PARTITIONS 4 /* 0: critical; 1..3: bulk */

/* One consumer and the thread holding its bulk class back. */
typedef struct {
        rd_kafka_t *rk;
        const char *topic;
        atomic_int stop;
        long actions;
        /* splice */
        rd_kafka_queue_t *consumer_q, *critical_q, *bulk_q, *holding_q;
        pthread_mutex_t lock;
        pthread_cond_t cond;
        int woken;
} holder_t;

/* Thread bodies (arg: a holder_t): until h->stop, pause the bulk
 * partitions while the critical partition lags and resume them after;
 * or, once splice_setup() ran, move the critical queue's records to the
 * front of the consumer queue whenever some arrive. h->actions counts the
 * pauses or the moves. */
void *hold_by_pause(void *arg);
void *hold_by_splice(void *arg);

/* Forwards each partition's fetch queue to its class's queue (the bulk
 * queue flows into the consumer queue); and undoes it. */
void splice_setup(holder_t *h);
void splice_teardown(holder_t *h);

#endif /* BENCH_HOLD_MECHANISMS_H */
