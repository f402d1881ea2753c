/*
 * bp_layout_order.c - the priority order both layouts hand partitions out
 * in (a leaf: it calls nothing of the other layout files).
 */
#include "bp_layout.h"

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
