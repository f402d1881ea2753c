/*
 * bench_sched_round.h - one setup in one round of the scheduler
 * benchmark, and the figures drawn from its result.
 */
#ifndef BENCH_SCHED_ROUND_H
#define BENCH_SCHED_ROUND_H

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include "bench_sched_consumer.h"

/**
 * Runs setup \p setup (BSCH_*) as round \p round on the cluster: a fresh
 * topic and its bulk backlog, the setup's consumers, the critical stream
 * once they hold their partitions; fills \p res (the caller frees
 * res->lat_ms and res->by_id). Exits 1 if a critical record was not
 * received, 2 on a failure.
 */
void bsch_run_setup(int setup, int round, bsch_result_t *res);

/** Percentile \p p (0..1) of the result's latencies (ms); 0 if none. */
double bsch_pct(const bsch_result_t *r, double p);

/** The median of \p n values (sorts \p v). */
double bsch_median(double *v, int n);

#endif /* BENCH_SCHED_ROUND_H */
