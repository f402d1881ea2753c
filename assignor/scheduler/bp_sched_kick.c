/*
 * bp_sched_kick.c - weighted holding by queue: a higher-bucket partition
 * that the scheduler resumed but that fetches nothing is started again
 * (see bp_sched_state.h; the decision is bp_sched_stalled(), shared/
 * bp_schedule.h).
 *
 * Why. weighted pauses a bucket ahead of its share and resumes it once it
 * is behind. On librdkafka 2.0.2, in about 1 run of 20 of bp-bench-backlog
 * --schedule weighted, both critical partitions, resumed after their first
 * pause, fetched nothing for a second and more while bulk's fetched
 * records flowed: critical's share of the first 2 000 records fell from
 * 25% to 2.4% (docs/benchmarks-results.md). librdkafka 2.15.1 did not
 * show it.
 *
 * How. A seek to the partition's position (librdkafka's: the next record
 * the application is to be handed; a partition without one, nothing
 * taken yet, is left alone), starts its fetch again: librdkafka drops
 * what it had fetched of it (none of it was handed out: the position says
 * so) and fetches from there, so nothing is lost or handed out twice. A
 * resumed partition's first records take one fetch (20 to 30 ms on the
 * mock cluster), within the first wait of the watch.
 */
#include "bp_sched_state.h"

void bp_sched_kick_stalled(bp_scheduler_t *s, int64_t now) {
        bp_held_t *h   = s->held;
        uint64_t taken = atomic_load_explicit(&s->taken, memory_order_acquire);
        rd_kafka_topic_partition_list_t *l = NULL;
        rd_kafka_error_t *err;
        int i;

        for (i = 0; i < h->cnt; i++) {
                bp_held_part_t *p = &h->part[i];
                int running;

                if (p->rank < 0 || p->rank >= s->n - 1)
                        continue; /* the lowest bucket is never paused */
                running = !(p->partition < s->paused_cap &&
                            s->paused_by_us[p->partition]);
                /* Only from librdkafka's own position: where it starts
                 * (p->at before any record) may lie behind records handed
                 * out before a seek, which a seek there would hand out
                 * again. */
                if (!bp_sched_stalled(
                        &p->stall, p->position, p->lag, running,
                        rd_kafka_queue_length(s->rank_q[p->rank]) > 0, taken,
                        now))
                        continue;
                if (!l)
                        l = rd_kafka_topic_partition_list_new(h->cnt);
                rd_kafka_topic_partition_list_add(l, h->topic, p->partition)
                    ->offset = p->position;
                atomic_fetch_add_explicit(&s->kicks, 1, memory_order_relaxed);
        }
        if (!l)
                return;
        s->kick_partition = l->elems[0].partition;
        s->kick_offset    = l->elems[0].offset;
        /* 0: asynchronous, the scheduler does not wait for it. */
        if ((err = rd_kafka_seek_partitions(s->rk, l, 0)))
                rd_kafka_error_destroy(err);
        rd_kafka_topic_partition_list_destroy(l);
}

void bp_sched_kick_report(bp_scheduler_t *s) {
        uint64_t kicks = atomic_load_explicit(&s->kicks, memory_order_relaxed);

        if (kicks == s->kicks_logged)
                return;
        /* The first a consumer makes says why (level 6), the next level 7. */
        bp_client_log(s->c, s->kicks_logged ? 7 : 6,
                      "weighted schedule: partition %d of topic \"%s\" "
                      "fetched nothing since it was resumed (position %lld) "
                      "while the application consumed: fetching it again "
                      "from there (%llu partition starts so far)",
                      (int)s->kick_partition, s->held->topic,
                      (long long)s->kick_offset, (unsigned long long)kicks);
        s->kicks_logged = kicks;
}
