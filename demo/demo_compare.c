/*
 * demo_compare.c - the conclusions of the summary and the HTML report, in
 * words, from the runs' figures.
 */
#include "demo_compare.h"

#include <stdarg.h>
#include <string.h>

#include "demo_view.h"

/* The result of run \p m among the \p n in \p r, or NULL. */
static const demo_result_t *find_run(const demo_result_t *r, int n,
                                     demo_mode_t m) {
        int i;
        for (i = 0; i < n; i++)
                if (r[i].mode_id == m)
                        return &r[i];
        return NULL;
}

/* Length of the word at \p p: up to a blank, but "19 379" and "12 ms"
 * stay whole (a blank between digits, or before a unit). */
static int word_len(const char *p) {
        int n = 0;

        for (;;) {
                n += (int)strcspn(p + n, " \n");
                if (p[n] != ' ' || n == 0 || p[n - 1] < '0' || p[n - 1] > '9')
                        return n;
                if ((p[n + 1] >= '0' && p[n + 1] <= '9') ||
                    ((!strncmp(p + n + 1, "ms", 2) ||
                      !strncmp(p + n + 1, "us", 2)) &&
                     strchr(" .,;:)", p[n + 3])) ||
                    (p[n + 1] == 's' && strchr(" .,;:)", p[n + 2])))
                        n++;
                else
                        return n;
        }
}

void demo_print_wrapped(FILE *f, const char *text, int width) {
        const char *p = text;
        int col       = 0;

        while (*p) {
                int len = word_len(p);
                if (col > 0 && col + 1 + len > width) {
                        fputc('\n', f);
                        col = 0;
                } else if (col > 0) {
                        fputc(' ', f);
                        col++;
                }
                fwrite(p, 1, (size_t)len, f);
                col += len;
                p += len;
                while (*p == ' ' || *p == '\n')
                        p++;
        }
        if (col > 0)
                fputc('\n', f);
}

/* Appends printf output to \p buf (of \p size) at its end. */
static void append(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t size, const char *fmt, ...) {
        size_t len = strlen(buf);
        va_list ap;

        if (len + 1 >= size)
                return;
        va_start(ap, fmt);
        vsnprintf(buf + len, size - len, fmt, ap);
        va_end(ap);
}

void demo_compare_buckets(char *text, size_t size,
                          const demo_scenario_t *sc, const demo_result_t *r,
                          int n) {
        const demo_result_t *sh = find_run(r, n, DEMO_MODE_SHARED);
        const demo_result_t *bu = find_run(r, n, DEMO_MODE_BUCKETS);
        char a[24], b[24];

        text[0] = '\0';
        if (!sh || !bu || bu->critical_p99_ms <= 0)
                return;
        append(text, size,
               "With buckets, critical p99 is %.0fx lower (%s -> %s). The "
               "price: %d of the %d workers serve%s only critical, so ",
               sh->critical_p99_ms / bu->critical_p99_ms,
               demo_fmt_ms(sh->critical_p99_ms, a, sizeof(a)),
               demo_fmt_ms(bu->critical_p99_ms, b, sizeof(b)),
               sc->critical_consumers, demo_scenario_consumers(sc),
               sc->critical_consumers == 1 ? "s" : "");
        if (bu->bulk_done_s >= 0 && sh->bulk_done_s >= 0)
                append(text, size,
                       "the last newsletter was read at %.1f s instead of "
                       "%.1f s",
                       bu->bulk_done_s, sh->bulk_done_s);
        else
                append(text, size,
                       "%s newsletters were still queued when the window "
                       "closed",
                       demo_fmt_count(bu->bulk_drained, a, sizeof(a)));
        append(text, size, " (bulk may take hours: seeds/000).");
}

void demo_compare_strict(char *text, size_t size,
                         const demo_scenario_t *sc, const demo_result_t *r,
                         int n) {
        const demo_result_t *sh = find_run(r, n, DEMO_MODE_SHARED);
        const demo_result_t *st = find_run(r, n, DEMO_MODE_STRICT);
        double capacity, span = sc->window_s - sc->campaign_start_s;
        char a[24], b[24], c[24];

        text[0] = '\0';
        if (!sh || !st || st->critical_p99_ms <= 0 || st->workers < 1)
                return;
        capacity = 1e6 / (double)sc->cost_us * st->workers;
        demo_fmt_ms(sh->critical_p99_ms, a, sizeof(a));
        demo_fmt_ms(st->critical_p99_ms, b, sizeof(b));
        append(text, size, "With %d strict worker instead of %d, critical "
                           "p99 is ",
               st->workers, sh->workers);
        if (sh->critical_p99_ms >= 1.5 * st->critical_p99_ms)
                append(text, size, "%.0fx lower than shared (%s -> %s).",
                       sh->critical_p99_ms / st->critical_p99_ms, a, b);
        else if (st->critical_p99_ms > sh->critical_p99_ms)
                append(text, size, "higher than shared (%s, shared %s).", b,
                       a);
        else
                append(text, size, "about shared's (%s, shared %s).", b, a);
        if (st->crashed)
                append(text, size,
                       " When its only worker crashed, nothing read the "
                       "topic until the group gave the partitions to its "
                       "replacement.");
        if (st->sched_valid && st->sched[DEMO_BULK].pauses)
                append(text, size,
                       " The scheduler paused bulk %ld times, %.1f s in "
                       "total, while a login code waited.",
                       st->sched[DEMO_BULK].pauses,
                       (double)st->sched[DEMO_BULK].paused_ms / 1000.0);
        else if (st->sched_valid)
                append(text, size,
                       " The scheduler paused nothing: each login code was "
                       "read ahead of the newsletters already fetched.");
        append(text, size, " The price: one worker's capacity (%s records/s)",
               demo_fmt_count((long)capacity, a, sizeof(a)));
        if (st->bulk_done_s >= 0) {
                append(text, size,
                       "; the last newsletter was read at %.1f s (shared: "
                       "%.1f s).",
                       st->bulk_done_s, sh->bulk_done_s);
        } else if (span > 0) {
                append(text, size,
                       ", of which bulk got %s/s: %s newsletters in the "
                       "window, %s left for the drain.%s",
                       demo_fmt_count((long)((double)st->bulk_consumed / span),
                                      a, sizeof(a)),
                       demo_fmt_count(st->bulk_consumed, b, sizeof(b)),
                       demo_fmt_count(st->bulk_drained, c, sizeof(c)),
                       st->sched_valid && st->sched[DEMO_BULK].pauses
                           ? " The worker idles while bulk is paused, and "
                             "after each resume until the bulk records the "
                             "pause dropped are fetched again."
                           : "");
        } else {
                append(text, size, ".");
        }
        if (st->bulk_part_lo >= 0 &&
            st->bulk_part_hi_n > 4 * st->bulk_part_lo_n)
                append(text, size,
                       " Not evenly: in the window, bulk partition %d "
                       "delivered %s newsletters, partition %d only %s.",
                       st->bulk_part_hi,
                       demo_fmt_count(st->bulk_part_hi_n, a, sizeof(a)),
                       st->bulk_part_lo,
                       st->bulk_part_lo_n
                           ? demo_fmt_count(st->bulk_part_lo_n, b, sizeof(b))
                           : "none");
}
