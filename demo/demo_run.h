/*
 * demo_run.h - one run of the story: start the cluster and the topic, the
 * workers (one group; one group per bucket; or one worker serving both
 * buckets), wait until they own every partition, send login codes and the
 * campaign for the measured window (with the narrated growth and crash
 * steps on a real cluster), then drain what is left without processing
 * cost, so "lost" counts only records that can never be consumed.
 */
#ifndef DEMO_RUN_H
#define DEMO_RUN_H

#include <signal.h>

#include "demo_options.h"
#include "demo_plugin.h"
#include "demo_result.h"
#include "demo_stats.h"
#include "demo_view.h"

/** Set by SIGINT/SIGTERM: the run stops early and cleans up. */
extern volatile sig_atomic_t demo_interrupted;

/**
 * Runs \p mode as run \p run_no of \p run_cnt, drawing on \p v. \p pl is
 * the plugin opened by the demo.
 * @returns 0, or -1 (message printed) when the run could not be set up.
 */
int demo_run(const demo_options_t *o, demo_mode_t mode, int run_no,
             int run_cnt, demo_view_t *v, const demo_plugin_t *pl,
             demo_result_t *res);

void demo_result_free(demo_result_t *res);

#endif /* DEMO_RUN_H */
