/*
 * demo_run.c - one run (shared, buckets or strict): cluster, topic,
 * workers, the timed story, the drain and the result.
 */
#include "demo_run.h"

#include <stdio.h>
#include <string.h>

#include "demo_cluster.h"
#include "demo_consumer.h"
#include "demo_log.h"
#include "demo_producer.h"
#include "demo_sched.h"
#include "demo_time.h"

#define TICK_US 200000
#define JOIN_TIMEOUT_S 60

volatile sig_atomic_t demo_interrupted;

typedef struct run {
        const demo_options_t *o;
        const demo_scenario_t *sc;
        demo_mode_t mode;
        const demo_plugin_t *pl;
        demo_view_t *v;
        demo_result_t *res;
        demo_stats_t *st;
        demo_setup_t setup;
        demo_cluster_t cluster;
        int cluster_up, topic_made;
        demo_producer_t prod[DEMO_CLASSES];
        demo_consumer_t cons[DEMO_MAX_WORKERS];
        int cons_cnt;
        atomic_llong cost_us;
        int64_t t0;
        int run_no, run_cnt;
        int partitions;
        /* story state */
        int told_campaign, told_sent, told_stuck1, told_stuck5, told_flow;
        int grown, killed;
        char shown_parts[DEMO_CLASSES][48];
        char shown_union[48];         /* strict: the worker's partitions */
        demo_sched_story_t sched_story;
} run_t;

static double run_time(const run_t *r) {
        return r->t0 ? (double)(demo_now_us() - r->t0) / 1e6 : 0;
}

static int alive(const run_t *r, int k) {
        return !atomic_load(&r->cons[k].dead) && !atomic_load(&r->cons[k].kill);
}

/* The partitions of class \p c: the union of the assignments of the live
 * workers serving it; in the strict run, the part of the worker's
 * assignment holding that bucket. */
static void class_assignment(const run_t *r, int c, char *out, size_t size,
                             int *live) {
        demo_sched_t f[DEMO_CLASSES];
        uint64_t mask = 0;
        size_t len;
        int k;

        *live = 0;
        for (k = 0; k < r->cons_cnt; k++) {
                if (!demo_consumer_serves(&r->cons[k], (demo_class_t)c) ||
                    !alive(r, k))
                        continue;
                (*live)++;
                mask |= atomic_load(&r->cons[k].assigned);
                if (r->mode == DEMO_MODE_STRICT && mask &&
                    !demo_sched_figures(r->cons, r->cons_cnt, f)) {
                        demo_sched_partitions(r->cons, r->cons_cnt, k, c,
                                              f[c].partitions, out, size);
                        return;
                }
        }
        demo_partitions_text(mask, out, size);
        len = strlen(out);
        if (!r->setup.buckets && mask && len + 8 < size)
                snprintf(out + len, size - len, " shared");
}

static void plugin_line(const run_t *r, char *out, size_t size) {
        bp_bucket_stats_t b[DEMO_CLASSES];
        char n0[24], n1[24];
        long foreign = 0;
        int c, k;

        if (!r->setup.buckets) {
                snprintf(out, size,
                         "no plugin: the default partitioner spreads every "
                         "key over all %d partitions",
                         r->partitions);
                return;
        }
        for (c = 0; c < DEMO_CLASSES; c++) {
                memset(&b[c], 0, sizeof(b[c]));
                if (!r->prod[c].rk ||
                    r->pl->bucket_stats(r->prod[c].rk, c, &b[c]))
                        memset(&b[c], 0, sizeof(b[c]));
        }
        for (k = 0; k < r->cons_cnt; k++)
                foreign += atomic_load(&r->cons[k].foreign);
        snprintf(out, size,
                 "plugin %s: routed critical %s, bulk %s; read "
                 "off-bucket: %ld",
                 r->pl->version(),
                 demo_fmt_count((long)b[DEMO_CRITICAL].routed, n0, sizeof(n0)),
                 demo_fmt_count((long)(b[DEMO_BULK].routed), n1, sizeof(n1)),
                 foreign);
}

