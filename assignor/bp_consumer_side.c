/*
 * bp_consumer_side.c - lifecycle of the consumer side's part of the
 * client's state (see bp_consumer_side.h).
 */
#include "bp_consumer_side.h"

#include <stdlib.h>
#include <string.h>

bp_consumer_side_t *bp_consumer_side_new(void) {
        return calloc(1, sizeof(bp_consumer_side_t));
}

bp_consumer_side_t *bp_consumer_side_dup(const bp_consumer_side_t *src) {
        bp_consumer_side_t *k = bp_consumer_side_new();
        if (!k)
                return NULL;
        memcpy(k->base_group_id, src->base_group_id, sizeof(k->base_group_id));
        memcpy(k->user_strategy, src->user_strategy, sizeof(k->user_strategy));
        k->group_protocol_consumer = src->group_protocol_consumer;
        k->remote_assignor_user_set = src->remote_assignor_user_set;
        k->protocol_held            = src->protocol_held;
        k->refresh_user_set        = src->refresh_user_set;
        k->sched_user_set          = src->sched_user_set;
        k->sched_set               = src->sched_set;
        k->consumer_mask           = src->consumer_mask;
        return k;
}

void bp_consumer_side_destroy(bp_consumer_side_t *k) {
        if (k) {
                free(k->change_seen.commits);
                free(k->siblings_seen.read);
                free(k->siblings_seen.best);
                free(k->siblings_seen.from);
        }
        free(k);
}
