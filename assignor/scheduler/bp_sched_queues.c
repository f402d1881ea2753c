/*
 * bp_sched_queues.c - holding lower buckets back in queues of their own
 * instead of pausing them (strict; weighted pauses only a bucket ahead of
 * its share, see bp_sched_state.h):
 * the queues, the routing of each held partition to its bucket's queue,
 * the consumer queue's redirection to the front queue, and the moves of
 * waiting records to the front.
 */
#include "bp_sched_state.h"


/* After an assignment, decisions route the held partitions again for this
 * long (ms): a revocation's fetch stop, which clears a partition's
 * forward, lands within it. */
#define ROUTE_WINDOW_MS 5000

/* librdkafka calls this from its own thread when a higher rank's queue
 * gets a record while empty (holding that queue's lock, so the move is
 * left to the scheduler thread): it moves the record to the front now. */
static void higher_arrived(rd_kafka_t *rk, void *opaque) {
        (void)rk;
        bp_sched_wake(opaque);
}

int bp_sched_queues_start(bp_scheduler_t *s) {
        int r, low = s->n - 1;

        if (!(s->consumer_q = rd_kafka_queue_get_consumer(s->rk)) ||
            !(s->front_q = rd_kafka_queue_new(s->rk)) ||
            !(s->holding_q = rd_kafka_queue_new(s->rk)))
                goto fail;
        for (r = 0; r < s->n; r++) {
                if (!(s->rank_q[r] = rd_kafka_queue_new(s->rk)))
                        goto fail;
                if (r < low)
                        rd_kafka_queue_cb_event_enable(s->rank_q[r],
                                                       higher_arrived, s);
        }
        /* The lowest rank flows in once the start gate opens. */
        s->open_to = -1;
        pthread_mutex_init(&s->splice_lock, NULL);
        s->hold_queues = 1;
        return 0;
fail:
        bp_sched_queues_end(s);
        return -1;
}

static void apply_gate(bp_scheduler_t *s, int open);
static int gate_open_to(bp_scheduler_t *s, int64_t now);

