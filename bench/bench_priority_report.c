/*
 * bench_priority_report.c - the outputs of bp-bench-priority: the table
 * with the ratios against the targets, the SVG chart (the demo's chart
 * writer, with its styles inlined so the file stands alone) and JSON.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_priority.h"
#include "bench_priority_gaps.h"
#include "demo_kit.h"

/* Targets of issue 5: (b) within 1.5x of (c), 50x below (a). */
#define TARGET_B_OVER_C 1.5
#define TARGET_A_OVER_B 50.0

static const char *const design_color[BPB_DESIGNS] = {
    "#d62728", "#2ca02c", "#1f77b4", "#ff9896", "#98df8a", "#aec7e8"};

/* The figures of one design: one round, or medians over the rounds. */
typedef struct summary {
        int n;                  /**< Rounds that ran. */
        double p50, p99, max;   /**< ms */
        double bulk_in_window, backlog, prefill_s, tail_s;
        double rebalance_p99;   /**< ms */
        bpb_gap_t gap[BPB_STRETCHES]; /**< Medians (read: the last). */
        long critical_sent, critical_consumed, lost, failed, wrong, dups;
} summary_t;

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *)a, y = *(const double *)b;
        return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
        qsort(v, (size_t)n, sizeof(*v), cmp_double);
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void summarize(bpb_result_t res[][BPB_DESIGNS], int rounds, int d,
                      summary_t *s) {
        double v[8][BPB_MAX_ROUNDS], g[BPB_STRETCHES][3][BPB_MAX_ROUNDS];
        int k;
        int i;

        memset(s, 0, sizeof(*s));
        for (i = 0; i < rounds; i++) {
                const bpb_result_t *r = &res[i][d];
                if (!r->ok)
                        continue;
                v[0][s->n] = r->critical_p50_ms;
                v[1][s->n] = r->critical_p99_ms;
                v[2][s->n] = r->critical_max_ms;
                v[3][s->n] = (double)r->bulk_in_window;
                v[4][s->n] = (double)r->backlog_at_t0;
                v[5][s->n] = r->prefill_s;
                v[6][s->n] = r->tail_s;
                v[7][s->n] = r->rebalance_p99_ms;
                for (k = 0; k < BPB_STRETCHES; k++) {
                        g[k][0][s->n]    = r->gap[k].part_ms;
                        g[k][1][s->n]    = r->gap[k].bucket_ms;
                        g[k][2][s->n]    = r->gap[k].stalled;
                        s->gap[k].read   = r->gap[k].read;
                }
                s->critical_sent += r->critical_sent;
                s->critical_consumed += r->critical_consumed;
                s->lost += r->lost;
                s->failed += r->failed;
                s->wrong += r->wrong_class;
                s->dups += r->duplicates;
                s->n++;
        }
        if (!s->n)
                return;
        s->p50            = median(v[0], s->n);
        s->p99            = median(v[1], s->n);
        s->max            = median(v[2], s->n);
        s->bulk_in_window = median(v[3], s->n);
        s->backlog        = median(v[4], s->n);
        s->prefill_s      = median(v[5], s->n);
        s->tail_s         = median(v[6], s->n);
        s->rebalance_p99  = median(v[7], s->n);
        for (k = 0; k < BPB_STRETCHES; k++) {
                s->gap[k].part_ms   = median(g[k][0], s->n);
                s->gap[k].bucket_ms = median(g[k][1], s->n);
                s->gap[k].stalled   = (int)(median(g[k][2], s->n) + 0.5);
        }
}

static const char *fmt_ms(double ms, char *buf, size_t size) {
        if (ms < 0)
                snprintf(buf, size, "-");
        else if (ms >= 1000)
                snprintf(buf, size, "%.1f s", ms / 1000);
        else
                snprintf(buf, size, "%.1f ms", ms);
        return buf;
}

static const char *fmt_count(double n, char *buf, size_t size) {
        long v = (long)(n + 0.5);
        if (v >= 1000000)
                snprintf(buf, size, "%ld %03ld %03ld", v / 1000000,
                         v / 1000 % 1000, v % 1000);
        else if (v >= 1000)
                snprintf(buf, size, "%ld %03ld", v / 1000, v % 1000);
        else
                snprintf(buf, size, "%ld", v);
        return buf;
}

