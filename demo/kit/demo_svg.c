/*
 * demo_svg.c - axes, ticks, series and legend of the report's charts.
 */
#include "demo_svg.h"

#include <math.h>

#define W 820
#define H 320
#define L 70  /* plot area: left, right, top, bottom margins */
#define R 20
#define T 56
#define B 50

void demo_html_escape(FILE *f, const char *text) {
        for (; *text; text++) {
                switch (*text) {
                case '&': fputs("&amp;", f); break;
                case '<': fputs("&lt;", f); break;
                case '>': fputs("&gt;", f); break;
                case '"': fputs("&quot;", f); break;
                default: fputc(*text, f);
                }
        }
}

static double px(const demo_svg_chart_t *c, double x) {
        return L + (c->x_max > 0 ? x / c->x_max : 0) * (W - L - R);
}

static double py(const demo_svg_chart_t *c, double y) {
        double f;
        if (c->log_y) {
                if (y < c->y_min)
                        y = c->y_min;
                f = log10(y / c->y_min) / log10(c->y_max / c->y_min);
        } else {
                f = (y - c->y_min) / (c->y_max - c->y_min);
        }
        if (f < 0)
                f = 0;
        if (f > 1)
                f = 1;
        return H - B - f * (H - T - B);
}

static void y_tick_label(const demo_svg_chart_t *c, double y, char *buf,
                         size_t size) {
        if (c->log_y)
                snprintf(buf, size, y >= 1000 ? "%.0f s" : "%g ms",
                         y >= 1000 ? y / 1000 : y);
        else if (y >= 1000000)
                snprintf(buf, size, "%.1fM", y / 1e6);
        else if (y >= 1000)
                snprintf(buf, size, "%.0fk", y / 1e3);
        else
                snprintf(buf, size, "%.0f", y);
}

static void axes(FILE *f, const demo_svg_chart_t *c) {
        double y, x, step;
        char lab[32];
        int i;

        fprintf(f,
                "<text x=\"%d\" y=\"22\" class=\"title\">", L);
        demo_html_escape(f, c->title);
        fputs("</text>\n", f);
        if (c->band_to > c->band_from) {
                fprintf(f,
                        "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
                        "height=\"%d\" class=\"band\"/>\n",
                        px(c, c->band_from), T,
                        px(c, c->band_to) - px(c, c->band_from), H - T - B);
                fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"small\">",
                        px(c, c->band_from) + 4, T + 12);
                demo_html_escape(f, c->band_label ? c->band_label : "");
                fputs("</text>\n", f);
        }
        /* y grid: every power of ten on a log scale, else a round step
         * giving at most six lines */
        step = 0;
        if (!c->log_y) {
                step = pow(10, floor(log10((c->y_max - c->y_min) / 4)));
                while ((c->y_max - c->y_min) / step > 6)
                        step *= 2;
        }
        for (y = c->y_min; y <= c->y_max * 1.001;
             y = c->log_y ? y * 10 : y + step) {
                y_tick_label(c, y, lab, sizeof(lab));
                fprintf(f,
                        "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
                        "class=\"grid\"/>"
                        "<text x=\"%d\" y=\"%.1f\" class=\"tick\" "
                        "text-anchor=\"end\">%s</text>\n",
                        L, W - R, py(c, y), py(c, y), L - 6, py(c, y) + 4, lab);
        }
        /* x ticks */
        step = c->x_max > 40 ? 10 : c->x_max > 15 ? 5 : 2;
        for (x = 0; x <= c->x_max + 1e-9; x += step)
                fprintf(f,
                        "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" "
                        "class=\"axis\"/><text x=\"%.1f\" y=\"%d\" "
                        "class=\"tick\" text-anchor=\"middle\">%g</text>\n",
                        px(c, x), px(c, x), H - B, H - B + 5, px(c, x),
                        H - B + 18, x);
        fprintf(f,
                "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" "
                "class=\"axis\"/>\n<line x1=\"%d\" x2=\"%d\" y1=\"%d\" "
                "y2=\"%d\" class=\"axis\"/>\n",
                L, W - R, H - B, H - B, L, L, T, H - B);
        fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"label\" "
                   "text-anchor=\"middle\">",
                (L + W - R) / 2, H - 12);
        demo_html_escape(f, c->x_label);
        fprintf(f,
                "</text>\n<text x=\"16\" y=\"%d\" class=\"label\" "
                "text-anchor=\"middle\" transform=\"rotate(-90 16 %d)\">",
                (T + H - B) / 2, (T + H - B) / 2);
        demo_html_escape(f, c->y_label);
        fputs("</text>\n", f);
        for (i = 0; i < 3; i++) {
                if (c->x_mark[i] <= 0)
                        continue;
                fprintf(f,
                        "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" "
                        "class=\"mark\"/><text x=\"%.1f\" y=\"%d\" "
                        "class=\"small\" text-anchor=\"end\">",
                        px(c, c->x_mark[i]), px(c, c->x_mark[i]), T, H - B,
                        px(c, c->x_mark[i]) - 4, T + 12 + 13 * i);
                demo_html_escape(f, c->x_mark_label[i] ? c->x_mark_label[i]
                                                       : "");
                fputs("</text>\n", f);
        }
        if (c->y_mark > 0) {
                fprintf(f,
                        "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
                        "class=\"mark\"/><text x=\"%d\" y=\"%.1f\" "
                        "class=\"small\" text-anchor=\"end\">",
                        L, W - R, py(c, c->y_mark), py(c, c->y_mark), W - R - 4,
                        py(c, c->y_mark) - 4);
                demo_html_escape(f, c->y_mark_label ? c->y_mark_label : "");
                fputs("</text>\n", f);
        }
}

static void series(FILE *f, const demo_svg_chart_t *c,
                   const demo_svg_series_t *s) {
        size_t i;

        if (s->dots) {
                fprintf(f, "<g fill=\"%s\" fill-opacity=\"0.55\">\n",
                        s->color);
                for (i = 0; i < s->n; i++)
                        fprintf(f,
                                "<circle cx=\"%.1f\" cy=\"%.1f\" "
                                "r=\"2\"/>\n",
                                px(c, s->x[i]), py(c, s->y[i]));
                fputs("</g>\n", f);
                return;
        }
        if (!s->n)
                return;
        fprintf(f,
                "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
                "points=\"",
                s->color);
        for (i = 0; i < s->n; i++)
                fprintf(f, "%s%.1f,%.1f", i ? " " : "", px(c, s->x[i]),
                        py(c, s->y[i]));
        fputs("\"/>\n", f);
}

static void legend(FILE *f, const demo_svg_series_t *s, int ns) {
        int i, x = L;
        for (i = 0; i < ns; i++, x += 230) {
                fprintf(f,
                        "<rect x=\"%d\" y=\"31\" width=\"12\" height=\"12\" "
                        "fill=\"%s\"/><text x=\"%d\" y=\"41\" "
                        "class=\"small\">",
                        x, s[i].color, x + 17);
                demo_html_escape(f, s[i].label);
                fputs("</text>\n", f);
        }
}

void demo_svg_write(FILE *f, const demo_svg_chart_t *c,
                    const demo_svg_series_t *s, int ns) {
        int i;

        fprintf(f,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d "
                "%d\" width=\"%d\" height=\"%d\" role=\"img\">\n",
                W, H, W, H);
        axes(f, c);
        for (i = 0; i < ns; i++)
                series(f, c, &s[i]);
        legend(f, s, ns);
        fputs("</svg>\n", f);
}
