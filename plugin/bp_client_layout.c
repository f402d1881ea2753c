/*
 * bp_client_layout.c - the layouts a client has computed, kept for its
 * lifetime (see bp_client_layout.h).
 */
#include "bp_client_layout.h"

#include <stdio.h>
#include <stdlib.h>

#include "bp_client_change.h"

/* The kept layout for \p partition_cnt, computed once; made the current
 * one when \p current. */
static const bp_layout_t *kept(bp_client_t *c, int32_t partition_cnt,
                               int current) {
        bp_layout_node_t *n;
        bp_layout_t *l = NULL;
        char err[512];

        if (atomic_load_explicit(&c->failed_cnt, memory_order_acquire) ==
            partition_cnt)
                return NULL;

        pthread_mutex_lock(&c->layout_lock);
        for (n = c->layouts; n; n = n->next)
                if (n->layout->partition_cnt == partition_cnt) {
                        l = n->layout;
                        break;
                }
        if (!l) {
                l = bp_client_compute_layout(c, partition_cnt, err,
                                             sizeof(err));
                n = l ? malloc(sizeof(*n)) : NULL;
                if (n) {
                        n->layout  = l;
                        n->next    = c->layouts;
                        c->layouts = n;
                } else {
                        if (l) {
                                bp_layout_destroy(l);
                                l = NULL;
                                snprintf(err, sizeof(err), "out of memory");
                        }
                        atomic_store_explicit(&c->failed_cnt, partition_cnt,
                                              memory_order_release);
                        bp_client_log_once(
                            c, BP_ONCE_NO_LAYOUT, 3,
                            "records to topic \"%s\" fail: %s (logged once; "
                            "failures are counted in bp_stats())",
                            c->cfg.topic, err);
                }
        }
        if (l && current)
                atomic_store_explicit(&c->current, l, memory_order_release);
        pthread_mutex_unlock(&c->layout_lock);
        return l;
}

const bp_layout_t *bp_client_layout_slow(bp_client_t *c,
                                         int32_t partition_cnt) {
        return kept(c, partition_cnt, 1);
}

const bp_layout_t *bp_client_layout_aside(bp_client_t *c,
                                          int32_t partition_cnt) {
        return kept(c, partition_cnt, 0);
}
