/*
 * demo_report.c - the summary table, the JSON figures and the HTML report
 * with its inline SVG charts.
 */
#include "demo_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "demo_svg.h"
#include "demo_view.h"

static const char *const run_color[] = {"#d62728", "#2ca02c"};

/* --- terminal summary ---------------------------------------------------- */

static void row_ms(FILE *f, const char *label, const demo_result_t *r, int n,
                   size_t off) {
        char buf[32];
        int i;
        fprintf(f, "  %-34s", label);
        for (i = 0; i < n; i++)
                fprintf(f, " %14s",
                        demo_fmt_ms(*(const double *)((const char *)&r[i] +
                                                      off),
                                    buf, sizeof(buf)));
        fputc('\n', f);
}

static void row_count(FILE *f, const char *label, const demo_result_t *r,
                      int n, size_t off) {
        char buf[32];
        int i;
        fprintf(f, "  %-34s", label);
        for (i = 0; i < n; i++)
                fprintf(f, " %14s",
                        demo_fmt_count(*(const long *)((const char *)&r[i] +
                                                       off),
                                       buf, sizeof(buf)));
        fputc('\n', f);
}

void demo_report_summary(FILE *f, const demo_options_t *o,
                         const demo_result_t *r, int n, int color) {
        const demo_scenario_t *sc = &o->sc;
        char total[32];
        int i;

        demo_fmt_count(sc->bulk_total, total, sizeof(total));
        fprintf(f, "\n%sSummary%s: login codes (%.0f/s) during a campaign of "
                   "%s newsletters; same load,\n%d workers and %lld us of "
                   "work per record in both runs.\n\n",
                color ? "\033[1m" : "", color ? "\033[0m" : "",
                sc->critical_rate, total, demo_scenario_consumers(sc),
                (long long)sc->cost_us);
        fprintf(f, "  %-34s", "");
        for (i = 0; i < n; i++)
                fprintf(f, " %14s", r[i].mode);
        fputc('\n', f);
        row_ms(f, "critical p50 (produce to consume)", r, n,
               offsetof(demo_result_t, critical_p50_ms));
        row_ms(f, "critical p99", r, n,
               offsetof(demo_result_t, critical_p99_ms));
        row_ms(f, "critical max", r, n,
               offsetof(demo_result_t, critical_max_ms));
        row_count(f, "critical later than 1 s", r, n,
                  offsetof(demo_result_t, critical_late));
        row_count(f, "bulk consumed in the window", r, n,
                  offsetof(demo_result_t, bulk_consumed));
        row_count(f, "bulk drained afterwards", r, n,
                  offsetof(demo_result_t, bulk_drained));
        row_count(f, "lost (delivered, never consumed)", r, n,
                  offsetof(demo_result_t, lost));
        row_count(f, "consumed twice (after a crash)", r, n,
                  offsetof(demo_result_t, duplicates));
        for (i = 0; i < n; i++) {
                if (r[i].failed)
                        fprintf(f, "  note: %s run: %ld records failed "
                                   "delivery (never stored, not counted "
                                   "as lost)\n",
                                r[i].mode, r[i].failed);
                if (r[i].critical_after_window)
                        fprintf(f, "  note: %s run: %ld login codes were "
                                   "only consumed while draining\n",
                                r[i].mode, r[i].critical_after_window);
                if (r[i].critical_by_bulk)
                        fprintf(f, "  note: %s run: %ld login codes were "
                                   "read by bulk workers (their partition "
                                   "moved to bulk)\n",
                                r[i].mode, r[i].critical_by_bulk);
                if (r[i].foreign)
                        fprintf(f, "  note: %s run: the plugin saw %ld "
                                   "records outside a worker's bucket\n",
                                r[i].mode, r[i].foreign);
                if (!r[i].drained)
                        fprintf(f, "  note: %s run: the drain did not "
                                   "finish\n",
                                r[i].mode);
        }
        if (n == 2 && r[1].critical_p99_ms > 0) {
                char a[24], b[24];
                fprintf(f,
                        "\nWith buckets, critical p99 is %.0fx lower (%s -> "
                        "%s).\n",
                        r[0].critical_p99_ms / r[1].critical_p99_ms,
                        demo_fmt_ms(r[0].critical_p99_ms, a, sizeof(a)),
                        demo_fmt_ms(r[1].critical_p99_ms, b, sizeof(b)));
                fprintf(f, "The price: %d of the %d workers serve%s only "
                           "critical, so ",
                        sc->critical_consumers, demo_scenario_consumers(sc),
                        sc->critical_consumers == 1 ? "s" : "");
                if (r[1].bulk_done_s >= 0 && r[0].bulk_done_s >= 0)
                        fprintf(f, "the last newsletter\nwas read at %.1f s "
                                   "instead of %.1f s",
                                r[1].bulk_done_s, r[0].bulk_done_s);
                else
                        fprintf(f, "%s newsletters\nwere still queued when "
                                   "the window closed",
                                demo_fmt_count(r[1].bulk_drained, a,
                                               sizeof(a)));
                fprintf(f, " (bulk may take hours: seeds/000).\n");
        }
}