static void print_load(const bpb_options_t *o) {
        char n[32];
        printf("cluster: %s\n", o->brokers ? o->brokers
                                           : "librdkafka mock cluster");
        printf("load: %s bulk records written before t0 (the backlog), "
               "then %.0f critical records/s for %.0f s;\n"
               "      %d consumer threads per design, every record costs "
               "%lld us to process;\n"
               "      %d partitions (b: critical %d%% = %d partitions; c: "
               "topics of %d and %d)\n",
               fmt_count((double)o->backlog, n, sizeof(n)), o->critical_rate,
               o->window_s, o->critical_workers + o->bulk_workers,
               (long long)o->cost_us, o->partitions, o->critical_share,
               o->critical_parts, o->critical_parts,
               o->partitions - o->critical_parts);
}

static void print_round(const bpb_options_t *o,
                        bpb_result_t res[][BPB_DESIGNS], int i) {
        char a[16], b[16], c[16];
        int d;

        printf("round %d:", i + 1);
        for (d = 0; d < BPB_DESIGNS; d++) {
                const bpb_result_t *r = &res[i][d];
                if (!o->designs[d] || !r->ok)
                        continue;
                printf("  %c%s) p50 %s p99 %s max %s;", 'a' + bpb_kind(d),
                       bpb_kip848(d) ? "-848" : "",
                       fmt_ms(r->critical_p50_ms, a, sizeof(a)),
                       fmt_ms(r->critical_p99_ms, b, sizeof(b)),
                       fmt_ms(r->critical_max_ms, c, sizeof(c)));
        }
        printf("\n");
}

/* How long the critical partitions went unread (bench_priority_gaps.h),
 * and the p99 of the rebalance window. */
static void print_gaps(const bpb_options_t *o, const summary_t *s) {
        char a[16], b[16], c[16], x[16], y[16], p99[16];
        int d;

        if (o->join_s <= 0) {
                printf("\nReading the critical partitions:\n\n| design | "
                       "longest partition gap | longest bucket gap | "
                       "partitions stalled > %.0f ms |\n|---|---:|---:|---:|"
                       "\n",
                       BPB_STALL_MS);
                for (d = 0; d < BPB_DESIGNS; d++)
                        if (o->designs[d] && s[d].n)
                                printf("| %s | %s | %s | %d of %d |\n",
                                       bpb_design_title[d],
                                       fmt_ms(s[d].gap[0].part_ms, a,
                                              sizeof(a)),
                                       fmt_ms(s[d].gap[0].bucket_ms, b,
                                              sizeof(b)),
                                       s[d].gap[0].stalled, s[d].gap[0].read);
                return;
        }
        printf("\nReading the critical partitions: a second consumer joins "
               "the critical group at %g s, the first one leaves at %g "
               "s (gaps by the stretch they ended in):\n\n"
               "| design | partition gap before the join | after the join | "
               "after the leave | partitions stalled > %.0f ms, join / "
               "leave | bucket gap, join / leave | critical p99 sent "
               "%g-%g s |\n|---|---:|---:|---:|---:|---:|---:|\n",
               o->join_s, o->leave_s, BPB_STALL_MS, o->join_s, o->window_s);
        for (d = 0; d < BPB_DESIGNS; d++) {
                const bpb_gap_t *g = s[d].gap;
                if (!o->designs[d] || !s[d].n)
                        continue;
                printf("| %s | %s | %s | %s | %d of %d / %d of %d | %s / %s "
                       "| %s |\n",
                       bpb_design_title[d],
                       fmt_ms(g[BPB_STEADY].part_ms, a, sizeof(a)),
                       fmt_ms(g[BPB_AT_JOIN].part_ms, b, sizeof(b)),
                       fmt_ms(g[BPB_AT_LEAVE].part_ms, c, sizeof(c)),
                       g[BPB_AT_JOIN].stalled, g[BPB_AT_JOIN].read,
                       g[BPB_AT_LEAVE].stalled, g[BPB_AT_LEAVE].read,
                       fmt_ms(g[BPB_AT_JOIN].bucket_ms, x, sizeof(x)),
                       fmt_ms(g[BPB_AT_LEAVE].bucket_ms, y, sizeof(y)),
                       fmt_ms(s[d].rebalance_p99, p99, sizeof(p99)));
        }
}

/* The targets are about the steady state: a run with --rebalance shows
 * them without judging them. */
static const char *judged(const bpb_options_t *o, int ok) {
        if (o->join_s > 0)
                return ok ? "met (not judged: --rebalance)"
                          : "not met (not judged: --rebalance)";
        return ok ? "met" : "NOT MET";
}

