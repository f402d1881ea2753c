/*
 * bp_deliveries.c - the small per-consumer counter: the records each
 * served bucket delivered (see bp_held.h).
 */
#include "bp_held.h"

#include <string.h>

void bp_deliveries_init(bp_deliveries_t *d, const bp_config_t *cfg) {
        int k, b;

        memset(d, 0, sizeof(*d));
        d->n = cfg->consumer_bucket_cnt;
        for (b = 0; b < BP_MAX_BUCKETS; b++)
                d->rank_of[b] = -1;
        for (k = 0; k < d->n; k++) {
                b               = cfg->consumer_buckets[k];
                d->rank_of[b]   = k;
                d->bucket_at[k] = b;
        }
}

int bp_deliveries_count(bp_deliveries_t *d,
                        const char *topic,
                        const bp_layout_t *l,
                        const rd_kafka_message_t *m) {
        int r;

        if (m->err || !m->rkt || m->partition < 0 ||
            strcmp(rd_kafka_topic_name(m->rkt), topic))
                return -1;
        if (!l || m->partition >= l->partition_cnt ||
            l->bucket_of[m->partition] >= l->bucket_cnt ||
            (r = d->rank_of[l->bucket_of[m->partition]]) < 0)
                return -1;
        atomic_fetch_add_explicit(&d->delivered[l->bucket_of[m->partition]],
                                  1, memory_order_relaxed);
        return r;
}
