/*
 * demo_report.c - the summary table, the JSON figures and the HTML report
 * with its inline SVG charts.
 */
#include "demo_report.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "demo_compare.h"
#include "demo_svg.h"
#include "demo_view.h"

static const char *const run_color[DEMO_MODES] = {"#d62728", "#2ca02c",
                                                  "#1f77b4"};

/* --- terminal summary ---------------------------------------------------- */

/* How a row shows its field: milliseconds or a count. */
typedef enum { AS_MS, AS_COUNT } row_unit_t;

/* The per-run figures of the terminal summary and the HTML table: the
 * terminal's label (NULL: only in the HTML table), the HTML table's, the
 * field and its unit. The bulk partitions' spread comes before
 * bulk_drained in both. */
static const struct {
        const char *text_label, *html_label;
        size_t off;
        row_unit_t unit;
} figures[] = {
#define ROW(text, html, field, unit)                                           \
        {text, html, offsetof(demo_result_t, field), unit}
    ROW("critical p50 (produce to consume)", "critical p50 (ms)",
        critical_p50_ms, AS_MS),
    ROW("critical p99", "critical p99 (ms)", critical_p99_ms, AS_MS),
    ROW("critical max", "critical max (ms)", critical_max_ms, AS_MS),
    ROW("critical later than 1 s", "critical later than 1 s", critical_late,
        AS_COUNT),
    ROW(NULL, "critical delivered", critical_produced, AS_COUNT),
    ROW(NULL, "bulk delivered", bulk_produced, AS_COUNT),
    ROW("bulk consumed in the window", "bulk consumed in the window",
        bulk_consumed, AS_COUNT),
    ROW("bulk drained afterwards", "bulk drained afterwards", bulk_drained,
        AS_COUNT),
    ROW("lost (delivered, never consumed)", "lost (delivered, never consumed)",
        lost, AS_COUNT),
    ROW("consumed twice", "consumed twice", duplicates, AS_COUNT),
#undef ROW
};
#define FIGURE_CNT (sizeof(figures) / sizeof(figures[0]))

/* One summary row: \p label, then the field at offset \p off of each run
 * (a double of milliseconds or a long count, as \p unit says). */
static void row_figure(FILE *f, const char *label, const demo_result_t *r,
                       int n, size_t off, row_unit_t unit) {
        char buf[32];
        int i;
        fprintf(f, "  %-34s", label);
        for (i = 0; i < n; i++) {
                const char *field = (const char *)&r[i] + off;
                fprintf(f, " %14s",
                        unit == AS_MS
                            ? demo_fmt_ms(*(const double *)field, buf,
                                          sizeof(buf))
                            : demo_fmt_count(*(const long *)field, buf,
                                             sizeof(buf)));
        }
        fputc('\n', f);
}

/* How evenly the bulk partitions were read in the window. */
static void row_spread(FILE *f, const demo_result_t *r, int n) {
        char lo[24], hi[24], buf[56];
        int i;

        fprintf(f, "  %-34s", "  per bulk partition, least-most");
        for (i = 0; i < n; i++) {
                snprintf(buf, sizeof(buf), "%s-%s",
                         demo_fmt_count(r[i].bulk_part_lo_n, lo, sizeof(lo)),
                         demo_fmt_count(r[i].bulk_part_hi_n, hi, sizeof(hi)));
                fprintf(f, " %14s", r[i].bulk_part_lo < 0 ? "-" : buf);
        }
        fputc('\n', f);
}

/* The strict run's scheduler figures (the other runs have none). */
static void sched_rows(FILE *f, const demo_result_t *r, int n) {
        char label[48], buf[48];
        int i, c, any = 0;

        for (i = 0; i < n; i++)
                any |= r[i].sched_valid;
        for (c = 0; any && c < DEMO_CLASSES; c++) {
                snprintf(label, sizeof(label), "scheduler: %s delivered",
                         demo_class_name[c]);
                fprintf(f, "  %-34s", label);
                for (i = 0; i < n; i++)
                        fprintf(f, " %14s",
                                r[i].sched_valid
                                    ? demo_fmt_count(r[i].sched[c].delivered,
                                                     buf, sizeof(buf))
                                    : "-");
                snprintf(label, sizeof(label), "scheduler: %s paused",
                         demo_class_name[c]);
                fprintf(f, "\n  %-34s", label);
                for (i = 0; i < n; i++) {
                        snprintf(buf, sizeof(buf), "%ldx, %.1f s",
                                 r[i].sched[c].pauses,
                                 (double)r[i].sched[c].paused_ms / 1000.0);
                        fprintf(f, " %14s", r[i].sched_valid ? buf : "-");
                }
                fputc('\n', f);
        }
}

