/*
 * bp_layout_stable.c - the growth-stable layout.
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
#include "bp_layout.h"


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