/* The longest partition gap of a design's run: over every stretch. */
static double worst_gap(const summary_t *s) {
        double w = -1;
        int k;
        for (k = 0; k < BPB_STRETCHES; k++)
                if (s->gap[k].part_ms > w)
                        w = s->gap[k].part_ms;
        return w;
}

int bpb_report_table(const bpb_options_t *o,
                     bpb_result_t res[][BPB_DESIGNS], int rounds) {
        summary_t s[BPB_DESIGNS];
        char p50[16], p99[16], mx[16], bulk[24], back[24];
        int d, i, met = 1;

        for (d = 0; d < BPB_DESIGNS; d++)
                summarize(res, rounds, d, &s[d]);
        printf("\n== Priority benchmark%s\n", rounds > 1 ? " (medians)" : "");
        print_load(o);
        if (rounds > 1)
                for (i = 0; i < rounds; i++)
                        print_round(o, res, i);
        printf("\n| design | critical p50 | p99 | max | critical "
               "consumed | bulk consumed in window | backlog at t0 | lost "
               "|\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (d = 0; d < BPB_DESIGNS; d++) {
                if (!o->designs[d] || !s[d].n)
                        continue;
                printf("| %s | %s | %s | %s | %ld/%ld | %s | %s | %ld%s |\n",
                       bpb_design_title[d], fmt_ms(s[d].p50, p50, sizeof(p50)),
                       fmt_ms(s[d].p99, p99, sizeof(p99)),
                       fmt_ms(s[d].max, mx, sizeof(mx)),
                       s[d].critical_consumed, s[d].critical_sent,
                       fmt_count(s[d].bulk_in_window, bulk, sizeof(bulk)),
                       fmt_count(s[d].backlog, back, sizeof(back)), s[d].lost,
                       s[d].lost ? " FAIL" : " ok");
        }
        if (rounds > 1)
                printf("(critical consumed and lost: all rounds together; "
                       "the other columns: medians)\n");
        printf("\n");
        for (d = 0; d < BPB_DESIGNS; d++) {
                if (!o->designs[d] || !s[d].n)
                        continue;
                printf("%s: %s; backlog written in %.1f s; late critical "
                       "records waited for %.1f s;\n    failed %ld, "
                       "duplicates %ld, read by the other class %ld\n",
                       bpb_design_title[d], res[0][d].layout, s[d].prefill_s,
                       s[d].tail_s, s[d].failed, s[d].dups, s[d].wrong);
        }
        print_gaps(o, s);
        printf("\n");
        for (d = 0; d < BPB_DESIGNS; d += BPB_KINDS) {
                const summary_t *a = &s[d + BPB_SHARED],
                                *b = &s[d + BPB_BUCKETS],
                                *c = &s[d + BPB_TOPICS];
                const char *proto = d ? ", KIP-848" : "";
                if (b->n && c->n) {
                        double r = b->p99 / c->p99;
                        int ok   = r <= TARGET_B_OVER_C;
                        printf("critical p99 (b)/(c)%s = %.2f   target <= "
                               "%.1f: %s\n",
                               proto, r, TARGET_B_OVER_C, judged(o, ok));
                        met = met && (ok || o->join_s > 0);
                }
                if (a->n && b->n) {
                        double r = a->p99 / b->p99;
                        int ok   = r >= TARGET_A_OVER_B;
                        printf("critical p99 (a)/(b)%s = %.0f   target >= "
                               "%.0f: %s\n",
                               proto, r, TARGET_A_OVER_B, judged(o, ok));
                        met = met && (ok || o->join_s > 0);
                }
        }
        for (d = 0; d < BPB_KINDS; d++)
                if (s[d].n && s[d + BPB_KINDS].n)
                        printf("critical p99 %s / classic = %.2f; longest "
                               "partition gap %s / classic = %.2f\n",
                               bpb_design_title[d + BPB_KINDS],
                               s[d + BPB_KINDS].p99 / s[d].p99,
                               bpb_design_name[d + BPB_KINDS],
                               worst_gap(&s[d + BPB_KINDS]) /
                                   worst_gap(&s[d]));
        if (o->skipped[0])
                printf("%s\n", o->skipped);
        return met;
}

/* --- SVG ----------------------------------------------------------------- */

