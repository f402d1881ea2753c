/*
 * bp_layout.c - the layout math, read top to bottom (see bp_layout.h): the
 * priority order both layouts hand partitions out in, the contiguous
 * layout's bucket sizes as the Java reference computes them, the
 * growth-stable layout, and the layout object built from either.
 */
#include "bp_layout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp_properties.h"

/* ---- The priority order both layouts hand partitions out in. ---- */
void bp_layout_priority_order(const uint32_t *allocation, int n, int *order) {
        int i, j;
        /* Insertion sort: stable, and n is at most BP_MAX_BUCKETS. */
        for (i = 0; i < n; i++) {
                for (j = i; j > 0 && allocation[order[j - 1]] < allocation[i];
                     j--)
                        order[j] = order[j - 1];
                order[j] = i;
        }
}

/*
 * ---- The contiguous layout's bucket sizes. ----
 *
 * Computed the way the Java reference computes them so that both agree
 * partition for partition: each share is a single precision float,
 * rounded half up (Java's Math.round), leftovers go round robin in
 * priority order, and the ranges are cut off at the partition count.
 */

/* Java's Math.round(float): floor(x + 1/2) computed exactly. */
static int32_t java_round(float x) {
        return (int32_t)floor((double)x + 0.5);
}

void bp_layout_reference_sizes(const uint32_t *allocation,
                               int n,
                               int32_t partition_cnt,
                               int32_t *sizes) {
        int order[BP_MAX_BUCKETS], k;
        int32_t total = 0, left, at = 0;

        bp_layout_priority_order(allocation, n, order);
        for (k = 0; k < n; k++) {
                /* (float)allocation / 100 with allocation in percent. */
                float share = (float)allocation[order[k]] /
                              (float)BP_ALLOCATION_UNITS;
                float exact = share * (float)partition_cnt;
                sizes[order[k]] = java_round(exact);
                total += sizes[order[k]];
        }
        for (k = 0, left = partition_cnt - total; left > 0; k++, left--)
                sizes[order[k % n]]++;
        /* Ranges are handed out from partition 0 until none are left. */
        for (k = 0; k < n; k++) {
                int32_t room = partition_cnt - at;
                if (sizes[order[k]] > room)
                        sizes[order[k]] = room;
                at += sizes[order[k]];
        }
}

/*
 * ---- The growth-stable layout. ----
 *
 * Partitions are dealt out one at a time, 0, 1, 2, ..., as a uniprocessor
 * earliest-deadline-first schedule of "Pfair" windows: the j-th partition of
 * a bucket with share w may go to any partition number in
 * [floor((j-1)/w), ceil(j/w)). Because the shares add up to exactly one,
 * EDF meets every window, so after any number of partitions P each bucket
 * holds floor(wP) or ceil(wP) of them, and the bucket of partition p never
 * depends on how many partitions follow it. All arithmetic is exact
 * integer arithmetic on the fixed point allocations.
 */
/* Earliest partition number the j-th partition (1-based) may take. */
static int64_t release_of(uint32_t units, int64_t j) {
        return (j - 1) * (int64_t)BP_ALLOCATION_UNITS / units;
}

/* Partition number before which the j-th partition must be placed. */
static int64_t deadline_of(uint32_t units, int64_t j) {
        int64_t num = j * (int64_t)BP_ALLOCATION_UNITS;
        return (num + units - 1) / units;
}

/* The bucket that gets partition p, given how many each already holds. */
static int next_bucket(const uint32_t *allocation, int n, const int *order,
                       const int64_t *held, int64_t p) {
        int k, best = -1;
        int64_t best_deadline = 0, d;

        /* Ties go to the higher priority bucket: scan in priority order. */
        for (k = 0; k < n; k++) {
                int b = order[k];
                if (release_of(allocation[b], held[b] + 1) > p)
                        continue;
                d = deadline_of(allocation[b], held[b] + 1);
                if (best < 0 || d < best_deadline) {
                        best          = b;
                        best_deadline = d;
                }
        }
        return best < 0 ? order[0] : best; /* best < 0 cannot happen when
                                             * the shares sum to one */
}

void bp_layout_stable_assign(const uint32_t *allocation,
                             int n,
                             int32_t partition_cnt,
                             uint8_t *bucket_of) {
        int order[BP_MAX_BUCKETS], b;
        int64_t held[BP_MAX_BUCKETS] = {0};
        int32_t p;

        bp_layout_priority_order(allocation, n, order);
        for (p = 0; p < partition_cnt; p++) {
                b            = next_bucket(allocation, n, order, held, p);
                bucket_of[p] = (uint8_t)b;
                held[b]++;
        }
}

