/*
 * bench_priority_run.c - one run of one design: cluster and topics, the
 * workers (paused), the bulk backlog written in full, then the gate opens
 * (t0): the workers drain the backlog at the normal cost while critical
 * records arrive at a steady rate for the window. Late critical records
 * are waited for at the same cost (their latency is what the design
 * gives); only then does the cost drop to zero and everything left is
 * drained, so "lost" counts records that can never be consumed. With
 * --rebalance, a second consumer joins the critical group during the window
 * and the first one leaves.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_priority_run.h"
#include "bench_priority_seconds.h"

#define NO_PROGRESS_S 30

/* --- the measured run ---------------------------------------------------- */

static int prefill(run_t *r, char *err, size_t err_size) {
        demo_producer_t *p = &r->prod[DEMO_BULK];
        int64_t start      = demo_now_us(), last = start;

        p->start_s = 0;
        p->rate    = 1e9; /* as fast as the client takes them */
        p->total   = r->o->backlog;
        p->t0_us   = start;
        if (demo_producer_start(p, err, err_size))
                return -1;
        while (!atomic_load(&p->done)) {
                demo_sleep_us(BPB_TICK_US);
                if (demo_now_us() - last > 5000000) {
                        last = demo_now_us();
                        bpb_say(r, "writing the backlog: %ld of %ld delivered",
                            atomic_load(&r->st.cls[DEMO_BULK].delivered),
                            r->o->backlog);
                }
        }
        r->res->prefill_s = (double)(demo_now_us() - start) / 1e6;
        if (atomic_load(&r->st.cls[DEMO_BULK].failed)) {
                snprintf(err, err_size, "%ld backlog records failed",
                         atomic_load(&r->st.cls[DEMO_BULK].failed));
                return -1;
        }
        return 0;
}

static int open_gate(run_t *r, char *err, size_t err_size) {
        demo_producer_t *p = &r->prod[DEMO_CRITICAL];

        r->res->backlog_at_t0 = demo_stats_lag(&r->st, DEMO_BULK);
        r->t0                 = demo_now_us();
        r->st.t0_us           = r->t0;
        atomic_store(&r->st.measuring, 1);
        atomic_store(&r->gate_open, 1);
        p->start_s = 0;
        p->rate    = r->o->critical_rate;
        p->total   = r->st.cls[DEMO_CRITICAL].planned;
        p->t0_us   = r->t0;
        return demo_producer_start(p, err, err_size);
}

static double since_t0(const run_t *r) {
        return (double)(demo_now_us() - r->t0) / 1e6;
}

/* --rebalance: at join_s a second consumer joins the group of the first
 * worker (critical in b and c); at leave_s the first worker leaves it
 * (closes its consumer, as a rolling restart would). */
static void step_rebalance(run_t *r) {
        const bpb_options_t *o = r->o;
        bpb_worker_t *first    = &r->w[0];
        char err[512];

        if (o->join_s <= 0)
                return;
        if (!r->joined && since_t0(r) >= o->join_s) {
                int cls = first->serves < 0 ? DEMO_CRITICAL : first->serves;
                r->joined = 1;
                if (r->w_cnt >= BPB_MAX_WORKERS ||
                    bpb_start_worker(r, cls, err, sizeof(err)))
                        bpb_say(r, "warning: the joining consumer could not "
                               "start: %s",
                            r->w_cnt >= BPB_MAX_WORKERS ? "too many workers"
                                                        : err);
                else
                        bpb_say(r, "%4.1f s: a second consumer joins the %s "
                               "group",
                            since_t0(r), demo_class_name[cls]);
        }
        if (!r->left && o->leave_s > 0 && since_t0(r) >= o->leave_s) {
                r->left = 1;
                atomic_store(&first->stop, 1); /* joined in teardown */
                bpb_say(r, "%4.1f s: the first consumer leaves its group",
                    since_t0(r));
        }
}

static void measure(run_t *r) {
        demo_producer_t *p = &r->prod[DEMO_CRITICAL];
        double next_say    = 10;

        while (since_t0(r) < r->o->window_s ||
               !atomic_load(&p->sending_done)) {
                demo_sleep_us(BPB_TICK_US);
                step_rebalance(r);
                if (since_t0(r) >= next_say) {
                        next_say += 10;
                        bpb_say(r, "%4.0f s: bulk backlog %ld, critical waiting "
                               "%ld, oldest %.0f ms",
                            since_t0(r), demo_stats_lag(&r->st, DEMO_BULK),
                            demo_stats_lag(&r->st, DEMO_CRITICAL),
                            demo_stats_oldest_ms(&r->st, DEMO_CRITICAL,
                                                 demo_now_us()));
                }
        }
        atomic_store(&r->st.measuring, 0);
        r->res->bulk_in_window =
            atomic_load(&r->st.cls[DEMO_BULK].consumed_window);
        r->res->critical_in_window =
            atomic_load(&r->st.cls[DEMO_CRITICAL].consumed_window);
        r->res->bulk_left_at_end = demo_stats_lag(&r->st, DEMO_BULK);
}

