/*
 * demo_view.h - the live terminal view: one panel per run, redrawn in
 * place (ANSI cursor movement, no scrolling) with per bucket partitions,
 * consumers, produced, consumed, lag, p50/p99 end-to-end latency and bars
 * (and, in the strict run, what the plugin's scheduler reports per bucket),
 * above the story so far. When stdout is not a terminal (or --plain) it
 * prints one status line every two seconds and the story as it happens.
 */
#ifndef DEMO_VIEW_H
#define DEMO_VIEW_H

#include <stdio.h>

#include "demo_stats.h"

typedef struct demo_view_row {
        const char *name;
        char partitions[48];
        int consumers;
        long produced, consumed, lag;
        double p50_ms, p99_ms; /**< Last two seconds, -1: none. */
        double oldest_ms;      /**< Oldest record waiting, 0: none. */
} demo_view_row_t;

typedef struct demo_view_frame {
        int run_no, run_cnt;
        const char *mode;   /**< "shared", "buckets" or "strict". */
        char setup[640];    /**< One line: topic, groups, plugin. */
        const char *phase;  /**< "measuring", "draining", "done". */
        double t_s, window_s;
        long bulk_total;
        demo_view_row_t row[DEMO_CLASSES];
        char plugin[160];   /**< Plugin statistics line. */
        int sched_valid;    /**< Strict run: sched[] holds the plugin
                             *   scheduler's figures. */
        demo_sched_t sched[DEMO_CLASSES];
} demo_view_frame_t;

typedef struct demo_view {
        FILE *out;
        int live;              /**< In-place redraw. */
        int color, utf8;
        int width;
        int drawn_lines;       /**< Lines of the panel on screen. */
        unsigned long story_printed; /**< Plain mode: story lines out. */
        double last_plain_s;
} demo_view_t;

/** Sets the view up on stdout; \p plain forces the plain mode. */
void demo_view_init(demo_view_t *v, int plain);

/** Starts a new panel (the next run). */
void demo_view_begin(demo_view_t *v);

/** Draws \p f (live: in place; plain: story lines and, every 2 s or when
 *  \p force, a status line). */
void demo_view_draw(demo_view_t *v, const demo_view_frame_t *f, int force);

/** Ends the current panel, leaving it on screen. */
void demo_view_end(demo_view_t *v);

/** Restores the cursor (safe to call from a signal handler). */
void demo_view_restore_cursor(void);

/** "12 345" style thousands, into \p buf. */
const char *demo_fmt_count(long n, char *buf, size_t size);

/** "850 ms", "12.4 s" or "-" into \p buf. */
const char *demo_fmt_ms(double ms, char *buf, size_t size);

#endif /* DEMO_VIEW_H */
