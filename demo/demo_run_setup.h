/*
 * demo_run_setup.h - setting a run up and tearing it down: the cluster,
 * the topic, the workers, the producers.
 */
#ifndef DEMO_RUN_SETUP_H
#define DEMO_RUN_SETUP_H

#include <stddef.h>

#include "demo_run_state.h"

/**
 * Names the topic and group, starts the cluster, creates the topic, starts
 * the run's workers and creates (does not start) the producers.
 * @returns 0, or -1 with \p err set; demo_run_teardown() undoes what was
 * done either way.
 */
int demo_run_setup(demo_run_state_t *r, char *err, size_t err_size);

/**
 * Starts worker number r->cons_cnt: its bucket (or list of buckets)
 * follows from the run and its number. @returns 0, or -1 with \p err set.
 */
int demo_run_add_worker(demo_run_state_t *r, char *err, size_t err_size);

/**
 * Starts the login codes at t0 and the campaign at its start, each at its
 * rate. @returns 0, or -1 with \p err set.
 */
int demo_run_start_producers(demo_run_state_t *r, char *err,
                             size_t err_size);

/** Stops the workers and producers, deletes the topic on a real cluster,
 *  stops the cluster. */
void demo_run_teardown(demo_run_state_t *r);

#endif /* DEMO_RUN_SETUP_H */
