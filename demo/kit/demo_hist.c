/*
 * demo_hist.c - logarithmic latency histogram: bin k holds latencies up to
 * 2^(k/16) microseconds.
 */
#include "demo_hist.h"

#include <math.h>
#include <string.h>

void demo_hist_clear(demo_hist_t *h) {
        memset(h, 0, sizeof(*h));
}

static int bin_of(int64_t us) {
        int k;
        if (us <= 1)
                return 0;
        k = (int)ceil(log2((double)us) * 16.0);
        return k < DEMO_HIST_BINS ? k : DEMO_HIST_BINS - 1;
}

void demo_hist_add(demo_hist_t *h, int64_t us) {
        h->bin[bin_of(us)]++;
        h->n++;
}

void demo_hist_merge(demo_hist_t *dst, const demo_hist_t *src) {
        int k;
        for (k = 0; k < DEMO_HIST_BINS; k++)
                dst->bin[k] += src->bin[k];
        dst->n += src->n;
}

int64_t demo_hist_quantile(const demo_hist_t *h, double q) {
        uint64_t rank, seen = 0;
        int k;

        if (!h->n)
                return -1;
        rank = (uint64_t)ceil(q * (double)h->n);
        if (rank < 1)
                rank = 1;
        for (k = 0; k < DEMO_HIST_BINS; k++) {
                seen += h->bin[k];
                if (seen >= rank)
                        return (int64_t)llround(exp2((double)k / 16.0));
        }
        return (int64_t)llround(exp2((double)(DEMO_HIST_BINS - 1) / 16.0));
}
