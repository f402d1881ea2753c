/*
 * bench_priority_setup.c - the set-up of one run of one design: names of
 * topics and groups, the client configurations (classic or KIP-848),
 * topics, workers and producers; then waiting for the groups to settle and
 * saying who reads what.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bench_priority_kip848.h"
#include "bench_priority_run.h"

#define JOIN_TIMEOUT_S 60
#define STABLE_US 1000000

void bpb_say(const run_t *r, const char *fmt, ...) {
        va_list ap;
        fprintf(stderr, "[%s] ", bpb_design_name[r->design]);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
}

static void name_setups(run_t *r) {
        const bpb_options_t *o = r->o;
        const char *d          = bpb_design_name[r->design];
        int c;

        snprintf(r->allocation, sizeof(r->allocation), "%d%%, %d%%",
                 o->critical_share, 100 - o->critical_share);
        for (c = 0; c < DEMO_CLASSES; c++) {
                demo_setup_t *s = &r->setup[c];
                memset(s, 0, sizeof(*s));
                s->buckets    = r->kind == BPB_BUCKETS;
                s->mock       = !o->brokers;
                s->plugin     = o->plugin;
                s->allocation = r->allocation;
                s->layout     = "contiguous";
                if (bpb_kip848(r->design)) {
                        /* range x stable: every member gets its share of
                         * the bucket (docs/consumer.md); the plugin picks
                         * range by itself, the plain consumers of (a) and
                         * (c) are given it so that only the protocol
                         * differs between them. */
                        s->group_protocol  = "consumer";
                        s->remote_assignor = s->buckets ? NULL : "range";
                        s->layout          = "stable";
                }
                if (r->kind == BPB_TOPICS) {
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

        if (r->kind != BPB_TOPICS) {
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

int bpb_start_worker(run_t *r, int cls, char *err, size_t err_size) {
        bpb_worker_t *w = &r->w[r->w_cnt];

        memset(w, 0, sizeof(*w));
        w->index     = r->w_cnt;
        w->st        = &r->st;
        w->cost_us   = &r->cost_us;
        w->gate_open = &r->gate_open;
        w->gaps      = &r->gaps;
        w->serves    = r->kind == BPB_SHARED ? -1 : cls;
        w->hold      = w->serves != DEMO_CRITICAL;
        w->bucket    = r->kind == BPB_BUCKETS ? demo_class_name[cls] : NULL;
        w->reads     = ~0ull;
        if (r->kind == BPB_BUCKETS && bpb_kip848(r->design))
                w->reads = bpb_stable_bucket_mask(
                    r->o->critical_share, r->o->partitions, cls);
        if (bpb_worker_start(w, &r->setup[cls], err, err_size))
                return -1;
        r->w_cnt++;
        return 0;
}

static int start_workers(run_t *r, char *err, size_t err_size) {
        const bpb_options_t *o = r->o;
        int n = o->critical_workers + o->bulk_workers, k;

        for (k = 0; k < n && k < BPB_MAX_WORKERS; k++)
                if (bpb_start_worker(r,
                                 k < o->critical_workers ? DEMO_CRITICAL
                                                         : DEMO_BULK,
                                 err, err_size))
                        return -1;
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

int bpb_setup(run_t *r, char *err, size_t err_size) {
        const bpb_options_t *o = r->o;
        long planned_critical =
            (long)(o->window_s * o->critical_rate + 0.5);

        name_setups(r);
        if (demo_stats_init(&r->st, planned_critical, o->backlog)) {
                snprintf(err, err_size, "out of memory");
                return -1;
        }
        r->stats_made = 1;
        if (bpb_gaps_init(&r->gaps, (size_t)planned_critical + 16)) {
                snprintf(err, err_size, "out of memory");
                return -1;
        }
        r->gaps_made = 1;
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
int bpb_wait_settled(run_t *r) {
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
                demo_sleep_us(BPB_TICK_US);
        }
        bpb_say(r, "warning: the workers did not settle on every partition "
               "within %d s; measuring anyway",
            JOIN_TIMEOUT_S);
        return -1;
}

/* Who holds what, from the workers' assignments: "crit 6-7 (1 worker),
 * bulk 0-5 (3)". */
void bpb_describe_layout(run_t *r) {
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
        if (r->kind == BPB_SHARED)
                snprintf(out, sizeof(r->res->layout),
                         "%d partitions, one group of %d", r->o->partitions,
                         cnt[0]);
        else
                snprintf(out, sizeof(r->res->layout),
                         "%scritical %s (%d), bulk %s (%d)",
                         r->kind == BPB_TOPICS ? "topics: " : "buckets: ",
                         parts[0], cnt[0], parts[1], cnt[1]);
}
