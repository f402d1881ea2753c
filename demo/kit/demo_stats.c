/*
 * demo_stats.c - the per-run ledger, counters, histograms and samples.
 */
#include "demo_stats.h"

#include <stdlib.h>
#include <string.h>

const char *const demo_class_name[DEMO_CLASSES] = {"critical", "bulk"};

int demo_stats_init(demo_stats_t *st, long planned_critical,
                    long planned_bulk) {
        long planned[DEMO_CLASSES] = {planned_critical, planned_bulk};
        int c;

        memset(st, 0, sizeof(*st));
        pthread_mutex_init(&st->lock, NULL);
        atomic_init(&st->measuring, 1);
        for (c = 0; c < DEMO_CLASSES; c++) {
                demo_class_stats_t *cs = &st->cls[c];
                cs->planned = planned[c];
                cs->ledger  = calloc((size_t)planned[c], 1);
                cs->sent_us = calloc((size_t)planned[c], sizeof(int64_t));
                if (!cs->ledger || !cs->sent_us) {
                        demo_stats_free(st);
                        return -1;
                }
        }
        return 0;
}

void demo_stats_free(demo_stats_t *st) {
        int c;
        for (c = 0; c < DEMO_CLASSES; c++) {
                free((void *)st->cls[c].ledger);
                free(st->cls[c].sent_us);
        }
        free(st->crit);
        free(st->series);
        pthread_mutex_destroy(&st->lock);
        memset(st, 0, sizeof(*st));
}

void demo_stats_sent(demo_stats_t *st, demo_class_t c, long id,
                     int64_t sent_us) {
        demo_class_stats_t *cs = &st->cls[c];
        if (id < 0 || id >= cs->planned)
                return;
        cs->sent_us[id] = sent_us;
        atomic_fetch_or(&cs->ledger[id], DEMO_SENT);
        atomic_fetch_add(&cs->sent, 1);
}

void demo_stats_delivered(demo_stats_t *st, demo_class_t c, long id, int ok) {
        demo_class_stats_t *cs = &st->cls[c];
        if (id < 0 || id >= cs->planned)
                return;
        if (!ok) {
                atomic_fetch_or(&cs->ledger[id], DEMO_FAILED);
                atomic_fetch_add(&cs->failed, 1);
                return;
        }
        atomic_fetch_or(&cs->ledger[id], DEMO_DELIVERED);
        atomic_fetch_add(&cs->delivered, 1);
}

static void slice_add(demo_class_stats_t *cs, int64_t slice_no, int64_t us) {
        int i = (int)(slice_no % DEMO_SLICES);
        if (cs->slice_no[i] != slice_no) {
                demo_hist_clear(&cs->slice[i]);
                cs->slice_no[i] = slice_no;
        }
        demo_hist_add(&cs->slice[i], us);
}

/* The growing array \p items (\p cnt items of \p size bytes used, \p cap
 * allocated) with room for one more: itself, or moved to twice the room
 * (\p first_cap at first); NULL if out of memory, the array left as it
 * was. */
static void *room_for_one(void *items, size_t *cap, size_t cnt, size_t size,
                          size_t first_cap) {
        size_t new_cap;
        void *grown;

        if (cnt < *cap)
                return items;
        new_cap = *cap ? *cap * 2 : first_cap;
        grown   = realloc(items, new_cap * size);
        if (grown)
                *cap = new_cap;
        return grown;
}

static void sample_add(demo_stats_t *st, float t_s, float lat_ms) {
        demo_sample_t *crit = room_for_one(st->crit, &st->crit_cap,
                                           st->crit_cnt, sizeof(*crit), 1024);
        if (!crit)
                return;
        st->crit = crit;
        st->crit[st->crit_cnt].t_s    = t_s;
        st->crit[st->crit_cnt].lat_ms = lat_ms;
        st->crit_cnt++;
}

void demo_stats_consumed(demo_stats_t *st, demo_class_t c, long id,
                         int32_t partition, int64_t sent_us, int64_t now_us) {
        demo_class_stats_t *cs = &st->cls[c];
        int64_t lat = now_us - sent_us;

        if (id < 0 || id >= cs->planned) {
                demo_stats_garbage(st, c);
                return;
        }
        if (atomic_fetch_or(&cs->ledger[id], DEMO_CONSUMED) & DEMO_CONSUMED) {
                atomic_fetch_add(&cs->duplicates, 1);
                return;
        }
        atomic_fetch_add(&cs->consumed, 1);
        if (partition >= 0 && partition < DEMO_PARTITIONS)
                atomic_fetch_add(&cs->part[partition], 1);
        if (atomic_load(&st->measuring)) {
                atomic_fetch_add(&cs->consumed_window, 1);
                if (partition >= 0 && partition < DEMO_PARTITIONS)
                        atomic_fetch_add(&cs->part_window[partition], 1);
        }
        if (lat > 1000000)
                atomic_fetch_add(&cs->late, 1);
        pthread_mutex_lock(&st->lock);
        demo_hist_add(&cs->total, lat);
        slice_add(cs, (now_us - st->t0_us) / DEMO_SLICE_US, lat);
        if (c == DEMO_CRITICAL)
                sample_add(st, (float)((double)(now_us - st->t0_us) / 1e6),
                           (float)((double)lat / 1000.0));
        pthread_mutex_unlock(&st->lock);
}