/* "  note: <mode> run: " and the rest of the note, under the summary. */
__attribute__((format(printf, 3, 4))) static void note(FILE *f, const demo_result_t *run, const char *fmt, ...) {
        va_list ap;

        fprintf(f, "  note: %s run: ", run->mode);
        va_start(ap, fmt);
        vfprintf(f, fmt, ap);
        va_end(ap);
}

void demo_report_summary(FILE *f, const demo_options_t *o,
                         const demo_result_t *r, int n, int color) {
        const demo_scenario_t *sc = &o->sc;
        char total[32], text[1200];
        size_t k;
        int i;

        demo_fmt_count(sc->bulk_total, total, sizeof(total));
        fprintf(f, "\n%sSummary%s: login codes (%.0f/s) during a campaign of "
                   "%s newsletters; the same\nload and %lld us of work per "
                   "record in every run, not the same workers.\n\n",
                color ? "\033[1m" : "", color ? "\033[0m" : "",
                sc->critical_rate, total, (long long)sc->cost_us);
        fprintf(f, "  %-34s", "");
        for (i = 0; i < n; i++)
                fprintf(f, " %14s", r[i].mode);
        fputc('\n', f);
        fprintf(f, "  %-34s", "workers (consumer threads)");
        for (i = 0; i < n; i++)
                fprintf(f, " %14d", r[i].workers);
        fputc('\n', f);
        for (k = 0; k < FIGURE_CNT; k++) {
                if (!figures[k].text_label)
                        continue;
                if (figures[k].off == offsetof(demo_result_t, bulk_drained))
                        row_spread(f, r, n);
                row_figure(f, figures[k].text_label, r, n, figures[k].off,
                           figures[k].unit);
        }
        sched_rows(f, r, n);
        for (i = 0; i < n; i++) {
                if (r[i].failed)
                        note(f, &r[i], "%ld records failed delivery (never "
                                       "stored, not counted as lost)\n",
                             r[i].failed);
                if (r[i].critical_after_window)
                        note(f, &r[i], "%ld login codes were only consumed "
                                       "while draining\n",
                             r[i].critical_after_window);
                if (r[i].critical_by_bulk)
                        note(f, &r[i], "%ld login codes were read by bulk "
                                       "workers (their partition moved to "
                                       "bulk)\n",
                             r[i].critical_by_bulk);
                if (r[i].foreign)
                        note(f, &r[i], "the plugin saw %ld records outside "
                                       "a worker's bucket\n",
                             r[i].foreign);
                if (r[i].duplicates && r[i].crashed)
                        note(f, &r[i], "after the crash, the records since "
                                       "the last commit\n        came again\n");
                if (r[i].duplicates && r[i].sched_valid &&
                    r[i].sched[DEMO_BULK].pauses)
                        note(f, &r[i], "a record handed out as the scheduler "
                                       "pauses its bucket\n        may come "
                                       "again (at-least-once, "
                                       "docs/consumer.md)\n");
                if (!r[i].drained)
                        note(f, &r[i], "the drain did not finish\n");
        }
        demo_compare_buckets(text, sizeof(text), sc, r, n);
        if (text[0]) {
                fputc('\n', f);
                demo_print_wrapped(f, text, 78);
        }
        demo_compare_strict(text, sizeof(text), sc, r, n);
        if (text[0]) {
                fputc('\n', f);
                demo_print_wrapped(f, text, 78);
        }
}

/* --- JSON ---------------------------------------------------------------- */

int demo_report_json(const char *path, const demo_result_t *r, int n) {
        FILE *f = fopen(path, "w");
        int i, c;

        if (!f)
                return -1;
        fputs("{\"runs\":[", f);
        for (i = 0; i < n; i++) {
                fprintf(f,
                        "%s{\"mode\":\"%s\",\"critical_p50_ms\":%.1f,"
                        "\"critical_p99_ms\":%.1f,\"bulk_consumed\":%ld,"
                        "\"lost\":%ld,\"workers\":%d",
                        i ? "," : "", r[i].mode, r[i].critical_p50_ms,
                        r[i].critical_p99_ms, r[i].bulk_consumed, r[i].lost,
                        r[i].workers);
                for (c = 0; r[i].sched_valid && c < DEMO_CLASSES; c++)
                        fprintf(f,
                                "%s\"%s\":{\"delivered\":%ld,"
                                "\"pauses\":%ld,\"paused_ms\":%ld}%s",
                                c ? "," : ",\"scheduler\":{",
                                demo_class_name[c], r[i].sched[c].delivered,
                                r[i].sched[c].pauses, r[i].sched[c].paused_ms,
                                c == DEMO_CLASSES - 1 ? "}" : "");
                fputc('}', f);
        }
        fputs("]}\n", f);
        return fclose(f) ? -1 : 0;
}

