/*
 * demo_view.c - renders run frames: the in-place ANSI panel, or plain
 * periodic lines when stdout is not a terminal.
 */
#include "demo_view.h"

#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "demo_log.h"

#define STORY_LINES 8
#define BAR 20

/* ANSI styles. */
#define RESET "\033[0m"
#define BOLD "\033[1m"
#define DIM "\033[2m"
#define RED "\033[31m"
#define GREEN "\033[32m"
#define YELLOW "\033[33m"
#define CYAN "\033[36m"

/* One line being built: text with escapes, its visible width aside. */
typedef struct line {
        char buf[1024];
        size_t len;
} line_t;

static void ln_raw(line_t *l, const char *s) {
        size_t n = strlen(s);
        if (l->len + n >= sizeof(l->buf))
                n = sizeof(l->buf) - 1 - l->len;
        memcpy(l->buf + l->len, s, n);
        l->len += n;
        l->buf[l->len] = '\0';
}

static void ln_add(line_t *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void ln_add(line_t *l, const char *fmt, ...) {
        char tmp[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(tmp, sizeof(tmp), fmt, ap);
        va_end(ap);
        ln_raw(l, tmp);
}

static void ln_style(const demo_view_t *v, line_t *l, const char *style) {
        if (v->color)
                ln_raw(l, style);
}

/* A bar of BAR cells, \p f (0..1) of them filled, in \p style. */
static void ln_bar(const demo_view_t *v, line_t *l, double f,
                   const char *style) {
        int full, i;

        if (!(f >= 0))
                f = 0;
        if (f > 1)
                f = 1;
        full = (int)lround(f * BAR);
        if (f > 0 && full == 0)
                full = 1;
        ln_raw(l, v->utf8 ? "\xe2\x96\x95" : "|"); /* ▕ */
        ln_style(v, l, style);
        for (i = 0; i < full; i++)
                ln_raw(l, v->utf8 ? "\xe2\x96\x88" : "#"); /* █ */
        ln_style(v, l, RESET);
        ln_style(v, l, DIM);
        for (; i < BAR; i++)
                ln_raw(l, v->utf8 ? "\xe2\x96\x91" : "."); /* ░ */
        ln_style(v, l, RESET);
        ln_raw(l, v->utf8 ? "\xe2\x96\x8f" : "|"); /* ▏ */
}

/* Writes \p l cut to the terminal width (escapes and UTF-8 aware). */
static void emit(demo_view_t *v, const line_t *l) {
        int cols = 0, max = v->width - 1;
        const char *p = l->buf;
        char out[1100];
        size_t n = 0;

        while (*p && n < sizeof(out) - 8) {
                if (*p == '\033') { /* copy the whole escape sequence */
                        out[n++] = *p++;
                        while (*p && n < sizeof(out) - 8) {
                                char ch  = *p++;
                                out[n++] = ch;
                                if ((ch >= 'A' && ch <= 'Z') ||
                                    (ch >= 'a' && ch <= 'z'))
                                        break;
                        }
                        continue;
                }
                if (((unsigned char)*p & 0xc0) != 0x80 && cols++ >= max)
                        break;
                out[n++] = *p++;
        }
        out[n] = '\0';
        if (v->live)
                fprintf(v->out, "\033[2K%s%s\n", out, v->color ? RESET : "");
        else
                fprintf(v->out, "%s\n", out);
}

const char *demo_fmt_count(long n, char *buf, size_t size) {
        char digits[32];
        int len, i, o = 0;

        len = snprintf(digits, sizeof(digits), "%ld", n < 0 ? 0 : n);
        for (i = 0; i < len && (size_t)o < size - 2; i++) {
                if (i > 0 && (len - i) % 3 == 0)
                        buf[o++] = ' ';
                buf[o++] = digits[i];
        }
        buf[o] = '\0';
        return buf;
}

const char *demo_fmt_ms(double ms, char *buf, size_t size) {
        if (ms < 0)
                snprintf(buf, size, "-");
        else if (ms < 10)
                snprintf(buf, size, "%.1f ms", ms);
        else if (ms < 1000)
                snprintf(buf, size, "%.0f ms", ms);
        else
                snprintf(buf, size, "%.1f s", ms / 1000.0);
        return buf;
}

static int term_width(void) {
        struct winsize ws;
        if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
                return ws.ws_col < 60 ? 60 : ws.ws_col > 200 ? 200 : ws.ws_col;
        return 100;
}

/* Story lines that fit: the panel must never be taller than the screen,
 * or moving the cursor up would not reach its first line. \p extra: lines
 * the panel has beyond the usual. */
static int story_lines(int extra) {
        struct winsize ws;
        int n = STORY_LINES;
        if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0)
                n = ws.ws_row - 15 - extra;
        return n < 0 ? 0 : n > STORY_LINES ? STORY_LINES : n;
}

void demo_view_restore_cursor(void) {
        static const char show[] = "\033[?25h";
        if (isatty(STDOUT_FILENO))
                (void)!write(STDOUT_FILENO, show, sizeof(show) - 1);
}

void demo_view_init(demo_view_t *v, int plain) {
        const char *term = getenv("TERM");
        const char *cs;

        memset(v, 0, sizeof(*v));
        v->out  = stdout;
        v->live = !plain && isatty(STDOUT_FILENO) && term &&
                  strcmp(term, "dumb");
        v->color = v->live && !getenv("NO_COLOR");
        setlocale(LC_CTYPE, "");
        cs      = nl_langinfo(CODESET);
        v->utf8 = v->live && cs && !strcmp(cs, "UTF-8");
        v->width = v->live ? term_width() : 200;
}

void demo_view_begin(demo_view_t *v) {
        v->drawn_lines   = 0;
        v->story_printed = 0;
        v->last_plain_s  = -10;
        if (v->live)
                fputs("\033[?25l", v->out);
}

/* Latency colour: the login code target is "well under a second". */
static const char *latency_style(double ms) {
        return ms < 0 ? DIM : ms < 500 ? GREEN : ms < 5000 ? YELLOW : RED;
}

static double latency_fraction(double ms) {
        /* log scale, 1 ms .. 60 s */
        return ms <= 1 ? (ms > 0 ? 0.02 : 0) : log10(ms) / log10(60000.0);
}

static void row_lines(demo_view_t *v, const demo_view_frame_t *f, int c,
                      line_t *a, line_t *b) {
        const demo_view_row_t *r = &f->row[c];
        char prod[24], cons[24], lag[24], p50[24], p99[24], old[24];
        double lag_f;

        ln_style(v, a, BOLD);
        ln_add(a, "%-9s", r->name);
        ln_style(v, a, RESET);
        ln_add(a, " %-11s %9d %9s %9s ", r->partitions, r->consumers,
               demo_fmt_count(r->produced, prod, sizeof(prod)),
               demo_fmt_count(r->consumed, cons, sizeof(cons)));
        ln_style(v, a, r->lag > 1000 ? YELLOW : "");
        ln_add(a, "%9s", demo_fmt_count(r->lag, lag, sizeof(lag)));
        ln_style(v, a, RESET);
        ln_raw(a, " ");
        ln_style(v, a, latency_style(r->p50_ms));
        ln_add(a, "%8s", demo_fmt_ms(r->p50_ms, p50, sizeof(p50)));
        ln_style(v, a, RESET);
        ln_raw(a, " ");
        ln_style(v, a, latency_style(r->p99_ms));
        ln_add(a, "%8s", demo_fmt_ms(r->p99_ms, p99, sizeof(p99)));
        ln_style(v, a, RESET);

        lag_f = f->bulk_total > 0 ? log10(1.0 + (double)r->lag) /
                                        log10(1.0 + (double)f->bulk_total)
                                  : 0;
        ln_add(b, "%9s lag ", "");
        ln_bar(v, b, lag_f, r->lag > 1000 ? YELLOW : GREEN);
        ln_add(b, " oldest %-8s p99 ",
               r->oldest_ms > 0 ? demo_fmt_ms(r->oldest_ms, old, sizeof(old))
                                : "-");
        ln_bar(v, b, latency_fraction(r->p99_ms), latency_style(r->p99_ms));
}

/* Strict run: one line per bucket of what the scheduler reports. */
static void sched_line(demo_view_t *v, const demo_view_frame_t *f, int c,
                       line_t *l) {
        const demo_sched_t *s = &f->sched[c];
        char dl[24], lag[24];

        ln_style(v, l, DIM);
        ln_add(l, "%-10s", c == 0 ? "scheduler" : "");
        ln_style(v, l, RESET);
        ln_add(l, "%-9s delivered %9s  lag %9s  ", demo_class_name[c],
               demo_fmt_count(s->delivered, dl, sizeof(dl)),
               demo_fmt_count(s->lag, lag, sizeof(lag)));
        ln_style(v, l, s->paused ? YELLOW : GREEN);
        ln_add(l, "%-7s", s->paused ? "PAUSED" : "running");
        ln_style(v, l, RESET);
        ln_add(l, "  paused %ldx, %.1f s", s->pauses,
               (double)s->paused_ms / 1000.0);
}

static const char *title(const char *mode) {
        if (!strcmp(mode, "shared"))
                return "SHARED (one group, no buckets)";
        if (!strcmp(mode, "strict"))
                return "STRICT (one worker serves both buckets, critical "
                       "first)";
        return "BUCKETS (bucket-priority plugin, a group per bucket)";
}

static void draw_live(demo_view_t *v, const demo_view_frame_t *f) {
        line_t l[32];
        unsigned long cnt = demo_log_count(), seq;
        int n = 0, i;
        double prog = f->window_s > 0 ? f->t_s / f->window_s : 0;
        int story   = story_lines(f->sched_valid ? DEMO_CLASSES : 0);

        v->width = term_width();
        memset(l, 0, sizeof(l));
        ln_style(v, &l[n], BOLD);
        ln_add(&l[n], "== run %d of %d: %s ", f->run_no, f->run_cnt,
               title(f->mode));
        ln_style(v, &l[n], RESET);
        n++;
        ln_style(v, &l[n], DIM);
        ln_add(&l[n], "   %s", f->setup);
        ln_style(v, &l[n], RESET);
        n++;
        ln_add(&l[n], "   time %5.1f s of %.0f s ", f->t_s, f->window_s);
        ln_bar(v, &l[n], prog, CYAN);
        ln_add(&l[n], "  %s", f->phase);
        n++;
        n++;
        ln_style(v, &l[n], DIM);
        ln_add(&l[n], "%-9s %-11s %9s %9s %9s %9s %8s %8s", "bucket",
               "partitions", "consumers", "produced", "consumed", "lag",
               "p50", "p99");
        ln_style(v, &l[n], RESET);
        n++;
        for (i = 0; i < DEMO_CLASSES; i++) {
                row_lines(v, f, i, &l[n], &l[n + 1]);
                n += 2;
        }
        ln_style(v, &l[n], DIM);
        ln_add(&l[n], "%10s p50/p99: last 2 s, produce to consume; bars: "
                      "log scales", "");
        ln_style(v, &l[n], RESET);
        n++;
        for (i = 0; f->sched_valid && i < DEMO_CLASSES; i++)
                sched_line(v, f, i, &l[n++]);
        ln_add(&l[n], "   %s", f->plugin);
        n++;
        n++;
        ln_style(v, &l[n], BOLD);
        ln_raw(&l[n], "   story");
        ln_style(v, &l[n], RESET);
        n++;
        seq = cnt > (unsigned long)story ? cnt - (unsigned long)story : 0;
        for (i = 0; i < story; i++, seq++, n++) {
                char text[DEMO_LOG_WIDTH];
                demo_log_kind_t kind;
                if (seq >= cnt || !demo_log_get(seq, text, sizeof(text), &kind))
                        continue;
                ln_style(v, &l[n], kind == DEMO_LOG_STEP   ? CYAN
                                   : kind == DEMO_LOG_WARN ? YELLOW
                                                           : "");
                ln_add(&l[n], "  %s", text);
                ln_style(v, &l[n], RESET);
        }
        if (v->drawn_lines)
                fprintf(v->out, "\033[%dA", v->drawn_lines);
        for (i = 0; i < n; i++)
                emit(v, &l[i]);
        fputs("\033[J", v->out); /* a shorter panel leaves nothing below */
        v->drawn_lines = n;
        fflush(v->out);
}

static void draw_plain(demo_view_t *v, const demo_view_frame_t *f,
                       int force) {
        unsigned long cnt = demo_log_count();
        char text[DEMO_LOG_WIDTH];
        line_t l;
        int c;

        if (cnt > v->story_printed + DEMO_LOG_LINES)
                v->story_printed = cnt - DEMO_LOG_LINES;
        for (; v->story_printed < cnt; v->story_printed++)
                if (demo_log_get(v->story_printed, text, sizeof(text), NULL))
                        fprintf(v->out, "[%s] %s\n", f->mode, text);
        if (!force && f->t_s - v->last_plain_s < 2.0)
                return;
        v->last_plain_s = f->t_s;
        memset(&l, 0, sizeof(l));
        ln_add(&l, "[%s] %6.1fs %-9s", f->mode, f->t_s, f->phase);
        for (c = 0; c < DEMO_CLASSES; c++) {
                const demo_view_row_t *r = &f->row[c];
                char p50[24], p99[24], old[24];
                ln_add(&l,
                       " | %s p%s c%d: produced %ld consumed %ld lag %ld "
                       "p50 %s p99 %s oldest %s",
                       r->name, r->partitions, r->consumers, r->produced,
                       r->consumed, r->lag,
                       demo_fmt_ms(r->p50_ms, p50, sizeof(p50)),
                       demo_fmt_ms(r->p99_ms, p99, sizeof(p99)),
                       demo_fmt_ms(r->oldest_ms > 0 ? r->oldest_ms : -1, old,
                                   sizeof(old)));
        }
        for (c = 0; f->sched_valid && c < DEMO_CLASSES; c++)
                ln_add(&l, " | sched %s: delivered %ld lag %ld %s, %ld "
                           "pauses %.1f s",
                       demo_class_name[c], f->sched[c].delivered,
                       f->sched[c].lag,
                       f->sched[c].paused ? "paused" : "running",
                       f->sched[c].pauses,
                       (double)f->sched[c].paused_ms / 1000.0);
        fprintf(v->out, "%s\n", l.buf);
        fflush(v->out);
}

void demo_view_draw(demo_view_t *v, const demo_view_frame_t *f, int force) {
        if (v->live)
                draw_live(v, f);
        else
                draw_plain(v, f, force);
}

void demo_view_end(demo_view_t *v) {
        if (v->live) {
                fputs("\033[?25h", v->out);
                fflush(v->out);
        }
        v->drawn_lines = 0;
}