static const char svg_style[] =
    "<style>.title{font:bold 14px sans-serif}"
    ".tick,.small{font:11px sans-serif;fill:#555}"
    ".label{font:12px sans-serif;fill:#333}"
    ".grid{stroke:#eee}.axis{stroke:#888}"
    ".band{fill:#f4e7c5;fill-opacity:.6}"
    ".mark{stroke:#999;stroke-dasharray:4 4}</style>\n"
    "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n";

int bpb_report_svg(const bpb_options_t *o, const bpb_result_t *res,
                   const char *path) {
        demo_svg_series_t s[BPB_DESIGNS];
        demo_svg_chart_t c;
        float *x[BPB_DESIGNS] = {0}, *y[BPB_DESIGNS] = {0};
        char label[BPB_DESIGNS][80], title[160], p99[16], n[32];
        double top = 1000;
        char *buf  = NULL, *nl;
        size_t len = 0;
        FILE *mem, *f;
        int d, ns = 0, rc = -1;
        size_t i;

        memset(&c, 0, sizeof(c));
        for (d = 0; d < BPB_DESIGNS; d++) {
                const bpb_result_t *r = &res[d];
                if (!o->designs[d] || !r->ok || !r->second_cnt)
                        continue;
                x[d] = malloc(r->second_cnt * sizeof(float));
                y[d] = malloc(r->second_cnt * sizeof(float));
                if (!x[d] || !y[d])
                        goto done;
                for (i = 0; i < r->second_cnt; i++) {
                        x[d][i] = r->seconds[i].t_s;
                        y[d][i] = r->seconds[i].p99_ms;
                        if (y[d][i] > top)
                                top = y[d][i];
                }
                snprintf(label[d], sizeof(label[d]), "%c) %s: p99 %s",
                         'a' + bpb_kind(d), bpb_design_name[d],
                         fmt_ms(r->critical_p99_ms, p99, sizeof(p99)));
                s[ns].label = label[d];
                s[ns].color = design_color[d];
                s[ns].x     = x[d];
                s[ns].y     = y[d];
                s[ns].n     = r->second_cnt;
                s[ns].dots  = 0;
                ns++;
        }
        snprintf(title, sizeof(title),
                 "Critical latency while %s bulk records drain (%s, p99 "
                 "per second of send time)",
                 fmt_count((double)o->backlog, n, sizeof(n)),
                 o->brokers ? "Kafka broker" : "mock cluster");
        c.title        = title;
        c.x_label      = "send time of the critical record, s after the "
                         "backlog starts draining";
        c.y_label      = "end-to-end latency";
        c.log_y        = 1;
        c.y_min        = 1;
        c.y_max        = pow(10, ceil(log10(top * 1.2)));
        c.x_max        = ceil(o->window_s);
        c.y_mark       = 5000;
        c.y_mark_label = "seeds/000 target: critical p99 under 5 s";

        if (!(mem = open_memstream(&buf, &len)))
                goto done;
        demo_svg_write(mem, &c, s, ns);
        if (fclose(mem) || !buf || !(nl = strchr(buf, '\n')))
                goto done;
        if (!(f = fopen(path, "w")))
                goto done;
        /* The chart writer leaves styling to the page around it: put it in
         * the file, after the opening <svg> line. */
        fwrite(buf, 1, (size_t)(nl + 1 - buf), f);
        fputs(svg_style, f);
        fputs(nl + 1, f);
        rc = fclose(f) ? -1 : 0;
done:
        free(buf);
        for (d = 0; d < BPB_DESIGNS; d++) {
                free(x[d]);
                free(y[d]);
        }
        return rc;
}

/* --- JSON ---------------------------------------------------------------- */

static void json_num(FILE *f, const char *name, double v, const char *sep) {
        if (isfinite(v))
                fprintf(f, "\"%s\":%.3f%s", name, v, sep);
        else
                fprintf(f, "\"%s\":null%s", name, sep);
}

/* "gaps":[{...} per stretch], */
static void json_gaps(FILE *f, const bpb_gap_t *g) {
        int k;
        fputs("\"gaps\":[", f);
        for (k = 0; k < BPB_STRETCHES; k++) {
                fprintf(f, "%s{\"stretch\":\"%s\",", k ? "," : "",
                        bpb_stretch_name[k]);
                json_num(f, "partition_gap_ms", g[k].part_ms, ",");
                fprintf(f, "\"partition\":%d,", g[k].partition);
                json_num(f, "end_s", g[k].end_s, ",");
                json_num(f, "bucket_gap_ms", g[k].bucket_ms, ",");
                fprintf(f, "\"partitions_stalled\":%d,\"partitions_read\":%d}",
                        g[k].stalled, g[k].read);
        }
        fputs("],", f);
}

