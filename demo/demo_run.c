/*
 * demo_run.c - one run (shared, buckets or strict) phase by phase: set-up,
 * workers joining, the measured window, the drain, the result, tear-down.
 * The set-up and tear-down are in demo_run_setup.c, the live view's frames
 * in demo_run_frame.c, the story in demo_run_story.c, the --brokers steps
 * in demo_run_steps.c.
 */
#include "demo_run.h"

#include <stdio.h>
#include <string.h>

#include "demo_log.h"
#include "demo_run_frame.h"
#include "demo_run_setup.h"
#include "demo_run_state.h"
#include "demo_run_steps.h"
#include "demo_run_story.h"
#include "demo_sched.h"
#include "demo_time.h"

#define TICK_US 200000
#define JOIN_TIMEOUT_S 60

volatile sig_atomic_t demo_interrupted;

/* Waits until the workers own every partition between them. */
static int wait_for_assignment(demo_run_state_t *r) {
        int64_t deadline = demo_now_us() + (int64_t)JOIN_TIMEOUT_S * 1000000;

        while (demo_now_us() < deadline && !demo_interrupted) {
                int k, total = 0, idle = 0;
                for (k = 0; k < r->cons_cnt; k++) {
                        int cnt = __builtin_popcountll(
                            atomic_load(&r->cons[k].assigned));
                        total += cnt;
                        idle += cnt == 0;
                }
                if (total == r->partitions && !idle)
                        return 0;
                demo_run_draw(r, "workers joining their groups", 0);
                demo_sleep_us(TICK_US);
        }
        demo_log(DEMO_LOG_WARN, "workers did not get every partition within "
                                "%d s; starting anyway",
                 JOIN_TIMEOUT_S);
        return -1;
}

static int window_over(demo_run_state_t *r, double t) {
        return t >= r->sc->window_s &&
               atomic_load(&r->prod[DEMO_BULK].sending_done) &&
               atomic_load(&r->prod[DEMO_CRITICAL].sending_done);
}

/* Every delivery report is in and every delivered id was consumed. */
static int drained(demo_run_state_t *r) {
        int c;
        for (c = 0; c < DEMO_CLASSES; c++)
                if (!atomic_load(&r->prod[c].done) ||
                    demo_stats_lag(r->st, (demo_class_t)c) > 0 ||
                    demo_stats_lost(r->st, (demo_class_t)c) > 0)
                        return 0;
        return 1;
}

static void measure(demo_run_state_t *r) {
        while (!demo_interrupted) {
                double t = demo_run_time(r);
                if (window_over(r, t))
                        break;
                demo_run_tell_timeline(r, t);
                demo_run_broker_steps(r, t);
                demo_run_draw(r, "measuring", 0);
                demo_sleep_us(TICK_US);
        }
}

static void drain(demo_run_state_t *r) {
        int64_t start = demo_now_us(), last_progress = start;
        long last_consumed = -1;
        char n[24], p99[24];

        atomic_store(&r->st->measuring, 0);
        demo_producer_stop(&r->prod[DEMO_CRITICAL]);
        demo_producer_stop(&r->prod[DEMO_BULK]);
        atomic_store(&r->cost_us, 0);
        if (demo_interrupted) {
                r->res->drain_s = 0;
                return;
        }
        demo_log(DEMO_LOG_STORY,
                 "window closed, critical p99 %s; draining %s left (no "
                 "cost)",
                 demo_fmt_ms(demo_stats_critical_quantile(r->st, 0.99), p99,
                             sizeof(p99)),
                 demo_fmt_count(demo_stats_lag(r->st, DEMO_CRITICAL) +
                                    demo_stats_lag(r->st, DEMO_BULK),
                                n, sizeof(n)));
        while (!demo_interrupted && !drained(r)) {
                long consumed = atomic_load(&r->st->cls[0].consumed) +
                                atomic_load(&r->st->cls[1].consumed);
                int64_t now = demo_now_us();
                if (consumed != last_consumed) {
                        last_consumed = consumed;
                        last_progress = now;
                }
                if (now - start > (int64_t)(r->sc->drain_timeout_s * 1e6) ||
                    now - last_progress > 30000000) {
                        demo_log(DEMO_LOG_WARN,
                                 "drain gave up: no progress for 30 s or "
                                 "over %.0f s",
                                 r->sc->drain_timeout_s);
                        break;
                }
                demo_run_draw(r, "draining the backlog (not measured)", 0);
                demo_sleep_us(TICK_US);
        }
        r->res->drained = drained(r);
        r->res->drain_s = (double)(demo_now_us() - start) / 1e6;
}