/* --- HTML ---------------------------------------------------------------- */

static const char css[] =
    "body{font-family:system-ui,sans-serif;max-width:880px;margin:2em auto;"
    "color:#222;line-height:1.45}"
    "h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.6em}"
    "table{border-collapse:collapse;margin:1em 0}"
    "td,th{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:right}"
    "td:first-child,th:first-child{text-align:left}"
    "code{background:#f3f3f3;padding:0 .2em}"
    "svg{max-width:100%;height:auto;border:1px solid #eee}"
    "svg .title{font:bold 14px sans-serif}"
    "svg .tick,svg .small{font:11px sans-serif;fill:#555}"
    "svg .label{font:12px sans-serif;fill:#333}"
    "svg .grid{stroke:#eee}svg .axis{stroke:#888}"
    "svg .band{fill:#f4e7c5;fill-opacity:.6}"
    "svg .mark{stroke:#999;stroke-dasharray:4 4}";

/* The strict run's scheduler figures, "-" for the other runs. */
static void html_sched_rows(FILE *f, const demo_result_t *r, int n) {
        int i, c, any = 0;

        for (i = 0; i < n; i++)
                any |= r[i].sched_valid;
        for (c = 0; any && c < DEMO_CLASSES; c++) {
                fprintf(f, "<tr><td>scheduler: %s delivered</td>",
                        demo_class_name[c]);
                for (i = 0; i < n; i++)
                        if (r[i].sched_valid)
                                fprintf(f, "<td>%ld</td>",
                                        r[i].sched[c].delivered);
                        else
                                fputs("<td>-</td>", f);
                fprintf(f, "</tr>\n<tr><td>scheduler: %s paused (times, "
                           "total s)</td>",
                        demo_class_name[c]);
                for (i = 0; i < n; i++)
                        if (r[i].sched_valid)
                                fprintf(f, "<td>%ld, %.1f</td>",
                                        r[i].sched[c].pauses,
                                        (double)r[i].sched[c].paused_ms /
                                            1000.0);
                        else
                                fputs("<td>-</td>", f);
                fputs("</tr>\n", f);
        }
}

static void html_table(FILE *f, const demo_result_t *r, int n) {
        size_t k;
        int i;

        fputs("<table><tr><th></th>", f);
        for (i = 0; i < n; i++)
                fprintf(f, "<th>%s</th>", r[i].mode);
        fputs("</tr>\n<tr><td>workers (consumer threads)</td>", f);
        for (i = 0; i < n; i++)
                fprintf(f, "<td>%d</td>", r[i].workers);
        fputs("</tr>\n", f);
        for (k = 0; k < FIGURE_CNT; k++) {
                if (figures[k].off == offsetof(demo_result_t, bulk_drained)) {
                        fputs("<tr><td>bulk consumed in the window, per "
                              "partition (least, most)</td>",
                              f);
                        for (i = 0; i < n; i++)
                                fprintf(f, "<td>%ld, %ld</td>",
                                        r[i].bulk_part_lo_n,
                                        r[i].bulk_part_hi_n);
                        fputs("</tr>\n", f);
                }
                fprintf(f, "<tr><td>%s</td>", figures[k].html_label);
                for (i = 0; i < n; i++) {
                        const char *p = (const char *)&r[i] + figures[k].off;
                        if (figures[k].unit == AS_MS)
                                fprintf(f, "<td>%.1f</td>", *(const double *)p);
                        else
                                fprintf(f, "<td>%ld</td>", *(const long *)p);
                }
                fputs("</tr>\n", f);
        }
        html_sched_rows(f, r, n);
        fputs("</table>\n", f);
}

/* Copies two float fields (at \p x_off and \p y_off) of \p cnt items of
 * \p size bytes into new x/y arrays; the count, 0 if out of memory. */
static size_t fields_xy(const void *items, size_t cnt, size_t size,
                        size_t x_off, size_t y_off, float **x, float **y) {
        size_t i;
        *x = malloc((cnt ? cnt : 1) * sizeof(float));
        *y = malloc((cnt ? cnt : 1) * sizeof(float));
        if (!*x || !*y)
                return 0;
        for (i = 0; i < cnt; i++) {
                const char *item = (const char *)items + i * size;
                memcpy(&(*x)[i], item + x_off, sizeof(float));
                memcpy(&(*y)[i], item + y_off, sizeof(float));
        }
        return cnt;
}

