/*
 * bench_priority_worker.h - one consumer thread of the priority benchmark.
 * It pays the same processing cost for every record in every design and
 * accounts each record by id in the demo's ledger (demo_stats). Until the
 * run opens its gate a worker that reads bulk records keeps whatever
 * partitions it is assigned paused, so the backlog can be written in full
 * before anyone drains it and every design starts its window with the
 * same backlog. A worker of the critical class alone is not held: its
 * partitions stay empty until t0, and a resumed partition is fetched
 * again only after a delay (about half a second, measured on the mock),
 * which would land on the first critical records and not on the design.
 */
#ifndef BENCH_PRIORITY_WORKER_H
#define BENCH_PRIORITY_WORKER_H

#include <stdatomic.h>
#include <stdint.h>

#include <librdkafka/rdkafka.h>

#include "bench_priority_gaps.h"
#include "demo_kit.h"

typedef struct bpb_worker {
        int index;                 /**< For its client.id. */
        int serves;                /**< DEMO_CRITICAL, DEMO_BULK, or -1
                                    *   (shared: every class). */
        const char *bucket;        /**< bucket.priority.bucket (design b)
                                    *   or NULL. */
        demo_stats_t *st;
        atomic_llong *cost_us;     /**< Set by the run (0 while draining). */
        atomic_int *gate_open;     /**< Set by the run at t0. */
        int hold;                  /**< Pause the assignment until the gate
                                    *   opens (workers that read bulk). */
        uint64_t reads;            /**< Bit p: partition p is the worker's
                                    *   to read. On KIP-848 a bucket
                                    *   consumer is assigned partitions of
                                    *   other buckets too and the plugin
                                    *   keeps those paused: the gate must
                                    *   not resume them. ~0: all. */
        bpb_gaps_t *gaps;          /**< Notes every critical record. */
        rd_kafka_t *rk;
        demo_thread_t thread;
        atomic_int stop;
        atomic_ullong assigned;    /**< Bit p: partition p assigned, and
                                    *   the worker's to read. */
        atomic_ullong paused;      /**< Bit p: partition p paused by us. */
        atomic_long consumed;      /**< Records handled (with repeats). */
} bpb_worker_t;

/**
 * Creates the consumer from \p s (group s->group, topic s->topic, the
 * plugin when s->buckets), subscribes and starts the thread.
 * @returns 0, or -1 with \p err filled.
 */
int bpb_worker_start(bpb_worker_t *w, const demo_setup_t *s, char *err,
                     size_t err_size);

/** Closes the consumer cleanly and waits for the thread. */
void bpb_worker_stop(bpb_worker_t *w);

#endif /* BENCH_PRIORITY_WORKER_H */
