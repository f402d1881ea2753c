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
#include "demo_stats.h"
#include "demo_view.h"

/** Set by SIGINT/SIGTERM: the run stops early and cleans up. */
extern volatile sig_atomic_t demo_interrupted;

/** What a run measured. */
typedef struct demo_result {
        const char *mode;          /**< demo_mode_name[mode_id]. */
        demo_mode_t mode_id;
        int ok;                    /**< The run completed. */
        int workers;               /**< Consumer threads (at the start). */
        int crashed;               /**< A worker crashed (--brokers). */
        double critical_p50_ms, critical_p99_ms, critical_max_ms;
        long critical_produced;    /**< Delivered to the cluster. */
        long critical_consumed;    /**< Unique ids consumed. */
        long critical_late;        /**< Consumed over 1 s after sending. */
        long critical_after_window;/**< Consumed only while draining. */
        long bulk_produced;
        long bulk_consumed;        /**< Unique, within the window. */
        long bulk_drained;         /**< Unique, while draining. */
        int bulk_part_lo, bulk_part_hi; /**< The bulk partitions read least
                                    *   and most within the window... */
        long bulk_part_lo_n, bulk_part_hi_n; /**< ...and how much. */
        long lost;                 /**< Delivered, never consumed (by id). */
        long failed;               /**< Delivery failed (never stored). */
        long duplicates;           /**< Consumed again (after a crash). */
        long foreign;              /**< Plugin safety net count. */
        long critical_by_bulk;     /**< Login codes read by a bulk worker
                                    *   (a partition changed bucket). */
        int consumers[DEMO_CLASSES];
        char partitions[DEMO_CLASSES][48];
        double bulk_done_s;        /**< When the last newsletter was
                                    *   consumed (-1: not in the window). */
        double window_s, drain_s;
        int drained;               /**< Drain reached lag 0. */
        int sched_valid;           /**< sched[] holds the strict run's
                                    *   scheduler figures. */
        demo_sched_t sched[DEMO_CLASSES]; /**< Over the whole run (drain
                                    *   included), summed over the worker's
                                    *   restarts. */
        demo_stats_t stats;        /**< Samples and series for the report. */
} demo_result_t;

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