/* The critical samples of run \p r: time and latency. */
static size_t critical_xy(const demo_result_t *r, float **x, float **y) {
        return fields_xy(r->stats.crit, r->stats.crit_cnt,
                         sizeof(demo_sample_t), offsetof(demo_sample_t, t_s),
                         offsetof(demo_sample_t, lat_ms), x, y);
}

/* The bulk lag series of run \p r: time and bulk lag. */
static size_t lag_xy(const demo_result_t *r, float **x, float **y) {
        return fields_xy(r->stats.series, r->stats.series_cnt,
                         sizeof(demo_point_t), offsetof(demo_point_t, t_s),
                         offsetof(demo_point_t, lag[DEMO_BULK]), x, y);
}

static void charts(FILE *f, const demo_options_t *o, const demo_result_t *r,
                   int n) {
        demo_svg_series_t s[2 * DEMO_MODES];
        demo_svg_chart_t c;
        float *x[2 * DEMO_MODES] = {0}, *y[2 * DEMO_MODES] = {0};
        double x_max = 0, y_max = 1000, lag_max = 1;
        char label[DEMO_MODES][64];
        size_t j;
        int i, m = n < DEMO_MODES ? n : DEMO_MODES;

        memset(s, 0, sizeof(s));
        for (i = 0; i < m; i++) {
                s[i].n     = critical_xy(&r[i], &x[i], &y[i]);
                s[i].x     = x[i];
                s[i].y     = y[i];
                s[i].dots  = 1;
                s[i].color = run_color[r[i].mode_id];
                snprintf(label[i], sizeof(label[i]), "%s (p99 %.0f ms)",
                         r[i].mode, r[i].critical_p99_ms);
                s[i].label = label[i];
                for (j = 0; j < s[i].n; j++) {
                        if (x[i][j] > x_max)
                                x_max = x[i][j];
                        if (y[i][j] > y_max)
                                y_max = y[i][j];
                }
                s[i + m].n = lag_xy(&r[i], &x[i + m], &y[i + m]);
                for (j = 0; j < s[i + m].n; j++) {
                        if (x[i + m][j] > x_max)
                                x_max = x[i + m][j];
                        if (y[i + m][j] > lag_max)
                                lag_max = y[i + m][j];
                }
        }
        memset(&c, 0, sizeof(c));
        c.title = "Critical (login code) end-to-end latency, every record";
        c.x_label      = "seconds since the run started";
        c.y_label      = "latency (log scale)";
        c.log_y        = 1;
        c.x_max        = ceil(x_max);
        c.y_min        = 0.1;
        c.y_max        = pow(10, ceil(log10(y_max)));
        c.band_from    = o->sc.campaign_start_s;
        c.band_to      = o->sc.campaign_start_s +
                      (double)o->sc.bulk_total / o->sc.bulk_rate;
        c.band_label   = "campaign being written";
        c.y_mark       = 1000;
        c.y_mark_label = "1 s";
        c.x_mark[0]       = r[0].window_s;
        c.x_mark_label[0] = "window ends";
        if (o->brokers) {
                c.x_mark[1]       = o->sc.grow_at_s;
                c.x_mark_label[1] = "partitions added";
                c.x_mark[2]       = o->sc.kill_at_s;
                c.x_mark_label[2] = "a worker crashes";
        }
        demo_svg_write(f, &c, s, m);

        for (i = 0; i < m; i++) {
                s[i + m].x     = x[i + m];
                s[i + m].y     = y[i + m];
                s[i + m].dots  = 0;
                s[i + m].color = run_color[r[i].mode_id];
                s[i + m].label = r[i].mode;
        }
        c.title        = "Bulk backlog (newsletters delivered, not consumed)";
        c.y_label      = "records";
        c.log_y        = 0;
        c.y_min        = 0;
        c.y_max        = lag_max * 1.1;
        c.y_mark       = 0;
        fputs("<p></p>\n", f);
        demo_svg_write(f, &c, s + m, m);
        for (i = 0; i < 2 * DEMO_MODES; i++) {
                free(x[i]);
                free(y[i]);
        }
}

static void html_paragraph(FILE *f, const char *text) {
        if (!text[0])
                return;
        fputs("<p>", f);
        demo_html_escape(f, text);
        fputs("</p>\n", f);
}