static void fill_frame(run_t *r, demo_view_frame_t *f, const char *phase) {
        int64_t now = demo_now_us();
        int c;

        memset(f, 0, sizeof(*f));
        f->run_no     = r->run_no;
        f->run_cnt    = r->run_cnt;
        f->mode       = r->res->mode;
        f->phase      = phase;
        f->t_s        = run_time(r);
        f->window_s   = r->sc->window_s;
        f->bulk_total = r->sc->bulk_total;
        if (r->mode == DEMO_MODE_STRICT)
                snprintf(f->setup, sizeof(f->setup),
                         "topic %s (%d partitions), buckets critical, bulk "
                         "= %s; %d worker for both, strict",
                         r->setup.topic, r->partitions, r->sc->allocation,
                         r->sc->strict_consumers);
        else if (r->setup.buckets)
                snprintf(f->setup, sizeof(f->setup),
                         "topic %s (%d partitions), buckets critical, bulk "
                         "= %s",
                         r->setup.topic, r->partitions, r->sc->allocation);
        else
                snprintf(f->setup, sizeof(f->setup),
                         "topic %s (%d partitions), one group %s, %d "
                         "workers",
                         r->setup.topic, r->partitions, r->setup.group,
                         r->cons_cnt);
        for (c = 0; c < DEMO_CLASSES; c++) {
                demo_view_row_t *row = &f->row[c];
                row->name            = demo_class_name[c];
                class_assignment(r, c, row->partitions,
                                 sizeof(row->partitions), &row->consumers);
                row->produced = atomic_load(&r->st->cls[c].delivered);
                row->consumed = atomic_load(&r->st->cls[c].consumed);
                row->lag      = demo_stats_lag(r->st, (demo_class_t)c);
                demo_stats_live(r->st, (demo_class_t)c, now, &row->p50_ms,
                                &row->p99_ms);
                row->oldest_ms =
                    r->t0 ? demo_stats_oldest_ms(r->st, (demo_class_t)c, now)
                          : 0;
        }
        plugin_line(r, f->plugin, sizeof(f->plugin));
        f->sched_valid = r->mode == DEMO_MODE_STRICT &&
                         !demo_sched_figures(r->cons, r->cons_cnt, f->sched);
}

/* Strict run: narrates the worker's assignment (both buckets). */
static void observe_strict(run_t *r) {
        uint64_t mask = 0;
        char text[48];
        int k, live = 0;

        for (k = 0; k < r->cons_cnt; k++)
                if (alive(r, k)) {
                        live++;
                        mask |= atomic_load(&r->cons[k].assigned);
                }
        demo_partitions_text(mask, text, sizeof(text));
        if (!strcmp(text, r->shown_union))
                return;
        snprintf(r->shown_union, sizeof(r->shown_union), "%s", text);
        if (!mask)
                demo_log(DEMO_LOG_STEP,
                         "group %s.critical+bulk: rebalancing, no partition "
                         "assigned (%d worker)",
                         r->setup.group, live);
        else
                demo_log(DEMO_LOG_STEP,
                         "group %s.critical+bulk: %d worker on partitions "
                         "%s, both buckets",
                         r->setup.group, live, text);
}

