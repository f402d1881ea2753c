/*
 * bench_priority_gaps.c - the notes of the critical records handled and
 * the longest times a critical partition, and the whole critical bucket,
 * went unread with records waiting (definitions in bench_priority_gaps.h).
 */
#include "bench_priority_gaps.h"

#include <stdlib.h>
#include <string.h>

#define MAX_PARTITIONS 64

int bpb_gaps_init(bpb_gaps_t *g, size_t expected) {
        memset(g, 0, sizeof(*g));
        g->cap = expected < 16 ? 16 : expected;
        if (!(g->v = malloc(g->cap * sizeof(*g->v))))
                return -1;
        pthread_mutex_init(&g->lock, NULL);
        return 0;
}

void bpb_gaps_free(bpb_gaps_t *g) {
        if (!g->v)
                return;
        free(g->v);
        g->v = NULL;
        pthread_mutex_destroy(&g->lock);
}

void bpb_gaps_note(bpb_gaps_t *g, int32_t partition, int64_t produced_us,
                   int64_t handled_us) {
        pthread_mutex_lock(&g->lock);
        if (g->cnt == g->cap) {
                bpb_read_t *v = realloc(g->v, 2 * g->cap * sizeof(*v));
                if (!v) {
                        g->oom = 1;
                        pthread_mutex_unlock(&g->lock);
                        return;
                }
                g->v = v;
                g->cap *= 2;
        }
        g->v[g->cnt].partition   = partition;
        g->v[g->cnt].produced_us = produced_us;
        g->v[g->cnt].handled_us  = handled_us;
        g->cnt++;
        pthread_mutex_unlock(&g->lock);
}

static int by_handled(const void *a, const void *b) {
        const bpb_read_t *x = a, *y = b;
        return x->handled_us < y->handled_us ? -1
                                              : x->handled_us > y->handled_us;
}

/* How long \p r waited while nothing was read since \p last_read_us. */
static double gap_ms(const bpb_read_t *r, int64_t last_read_us) {
        int64_t from = r->produced_us > last_read_us ? r->produced_us
                                                     : last_read_us;
        return r->handled_us > from ? (double)(r->handled_us - from) / 1000.0
                                    : 0.0;
}

/* The stretch \p t falls in. */
static int stretch_of(int64_t t, const int64_t *from_us, int stretches) {
        int i = stretches - 1;
        while (i > 0 && t < from_us[i])
                i--;
        return i;
}

int bpb_gaps_figures(bpb_gaps_t *g, const int64_t *from_us, int stretches,
                     bpb_gap_figures_t *f) {
        int64_t last_part[MAX_PARTITIONS], last_any = INT64_MIN;
        double worst[BPB_MAX_STRETCHES][MAX_PARTITIONS];
        int seen[BPB_MAX_STRETCHES][MAX_PARTITIONS], p, k;
        bpb_read_t *v;
        size_t n, i;

        if (stretches < 1 || stretches > BPB_MAX_STRETCHES)
                return -1;
        memset(f, 0, (size_t)stretches * sizeof(*f));
        memset(seen, 0, sizeof(seen));
        memset(worst, 0, sizeof(worst));
        for (k = 0; k < stretches; k++) {
                f[k].part_gap_ms = f[k].bucket_gap_ms = -1;
                f[k].part_gap_partition               = -1;
        }
        pthread_mutex_lock(&g->lock);
        n = g->cnt;
        v = g->oom ? NULL : malloc((n ? n : 1) * sizeof(*v));
        if (v)
                memcpy(v, g->v, n * sizeof(*v));
        pthread_mutex_unlock(&g->lock);
        if (!v)
                return -1;
        qsort(v, n, sizeof(*v), by_handled);
        for (p = 0; p < MAX_PARTITIONS; p++)
                last_part[p] = INT64_MIN;
        for (i = 0; i < n; i++) {
                const bpb_read_t *r = &v[i];
                bpb_gap_figures_t *s;
                double gp, gb;
                p = r->partition;
                if (p < 0 || p >= MAX_PARTITIONS)
                        continue;
                k  = stretch_of(r->handled_us, from_us, stretches);
                s  = &f[k];
                gp = gap_ms(r, last_part[p]);
                gb = gap_ms(r, last_any);
                if (gp > worst[k][p])
                        worst[k][p] = gp;
                if (gp > s->part_gap_ms) {
                        s->part_gap_ms        = gp;
                        s->part_gap_partition = p;
                        s->part_gap_end_us    = r->handled_us;
                }
                if (gb > s->bucket_gap_ms)
                        s->bucket_gap_ms = gb;
                last_part[p] = r->handled_us;
                last_any     = r->handled_us;
                seen[k][p]   = 1;
        }
        for (k = 0; k < stretches; k++)
                for (p = 0; p < MAX_PARTITIONS; p++) {
                        f[k].parts_read += seen[k][p];
                        f[k].parts_stalled +=
                            seen[k][p] && worst[k][p] > BPB_STALL_MS;
                }
        free(v);
        return 0;
}
