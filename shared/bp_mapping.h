/*
 * bp_mapping.h - the consumer side's index mapping.
 *
 * A bucket's consumers form one group whose assignor (roundrobin) spreads
 * the topic's partition numbers 0..P-1 over its members. Each member then
 * reads its assigned numbers as indexes into B, the ascending list of its
 * buckets' partitions: index i becomes partition B[i] when i < |B| and is
 * dropped otherwise. The members' indexes are disjoint and cover 0..P-1,
 * so B is covered exactly once, balanced within one, with no side channel.
 */
#ifndef BP_MAPPING_H
#define BP_MAPPING_H

#include <stdint.h>

#include "bp_layout.h"

/**
 * Writes B, the ascending partitions of the buckets \p buckets[0..n-1] in
 * layout \p l, to \p out (room for l->partition_cnt entries). Returns |B|.
 */
int32_t bp_mapping_partitions(const bp_layout_t *l,
                              const int *buckets,
                              int n,
                              int32_t *out);

/** The partition that assigned index \p i stands for, or -1 (dropped). */
static inline int32_t bp_mapping_map(const int32_t *b,
                                     int32_t b_cnt,
                                     int32_t i) {
        return i >= 0 && i < b_cnt ? b[i] : -1;
}

#endif /* BP_MAPPING_H */