/* Samples the chart series and narrates assignment changes. */
static void observe(run_t *r, const demo_view_frame_t *f) {
        char name[300];
        demo_point_t p;
        int c;

        p.t_s = (float)f->t_s;
        for (c = 0; c < DEMO_CLASSES; c++) {
                p.lag[c]       = (float)f->row[c].lag;
                p.oldest_ms[c] = (float)f->row[c].oldest_ms;
        }
        demo_stats_point(r->st, &p);
        if (r->res->bulk_done_s < 0 && atomic_load(&r->st->measuring) &&
            atomic_load(&r->prod[DEMO_BULK].done) &&
            demo_stats_lag(r->st, DEMO_BULK) == 0)
                r->res->bulk_done_s = f->t_s;
        if (r->mode == DEMO_MODE_STRICT) {
                observe_strict(r);
                return;
        }
        for (c = 0; c < DEMO_CLASSES; c++) {
                if (!strcmp(r->shown_parts[c], f->row[c].partitions))
                        continue;
                snprintf(r->shown_parts[c], sizeof(r->shown_parts[c]), "%s",
                         f->row[c].partitions);
                if (!r->setup.buckets && c > 0)
                        continue;
                snprintf(name, sizeof(name), "%s%s%s", r->setup.group,
                         r->setup.buckets ? "." : "",
                         r->setup.buckets ? demo_class_name[c] : "");
                if (!strcmp(f->row[c].partitions, "-"))
                        demo_log(DEMO_LOG_STEP,
                                 "group %s: rebalancing, no partition "
                                 "assigned (%d worker%s)",
                                 name, f->row[c].consumers,
                                 f->row[c].consumers == 1 ? "" : "s");
                else
                        demo_log(DEMO_LOG_STEP,
                                 "group %s: %d worker%s on partitions %s",
                                 name, f->row[c].consumers,
                                 f->row[c].consumers == 1 ? "" : "s",
                                 f->row[c].partitions);
        }
}

static void draw(run_t *r, const char *phase, int force) {
        demo_view_frame_t f;
        fill_frame(r, &f, phase);
        if (r->t0)
                observe(r, &f);
        demo_view_draw(r->v, &f, force);
}

/* --- set-up -------------------------------------------------------------- */

static int create_producers(run_t *r, char *err, size_t err_size);

/* Starts worker number cons_cnt: its bucket (or list of buckets) follows
 * from the run and its number. */
static int add_worker(run_t *r, char *err, size_t err_size) {
        demo_consumer_t *c;
        int k = r->cons_cnt;

        if (k >= DEMO_MAX_WORKERS) {
                snprintf(err, err_size, "too many workers");
                return -1;
        }
        c = &r->cons[k];
        memset(c, 0, sizeof(*c));
        c->index   = k;
        c->st      = r->st;
        c->cost_us = &r->cost_us;
        if (r->mode == DEMO_MODE_STRICT)
                c->bucket = "critical, bulk"; /* priority order */
        else if (r->mode == DEMO_MODE_BUCKETS)
                c->bucket =
                    k < r->sc->critical_consumers ? "critical" : "bulk";
        if (c->bucket)
                c->plugin = r->pl;
        if (demo_consumer_start(c, &r->setup, err, err_size))
                return -1;
        r->cons_cnt++;
        return 0;
}

static int setup(run_t *r, char *err, size_t err_size) {
        const demo_scenario_t *sc = r->sc;
        long planned_critical =
            (long)(sc->window_s * sc->critical_rate + 0.5);
        int k, n;

        r->setup.buckets    = r->mode != DEMO_MODE_SHARED;
        r->setup.mock       = !r->o->brokers;
        r->setup.plugin     = r->o->plugin;
        r->setup.allocation = sc->allocation;
        r->setup.layout     = r->o->layout;
        if (r->o->brokers) {
                snprintf(r->setup.topic, sizeof(r->setup.topic),
                         "bp-demo-%s-%05ld", r->res->mode, r->o->stamp);
                snprintf(r->setup.group, sizeof(r->setup.group),
                         "bp-demo-%05ld", r->o->stamp);
        } else {
                snprintf(r->setup.topic, sizeof(r->setup.topic),
                         "notifications");
                snprintf(r->setup.group, sizeof(r->setup.group),
                         "notifier");
        }
        if (demo_stats_init(r->st, planned_critical, sc->bulk_total)) {
                snprintf(err, err_size, "out of memory");
                return -1;
        }
        if (demo_cluster_start(&r->cluster, r->o->brokers, err, err_size))
                return -1;
        r->cluster_up        = 1;
        r->setup.bootstraps  = r->cluster.bootstraps;
        if (demo_cluster_create_topic(&r->cluster, r->setup.topic,
                                      sc->partitions, err, err_size))
                return -1;
        r->topic_made = 1;
        r->partitions = sc->partitions;

        atomic_init(&r->cost_us, sc->cost_us);
        n = demo_mode_workers(sc, r->mode);
        for (k = 0; k < n && k < DEMO_MAX_WORKERS; k++)
                if (add_worker(r, err, err_size))
                        return -1;
        return create_producers(r, err, err_size);
}

