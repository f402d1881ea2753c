/*
 * bp_client_layout.h - the layouts a client has computed, kept for its
 * lifetime (partition counts rarely vary): the current one read lock-free,
 * the others found under a lock.
 */
#ifndef BP_CLIENT_LAYOUT_H
#define BP_CLIENT_LAYOUT_H

#include "bp_client.h"

/**
 * The layout for \p partition_cnt: lock-free when it is the current one,
 * else computed once under a lock and kept. NULL if it cannot be computed
 * (the reason is logged once).
 */
const bp_layout_t *bp_client_layout_slow(bp_client_t *c,
                                         int32_t partition_cnt);

/**
 * The same layout, computed and kept alike, but not made the current one:
 * for a thread that looks ahead (assignor/offsets/bp_prefetch.c) while the
 * rebalance alone decides which layout the consumer maps with.
 */
const bp_layout_t *bp_client_layout_aside(bp_client_t *c,
                                          int32_t partition_cnt);

static inline const bp_layout_t *bp_client_layout(bp_client_t *c,
                                                  int32_t partition_cnt) {
        const bp_layout_t *l =
            atomic_load_explicit(&c->current, memory_order_acquire);
        if (__builtin_expect(l && l->partition_cnt == partition_cnt, 1))
                return l;
        return bp_client_layout_slow(c, partition_cnt);
}

#endif /* BP_CLIENT_LAYOUT_H */
