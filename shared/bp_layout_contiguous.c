/*
 * bp_layout_contiguous.c - bucket sizes of the contiguous layout, computed
 * the way the Java reference computes them so that both agree partition
 * for partition: each share is a single precision float, rounded half up
 * (Java's Math.round), leftovers go round robin in priority order, and the
 * ranges are cut off at the partition count.
 */
#include "bp_layout.h"


#include <math.h>

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