/* Late critical records still get the normal cost: their latency is the
 * design's, not a drain's. */
static void tail(run_t *r) {
        demo_producer_t *p = &r->prod[DEMO_CRITICAL];
        int64_t start      = demo_now_us();
        double next_say    = 10;

        while (!atomic_load(&p->done) ||
               demo_stats_lag(&r->st, DEMO_CRITICAL) > 0) {
                double t = (double)(demo_now_us() - start) / 1e6;
                if (t > r->o->tail_timeout_s) {
                        bpb_say(r, "warning: %ld critical records still waiting "
                               "after %.0f s; their latency is cut",
                            demo_stats_lag(&r->st, DEMO_CRITICAL), t);
                        break;
                }
                if (t >= next_say) {
                        next_say += 10;
                        bpb_say(r, "waiting for late critical records: %ld left "
                               "(bulk backlog %ld)",
                            demo_stats_lag(&r->st, DEMO_CRITICAL),
                            demo_stats_lag(&r->st, DEMO_BULK));
                }
                demo_sleep_us(BPB_TICK_US);
        }
        r->res->tail_s = (double)(demo_now_us() - start) / 1e6;
}

static int drained(run_t *r) {
        int c;
        for (c = 0; c < DEMO_CLASSES; c++)
                if (!atomic_load(&r->prod[c].done) ||
                    demo_stats_lag(&r->st, (demo_class_t)c) > 0 ||
                    demo_stats_lost(&r->st, (demo_class_t)c) > 0)
                        return 0;
        return 1;
}

static void drain(run_t *r) {
        int64_t start = demo_now_us(), last_progress = start;
        long last = -1;

        atomic_store(&r->cost_us, 0);
        while (!drained(r)) {
                long n = atomic_load(&r->st.cls[0].consumed) +
                         atomic_load(&r->st.cls[1].consumed);
                int64_t now = demo_now_us();
                if (n != last) {
                        last          = n;
                        last_progress = now;
                }
                if (now - start > (int64_t)(r->o->drain_timeout_s * 1e6) ||
                    now - last_progress > (int64_t)NO_PROGRESS_S * 1000000) {
                        bpb_say(r, "warning: drain gave up");
                        break;
                }
                demo_sleep_us(BPB_TICK_US);
        }
        r->res->drain_s = (double)(demo_now_us() - start) / 1e6;
}

/* --- results ------------------------------------------------------------- */

/* The critical partitions' gaps and the rebalance window's p99. */
static void collect_gaps(run_t *r) {
        bpb_result_t *res = r->res;
        bpb_gap_figures_t f[BPB_STRETCHES];
        int64_t from[BPB_STRETCHES] = {
            0, r->t0 + (int64_t)(r->o->join_s * 1e6),
            r->t0 + (int64_t)(r->o->leave_s * 1e6)};
        int n = r->o->join_s > 0 ? BPB_STRETCHES : 1, k;

        res->rebalance_p99_ms = -1;
        for (k = 0; k < BPB_STRETCHES; k++)
                res->gap[k].part_ms = res->gap[k].bucket_ms = -1;
        if (!bpb_gaps_figures(&r->gaps, from, n, f))
                for (k = 0; k < n; k++) {
                        bpb_gap_t *g = &res->gap[k];
                        g->part_ms   = f[k].part_gap_ms;
                        g->partition = f[k].part_gap_partition;
                        g->end_s =
                            (double)(f[k].part_gap_end_us - r->t0) / 1e6;
                        g->bucket_ms = f[k].bucket_gap_ms;
                        g->stalled   = f[k].parts_stalled;
                        g->read      = f[k].parts_read;
                }
        if (r->o->join_s > 0)
                res->rebalance_p99_ms =
                    bpb_seconds_p99(&r->st, r->o->join_s, r->o->window_s,
                                    &res->rebalance_records);
}

