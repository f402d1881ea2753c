/*
 * demo_stats.h - everything one run measures: per class (critical, bulk) a
 * ledger of record ids (sent, delivered, consumed) so duplicates and lost
 * records are counted by id, counters, latency histograms (whole run and
 * the last two seconds) and, for critical records, every latency with its
 * time for the charts; the plugin scheduler's per-bucket figures of the
 * strict run. Producers and consumers write from their threads;
 * the view reads.
 */
#ifndef DEMO_STATS_H
#define DEMO_STATS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "demo_hist.h"

typedef enum demo_class { DEMO_CRITICAL = 0, DEMO_BULK = 1 } demo_class_t;
#define DEMO_CLASSES 2

/** "critical" or "bulk": the bucket names and the key prefixes. */
extern const char *const demo_class_name[DEMO_CLASSES];

#define DEMO_PARTITIONS 64      /* partitions counted (0..63) */
#define DEMO_SLICES 4           /* live percentiles: the last 4 slices... */
#define DEMO_SLICE_US 500000    /* ...of half a second each */

typedef struct demo_class_stats {
        long planned;                  /**< Ids 0 .. planned-1. */
        _Atomic unsigned char *ledger; /**< DEMO_SENT | ... per id. */
        int64_t *sent_us;              /**< Produce time per id. */
        atomic_long sent, delivered, failed;
        atomic_long consumed;          /**< Unique ids consumed. */
        atomic_long consumed_window;   /**< ...while measuring. */
        atomic_long duplicates;        /**< Ids consumed again. */
        atomic_long late;              /**< Latency over one second. */
        atomic_long garbage;           /**< Records not from this run. */
        atomic_long other_bucket;      /**< Read by another bucket's
                                        *   worker (buckets run). */
        atomic_long part[DEMO_PARTITIONS];        /**< Unique ids consumed,
                                                   *   by partition. */
        atomic_long part_window[DEMO_PARTITIONS]; /**< ...while measuring. */
        long oldest_cursor;            /**< First id maybe not consumed. */
        demo_hist_t total;             /**< Under the stats lock. */
        demo_hist_t slice[DEMO_SLICES];
        int64_t slice_no[DEMO_SLICES];
} demo_class_stats_t;

/** One critical record: when it was consumed and how long it took. */
typedef struct demo_sample {
        float t_s;    /**< Seconds since the run started. */
        float lat_ms; /**< Produce to consume. */
} demo_sample_t;

/** The view's periodic sample for the charts. */
typedef struct demo_point {
        float t_s;
        float lag[DEMO_CLASSES];
        float oldest_ms[DEMO_CLASSES];
} demo_point_t;

/** What the plugin's scheduler reports for one bucket of a consumer
 *  serving several (bp_consumer_bucket_stats(), strict run). */
typedef struct demo_sched {
        long delivered;  /**< Records handed to the worker. */
        long lag;        /**< Not yet delivered, the consumer's view. */
        long partitions; /**< Partitions of the bucket it holds. */
        long pauses;     /**< Times the scheduler paused the bucket. */
        long paused_ms;  /**< Total time paused. */
        int paused;      /**< Paused right now. */
} demo_sched_t;

typedef struct demo_stats {
        pthread_mutex_t lock;
        int64_t t0_us;           /**< Run start. */
        atomic_int measuring;    /**< 1 in the window, 0 while draining. */
        demo_class_stats_t cls[DEMO_CLASSES];
        demo_sample_t *crit;     /**< Under lock. */
        size_t crit_cnt, crit_cap;
        demo_point_t *series;    /**< Run thread only. */
        size_t series_cnt, series_cap;
} demo_stats_t;

#define DEMO_SENT 1
#define DEMO_DELIVERED 2
#define DEMO_CONSUMED 4
#define DEMO_FAILED 8

/** @returns 0, or -1 when out of memory. */
int demo_stats_init(demo_stats_t *st, long planned_critical,
                    long planned_bulk);
void demo_stats_free(demo_stats_t *st);

/** The producer hands record \p id to librdkafka (sent_us = now). */
void demo_stats_sent(demo_stats_t *st, demo_class_t c, long id,
                     int64_t sent_us);

/** Its delivery report arrived; \p ok when the broker has it. */
void demo_stats_delivered(demo_stats_t *st, demo_class_t c, long id, int ok);

/** A consumer handled record \p id of \p partition produced at
 *  \p sent_us. */
void demo_stats_consumed(demo_stats_t *st, demo_class_t c, long id,
                         int32_t partition, int64_t sent_us, int64_t now_us);

/**
 * Of the partitions that delivered records of class \p c during the run,
 * the one that delivered the fewest while measuring (\p lo, \p lo_n) and
 * the one that delivered the most (\p hi, \p hi_n). -1 partitions when
 * none delivered any.
 */
void demo_stats_partition_spread(demo_stats_t *st, demo_class_t c, int *lo,
                                 long *lo_n, int *hi, long *hi_n);

/** A record that does not belong to this run (bad id or value). */
void demo_stats_garbage(demo_stats_t *st, demo_class_t c);

/** p50 and p99 in ms over the last two seconds (-1 when none). */
void demo_stats_live(demo_stats_t *st, demo_class_t c, int64_t now_us,
                     double *p50_ms, double *p99_ms);

/** Age in ms of the oldest record sent and not consumed yet (0: none).
 *  Call from one thread only (it moves a cursor). */
double demo_stats_oldest_ms(demo_stats_t *st, demo_class_t c,
                            int64_t now_us);

/** Delivered minus consumed records of class \p c (never negative). */
long demo_stats_lag(demo_stats_t *st, demo_class_t c);

/** Exact quantile \p q of every critical latency, in ms (-1: none). */
double demo_stats_critical_quantile(demo_stats_t *st, double q);

/** Delivered records never consumed, counted by id. */
long demo_stats_lost(demo_stats_t *st, demo_class_t c);

/** Appends a chart point (run thread only). */
void demo_stats_point(demo_stats_t *st, const demo_point_t *p);

#endif /* DEMO_STATS_H */
