/*
 * bp_layout_contiguous.h - bucket sizes of the contiguous layout, as the
 * reference computes them.
 */
#ifndef BP_LAYOUT_CONTIGUOUS_H
#define BP_LAYOUT_CONTIGUOUS_H

#include <stdint.h>

#include "bp_limits.h"

/**
 * Contiguous sizes exactly as the reference computes them (single precision
 * shares, Math.round, leftovers round robin, truncated at the partition
 * count), before our rule that every bucket gets one partition. Used by the
 * layout and by the tests as the reference oracle's counterpart.
 */
void bp_layout_reference_sizes(const uint32_t *allocation,
                               int n,
                               int32_t partition_cnt,
                               int32_t *sizes);

#endif /* BP_LAYOUT_CONTIGUOUS_H */
