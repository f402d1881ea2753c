/*
 * bp_sched_measure.c - the consumer queue's fill and the requests to the
 * cluster of the scheduler (see bp_sched_state.h).
 */
#include "bp_sched_state.h"


/* librdkafka stops fetching every partition of a consumer while its queue
 * holds queued.min.messages records or queued.max.messages.kbytes (the
 * thresholds count the consumer queue, which every partition feeds), and
 * looks again only up to a second later, even once the queue drained: a
 * lower bucket's backlog can thus hide a higher bucket's new records from
 * the cached watermarks. */
int64_t bp_sched_queue_fill(bp_scheduler_t *s) {
        rd_kafka_queue_t *q = rd_kafka_queue_get_consumer(s->rk);
        int64_t len, size, by_cnt, by_size = 0;

        if (!q)
                return 0;
        len = (int64_t)rd_kafka_queue_length(q);
        rd_kafka_queue_destroy(q);
        size   = atomic_load_explicit(&s->record_bytes, memory_order_relaxed);
        by_cnt = len * 1000 / s->queue_min_msgs;
        if (size > 0)
                by_size = len * size / (s->queue_max_bytes / 1000 + 1);
        return by_cnt > by_size ? by_cnt : by_size;
}

/* One ListOffsets request per leader. The request also wakes librdkafka's
 * fetcher (the broker thread that sends it), which then decides again what
 * to fetch. With \p note, the answer counts as the partitions' high
 * watermarks (lag the consumer cannot see while its full queue stops the
 * fetching); without, the request only wakes the fetcher, which fetches
 * what is new by itself. Used only around a nearly full queue (see
 * bp_sched_evaluate()), at most every BP_SCHED_PROBE_MS. */
void bp_sched_probe(bp_scheduler_t *s, int64_t now, int note) {
        bp_held_t *h = s->held;
        rd_kafka_topic_partition_list_t *l =
            rd_kafka_topic_partition_list_new(h->cnt);
        int i, j;

        s->last_probe_ms = now;
        for (i = 0; i < h->cnt; i++)
                if (h->part[i].rank < s->n - 1)
                        rd_kafka_topic_partition_list_add(
                            l, h->topic, h->part[i].partition)
                            ->offset = RD_KAFKA_OFFSET_END;
        if (l->cnt > 0 && bp_sched_op_begin(s)) {
                /* Only to wake the fetcher: the request is on its way
                 * once this returns, the answer is not waited for (it
                 * may queue behind a fetch the broker holds for up to
                 * fetch.wait.max.ms, which would stall the decisions). */
                rd_kafka_resp_err_t err = rd_kafka_offsets_for_times(
                    s->rk, l,
                    note ? BP_SCHED_PROBE_TIMEOUT_MS
                         : BP_SCHED_WAKE_TIMEOUT_MS);
                bp_sched_op_end(s);
                for (i = 0; note && !err && i < l->cnt; i++)
                        for (j = 0; !l->elems[i].err && j < h->cnt; j++)
                                if (h->part[j].partition ==
                                        l->elems[i].partition &&
                                    l->elems[i].offset > h->part[j].probed)
                                        h->part[j].probed =
                                            l->elems[i].offset;
        }
        rd_kafka_topic_partition_list_destroy(l);
}
