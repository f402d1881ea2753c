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
        k->props = src->props;
        return k;
}

void bp_consumer_side_destroy(bp_consumer_side_t *k) {
        if (k) {
                free(k->run.change_seen.commits);
                free(k->run.lent_brokers);
                free(k->run.siblings_seen.read);
                free(k->run.siblings_seen.best);
                free(k->run.siblings_seen.from);
        }
        free(k);
}
