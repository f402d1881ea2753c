/*
 * demo_hist.h - a fixed-size logarithmic latency histogram (16 bins per
 * doubling, 1 us to ~19 h, percentiles within 4.4 %), cheap enough to
 * update for every record the demo consumes.
 */
#ifndef DEMO_HIST_H
#define DEMO_HIST_H

#include <stdint.h>

#define DEMO_HIST_BINS (36 * 16)

typedef struct demo_hist {
        uint32_t bin[DEMO_HIST_BINS];
        uint64_t n;
} demo_hist_t;

void demo_hist_clear(demo_hist_t *h);

/** Counts one latency of \p us microseconds. */
void demo_hist_add(demo_hist_t *h, int64_t us);

/** Adds every count of \p src to \p dst. */
void demo_hist_merge(demo_hist_t *dst, const demo_hist_t *src);

/**
 * The \p q quantile (0..1) in microseconds (the upper edge of its bin), or
 * -1 when the histogram is empty.
 */
int64_t demo_hist_quantile(const demo_hist_t *h, double q);

#endif /* DEMO_HIST_H */