void demo_stats_partition_spread(demo_stats_t *st, demo_class_t c, int *lo,
                                 long *lo_n, int *hi, long *hi_n) {
        demo_class_stats_t *cs = &st->cls[c];
        int p;

        *lo = *hi = -1;
        *lo_n = *hi_n = 0;
        for (p = 0; p < DEMO_PARTITIONS; p++) {
                long n = atomic_load(&cs->part_window[p]);
                if (!atomic_load(&cs->part[p]))
                        continue;
                if (*lo < 0 || n < *lo_n) {
                        *lo   = p;
                        *lo_n = n;
                }
                if (*hi < 0 || n > *hi_n) {
                        *hi   = p;
                        *hi_n = n;
                }
        }
}

void demo_stats_garbage(demo_stats_t *st, demo_class_t c) {
        atomic_fetch_add(&st->cls[c].garbage, 1);
}

void demo_stats_live(demo_stats_t *st, demo_class_t c, int64_t now_us,
                     double *p50_ms, double *p99_ms) {
        demo_class_stats_t *cs = &st->cls[c];
        int64_t now_slice = (now_us - st->t0_us) / DEMO_SLICE_US;
        demo_hist_t h;
        int i;

        demo_hist_clear(&h);
        pthread_mutex_lock(&st->lock);
        for (i = 0; i < DEMO_SLICES; i++)
                if (cs->slice_no[i] > now_slice - DEMO_SLICES &&
                    cs->slice[i].n)
                        demo_hist_merge(&h, &cs->slice[i]);
        pthread_mutex_unlock(&st->lock);
        *p50_ms = h.n ? (double)demo_hist_quantile(&h, 0.50) / 1000.0 : -1;
        *p99_ms = h.n ? (double)demo_hist_quantile(&h, 0.99) / 1000.0 : -1;
}

double demo_stats_oldest_ms(demo_stats_t *st, demo_class_t c,
                            int64_t now_us) {
        demo_class_stats_t *cs = &st->cls[c];

        /* Ids are sent in order, so the first sent id neither consumed nor
         * failed is the oldest record waiting (in the producer, the broker
         * or a consumer's queue). */
        while (cs->oldest_cursor < cs->planned) {
                unsigned char s = atomic_load(&cs->ledger[cs->oldest_cursor]);
                if (!(s & DEMO_SENT))
                        return 0;
                if (!(s & (DEMO_CONSUMED | DEMO_FAILED)))
                        return (double)(now_us -
                                        cs->sent_us[cs->oldest_cursor]) /
                               1000.0;
                cs->oldest_cursor++;
        }
        return 0;
}

long demo_stats_lag(demo_stats_t *st, demo_class_t c) {
        long d = atomic_load(&st->cls[c].delivered);
        long n = atomic_load(&st->cls[c].consumed);
        return d > n ? d - n : 0;
}

static int cmp_float(const void *a, const void *b) {
        float x = *(const float *)a, y = *(const float *)b;
        return x < y ? -1 : x > y;
}

double demo_stats_critical_quantile(demo_stats_t *st, double q) {
        float *v;
        size_t n, i, rank;
        double r;

        pthread_mutex_lock(&st->lock);
        n = st->crit_cnt;
        v = n ? malloc(n * sizeof(*v)) : NULL;
        for (i = 0; v && i < n; i++)
                v[i] = st->crit[i].lat_ms;
        pthread_mutex_unlock(&st->lock);
        if (!v)
                return -1;
        qsort(v, n, sizeof(*v), cmp_float);
        rank = (size_t)((double)n * q + 0.999999);
        rank = rank < 1 ? 1 : rank > n ? n : rank;
        r    = v[rank - 1];
        free(v);
        return r;
}

long demo_stats_lost(demo_stats_t *st, demo_class_t c) {
        demo_class_stats_t *cs = &st->cls[c];
        long i, lost = 0;
        for (i = 0; i < cs->planned; i++) {
                unsigned char s = atomic_load(&cs->ledger[i]);
                lost += (s & DEMO_DELIVERED) && !(s & DEMO_CONSUMED);
        }
        return lost;
}

void demo_stats_point(demo_stats_t *st, const demo_point_t *p) {
        demo_point_t *series = room_for_one(st->series, &st->series_cap,
                                            st->series_cnt, sizeof(*series),
                                            256);
        if (!series)
                return;
        st->series = series;
        st->series[st->series_cnt++] = *p;
}
