/*
 * demo_result.h - what one run measured (demo_result_t): filled by the
 * run (demo_run.c), read by the summary, the comparison and the reports.
 */
#ifndef DEMO_RESULT_H
#define DEMO_RESULT_H

#include "demo_options.h"
#include "demo_stats.h"

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

#endif /* DEMO_RESULT_H */