static void collect(run_t *r) {
        bpb_result_t *res = r->res;
        demo_stats_t *st  = &r->st;
        int c;

        res->critical_p50_ms   = demo_stats_critical_quantile(st, 0.50);
        res->critical_p99_ms   = demo_stats_critical_quantile(st, 0.99);
        res->critical_max_ms   = demo_stats_critical_quantile(st, 1.0);
        res->critical_sent     = atomic_load(&st->cls[DEMO_CRITICAL].delivered);
        res->critical_consumed = atomic_load(&st->cls[DEMO_CRITICAL].consumed);
        for (c = 0; c < DEMO_CLASSES; c++) {
                res->lost += demo_stats_lost(st, (demo_class_t)c);
                res->failed += atomic_load(&st->cls[c].failed);
                res->duplicates += atomic_load(&st->cls[c].duplicates);
                res->wrong_class += atomic_load(&st->cls[c].other_bucket);
                res->garbage += atomic_load(&st->cls[c].garbage);
        }
        res->workers = r->w_cnt;
        bpb_seconds_fill(st, r->o->window_s, res);
        collect_gaps(r);
        res->ok = 1;
}

static void show_warnings(run_t *r) {
        unsigned long i, n = demo_log_count();
        char line[DEMO_LOG_WIDTH];
        demo_log_kind_t kind;

        for (i = n > DEMO_LOG_LINES ? n - DEMO_LOG_LINES : 0; i < n; i++)
                if (demo_log_get(i, line, sizeof(line), &kind) &&
                    kind == DEMO_LOG_WARN)
                        bpb_say(r, "librdkafka: %s", line);
}

static void teardown(run_t *r) {
        char err[512];
        int k, c;

        for (k = 0; k < r->w_cnt; k++)
                bpb_worker_stop(&r->w[k]);
        for (c = 0; c < DEMO_CLASSES; c++)
                demo_producer_destroy(&r->prod[c]);
        for (c = 0; c < DEMO_CLASSES; c++)
                if (r->topic_made[c] && r->o->brokers &&
                    demo_cluster_delete_topic(&r->cluster, r->setup[c].topic,
                                              err, sizeof(err)))
                        bpb_say(r, "could not delete topic %s: %s",
                            r->setup[c].topic, err);
        if (r->cluster_up)
                demo_cluster_stop(&r->cluster);
        if (!r->res->ok)
                show_warnings(r);
        if (r->stats_made)
                demo_stats_free(&r->st);
        if (r->gaps_made)
                bpb_gaps_free(&r->gaps);
}

/* Says which step failed and why, tears the run down; returns -1. */
static int abandon(run_t *r, const char *step, const char *err) {
        bpb_say(r, "%s failed: %s", step, err);
        teardown(r);
        return -1;
}

int bpb_run(const bpb_options_t *o, int design, bpb_result_t *res) {
        static run_t r; /* large; one run at a time */
        char err[512];
        int k;

        memset(&r, 0, sizeof(r));
        memset(res, 0, sizeof(*res));
        res->design = design;
        r.o         = o;
        r.design    = design;
        r.kind      = bpb_kind(design);
        r.res       = res;
        demo_log_reset(demo_now_us());

        bpb_say(&r, "%s: setting up", bpb_design_title[design]);
        if (bpb_setup(&r, err, sizeof(err))) 
                return abandon(&r, "set-up", err);
        bpb_wait_settled(&r);
        bpb_describe_layout(&r);
        bpb_say(&r, "%s; writing the backlog (%ld bulk records)", res->layout,
            o->backlog);
        if (prefill(&r, err, sizeof(err))) 
                return abandon(&r, "backlog", err);
        bpb_say(&r, "backlog written in %.1f s; gate open, critical records at "
                "%.0f/s for %.0f s",
            res->prefill_s, o->critical_rate, o->window_s);
        if (open_gate(&r, err, sizeof(err))) 
                return abandon(&r, "critical producer", err);
        measure(&r);
        tail(&r);
        drain(&r);
        collect(&r);
        show_warnings(&r); /* up to here: not those of closing */
        bpb_say(&r, "critical p50 %.1f ms, p99 %.1f ms, max %.1f ms; bulk in "
                "window %ld; lost %ld",
            res->critical_p50_ms, res->critical_p99_ms, res->critical_max_ms,
            res->bulk_in_window, res->lost);
        for (k = 0; k < (o->join_s > 0 ? BPB_STRETCHES : 1); k++)
                bpb_say(&r, "%s: longest critical partition gap %.0f ms "
                        "(partition %d, ending at %.1f s), bucket gap %.0f "
                        "ms, %d of %d partitions stalled over 500 ms",
                    bpb_stretch_name[k], res->gap[k].part_ms,
                    res->gap[k].partition, res->gap[k].end_s,
                    res->gap[k].bucket_ms, res->gap[k].stalled,
                    res->gap[k].read);
        teardown(&r);
        return 0;
}

void bpb_result_free(bpb_result_t *res) {
        free(res->seconds);
        res->seconds    = NULL;
        res->second_cnt = 0;
}