/* --- JSON ---------------------------------------------------------------- */

int demo_report_json(const char *path, const demo_result_t *r, int n) {
        FILE *f = fopen(path, "w");
        int i;

        if (!f)
                return -1;
        fputs("{\"runs\":[", f);
        for (i = 0; i < n; i++)
                fprintf(f,
                        "%s{\"mode\":\"%s\",\"critical_p50_ms\":%.1f,"
                        "\"critical_p99_ms\":%.1f,\"bulk_consumed\":%ld,"
                        "\"lost\":%ld}",
                        i ? "," : "", r[i].mode, r[i].critical_p50_ms,
                        r[i].critical_p99_ms, r[i].bulk_consumed, r[i].lost);
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

static void html_table(FILE *f, const demo_result_t *r, int n) {
        static const struct {
                const char *label;
                size_t off;
                int ms;
        } rows[] = {
#define ROW(label, field, ms) {label, offsetof(demo_result_t, field), ms}
            ROW("critical p50 (ms)", critical_p50_ms, 1),
            ROW("critical p99 (ms)", critical_p99_ms, 1),
            ROW("critical max (ms)", critical_max_ms, 1),
            ROW("critical later than 1 s", critical_late, 0),
            ROW("critical delivered", critical_produced, 0),
            ROW("bulk delivered", bulk_produced, 0),
            ROW("bulk consumed in the window", bulk_consumed, 0),
            ROW("bulk drained afterwards", bulk_drained, 0),
            ROW("lost (delivered, never consumed)", lost, 0),
            ROW("consumed twice", duplicates, 0),
#undef ROW
        };
        size_t k;
        int i;

        fputs("<table><tr><th></th>", f);
        for (i = 0; i < n; i++)
                fprintf(f, "<th>%s</th>", r[i].mode);
        fputs("</tr>\n", f);
        for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
                fprintf(f, "<tr><td>%s</td>", rows[k].label);
                for (i = 0; i < n; i++) {
                        const char *p = (const char *)&r[i] + rows[k].off;
                        if (rows[k].ms)
                                fprintf(f, "<td>%.1f</td>", *(const double *)p);
                        else
                                fprintf(f, "<td>%ld</td>", *(const long *)p);
                }
                fputs("</tr>\n", f);
        }
        fputs("</table>\n", f);
}

/* Copies the critical samples of run \p r into x/y arrays. */
static size_t critical_xy(const demo_result_t *r, float **x, float **y) {
        size_t i, n = r->stats.crit_cnt;
        *x = malloc((n ? n : 1) * sizeof(float));
        *y = malloc((n ? n : 1) * sizeof(float));
        if (!*x || !*y)
                return 0;
        for (i = 0; i < n; i++) {
                (*x)[i] = r->stats.crit[i].t_s;
                (*y)[i] = r->stats.crit[i].lat_ms;
        }
        return n;
}

static size_t lag_xy(const demo_result_t *r, float **x, float **y) {
        size_t i, n = r->stats.series_cnt;
        *x = malloc((n ? n : 1) * sizeof(float));
        *y = malloc((n ? n : 1) * sizeof(float));
        if (!*x || !*y)
                return 0;
        for (i = 0; i < n; i++) {
                (*x)[i] = r->stats.series[i].t_s;
                (*y)[i] = r->stats.series[i].lag[1];
        }
        return n;
}