int demo_report_html(const char *path, const demo_options_t *o,
                     const demo_result_t *r, int n) {
        const demo_scenario_t *sc = &o->sc;
        FILE *f                   = fopen(path, "w");
        char when[64], text[1200];
        time_t now = time(NULL);

        if (!f)
                return -1;
        strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime(&now));
        fprintf(f,
                "<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
                "charset=\"utf-8\">\n<title>bp-demo: bucket priority "
                "report</title>\n<style>%s</style></head><body>\n",
                css);
        fputs("<h1>Login codes behind a newsletter campaign: one shared "
              "group vs. bucket priority, with dedicated workers or one "
              "strict worker</h1>\n",
              f);
        fprintf(f,
                "<p>One Kafka topic of %d partitions carries two kinds of "
                "notification: <b>critical</b> one-time login codes (%.0f "
                "a second, keys <code>critical-&lt;id&gt;</code>) and a "
                "<b>bulk</b> marketing campaign of %ld newsletters written "
                "at %.0f a second (keys <code>bulk-&lt;id&gt;</code>). "
                "Every run carries the same load and every record costs "
                "%lld&nbsp;&micro;s to process; the shared and buckets runs "
                "have %d consumer threads, the strict run %d.</p>\n",
                sc->partitions, sc->critical_rate, sc->bulk_total,
                sc->bulk_rate, (long long)sc->cost_us,
                demo_scenario_consumers(sc), sc->strict_consumers);
        fprintf(f,
                "<ul><li><b>shared</b>: plain librdkafka, one consumer "
                "group, the default partitioner; a login code waits behind "
                "every newsletter ahead of it in its partition.</li>\n"
                "<li><b>buckets</b>: every client loads the bucket-priority "
                "plugin by configuration (<code>bucket.priority.buckets="
                "critical, bulk</code>, <code>allocation=");
        demo_html_escape(f, sc->allocation);
        fprintf(f,
                "</code>, layout <code>");
        demo_html_escape(f, o->layout);
        fprintf(f,
                "</code>); %d consumer%s in group <i>.critical</i>, %d in "
                "<i>.bulk</i>.</li>\n"
                "<li><b>strict</b>: the same plugin settings, but %d "
                "consumer%s serving both buckets, highest priority first "
                "(<code>bucket.priority.bucket=critical, bulk</code>, "
                "<code>bucket.priority.schedule=strict</code>, group "
                "<i>.critical+bulk</i>): the small service that cannot "
                "afford a deployment per priority. The plugin's scheduler "
                "keeps what was fetched of bulk in a queue of its own and "
                "moves each critical record ahead of it (nothing is paused "
                "or fetched twice), so bulk gets the capacity critical "
                "leaves: one worker's, not %d.</li></ul>\n",
                sc->critical_consumers, sc->critical_consumers == 1 ? "" : "s",
                sc->bulk_consumers, sc->strict_consumers,
                sc->strict_consumers == 1 ? "" : "s",
                demo_scenario_consumers(sc));
        if (o->brokers) {
                fputs("<p>Cluster: real brokers (<code>", f);
                demo_html_escape(f, o->brokers);
                fprintf(f,
                        "</code>). In each run the topic grows from %d to "
                        "%d partitions at %.0f&nbsp;s (CreatePartitions) "
                        "and a worker (a bulk one in the buckets run) "
                        "crashes at %.0f&nbsp;s: destroyed without closing, "
                        "so its group waits for the session timeout. The "
                        "strict run's only worker is restarted at once, as "
                        "a supervisor would; its group waits for the dead "
                        "member's session too.",
                        sc->partitions, sc->grow_to, sc->grow_at_s,
                        sc->kill_at_s);
        } else {
                fputs("<p>Cluster: librdkafka's embedded mock cluster.", f);
        }
        fprintf(f, " Generated %s by bp-demo%s.</p>\n", when,
                o->quick ? " --quick" : "");
        fputs("<h2>Results</h2>\n", f);
        html_table(f, r, n);
        demo_compare_buckets(text, sizeof(text), sc, r, n);
        html_paragraph(f, text);
        demo_compare_strict(text, sizeof(text), sc, r, n);
        html_paragraph(f, text);
        fputs("<p>Latency is measured from the produce call to the moment a "
              "consumer has handled the record. After the measured window "
              "every run drains what is left with no processing cost; "
              "<i>lost</i> counts records the cluster acknowledged that no "
              "consumer ever received, by id.</p>\n<h2>Charts</h2>\n",
              f);
        charts(f, o, r, n);
        fputs("</body></html>\n", f);
        return fclose(f) ? -1 : 0;
}
