/*
 * bp_producer_side.c - lifecycle of the producer side's part of the
 * client's state (see bp_producer_side.h).
 */
#include "bp_producer_side.h"

#include <stdlib.h>

bp_producer_side_t *bp_producer_side_new(void) {
        bp_producer_side_t *p = calloc(1, sizeof(*p));
        if (p) {
                p->sticky_user_value = -1;
                p->first_bucket      = -1;
                pthread_mutex_init(&p->explicit_lock, NULL);
        }
        return p;
}

bp_producer_side_t *bp_producer_side_dup(const bp_producer_side_t *src) {
        bp_producer_side_t *p = bp_producer_side_new();
        if (p) {
                p->sticky_user_value = src->sticky_user_value;
                p->bucket_producer   = src->bucket_producer;
        }
        return p;
}

void bp_producer_side_destroy(bp_producer_side_t *p) {
        if (!p)
                return;
        pthread_mutex_destroy(&p->explicit_lock);
        free(p);
}