/* Waits until the workers own every partition between them. */
static int wait_for_assignment(run_t *r) {
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
                draw(r, "workers joining their groups", 0);
                demo_sleep_us(TICK_US);
        }
        demo_log(DEMO_LOG_WARN, "workers did not get every partition within "
                                "%d s; starting anyway",
                 JOIN_TIMEOUT_S);
        return -1;
}

static int create_producers(run_t *r, char *err, size_t err_size) {
        int c;
        for (c = 0; c < DEMO_CLASSES; c++) {
                r->prod[c].cls = (demo_class_t)c;
                r->prod[c].st  = r->st;
                if (demo_producer_create(&r->prod[c], &r->setup, err,
                                         err_size))
                        return -1;
        }
        return 0;
}

static int start_producers(run_t *r, char *err, size_t err_size) {
        const demo_scenario_t *sc = r->sc;
        int c;

        r->prod[DEMO_CRITICAL].start_s = 0;
        r->prod[DEMO_CRITICAL].rate    = sc->critical_rate;
        r->prod[DEMO_CRITICAL].total   = r->st->cls[DEMO_CRITICAL].planned;
        r->prod[DEMO_BULK].start_s     = sc->campaign_start_s;
        r->prod[DEMO_BULK].rate        = sc->bulk_rate;
        r->prod[DEMO_BULK].total       = sc->bulk_total;
        for (c = 0; c < DEMO_CLASSES; c++) {
                r->prod[c].t0_us = r->t0;
                if (demo_producer_start(&r->prod[c], err, err_size))
                        return -1;
        }
        return 0;
}

/* --- the story ----------------------------------------------------------- */

static void tell_intro(run_t *r) {
        if (r->mode == DEMO_MODE_STRICT) {
                demo_log(DEMO_LOG_STORY,
                         "same load, %d worker instead of %d: one consumer "
                         "serves both buckets",
                         r->cons_cnt, demo_scenario_consumers(r->sc));
                demo_log(DEMO_LOG_STORY,
                         "strict: bulk is served only while no login code "
                         "waits");
        } else if (r->setup.buckets)
                demo_log(DEMO_LOG_STORY,
                         "same load, same %d workers; every client loads "
                         "the plugin",
                         r->cons_cnt);
        else
                demo_log(DEMO_LOG_STORY,
                         "the notification service as it was: one topic, "
                         "one group");
        demo_log(DEMO_LOG_STORY,
                 "09:00 users log in: %.0f one-time passcodes a second "
                 "(critical-<id>)",
                 r->sc->critical_rate);
}

