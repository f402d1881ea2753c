/*
 * bp_consumer_stats.c - the public per-bucket statistics of a bucket
 * consumer (bp_consumer_bucket_stats()): records delivered, partitions
 * held and their lag, and, for a consumer of several buckets, the
 * scheduler's pauses.
 */
#include <stdlib.h>
#include <string.h>

#include "bucket_priority.h"
#include "bp_registry.h"
#include "bp_clock.h"
#include "bp_consumer_side.h"
#include "bp_scheduler.h"

int bp_consumer_bucket_stats(const rd_kafka_t *rk,
                             int idx,
                             bp_consumer_bucket_stats_t *stats) {
        bp_client_t *c = bp_registry_find(rk);
        bp_consumer_run_t *k;
        bp_held_part_t *h = NULL;
        int64_t now       = bp_clock_ms();
        int i, n = 0;

        if (!c || !stats || !c->consumer ||
            !(k = &c->consumer->run)->tracking || idx < 0 ||
            idx >= c->cfg.bucket_cnt)
                return -1;
        memset(stats, 0, sizeof(*stats));
        stats->name      = c->cfg.buckets[idx].name;
        stats->rank      = k->deliveries.rank_of[idx];
        stats->delivered = atomic_load_explicit(
            &k->deliveries.delivered[idx], memory_order_relaxed);

        pthread_mutex_lock(&k->held.lock);
        if (k->sched)
                bp_sched_bucket_pauses(k->sched, idx, now, &stats->paused,
                                       &stats->pauses, &stats->paused_ms);
        if (k->held.cnt > 0)
                h = malloc(sizeof(*h) * (size_t)k->held.cnt);
        for (i = 0; h && i < k->held.cnt; i++)
                if (k->held.part[i].bucket == idx)
                        h[n++] = k->held.part[i];
        bp_held_measure(&k->held, h, n, now);
        pthread_mutex_unlock(&k->held.lock);

        stats->partitions = n;
        for (i = 0; i < n; i++) {
                if (h[i].lag >= 0)
                        stats->lag += h[i].lag;
                else
                        stats->lag_unknown++;
        }
        free(h);
        return 0;
}
