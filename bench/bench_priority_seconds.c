/*
 * bench_priority_seconds.c - critical latencies grouped by send time
 * (a record counts where it was sent, however late it arrived).
 */
#include "bench_priority_seconds.h"

#include <math.h>
#include <stdlib.h>

static int cmp_float(const void *a, const void *b) {
        float x = *(const float *)a, y = *(const float *)b;
        return x < y ? -1 : x > y;
}

static float quantile(float *v, size_t n, double q) {
        size_t rank = (size_t)ceil((double)n * q);
        rank        = rank < 1 ? 1 : rank > n ? n : rank;
        return v[rank - 1];
}

/* Send time of sample \p x in seconds since t0. */
static double sent_s(const demo_sample_t *x) {
        return x->t_s - x->lat_ms / 1000.0;
}

void bpb_seconds_fill(demo_stats_t *st, double window_s, bpb_result_t *res) {
        size_t secs = (size_t)ceil(window_s), i, s, cnt = st->crit_cnt;
        float **lat  = calloc(secs, sizeof(*lat));
        size_t *n    = calloc(secs, sizeof(*n));
        bpb_second_t *out = calloc(secs, sizeof(*out));

        if (!lat || !n || !out)
                goto done;
        for (s = 0; s < secs; s++)
                if (!(lat[s] = malloc((cnt ? cnt : 1) * sizeof(float))))
                        goto done;
        for (i = 0; i < cnt; i++) {
                const demo_sample_t *x = &st->crit[i];
                double sent            = sent_s(x);
                if (sent < 0 || sent >= (double)secs)
                        continue;
                s              = (size_t)sent;
                lat[s][n[s]++] = x->lat_ms;
        }
        for (s = 0; s < secs; s++) {
                if (!n[s])
                        continue;
                qsort(lat[s], n[s], sizeof(float), cmp_float);
                out[res->second_cnt].t_s    = (float)s + 0.5f;
                out[res->second_cnt].p50_ms = quantile(lat[s], n[s], 0.5);
                out[res->second_cnt].p99_ms = quantile(lat[s], n[s], 0.99);
                res->second_cnt++;
        }
        res->seconds = out;
        out          = NULL;
done:
        for (s = 0; lat && s < secs; s++)
                free(lat[s]);
        free(lat);
        free(n);
        free(out);
}

double bpb_seconds_p99(demo_stats_t *st, double from_s, double to_s,
                       long *n) {
        float *v = malloc((st->crit_cnt ? st->crit_cnt : 1) * sizeof(float));
        size_t i, k = 0;
        double p99 = -1;

        *n = 0;
        if (!v)
                return -1;
        for (i = 0; i < st->crit_cnt; i++) {
                double sent = sent_s(&st->crit[i]);
                if (sent >= from_s && sent < to_s)
                        v[k++] = st->crit[i].lat_ms;
        }
        if (k) {
                qsort(v, k, sizeof(float), cmp_float);
                p99 = quantile(v, k, 0.99);
        }
        *n = (long)k;
        free(v);
        return p99;
}