static void tell_timeline(run_t *r, double t) {
        const demo_scenario_t *sc = r->sc;
        double oldest = demo_stats_oldest_ms(r->st, DEMO_CRITICAL,
                                             demo_now_us());
        char n[24];

        if (!r->told_campaign && t >= sc->campaign_start_s) {
                r->told_campaign = 1;
                demo_log(DEMO_LOG_STORY,
                         "campaign starts: %s newsletters (bulk-<id>), "
                         "%.0f/s",
                         demo_fmt_count(sc->bulk_total, n, sizeof(n)),
                         sc->bulk_rate);
        }
        if (!r->told_sent && atomic_load(&r->prod[DEMO_BULK].sending_done)) {
                r->told_sent = 1;
                demo_log(DEMO_LOG_STORY,
                         "campaign written in %.1f s; %d worker%s handle%s "
                         "at most %.0f records/s",
                         (double)(r->prod[DEMO_BULK].done_us - r->t0) / 1e6 -
                             sc->campaign_start_s,
                         r->cons_cnt, r->cons_cnt == 1 ? "" : "s",
                         r->cons_cnt == 1 ? "s" : "",
                         1e6 / (double)sc->cost_us * r->cons_cnt);
        }
        if (r->mode == DEMO_MODE_STRICT) {
                demo_sched_t f[DEMO_CLASSES];
                if (!demo_sched_figures(r->cons, r->cons_cnt, f))
                        demo_sched_tell(&r->sched_story, f,
                                        r->told_campaign, r->told_sent);
        }
        if (t < sc->campaign_start_s)
                return;
        if (!r->told_stuck1 && oldest > 1000) {
                char parts[48];
                int live;
                r->told_stuck1 = 1;
                class_assignment(r, DEMO_CRITICAL, parts, sizeof(parts),
                                 &live);
                if (!strcmp(parts, "-"))
                        demo_log(DEMO_LOG_STORY,
                                 "login codes wait: no worker holds their "
                                 "partitions; oldest 1 s");
                else
                        demo_log(DEMO_LOG_STORY,
                                 "login codes wait behind newsletters: "
                                 "oldest 1 s");
        }
        if (!r->told_stuck5 && oldest > 5000) {
                r->told_stuck5 = 1;
                demo_log(DEMO_LOG_STORY,
                         "5 s: users ask for a new code; it queues too");
        }
        if (r->told_stuck1 && !r->told_flow && oldest < 200) {
                r->told_flow = 1;
                demo_log(DEMO_LOG_STORY,
                         "the backlog is gone: login codes flow again");
        }
}

/* --brokers: grow the topic, then crash a worker, both narrated. */
static void broker_steps(run_t *r, double t) {
        const demo_scenario_t *sc = r->sc;
        char err[512];
        int k;

        if (!r->o->brokers)
                return;
        if (!r->grown && t >= sc->grow_at_s) {
                r->grown = 1;
                demo_log(DEMO_LOG_STEP,
                         "operator adds partitions: %d -> %d "
                         "(CreatePartitions)",
                         r->partitions, sc->grow_to);
                if (demo_cluster_add_partitions(&r->cluster, r->setup.topic,
                                                sc->grow_to, err,
                                                sizeof(err)))
                        demo_log(DEMO_LOG_WARN, "adding partitions failed: %s",
                                 err);
                else {
                        r->partitions = sc->grow_to;
                        demo_log(DEMO_LOG_STEP,
                                 "%d partitions; clients see them within "
                                 "5 s%s",
                                 r->partitions,
                                 r->setup.buckets ? ", buckets recomputed"
                                                  : "");
                }
        }
        if (!r->killed && t >= sc->kill_at_s) {
                r->killed = 1;
                /* a bulk worker in the shared and buckets runs; the only
                 * one in the strict run */
                k = r->cons_cnt - 1;
                demo_log(DEMO_LOG_STEP,
                         "worker %d (%s) crashes: no LeaveGroup, no commit",
                         k, r->cons[k].bucket ? r->cons[k].bucket : "shared");
                demo_consumer_kill(&r->cons[k]);
                r->res->crashed = 1;
                if (r->mode != DEMO_MODE_STRICT) {
                        demo_log(DEMO_LOG_STEP, "its partitions wait for "
                                                "session.timeout.ms=6000");
                        return;
                }
                /* Nobody else reads the topic: its supervisor starts a
                 * new one, which waits for the old one's session too. */
                if (add_worker(r, err, sizeof(err)))
                        demo_log(DEMO_LOG_WARN, "restarting it failed: %s",
                                 err);
                else
                        demo_log(DEMO_LOG_STEP,
                                 "no other worker: its supervisor starts "
                                 "worker %d; the group waits for the dead "
                                 "one's session.timeout.ms=6000",
                                 r->cons_cnt - 1);
        }
}

