/*
 * demo_run_frame.h - what the live view shows of a run at each tick: the
 * frame (assignments, counts, latencies, the plugin's routing), the chart
 * samples, and the narrated assignment changes.
 */
#ifndef DEMO_RUN_FRAME_H
#define DEMO_RUN_FRAME_H

#include <stddef.h>

#include "demo_run_state.h"

/** Seconds since the run's t0 (0 before it). */
double demo_run_time(const demo_run_state_t *r);

/**
 * Writes the partitions of class \p c to \p out: the union of the
 * assignments of the live workers serving it; in the strict run, the part
 * of the worker's assignment holding that bucket. \p live gets the number
 * of live workers serving it.
 */
void demo_run_class_assignment(const demo_run_state_t *r, int c, char *out,
                               size_t size, int *live);

/**
 * Draws the run's frame in phase \p phase (\p force: even if the view
 * would skip it); once the run's t0 is set, also samples the charts and
 * narrates assignment changes.
 */
void demo_run_draw(demo_run_state_t *r, const char *phase, int force);

#endif /* DEMO_RUN_FRAME_H */