int32_t bp_layout_stable_min(const uint32_t *allocation, int n) {
        int order[BP_MAX_BUCKETS], b, empty = n;
        int64_t held[BP_MAX_BUCKETS] = {0}, p;

        bp_layout_priority_order(allocation, n, order);
        for (p = 0; empty > 0 && p < BP_MAX_PARTITIONS; p++) {
                b = next_bucket(allocation, n, order, held, p);
                if (held[b]++ == 0)
                        empty--;
        }
        return (int32_t)p;
}

/* ---- The layout object, built from either layout's assignment. ---- */

/* Contiguous: bucket ranges in priority order, sizes from the reference,
 * then every empty bucket takes one partition from the largest bucket. */
static void contiguous_assign(const uint32_t *allocation, int n,
                              int32_t partition_cnt, uint8_t *bucket_of) {
        int order[BP_MAX_BUCKETS], k, largest;
        int32_t sizes[BP_MAX_BUCKETS], at = 0, p;

        bp_layout_priority_order(allocation, n, order);
        bp_layout_reference_sizes(allocation, n, partition_cnt, sizes);
        for (k = 0; k < n; k++) {
                if (sizes[order[k]] > 0)
                        continue;
                /* Largest bucket, the lowest priority one on ties, so the
                 * critical bucket keeps its partitions when it can. */
                largest = order[0];
                for (int m = 1; m < n; m++)
                        if (sizes[order[m]] >= sizes[largest])
                                largest = order[m];
                sizes[largest]--;
                sizes[order[k]]++;
        }
        for (k = 0; k < n; k++)
                for (p = 0; p < sizes[order[k]]; p++)
                        bucket_of[at++] = (uint8_t)order[k];
}

bp_layout_t *bp_layout_compute(const bp_config_t *cfg,
                               int32_t partition_cnt,
                               char *errstr,
                               size_t errstr_size) {
        bp_layout_t *l;
        int n = cfg->bucket_cnt, b;
        int32_t p, fill[BP_MAX_BUCKETS];
        uint32_t alloc[BP_MAX_BUCKETS];

        if (n == 0 || cfg->allocation_cnt != n) {
                snprintf(errstr, errstr_size,
                         "no buckets configured (bucket.priority.buckets and "
                         BP_PROP_ALLOCATION ")");
                return NULL;
        }
        if (partition_cnt <= 0 || partition_cnt > BP_MAX_PARTITIONS) {
                snprintf(errstr, errstr_size,
                         "partition count %d is outside 1..%d",
                         (int)partition_cnt, BP_MAX_PARTITIONS);
                return NULL;
        }
        if (cfg->layout == BP_LAYOUT_CONTIGUOUS && partition_cnt < n) {
                snprintf(errstr, errstr_size,
                         "%s%s%s has %d partition%s but %d buckets are "
                         "configured; the contiguous layout needs at least "
                         "one partition per bucket: add partitions to the "
                         "topic",
                         cfg->topic[0] ? "topic \"" : "the topic",
                         cfg->topic, cfg->topic[0] ? "\"" : "",
                         (int)partition_cnt, partition_cnt == 1 ? "" : "s", n);
                return NULL;
        }
        for (b = 0; b < n; b++)
                alloc[b] = cfg->allocation[b];

        l = calloc(1, sizeof(*l) + (size_t)partition_cnt *
                                       (sizeof(int32_t) + sizeof(uint8_t)));
        if (!l) {
                snprintf(errstr, errstr_size, "out of memory");
                return NULL;
        }
        l->partition_cnt = partition_cnt;
        l->bucket_cnt    = n;
        l->partitions    = (int32_t *)(l + 1);
        l->bucket_of     = (uint8_t *)(l->partitions + partition_cnt);

        if (cfg->layout == BP_LAYOUT_CONTIGUOUS)
                contiguous_assign(alloc, n, partition_cnt, l->bucket_of);
        else
                bp_layout_stable_assign(alloc, n, partition_cnt, l->bucket_of);

        for (p = 0; p < partition_cnt; p++)
                l->count[l->bucket_of[p]]++;
        for (b = 1; b < n; b++)
                l->first[b] = l->first[b - 1] + l->count[b - 1];
        memcpy(fill, l->first, sizeof(fill));
        for (p = 0; p < partition_cnt; p++)
                l->partitions[fill[l->bucket_of[p]]++] = p;
        return l;
}

void bp_layout_destroy(bp_layout_t *layout) {
        free(layout);
}