static int window_over(run_t *r, double t) {
        return t >= r->sc->window_s &&
               atomic_load(&r->prod[DEMO_BULK].sending_done) &&
               atomic_load(&r->prod[DEMO_CRITICAL].sending_done);
}

/* Every delivery report is in and every delivered id was consumed. */
static int drained(run_t *r) {
        int c;
        for (c = 0; c < DEMO_CLASSES; c++)
                if (!atomic_load(&r->prod[c].done) ||
                    demo_stats_lag(r->st, (demo_class_t)c) > 0 ||
                    demo_stats_lost(r->st, (demo_class_t)c) > 0)
                        return 0;
        return 1;
}

static void measure(run_t *r) {
        while (!demo_interrupted) {
                double t = run_time(r);
                if (window_over(r, t))
                        break;
                tell_timeline(r, t);
                broker_steps(r, t);
                draw(r, "measuring", 0);
                demo_sleep_us(TICK_US);
        }
}

static void drain(run_t *r) {
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
                draw(r, "draining the backlog (not measured)", 0);
                demo_sleep_us(TICK_US);
        }
        r->res->drained = drained(r);
        r->res->drain_s = (double)(demo_now_us() - start) / 1e6;
}

/* --- result and clean-up ------------------------------------------------- */

static void collect(run_t *r) {
        demo_result_t *res = r->res;
        demo_stats_t *st   = r->st;
        int c, k;

        res->window_s        = run_time(r) - res->drain_s;
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
                class_assignment(r, c, res->partitions[c],
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
static void collect_sched(run_t *r) {
        r->res->sched_valid =
            r->mode == DEMO_MODE_STRICT &&
            !demo_sched_figures(r->cons, r->cons_cnt, r->res->sched);
}

static void teardown(run_t *r) {
        char err[512];
        int k, c;

        for (k = 0; k < r->cons_cnt; k++)
                demo_consumer_stop(&r->cons[k]);
        for (c = 0; c < DEMO_CLASSES; c++)
                demo_producer_destroy(&r->prod[c]);
        if (r->topic_made && r->o->brokers &&
            demo_cluster_delete_topic(&r->cluster, r->setup.topic, err,
                                      sizeof(err)))
                fprintf(stderr, "bp-demo: could not delete topic %s: %s\n",
                        r->setup.topic, err);
        if (r->cluster_up)
                demo_cluster_stop(&r->cluster);
}

/* Ends the live view, says why the run stopped, tears it down; -1. */
static int abandon(run_t *r, const char *err) {
        demo_view_end(r->v);
        fprintf(stderr, "bp-demo: %s run: %s\n", r->res->mode, err);
        teardown(r);
        return -1;
}

int demo_run(const demo_options_t *o, demo_mode_t mode, int run_no,
             int run_cnt, demo_view_t *v, const demo_plugin_t *pl,
             demo_result_t *res) {
        static run_t r; /* large; one run at a time */
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
        if (setup(&r, err, sizeof(err))) 
                return abandon(&r, err);
        wait_for_assignment(&r);
        r.t0        = demo_now_us();
        r.st->t0_us = r.t0;
        demo_log_reset(r.t0);
        memset(r.shown_parts, 0, sizeof(r.shown_parts));
        tell_intro(&r);
        if (start_producers(&r, err, sizeof(err))) 
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
            !demo_sched_figures(r.cons, r.cons_cnt, f))
                demo_log(DEMO_LOG_STORY,
                         "the scheduler paused bulk %ld times, %.1f s in "
                         "total; critical %ld times",
                         f[DEMO_BULK].pauses,
                         (double)f[DEMO_BULK].paused_ms / 1000.0,
                         f[DEMO_CRITICAL].pauses);
        draw(&r, demo_interrupted ? "interrupted" : "done", 1);
        demo_view_end(v);
        teardown(&r);
        collect_sched(&r);
        return 0;
}

void demo_result_free(demo_result_t *res) {
        if (res->stats.cls[0].ledger)
                demo_stats_free(&res->stats);
}
