/*
 * bp_sched_queues.c - the strict schedule holding lower buckets back in
 * queues of their own instead of pausing them (see bp_sched_state.h):
 * the queues, the routing of each held partition to its bucket's queue,
 * the splice to the front and the append to an empty consumer queue.
 */
#include "bp_sched_state.h"


/* After an assignment, decisions route the held partitions again for this
 * long (ms): a revocation's fetch stop, which clears a partition's
 * forward, lands within it. */
#define ROUTE_WINDOW_MS 5000

/* librdkafka calls this from its own thread when a higher rank's queue
 * gets a record while empty: the scheduler decides now, in case the
 * consumer queue is empty and the application waits in poll. */
static void higher_arrived(rd_kafka_t *rk, void *opaque) {
        (void)rk;
        bp_sched_wake(opaque);
}

int bp_sched_queues_start(bp_scheduler_t *s) {
        int r, low = s->n - 1;

        if (!(s->consumer_q = rd_kafka_queue_get_consumer(s->rk)) ||
            !(s->holding_q = rd_kafka_queue_new(s->rk)))
                goto fail;
        for (r = 0; r < s->n; r++) {
                if (!(s->rank_q[r] = rd_kafka_queue_new(s->rk)))
                        goto fail;
                if (r < low)
                        rd_kafka_queue_cb_event_enable(s->rank_q[r],
                                                       higher_arrived, s);
        }
        rd_kafka_queue_forward(s->rank_q[low], s->consumer_q);
        pthread_mutex_init(&s->splice_lock, NULL);
        s->hold_queues = 1;
        return 0;
fail:
        bp_sched_queues_end(s);
        return -1;
}

void bp_sched_queues_route(bp_scheduler_t *s, int assigning) {
        const bp_held_t *h = s->held;
        int i;

        if (!s->hold_queues)
                return;
        if (assigning)
                s->route_until_ms = bp_clock_ms() + ROUTE_WINDOW_MS;
        for (i = 0; i < h->cnt; i++) {
                const bp_held_part_t *p = &h->part[i];
                rd_kafka_queue_t *q;
                if (p->rank < 0 || p->rank >= s->n ||
                    !(q = rd_kafka_queue_get_partition(s->rk, h->topic,
                                                       p->partition)))
                        continue;
                rd_kafka_queue_forward(q, s->rank_q[p->rank]);
                rd_kafka_queue_destroy(q);
        }
}

int64_t bp_sched_queues_waiting(bp_scheduler_t *s, int rank) {
        return (int64_t)rd_kafka_queue_length(s->rank_q[rank]);
}

/* Whether a rank above \p rank has records waiting. */
static int higher_waiting(bp_scheduler_t *s, int rank) {
        int r;
        for (r = 0; r < rank; r++)
                if (rd_kafka_queue_length(s->rank_q[r]) > 0)
                        return 1;
        return 0;
}

/* Moves the content of the ranks above \p rank to the end of the
 * consumer queue, highest first; each queue stops forwarding after. */
static void move_higher(bp_scheduler_t *s, int rank) {
        int r;
        for (r = 0; r < rank; r++) {
                rd_kafka_queue_forward(s->rank_q[r], s->consumer_q);
                rd_kafka_queue_forward(s->rank_q[r], NULL);
        }
}

/* Appends the higher ranks' waiting records to the consumer queue if it
 * is empty (which makes them its front), the lowest rank held meanwhile. */
static void append_if_empty(bp_scheduler_t *s) {
        int low = s->n - 1;

        pthread_mutex_lock(&s->splice_lock);
        rd_kafka_queue_forward(s->rank_q[low], NULL); /* lowest waits */
        if (rd_kafka_queue_length(s->consumer_q) == 0)
                move_higher(s, low);
        rd_kafka_queue_forward(s->rank_q[low], s->consumer_q);
        pthread_mutex_unlock(&s->splice_lock);
}

/* The move to the front, with splice_lock held: the consumer queue's
 * content aside into the holding queue, the waiting records of the ranks
 * above \p rank into the emptied consumer queue, the held content back
 * behind them.
 *
 * Each rd_kafka_queue_forward() of a queue with content holds its lock
 * while it takes the destination's: consumer -> holding here, holding ->
 * consumer a moment later, an order ThreadSanitizer reports as a possible
 * deadlock. There is none: both happen only here, one splice at a time
 * (splice_lock), and librdkafka itself never holds one of the two queues'
 * locks while taking the other's (it lets go of a queue before following
 * its forward). tests/tsan/tsan.supp names this function for that one
 * report; it takes no lock of the plugin's. (The moves go through
 * splice_move() so that ThreadSanitizer's stacks, which lose the frame
 * that calls into the uninstrumented librdkafka, still show this one.) */
static __attribute__((noinline)) void splice_move(rd_kafka_queue_t *src,
                                                  rd_kafka_queue_t *dst) {
        rd_kafka_queue_forward(src, dst);
        __asm__ volatile("" ::: "memory"); /* not a tail call */
}

static __attribute__((noinline)) void bp_sched_queues_splice_front(
    bp_scheduler_t *s, int rank) {
        int low = s->n - 1, r;

        splice_move(s->rank_q[low], NULL); /* lowest waits */
        splice_move(s->consumer_q, s->holding_q);
        splice_move(s->consumer_q, NULL); /* emptied */
        for (r = 0; r < rank; r++) {
                splice_move(s->rank_q[r], s->consumer_q);
                splice_move(s->rank_q[r], NULL);
        }
        splice_move(s->holding_q, s->consumer_q);
        splice_move(s->holding_q, NULL);
        splice_move(s->rank_q[low], s->consumer_q);
        /* Another thread's poll begun while the consumer queue pointed
         * at the holding queue waits there: let it return. */
        rd_kafka_queue_yield(s->holding_q);
}

void bp_sched_queues_taken(bp_scheduler_t *s, int rank) {
        int low = s->n - 1;

        if (!s->hold_queues)
                return;
        /* The record taken was the last one queued: whatever waits goes
         * in now, rather than at the scheduler's next decision. */
        if (rd_kafka_queue_length(s->consumer_q) == 0 &&
            higher_waiting(s, low)) {
                append_if_empty(s);
                return;
        }
        if (rank <= 0 || !higher_waiting(s, rank))
                return;
        pthread_mutex_lock(&s->splice_lock);
        bp_sched_queues_splice_front(s, rank);
        pthread_mutex_unlock(&s->splice_lock);
        atomic_fetch_add_explicit(&s->splices, 1, memory_order_relaxed);
}

void bp_sched_queues_tick(bp_scheduler_t *s) {
        int low = s->n - 1;

        if (!s->hold_queues)
                return;
        if (bp_clock_ms() < s->route_until_ms)
                bp_sched_queues_route(s, 0);
        if (higher_waiting(s, low) &&
            rd_kafka_queue_length(s->consumer_q) == 0)
                append_if_empty(s);
}

void bp_sched_queues_end(bp_scheduler_t *s) {
        int r;

        if (s->hold_queues)
                pthread_mutex_destroy(&s->splice_lock);
        s->hold_queues = 0;
        for (r = 0; r < BP_MAX_BUCKETS; r++)
                if (s->rank_q[r]) {
                        rd_kafka_queue_forward(s->rank_q[r], NULL);
                        rd_kafka_queue_destroy(s->rank_q[r]);
                        s->rank_q[r] = NULL;
                }
        if (s->holding_q)
                rd_kafka_queue_destroy(s->holding_q);
        if (s->consumer_q)
                rd_kafka_queue_destroy(s->consumer_q);
        s->holding_q = s->consumer_q = NULL;
}
