/*
 * bench_priority_run.c - one run of one design: cluster and topics, the
 * workers (paused), the bulk backlog written in full, then the gate opens
 * (t0): the workers drain the backlog at the normal cost while critical
 * records arrive at a steady rate for the window. Late critical records
 * are waited for at the same cost (their latency is what the design
 * gives); only then does the cost drop to zero and everything left is
 * drained, so "lost" counts records that can never be consumed.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_priority.h"
#include "bench_priority_worker.h"
#include "demo_kit.h"

#define TICK_US 100000
#define JOIN_TIMEOUT_S 60
#define STABLE_US 1000000
#define NO_PROGRESS_S 30

const char *const bpb_design_name[BPB_DESIGNS] = {"shared", "buckets",
                                                  "topics"};
const char *const bpb_design_title[BPB_DESIGNS] = {
    "(a) one topic, one group", "(b) bucket priority", "(c) topic per class"};

typedef struct run {
        const bpb_options_t *o;
        int design;
        bpb_result_t *res;
        demo_stats_t st;
        int stats_made;
        demo_cluster_t cluster;
        int cluster_up;
        /* setup[c]: what the clients of class c use (the same for both
         * classes except in design (c), one topic per class). */
        demo_setup_t setup[DEMO_CLASSES];
        int topic_made[DEMO_CLASSES];
        demo_producer_t prod[DEMO_CLASSES];
        bpb_worker_t w[BPB_MAX_WORKERS];
        int w_cnt;
        atomic_llong cost_us;
        atomic_int gate_open;
        char allocation[32];
        int64_t t0;
} run_t;

