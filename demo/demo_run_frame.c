/*
 * demo_run_frame.c - what the live view shows of a run at each tick: the
 * frame (each class's partitions, counts, latencies; the plugin's routing
 * line), the chart samples, and the narrated assignment changes.
 */
#include "demo_run_frame.h"

#include <stdio.h>
#include <string.h>

#include "demo_log.h"
#include "demo_time.h"

double demo_run_time(const demo_run_state_t *r) {
        return r->t0 ? (double)(demo_now_us() - r->t0) / 1e6 : 0;
}

static int alive(const demo_run_state_t *r, int k) {
        return !atomic_load(&r->cons[k].dead) && !atomic_load(&r->cons[k].kill);
}

void demo_run_class_assignment(const demo_run_state_t *r, int c, char *out,
                               size_t size, int *live) {
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

static void plugin_line(const demo_run_state_t *r, char *out,
                        size_t size) {
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

static void fill_frame(demo_run_state_t *r, demo_view_frame_t *f,
                       const char *phase) {
        int64_t now = demo_now_us();
        int c;

        memset(f, 0, sizeof(*f));
        f->run_no     = r->run_no;
        f->run_cnt    = r->run_cnt;
        f->mode       = r->res->mode;
        f->phase      = phase;
        f->t_s        = demo_run_time(r);
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
                demo_run_class_assignment(r, c, row->partitions,
                                          sizeof(row->partitions),
                                          &row->consumers);
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
static void observe_strict(demo_run_state_t *r) {
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
static void observe(demo_run_state_t *r, const demo_view_frame_t *f) {
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

void demo_run_draw(demo_run_state_t *r, const char *phase, int force) {
        demo_view_frame_t f;
        fill_frame(r, &f, phase);
        if (r->t0)
                observe(r, &f);
        demo_view_draw(r->v, &f, force);
}