void bp_sched_queues_route(bp_scheduler_t *s, int assigning) {
        const bp_held_t *h = s->held;
        int i;

        if (!s->hold_queues)
                return;
        if (assigning) {
                s->route_until_ms = bp_clock_ms() + ROUTE_WINDOW_MS;
                atomic_store(&s->gating, 1); /* new partitions owe */
                apply_gate(s, gate_open_to(s, bp_clock_ms()));
        }
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

/* Every move goes through here (see bp_sched_queues_splice_front()). */
static __attribute__((noinline)) void splice_move(rd_kafka_queue_t *src,
                                                  rd_kafka_queue_t *dst) {
        rd_kafka_queue_forward(src, dst);
        __asm__ volatile("" ::: "memory"); /* not a tail call */
}

/* Whether a rank above \p rank has records waiting. */
static int higher_waiting(bp_scheduler_t *s, int rank) {
        int r;
        for (r = 0; r < rank; r++)
                if (rd_kafka_queue_length(s->rank_q[r]) > 0)
                        return 1;
        return 0;
}

/* The queue poll serves: the consumer queue until the first record is
 * taken, then the front queue. */
static rd_kafka_queue_t *front(bp_scheduler_t *s) {
        return s->fronted ? s->front_q : s->consumer_q;
}

/* Where the lowest rank's queue forwards: the queue poll serves, or
 * nowhere while the start gate holds it. */
static rd_kafka_queue_t *lowest_dst(bp_scheduler_t *s) {
        return s->open_to == s->n - 1 ? front(s) : NULL;
}

/* held->lock held: the lowest rank whose records may reach the front now
 * (see bp_sched_state.h). strict: the highest rank of a partition that
 * still owes its backlog, or the lowest rank when none does. weighted:
 * none (-1) while any held partition, of any rank, has not answered, so
 * that its shares hold from the first record, then every rank. Clears
 * gating once no partition owes. */
static int gate_open_to(bp_scheduler_t *s, int64_t now) {
        bp_held_t *h = s->held;
        int strict   = s->mode == BP_SCHEDULE_STRICT;
        int i, open = s->n - 1, owing = 0;

        if (!atomic_load(&s->gating))
                return open;
        bp_held_measure(h, h->part, h->cnt, now);
        for (i = 0; i < h->cnt; i++) {
                bp_held_part_t *p = &h->part[i];
                if (p->rank < 0 || p->rank >= s->n - (strict ? 1 : 0) ||
                    !bp_sched_gate_owed(&p->owed, p->stale ? -1 : p->hwm,
                                        p->at, strict, BP_SCHED_GATE_MS,
                                        now))
                        continue;
                owing = 1;
                if (!strict)
                        open = -1;
                else if (p->rank < open)
                        open = p->rank;
        }
        if (owing) /* decide every millisecond meanwhile */
                atomic_store_explicit(&s->quick_until_ms, now + 2,
                                      memory_order_relaxed);
        else
                atomic_store(&s->gating, 0);
        return open;
}

/* held->lock held: lets the ranks up to \p open reach the front. */
static void apply_gate(bp_scheduler_t *s, int open) {
        if (open == s->open_to)
                return;
        pthread_mutex_lock(&s->splice_lock);
        s->open_to = open;
        rd_kafka_queue_forward(s->rank_q[s->n - 1], lowest_dst(s));
        pthread_mutex_unlock(&s->splice_lock);
}

/* splice_lock held, on the application's thread in on_consume: from now
 * on the consumer queue forwards to the front queue (what it holds moves
 * there first, in order). */
static void redirect_to_front(bp_scheduler_t *s) {
        int low = s->n - 1;

        rd_kafka_queue_forward(s->rank_q[low], NULL);
        rd_kafka_queue_forward(s->consumer_q, s->front_q);
        s->fronted = 1;
        rd_kafka_queue_forward(s->rank_q[low], lowest_dst(s));
}

/* splice_lock held: the ranks that may move to the front now, as a bit
 * mask: those with records waiting, above every rank whose moved records
 * may still be there. */
static uint64_t movable(bp_scheduler_t *s) {
        uint64_t m = 0;
        int r;

        for (r = 0; r < s->n - 1 && r <= s->open_to &&
                    !(s->in_front & (1ull << r));
             r++)
                if (rd_kafka_queue_length(s->rank_q[r]) > 0)
                        m |= 1ull << r;
        return m;
}

/* Moves the waiting records of the ranks in \p m to the end of \p dst,
 * highest first; each queue stops forwarding after. */
static void move_ranks(bp_scheduler_t *s, uint64_t m, rd_kafka_queue_t *dst) {
        int r;
        for (r = 0; r < s->n - 1; r++)
                if (m & (1ull << r)) {
                        splice_move(s->rank_q[r], dst);
                        splice_move(s->rank_q[r], NULL);
                }
}

/* The move to the front, with splice_lock held and the lowest rank not
 * forwarding: the front queue's content aside into the holding queue, the
 * waiting records of the ranks in \p m into the emptied front queue, the
 * held content back behind them.
 *
 * Each rd_kafka_queue_forward() of a queue with content holds its lock
 * while it takes the destination's: front -> holding here, holding ->
 * front a moment later, an order ThreadSanitizer reports as a possible
 * deadlock. There is none: both happen only here, one splice at a time
 * (splice_lock), and librdkafka itself never holds one of the two queues'
 * locks while taking the other's (it lets go of a queue before following
 * its forward). tests/tsan/tsan.supp names this function for that one
 * report; it takes no lock of the plugin's. (The moves go through
 * splice_move() so that ThreadSanitizer's stacks, which lose the frame
 * that calls into the uninstrumented librdkafka, still show this one.) */
static __attribute__((noinline)) void bp_sched_queues_splice_front(
    bp_scheduler_t *s, uint64_t m) {
        splice_move(s->front_q, s->holding_q);
        splice_move(s->front_q, NULL); /* emptied */
        move_ranks(s, m, s->front_q);
        splice_move(s->holding_q, s->front_q);
        splice_move(s->holding_q, NULL);
        /* A poll begun while the front queue pointed at the holding queue
         * waits there: let it return. */
        rd_kafka_queue_yield(s->holding_q);
}

/* splice_lock held: moves what may move to the front: appended to an
 * empty queue that poll serves, or spliced in front of the front queue's
 * content (never in front of the consumer queue's: see bp_sched_state.h).
 * \p taken_at: the count of the record on_consume is taking, 0 on another
 * thread. */
static void bring_forward(bp_scheduler_t *s, uint64_t taken_at) {
        int low               = s->n - 1;
        rd_kafka_queue_t *dst = front(s);
        uint64_t m, proof;
        int empty;

        splice_move(s->rank_q[low], NULL); /* the lowest rank waits */
        empty = rd_kafka_queue_length(dst) == 0;
        if (empty ||
            atomic_load_explicit(&s->low_taken_at, memory_order_acquire) >=
                s->proof_at)
                s->in_front = 0; /* what was moved before is taken */
        m = movable(s);
        if (m && empty)
                move_ranks(s, m, dst);
        else if (m && s->fronted)
                bp_sched_queues_splice_front(s, m);
        else
                m = 0;
        splice_move(s->rank_q[low], lowest_dst(s));
        if (!m)
                return;
        s->in_front |= m;
        /* Popped after this move: on this thread, the next record taken;
         * on another, the one after the next. */
        proof = taken_at ? taken_at + 1
                         : atomic_load_explicit(&s->taken,
                                                memory_order_acquire) +
                               2;
        if (proof > s->proof_at)
                s->proof_at = proof;
        atomic_fetch_add_explicit(&s->splices, 1, memory_order_relaxed);
}

void bp_sched_queues_taken(bp_scheduler_t *s, int rank) {
        int low = s->n - 1;
        uint64_t at;

        if (!s->hold_queues)
                return;
        at = atomic_fetch_add_explicit(&s->taken, 1, memory_order_acq_rel) + 1;
        if (rank < low && atomic_load_explicit(&s->gating,
                                               memory_order_relaxed))
                bp_sched_wake(s); /* it may have handed its backlog out */
        if (rank == low)
                atomic_store_explicit(&s->low_taken_at, at,
                                      memory_order_release);
        if (!s->fronted) {
                pthread_mutex_lock(&s->splice_lock);
                if (!s->fronted)
                        redirect_to_front(s);
                pthread_mutex_unlock(&s->splice_lock);
        }
        if (!higher_waiting(s, low))
                return;
        pthread_mutex_lock(&s->splice_lock);
        bring_forward(s, at);
        pthread_mutex_unlock(&s->splice_lock);
}

void bp_sched_queues_tick(bp_scheduler_t *s) {
        if (!s->hold_queues)
                return;
        if (bp_clock_ms() < s->route_until_ms)
                bp_sched_queues_route(s, 0);
        apply_gate(s, gate_open_to(s, bp_clock_ms()));
        if (!higher_waiting(s, s->n - 1))
                return;
        pthread_mutex_lock(&s->splice_lock);
        bring_forward(s, 0);
        pthread_mutex_unlock(&s->splice_lock);
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
        if (s->fronted) /* after the close, if any: see bp_sched_state.h */
                rd_kafka_queue_forward(s->consumer_q, NULL);
        s->fronted = 0;
        if (s->holding_q)
                rd_kafka_queue_destroy(s->holding_q);
        if (s->front_q)
                rd_kafka_queue_destroy(s->front_q);
        if (s->consumer_q)
                rd_kafka_queue_destroy(s->consumer_q);
        s->holding_q = s->front_q = s->consumer_q = NULL;
}