static void say(const run_t *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void say(const run_t *r, const char *fmt, ...) {
        va_list ap;
        fprintf(stderr, "[%s] ", bpb_design_name[r->design]);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
}

/* --- set-up -------------------------------------------------------------- */

static void name_setups(run_t *r) {
        const bpb_options_t *o = r->o;
        const char *d          = bpb_design_name[r->design];
        int c;

        snprintf(r->allocation, sizeof(r->allocation), "%d%%, %d%%",
                 o->critical_share, 100 - o->critical_share);
        for (c = 0; c < DEMO_CLASSES; c++) {
                demo_setup_t *s = &r->setup[c];
                memset(s, 0, sizeof(*s));
                s->buckets    = r->design == BPB_BUCKETS;
                s->mock       = !o->brokers;
                s->plugin     = o->plugin;
                s->allocation = r->allocation;
                s->layout     = "contiguous";
                if (r->design == BPB_TOPICS) {
                        /* seeds/000 Option 1: notifications.critical,
                         * notifications.bulk, a group each. */
                        snprintf(s->topic, sizeof(s->topic),
                                 "bp-bench-%s-%05ld.%s", d, o->stamp,
                                 demo_class_name[c]);
                        snprintf(s->group, sizeof(s->group),
                                 "bp-bench-%s-%05ld.%s", d, o->stamp,
                                 demo_class_name[c]);
                } else {
                        /* (b): the plugin derives <group>.critical and
                         * <group>.bulk from this group.id. */
                        snprintf(s->topic, sizeof(s->topic),
                                 "bp-bench-%s-%05ld", d, o->stamp);
                        snprintf(s->group, sizeof(s->group),
                                 "bp-bench-%s-%05ld", d, o->stamp);
                }
        }
}

static int create_topics(run_t *r, char *err, size_t err_size) {
        const bpb_options_t *o = r->o;
        int c;

        if (r->design != BPB_TOPICS) {
                if (demo_cluster_create_topic(&r->cluster, r->setup[0].topic,
                                              o->partitions, err, err_size))
                        return -1;
                r->topic_made[0] = 1;
                return 0;
        }
        for (c = 0; c < DEMO_CLASSES; c++) {
                int n = c == DEMO_CRITICAL ? o->critical_parts
                                           : o->partitions - o->critical_parts;
                if (demo_cluster_create_topic(&r->cluster, r->setup[c].topic,
                                              n, err, err_size))
                        return -1;
                r->topic_made[c] = 1;
        }
        return 0;
}

static int start_workers(run_t *r, char *err, size_t err_size) {
        const bpb_options_t *o = r->o;
        int n = o->critical_workers + o->bulk_workers, k;

        for (k = 0; k < n && k < BPB_MAX_WORKERS; k++) {
                bpb_worker_t *w = &r->w[k];
                int cls = k < o->critical_workers ? DEMO_CRITICAL : DEMO_BULK;
                memset(w, 0, sizeof(*w));
                w->index     = k;
                w->st        = &r->st;
                w->cost_us   = &r->cost_us;
                w->gate_open = &r->gate_open;
                w->serves    = r->design == BPB_SHARED ? -1 : cls;
                w->hold      = w->serves != DEMO_CRITICAL;
                w->bucket =
                    r->design == BPB_BUCKETS ? demo_class_name[cls] : NULL;
                if (bpb_worker_start(w, &r->setup[cls], err, err_size))
                        return -1;
                r->w_cnt++;
        }
        return 0;
}

static int create_producers(run_t *r, char *err, size_t err_size) {
        int c;
        for (c = 0; c < DEMO_CLASSES; c++) {
                r->prod[c].cls = (demo_class_t)c;
                r->prod[c].st  = &r->st;
                if (demo_producer_create(&r->prod[c], &r->setup[c], err,
                                         err_size))
                        return -1;
        }
        return 0;
}

static int setup(run_t *r, char *err, size_t err_size) {
        const bpb_options_t *o = r->o;
        long planned_critical =
            (long)(o->window_s * o->critical_rate + 0.5);

        name_setups(r);
        if (demo_stats_init(&r->st, planned_critical, o->backlog)) {
                snprintf(err, err_size, "out of memory");
                return -1;
        }
        r->stats_made = 1;
        atomic_store(&r->st.measuring, 0);
        if (demo_cluster_start(&r->cluster, o->brokers, err, err_size))
                return -1;
        r->cluster_up = 1;
        r->setup[0].bootstraps = r->setup[1].bootstraps =
            r->cluster.bootstraps;
        if (create_topics(r, err, err_size))
                return -1;
        atomic_init(&r->cost_us, o->cost_us);
        atomic_init(&r->gate_open, 0);
        if (start_workers(r, err, err_size))
                return -1;
        return create_producers(r, err, err_size);
}

/* Every partition held by one worker, none idle, all paused, the same for
 * a second: the groups have settled and nothing has been read. */
static int wait_settled(run_t *r) {
        int64_t deadline = demo_now_us() + (int64_t)JOIN_TIMEOUT_S * 1000000;
        int64_t since    = 0;
        uint64_t last[BPB_MAX_WORKERS];
        int k;

        memset(last, 0, sizeof(last));
        while (demo_now_us() < deadline) {
                int total = 0, idle = 0, unpaused = 0, changed = 0;
                for (k = 0; k < r->w_cnt; k++) {
                        uint64_t a = atomic_load(&r->w[k].assigned);
                        total += __builtin_popcountll(a);
                        idle += a == 0;
                        unpaused += r->w[k].hold &&
                                    (a & ~atomic_load(&r->w[k].paused)) != 0;
                        changed += a != last[k];
                        last[k] = a;
                }
                if (total != r->o->partitions || idle || unpaused || changed)
                        since = 0;
                else if (!since)
                        since = demo_now_us();
                else if (demo_now_us() - since >= STABLE_US)
                        return 0;
                demo_sleep_us(TICK_US);
        }
        say(r, "warning: the workers did not settle on every partition "
               "within %d s; measuring anyway",
            JOIN_TIMEOUT_S);
        return -1;
}

/* Who holds what, from the workers' assignments: "crit 6-7 (1 worker),
 * bulk 0-5 (3)". */
static void describe_layout(run_t *r) {
        char parts[DEMO_CLASSES][40], *out = r->res->layout;
        uint64_t mask[DEMO_CLASSES] = {0, 0};
        int cnt[DEMO_CLASSES]       = {0, 0}, k;

        for (k = 0; k < r->w_cnt; k++) {
                int c = r->w[k].serves < 0 ? 0 : r->w[k].serves;
                mask[c] |= atomic_load(&r->w[k].assigned);
                cnt[c]++;
        }
        for (k = 0; k < DEMO_CLASSES; k++) {
                uint64_t m = mask[k];
                size_t len = 0;
                int p, q;
                parts[k][0] = '\0';
                for (p = 0; p < 64; p = q + 1) {
                        if (!(m & (1ull << p))) {
                                q = p;
                                continue;
                        }
                        for (q = p; q + 1 < 64 && (m & (1ull << (q + 1)));
                             q++)
                                ;
                        len += (size_t)snprintf(
                            parts[k] + len, sizeof(parts[k]) - len,
                            q > p ? "%s%d-%d" : "%s%d", len ? "," : "", p, q);
                        if (len >= sizeof(parts[k]))
                                break;
                }
        }
        if (r->design == BPB_SHARED)
                snprintf(out, sizeof(r->res->layout),
                         "%d partitions, one group of %d", r->o->partitions,
                         cnt[0]);
        else
                snprintf(out, sizeof(r->res->layout),
                         "%scritical %s (%d), bulk %s (%d)",
                         r->design == BPB_TOPICS ? "topics: " : "buckets: ",
                         parts[0], cnt[0], parts[1], cnt[1]);
}

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
                demo_sleep_us(TICK_US);
                if (demo_now_us() - last > 5000000) {
                        last = demo_now_us();
                        say(r, "writing the backlog: %ld of %ld delivered",
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

static void measure(run_t *r) {
        demo_producer_t *p = &r->prod[DEMO_CRITICAL];
        double next_say    = 10;

        while (since_t0(r) < r->o->window_s ||
               !atomic_load(&p->sending_done)) {
                demo_sleep_us(TICK_US);
                if (since_t0(r) >= next_say) {
                        next_say += 10;
                        say(r, "%4.0f s: bulk backlog %ld, critical waiting "
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
                        say(r, "warning: %ld critical records still waiting "
                               "after %.0f s; their latency is cut",
                            demo_stats_lag(&r->st, DEMO_CRITICAL), t);
                        break;
                }
                if (t >= next_say) {
                        next_say += 10;
                        say(r, "waiting for late critical records: %ld left "
                               "(bulk backlog %ld)",
                            demo_stats_lag(&r->st, DEMO_CRITICAL),
                            demo_stats_lag(&r->st, DEMO_BULK));
                }
                demo_sleep_us(TICK_US);
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
                        say(r, "warning: drain gave up");
                        break;
                }
                demo_sleep_us(TICK_US);
        }
        r->res->drain_s = (double)(demo_now_us() - start) / 1e6;
}

/* --- results ------------------------------------------------------------- */

static int cmp_float(const void *a, const void *b) {
        float x = *(const float *)a, y = *(const float *)b;
        return x < y ? -1 : x > y;
}

static float quantile(float *v, size_t n, double q) {
        size_t rank = (size_t)ceil((double)n * q);
        rank        = rank < 1 ? 1 : rank > n ? n : rank;
        return v[rank - 1];
}

/* p50 and p99 of the critical records sent in each second of the window
 * (by send time, so a late record counts where it was sent). */
static void per_second(run_t *r) {
        size_t secs = (size_t)ceil(r->o->window_s), i, s, cnt = r->st.crit_cnt;
        float **lat  = calloc(secs, sizeof(*lat));
        size_t *n    = calloc(secs, sizeof(*n));
        bpb_second_t *out = calloc(secs, sizeof(*out));

        if (!lat || !n || !out)
                goto done;
        for (s = 0; s < secs; s++)
                if (!(lat[s] = malloc((cnt ? cnt : 1) * sizeof(float))))
                        goto done;
        for (i = 0; i < cnt; i++) {
                const demo_sample_t *x = &r->st.crit[i];
                double sent = x->t_s - x->lat_ms / 1000.0;
                if (sent < 0 || sent >= (double)secs)
                        continue;
                s             = (size_t)sent;
                lat[s][n[s]++] = x->lat_ms;
        }
        for (s = 0; s < secs; s++) {
                if (!n[s])
                        continue;
                qsort(lat[s], n[s], sizeof(float), cmp_float);
                out[r->res->second_cnt].t_s    = (float)s + 0.5f;
                out[r->res->second_cnt].p50_ms = quantile(lat[s], n[s], 0.5);
                out[r->res->second_cnt].p99_ms = quantile(lat[s], n[s], 0.99);
                r->res->second_cnt++;
        }
        r->res->seconds = out;
        out             = NULL;
done:
        for (s = 0; lat && s < secs; s++)
                free(lat[s]);
        free(lat);
        free(n);
        free(out);
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
        per_second(r);
        res->ok = 1;
}

static void show_warnings(run_t *r) {
        unsigned long i, n = demo_log_count();
        char line[DEMO_LOG_WIDTH];
        demo_log_kind_t kind;

        for (i = n > DEMO_LOG_LINES ? n - DEMO_LOG_LINES : 0; i < n; i++)
                if (demo_log_get(i, line, sizeof(line), &kind) &&
                    kind == DEMO_LOG_WARN)
                        say(r, "librdkafka: %s", line);
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
                        say(r, "could not delete topic %s: %s",
                            r->setup[c].topic, err);
        if (r->cluster_up)
                demo_cluster_stop(&r->cluster);
        if (!r->res->ok)
                show_warnings(r);
        if (r->stats_made)
                demo_stats_free(&r->st);
}

/* Says which step failed and why, tears the run down; returns -1. */
static int abandon(run_t *r, const char *step, const char *err) {
        say(r, "%s failed: %s", step, err);
        teardown(r);
        return -1;
}

int bpb_run(const bpb_options_t *o, int design, bpb_result_t *res) {
        static run_t r; /* large; one run at a time */
        char err[512];

        memset(&r, 0, sizeof(r));
        memset(res, 0, sizeof(*res));
        res->design = design;
        r.o         = o;
        r.design    = design;
        r.res       = res;
        demo_log_reset(demo_now_us());

        say(&r, "%s: setting up", bpb_design_title[design]);
        if (setup(&r, err, sizeof(err))) 
                return abandon(&r, "set-up", err);
        wait_settled(&r);
        describe_layout(&r);
        say(&r, "%s; writing the backlog (%ld bulk records)", res->layout,
            o->backlog);
        if (prefill(&r, err, sizeof(err))) 
                return abandon(&r, "backlog", err);
        say(&r, "backlog written in %.1f s; gate open, critical records at "
                "%.0f/s for %.0f s",
            res->prefill_s, o->critical_rate, o->window_s);
        if (open_gate(&r, err, sizeof(err))) 
                return abandon(&r, "critical producer", err);
        measure(&r);
        tail(&r);
        drain(&r);
        collect(&r);
        show_warnings(&r); /* up to here: not those of closing */
        say(&r, "critical p50 %.1f ms, p99 %.1f ms, max %.1f ms; bulk in "
                "window %ld; lost %ld",
            res->critical_p50_ms, res->critical_p99_ms, res->critical_max_ms,
            res->bulk_in_window, res->lost);
        teardown(&r);
        return 0;
}

void bpb_result_free(bpb_result_t *res) {
        free(res->seconds);
        res->seconds    = NULL;
        res->second_cnt = 0;
}
