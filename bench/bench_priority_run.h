/*
 * bench_priority_run.h - the state of one run of one design, shared by its
 * set-up (bench_priority_setup.c) and the measured run itself
 * (bench_priority_run.c). Private to bp-bench-priority.
 */
#ifndef BENCH_PRIORITY_RUN_H
#define BENCH_PRIORITY_RUN_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "bench_priority.h"
#include "bench_priority_gaps.h"
#include "bench_priority_worker.h"
#include "demo_kit.h"

#define BPB_TICK_US 100000

typedef struct bpb_run_state {
        const bpb_options_t *o;
        int design, kind;
        bpb_result_t *res;
        bpb_gaps_t gaps;
        int gaps_made;
        demo_stats_t st;
        int stats_made;
        demo_cluster_t cluster;
        int cluster_up;
        /* setup[c]: what the clients of class c use (the same for both
         * classes except in design (c), one topic per class). */
        demo_setup_t setup[DEMO_CLASSES];
        int topic_made[DEMO_CLASSES];
        demo_producer_t prod[DEMO_CLASSES];
        bpb_worker_t w[BPB_MAX_WORKERS];
        int w_cnt;
        atomic_llong cost_us;
        atomic_int gate_open;
        char allocation[32];
        int64_t t0;
        int joined, left; /* --rebalance steps done */
} run_t;

/** A progress line on stderr, prefixed with the design's name. */
void bpb_say(const run_t *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/** Stats, cluster, topics, the workers (subscribed, not settled yet) and
 *  the producers. @returns 0, or -1 with \p err filled. */
int bpb_setup(run_t *r, char *err, size_t err_size);

/** Starts worker r->w[r->w_cnt] for class \p cls. @returns 0 or -1. */
int bpb_start_worker(run_t *r, int cls, char *err, size_t err_size);

/** Waits until every partition is read by one worker, none idle, those
 *  held paused, for a second; -1 (said) after a minute. */
int bpb_wait_settled(run_t *r);

/** Who reads what, into r->res->layout. */
void bpb_describe_layout(run_t *r);

#endif /* BENCH_PRIORITY_RUN_H */