static void collect(demo_run_state_t *r) {
        demo_result_t *res = r->res;
        demo_stats_t *st   = r->st;
        int c, k;

        res->window_s        = demo_run_time(r) - res->drain_s;
        res->critical_p50_ms = demo_stats_critical_quantile(st, 0.50);
        res->critical_p99_ms = demo_stats_critical_quantile(st, 0.99);
        res->critical_max_ms = demo_stats_critical_quantile(st, 1.0);
        res->critical_produced = atomic_load(&st->cls[DEMO_CRITICAL].delivered);
        res->critical_consumed = atomic_load(&st->cls[DEMO_CRITICAL].consumed);
        res->critical_late     = atomic_load(&st->cls[DEMO_CRITICAL].late);
        res->critical_after_window =
            res->critical_consumed -
            atomic_load(&st->cls[DEMO_CRITICAL].consumed_window);
        res->bulk_produced = atomic_load(&st->cls[DEMO_BULK].delivered);
        res->bulk_consumed = atomic_load(&st->cls[DEMO_BULK].consumed_window);
        res->bulk_drained  = atomic_load(&st->cls[DEMO_BULK].consumed) -
                            res->bulk_consumed;
        demo_stats_partition_spread(st, DEMO_BULK, &res->bulk_part_lo,
                                    &res->bulk_part_lo_n, &res->bulk_part_hi,
                                    &res->bulk_part_hi_n);
        for (c = 0; c < DEMO_CLASSES; c++) {
                res->lost += demo_stats_lost(st, (demo_class_t)c);
                res->failed += atomic_load(&st->cls[c].failed);
                res->duplicates += atomic_load(&st->cls[c].duplicates);
                demo_run_class_assignment(r, c, res->partitions[c],
                                          sizeof(res->partitions[c]),
                                          &res->consumers[c]);
        }
        for (k = 0; k < r->cons_cnt; k++)
                res->foreign += atomic_load(&r->cons[k].foreign);
        res->critical_by_bulk =
            atomic_load(&st->cls[DEMO_CRITICAL].other_bucket);
        res->ok = !demo_interrupted;
}

/* The strict run's scheduler figures, once the workers have stopped (each
 * read its final figures before closing). */
static void collect_sched(demo_run_state_t *r) {
        r->res->sched_valid =
            r->mode == DEMO_MODE_STRICT &&
            !demo_sched_figures(r->cons, r->cons_cnt, r->res->sched);
}

/* Ends the live view, says why the run stopped, tears it down; -1. */
static int abandon(demo_run_state_t *r, const char *err) {
        demo_view_end(r->v);
        fprintf(stderr, "bp-demo: %s run: %s\n", r->res->mode, err);
        demo_run_teardown(r);
        return -1;
}

int demo_run(const demo_options_t *o, demo_mode_t mode, int run_no,
             int run_cnt, demo_view_t *v, const demo_plugin_t *pl,
             demo_result_t *res) {
        static demo_run_state_t r; /* large; one run at a time */
        char err[512], p50[24], p99[24];
        demo_sched_t f[DEMO_CLASSES];

        memset(&r, 0, sizeof(r));
        memset(res, 0, sizeof(*res));
        res->mode        = demo_mode_name[mode];
        res->mode_id     = mode;
        res->workers     = demo_mode_workers(&o->sc, mode);
        res->bulk_done_s = -1;
        r.mode    = mode;
        r.o       = o;
        r.sc      = &o->sc;
        r.pl      = pl;
        r.v       = v;
        r.res     = res;
        r.st      = &res->stats;
        r.run_no  = run_no;
        r.run_cnt = run_cnt;

        demo_log_reset(demo_now_us());
        demo_view_begin(v);
        if (demo_run_setup(&r, err, sizeof(err)))
                return abandon(&r, err);
        wait_for_assignment(&r);
        r.t0        = demo_now_us();
        r.st->t0_us = r.t0;
        demo_log_reset(r.t0);
        memset(r.shown_parts, 0, sizeof(r.shown_parts));
        demo_run_tell_intro(&r);
        if (demo_run_start_producers(&r, err, sizeof(err)))
                return abandon(&r, err);
        measure(&r);
        drain(&r);
        if (mode == DEMO_MODE_STRICT && !demo_interrupted)
                demo_sched_refresh(r.cons, r.cons_cnt);
        collect(&r);
        if (demo_interrupted)
                demo_log(DEMO_LOG_WARN, "interrupted: nothing is reported");
        else
                demo_log(DEMO_LOG_STORY,
                         "done: critical p50 %s, p99 %s; lost %ld",
                         demo_fmt_ms(res->critical_p50_ms, p50, sizeof(p50)),
                         demo_fmt_ms(res->critical_p99_ms, p99, sizeof(p99)),
                         res->lost);
        if (!demo_interrupted && mode == DEMO_MODE_STRICT &&
            !demo_sched_figures(r.cons, r.cons_cnt, f)) {
                if (f[DEMO_BULK].pauses || f[DEMO_CRITICAL].pauses)
                        demo_log(DEMO_LOG_STORY,
                                 "the scheduler paused bulk %ld times, %.1f "
                                 "s in total; critical %ld times",
                                 f[DEMO_BULK].pauses,
                                 (double)f[DEMO_BULK].paused_ms / 1000.0,
                                 f[DEMO_CRITICAL].pauses);
                else
                        demo_log(DEMO_LOG_STORY,
                                 "the scheduler paused nothing: bulk's "
                                 "fetched records waited in a queue of "
                                 "their own while login codes went first");
        }
        demo_run_draw(&r, demo_interrupted ? "interrupted" : "done", 1);
        demo_view_end(v);
        demo_run_teardown(&r);
        collect_sched(&r);
        return 0;
}

void demo_result_free(demo_result_t *res) {
        if (res->stats.cls[0].ledger)
                demo_stats_free(&res->stats);
}
