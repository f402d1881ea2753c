/*
 * bench_priority.h - the priority benchmark (bp-bench-priority): how long a
 * critical record takes, end to end, while a slow consumer drains a bulk
 * backlog, in three designs under the same load:
 *
 *   (a) shared   one topic, one consumer group for everything (the
 *                incident of seeds/000);
 *   (b) buckets  one topic split into buckets critical and bulk by the
 *                bucket-priority plugin, loaded by configuration only, one
 *                consumer group per bucket;
 *   (c) topics   one topic per class, each with its own consumer group
 *                (seeds/000, Option 1: the isolation anchor).
 *
 * Each design runs on the classic group protocol, on the next generation
 * one (KIP-848, group.protocol=consumer; librdkafka 2.12 and later), or
 * both in the same run (--group-protocol), and can go through a rebalance
 * of its critical group while critical records flow (--rebalance).
 *
 * The types every part of the benchmark shares: the options (the load),
 * the design names and what one run of one design measured.
 */
#ifndef BENCH_PRIORITY_H
#define BENCH_PRIORITY_H

#include <stddef.h>
#include <stdint.h>

#include "bench_priority_design.h"

#define BPB_MAX_WORKERS 16
#define BPB_MAX_ROUNDS 9
#define BPB_MAX_SECONDS 600

/** The load, identical for every design. */
typedef struct bpb_options {
        const char *brokers;      /**< NULL: embedded mock cluster. */
        char plugin[4096];        /**< libbucketpriority.so. */
        const char *svg_path, *json_path;
        long backlog;             /**< Bulk records written before t0. */
        double window_s;          /**< Critical records are sent for this
                                   *   long from t0. */
        double critical_rate;     /**< Critical records per second. */
        int64_t cost_us;          /**< Processing cost of every record. */
        int partitions;           /**< Of the topic (a, b); (c) splits them
                                   *   between its two topics. */
        int critical_share;       /**< Percent of partitions for critical. */
        int critical_parts;       /**< Derived: critical partitions. */
        int critical_workers;     /**< (b), (c): consumers of critical. */
        int bulk_workers;         /**< (b), (c): consumers of bulk. */
        double tail_timeout_s;    /**< Wait for late critical records. */
        double drain_timeout_s;   /**< Zero-cost drain for the lost check. */
        int rounds;
        int designs[BPB_DESIGNS]; /**< Which designs run (1/0). */
        double join_s, leave_s;   /**< --rebalance: a second consumer joins
                                   *   the critical group (the group of the
                                   *   first worker in a) at join_s, the
                                   *   first one leaves at leave_s; 0: no
                                   *   rebalance. */
        long stamp;               /**< Unique suffix of topic names. */
        char skipped[320];        /**< Why the KIP-848 designs do not
                                   *   run, or empty. */
} bpb_options_t;

/** Critical p99 per second of send time, for the chart. */
typedef struct bpb_second {
        float t_s;     /**< Middle of the second since t0. */
        float p50_ms, p99_ms;
} bpb_second_t;

/** How long the critical partitions went unread in one stretch (the
 *  definitions are in bench_priority_gaps.h); -1 ms: nothing read. */
typedef struct bpb_gap {
        double part_ms;   /**< Longest partition gap. */
        int partition;    /**< ...of this partition, */
        double end_s;     /**< ...ending then (since t0). */
        double bucket_ms; /**< Longest bucket gap. */
        int stalled;      /**< Partitions with a gap over 500 ms. */
        int read;         /**< Partitions read at all. */
} bpb_gap_t;

/** What one run of one design measured. */
typedef struct bpb_result {
        int design;
        int ok;                    /**< Set up and measured. */
        char layout[160];           /**< Partitions and groups, in words. */
        int workers;
        double prefill_s;          /**< Time to write the backlog. */
        long backlog_at_t0;        /**< Bulk delivered, unconsumed at t0. */
        double critical_p50_ms, critical_p99_ms, critical_max_ms;
        long critical_sent;        /**< Delivered to the cluster. */
        long critical_consumed;    /**< Unique ids handled. */
        long critical_in_window;   /**< ...before the window closed. */
        long bulk_in_window;       /**< Unique bulk ids handled in the
                                    *   window. */
        long bulk_left_at_end;     /**< Bulk backlog when the window closed. */
        double tail_s;             /**< Waiting for late critical records
                                    *   (at the normal cost). */
        double drain_s;            /**< Zero-cost drain. */
        long lost;                 /**< Delivered, never consumed (by id). */
        long failed;               /**< Delivery failed. */
        long duplicates;
        long wrong_class;          /**< Read by a worker of the other class
                                    *   (b, c: must be 0). */
        long garbage;              /**< Records not from this run. */
        bpb_second_t *seconds;     /**< One per second of the window. */
        size_t second_cnt;
        /* Reading the critical partitions (bench_priority_gaps.h), for the
         * gaps that ended before the join (the whole run without
         * --rebalance), between the join and the leave, after the leave. */
        bpb_gap_t gap[BPB_STRETCHES];
        double rebalance_p99_ms;   /**< Critical p99 of the records sent
                                    *   from join_s to the window's end. */
        long rebalance_records;    /**< How many there were. */
} bpb_result_t;

/**
 * Runs design \p design once with options \p o; fills \p res.
 * @returns 0, or -1 (message printed) when the design could not be set up.
 */
int bpb_run(const bpb_options_t *o, int design, bpb_result_t *res);

void bpb_result_free(bpb_result_t *res);

/** Prints the table of \p res (one per design, medians over rounds when
 *  \p rounds > 1) and the ratios against the targets to stdout.
 *  @returns 1 when both targets are met, 0 if not. */
int bpb_report_table(const bpb_options_t *o,
                     bpb_result_t res[][BPB_DESIGNS], int rounds);

/** Writes the chart of the first round to \p path. @returns 0 or -1. */
int bpb_report_svg(const bpb_options_t *o, const bpb_result_t *res,
                   const char *path);

/** Writes every round's figures to \p path as JSON. @returns 0 or -1. */
int bpb_report_json(const bpb_options_t *o,
                    bpb_result_t res[][BPB_DESIGNS], int rounds,
                    const char *path);

#endif /* BENCH_PRIORITY_H */
