/*
 * bench_sched_consumer.h - the scheduler benchmark's consumers: one
 * thread each, spending the per-record work, timing each critical record
 * into the setup's result and counting bulk records while the critical
 * stream runs.
 */
#ifndef BENCH_SCHED_CONSUMER_H
#define BENCH_SCHED_CONSUMER_H

#include <pthread.h>
#include <stdatomic.h>

#include <librdkafka/rdkafka.h>

/** What one setup measured in one round. */
typedef struct bsch_result {
        double *by_id;   /* latency of each critical record (ms), -1: none */
        long received;   /* critical records received */
        double *lat_ms;  /* sorted latencies of those acknowledged within
                          * ACK_SLOW_MS (the consumer's figures) */
        long lat_cnt;
        long slow_acks;  /* left out: the producer or broker held them */
        long bulk_in_window;
        double window_s;
        double ack_max_ms; /* slowest produce acknowledgement */
} bsch_result_t;

/** One consumer and its thread. */
typedef struct bsch_consumer {
        pthread_t thread;
        rd_kafka_t *rk;
        atomic_int stop, assigned;
        atomic_long bulk;
        bsch_result_t *res;
        pthread_mutex_t *lock;
} bsch_consumer_t;

/** Set while the critical stream runs: bulk records are counted. */
extern atomic_int bsch_window_open;

/**
 * Starts \p c on \p topic in group \p group: with the plugin serving
 * \p bucket (strictly scheduled in the strict setup) unless the setup is
 * plain, fetch.wait.max.ms and --prop from the options; its thread times
 * critical records into \p res under \p lock. Exits 2 on a failure.
 */
void bsch_consumer_start(bsch_consumer_t *c, const char *topic, int setup,
                         const char *bucket, const char *group,
                         bsch_result_t *res, pthread_mutex_t *lock);

#endif /* BENCH_SCHED_CONSUMER_H */