static void charts(FILE *f, const demo_options_t *o, const demo_result_t *r,
                   int n) {
        demo_svg_series_t s[4];
        demo_svg_chart_t c;
        float *x[4] = {0}, *y[4] = {0};
        double x_max = 0, y_max = 1000, lag_max = 1;
        char label[4][64];
        size_t j;
        int i;

        for (i = 0; i < n && i < 2; i++) {
                s[i].n     = critical_xy(&r[i], &x[i], &y[i]);
                s[i].x     = x[i];
                s[i].y     = y[i];
                s[i].dots  = 1;
                s[i].color = run_color[i];
                snprintf(label[i], sizeof(label[i]), "%s (p99 %.0f ms)",
                         r[i].mode, r[i].critical_p99_ms);
                s[i].label = label[i];
                for (j = 0; j < s[i].n; j++) {
                        if (x[i][j] > x_max)
                                x_max = x[i][j];
                        if (y[i][j] > y_max)
                                y_max = y[i][j];
                }
                s[i + 2].n = lag_xy(&r[i], &x[i + 2], &y[i + 2]);
                for (j = 0; j < s[i + 2].n; j++) {
                        if (x[i + 2][j] > x_max)
                                x_max = x[i + 2][j];
                        if (y[i + 2][j] > lag_max)
                                lag_max = y[i + 2][j];
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
        demo_svg_write(f, &c, s, n < 2 ? n : 2);

        for (i = 0; i < n && i < 2; i++) {
                s[i + 2].x     = x[i + 2];
                s[i + 2].y     = y[i + 2];
                s[i + 2].dots  = 0;
                s[i + 2].color = run_color[i];
                s[i + 2].label = r[i].mode;
        }
        c.title        = "Bulk backlog (newsletters delivered, not consumed)";
        c.y_label      = "records";
        c.log_y        = 0;
        c.y_min        = 0;
        c.y_max        = lag_max * 1.1;
        c.y_mark       = 0;
        fputs("<p></p>\n", f);
        demo_svg_write(f, &c, s + 2, n < 2 ? n : 2);
        for (i = 0; i < 4; i++) {
                free(x[i]);
                free(y[i]);
        }
}

int demo_report_html(const char *path, const demo_options_t *o,
                     const demo_result_t *r, int n) {
        const demo_scenario_t *sc = &o->sc;
        FILE *f                   = fopen(path, "w");
        char when[64];
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
              "group vs. bucket priority</h1>\n",
              f);
        fprintf(f,
                "<p>One Kafka topic of %d partitions carries two kinds of "
                "notification: <b>critical</b> one-time login codes (%.0f "
                "a second, keys <code>critical-&lt;id&gt;</code>) and a "
                "<b>bulk</b> marketing campaign of %ld newsletters written "
                "at %.0f a second (keys <code>bulk-&lt;id&gt;</code>). "
                "Each run has %d consumer threads and every record costs "
                "%lld&nbsp;&micro;s to process.</p>\n",
                sc->partitions, sc->critical_rate, sc->bulk_total,
                sc->bulk_rate, demo_scenario_consumers(sc),
                (long long)sc->cost_us);
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
                "<i>.bulk</i>.</li></ul>\n",
                sc->critical_consumers, sc->critical_consumers == 1 ? "" : "s",
                sc->bulk_consumers);
        if (o->brokers) {
                fputs("<p>Cluster: real brokers (<code>", f);
                demo_html_escape(f, o->brokers);
                fprintf(f,
                        "</code>). In each run the topic grows from %d to "
                        "%d partitions at %.0f&nbsp;s (CreatePartitions) "
                        "and a worker (a bulk one in the buckets run) "
                        "crashes at %.0f&nbsp;s: destroyed without closing, "
                        "so its group waits for the session timeout.",
                        sc->partitions, sc->grow_to, sc->grow_at_s,
                        sc->kill_at_s);
        } else {
                fputs("<p>Cluster: librdkafka's embedded mock cluster.", f);
        }
        fprintf(f, " Generated %s by bp-demo%s.</p>\n", when,
                o->quick ? " --quick" : "");
        fputs("<h2>Results</h2>\n", f);
        html_table(f, r, n);
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
