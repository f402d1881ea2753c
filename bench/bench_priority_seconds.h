/*
 * bench_priority_seconds.h - the critical latencies of a run by the time
 * their records were sent: p50 and p99 per second of the window (the
 * chart), and the p99 of a stretch of it (the rebalance window).
 */
#ifndef BENCH_PRIORITY_SECONDS_H
#define BENCH_PRIORITY_SECONDS_H

#include <stddef.h>

#include "bench_priority.h"
#include "demo_kit.h"

/** One bpb_second_t per second of [0, \p window_s) that sent a critical
 *  record, in \p res->seconds (NULL and 0 when out of memory). */
void bpb_seconds_fill(demo_stats_t *st, double window_s, bpb_result_t *res);

/** p99 in ms of the critical records sent in [\p from_s, \p to_s) since
 *  t0, their number in \p n; -1 when there are none. */
double bpb_seconds_p99(demo_stats_t *st, double from_s, double to_s,
                       long *n);

#endif /* BENCH_PRIORITY_SECONDS_H */
