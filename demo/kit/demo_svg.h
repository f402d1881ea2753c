/*
 * demo_svg.h - a small inline SVG chart writer for the HTML report: time
 * on x, a linear or logarithmic y axis, line or dot series, a shaded band
 * (the campaign) and a legend. No script, no external asset.
 */
#ifndef DEMO_SVG_H
#define DEMO_SVG_H

#include <stddef.h>
#include <stdio.h>

typedef struct demo_svg_series {
        const char *label;
        const char *color; /**< CSS colour. */
        const float *x, *y;
        size_t n;
        int dots;          /**< 1: one dot per point; 0: a line. */
} demo_svg_series_t;

typedef struct demo_svg_chart {
        const char *title;
        const char *x_label, *y_label;
        int log_y;
        double x_max, y_min, y_max;
        double band_from, band_to; /**< Shaded x range (none if equal). */
        const char *band_label;
        double y_mark;             /**< Dashed line at this y (0: none). */
        const char *y_mark_label;
        double x_mark[3];          /**< Dashed lines at these x (0: none). */
        const char *x_mark_label[3];
} demo_svg_chart_t;

/** Writes an <svg> element for \p c with \p ns series to \p f. */
void demo_svg_write(FILE *f, const demo_svg_chart_t *c,
                    const demo_svg_series_t *s, int ns);

/** Writes \p text to \p f with &, <, >, " escaped. */
void demo_html_escape(FILE *f, const char *text);

#endif /* DEMO_SVG_H */
