/*
 * bp_client_layout.h - the layout a client uses at a partition count: its
 * configuration's, or the one the step of a live layout change gives it;
 * the layouts it has computed are kept for its lifetime (partition counts
 * rarely vary): the current one read lock-free, the others found under a
 * lock.
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

/**
 * The layout client \p c uses at \p partition_cnt: its configuration's, or
 * during a layout change the one its step gives it (producers: where each
 * bucket writes; consumers: what each bucket reads), logged with its
 * fingerprint. NULL with \p errstr when none can be computed
 * (plugin/bp_client_layout.c).
 */
bp_layout_t *bp_client_compute_layout(bp_client_t *c,
                                      int32_t partition_cnt,
                                      char *errstr,
                                      size_t errstr_size);

/**
 * Sets c->change_home from the configuration, once, before the client's
 * threads run: for each bucket a layout change removes, the bucket that
 * reads its records after it (-1 for the others, and without a change).
 */
void bp_client_change_homes(bp_client_t *c);

#endif /* BP_CLIENT_LAYOUT_H */