int bpb_report_json(const bpb_options_t *o,
                    bpb_result_t res[][BPB_DESIGNS], int rounds,
                    const char *path) {
        FILE *f = fopen(path, "w");
        summary_t s[BPB_DESIGNS];
        int i, d, first;

        if (!f)
                return -1;
        fprintf(f,
                "{\"cluster\":\"%s\",\"load\":{\"backlog\":%ld,"
                "\"window_s\":%.1f,\"critical_rate\":%.1f,\"cost_us\":%lld,"
                "\"partitions\":%d,\"critical_partitions\":%d,"
                "\"critical_workers\":%d,\"bulk_workers\":%d,"
                "\"rebalance_join_s\":%.1f,\"rebalance_leave_s\":%.1f},"
                "\n\"rounds\":[",
                o->brokers ? "brokers" : "mock", o->backlog, o->window_s,
                o->critical_rate, (long long)o->cost_us, o->partitions,
                o->critical_parts, o->critical_workers, o->bulk_workers,
                o->join_s, o->leave_s);
        for (i = 0; i < rounds; i++) {
                fprintf(f, "%s[", i ? ",\n" : "");
                for (d = 0, first = 1; d < BPB_DESIGNS; d++) {
                        const bpb_result_t *r = &res[i][d];
                        if (!o->designs[d] || !r->ok)
                                continue;
                        fprintf(f, "%s{\"design\":\"%s\",", first ? "" : ",",
                                bpb_design_name[d]);
                        first = 0;
                        json_num(f, "critical_p50_ms", r->critical_p50_ms, ",");
                        json_num(f, "critical_p99_ms", r->critical_p99_ms, ",");
                        json_num(f, "critical_max_ms", r->critical_max_ms, ",");
                        fprintf(f,
                                "\"critical_sent\":%ld,\"critical_consumed\":"
                                "%ld,\"critical_in_window\":%ld,"
                                "\"bulk_consumed_in_window\":%ld,"
                                "\"backlog_at_t0\":%ld,\"bulk_left_at_end\":"
                                "%ld,\"lost\":%ld,\"failed\":%ld,"
                                "\"duplicates\":%ld,\"wrong_class\":%ld,",
                                r->critical_sent, r->critical_consumed,
                                r->critical_in_window, r->bulk_in_window,
                                r->backlog_at_t0, r->bulk_left_at_end, r->lost,
                                r->failed, r->duplicates, r->wrong_class);
                        json_num(f, "prefill_s", r->prefill_s, ",");
                        json_num(f, "tail_s", r->tail_s, ",");
                        json_num(f, "drain_s", r->drain_s, ",");
                        json_gaps(f, r->gap);
                        fprintf(f, "\"rebalance_records\":%ld,",
                                r->rebalance_records);
                        json_num(f, "rebalance_p99_ms", r->rebalance_p99_ms,
                                 "");
                        fputc('}', f);
                }
                fputc(']', f);
        }
        fputs("],\n\"median\":{", f);
        for (d = 0, first = 1; d < BPB_DESIGNS; d++) {
                summarize(res, rounds, d, &s[d]);
                if (!o->designs[d] || !s[d].n)
                        continue;
                fprintf(f, "%s\"%s\":{", first ? "" : ",", bpb_design_name[d]);
                first = 0;
                json_num(f, "critical_p50_ms", s[d].p50, ",");
                json_num(f, "critical_p99_ms", s[d].p99, ",");
                json_num(f, "critical_max_ms", s[d].max, ",");
                json_num(f, "bulk_consumed_in_window", s[d].bulk_in_window,
                         ",");
                json_gaps(f, s[d].gap);
                json_num(f, "rebalance_p99_ms", s[d].rebalance_p99, ",");
                fprintf(f, "\"lost\":%ld}", s[d].lost);
        }
        fputs("}", f);
        if (s[BPB_BUCKETS].n && s[BPB_TOPICS].n && s[BPB_SHARED].n) {
                fputs(",\n\"ratios\":{", f);
                json_num(f, "b_over_c", s[BPB_BUCKETS].p99 / s[BPB_TOPICS].p99,
                         ",");
                json_num(f, "a_over_b", s[BPB_SHARED].p99 / s[BPB_BUCKETS].p99,
                         "");
                fputs("}", f);
        }
        fputs("}\n", f);
        return fclose(f) ? -1 : 0;
}
