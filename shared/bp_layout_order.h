/*
 * bp_layout_order.h - the priority order of the buckets, which both
 * layouts share.
 */
#ifndef BP_LAYOUT_ORDER_H
#define BP_LAYOUT_ORDER_H

#include <stdint.h>

#include "bp_limits.h"

/**
 * Fills \p order with the bucket indexes in priority order: allocation
 * descending, ties in configuration order. Both layouts hand partitions out
 * in this order.
 */
void bp_layout_priority_order(const uint32_t *allocation, int n, int *order);

#endif /* BP_LAYOUT_ORDER_H */
