/*
 * bp_sched_state.h - the inside of the scheduler of a consumer serving
 * several buckets (its face, what the rest of the consumer side calls, is
 * bp_scheduler.h, with the algorithm explained): the state the files that
 * make it share, and what each of them does:
 *   bp_sched_thread.c   its creation, its thread, and what wakes it;
 *   bp_sched_ctl.c      thread control (stop, wake, an operation under
 *                       way), under ctl_lock;
 *   bp_sched_measure.c  the consumer queue's fill and the requests to the
 *                       cluster;
 *   bp_sched_pause.c    the decisions (shared/bp_schedule.c) applied with
 *                       pause and resume;
 *   bp_sched_queues.c   holding lower buckets back in queues of their own
 *                       (bucket.priority.hold=queue; strict, or weighted
 *                       beside its pauses).
 *
 * Decisions and pause state changes happen under the held set's lock
 * (held->lock), one actor at a time; thread control under ctl_lock.
 */
#ifndef BP_SCHED_STATE_H
#define BP_SCHED_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "bp_client.h"
#include "bp_clock.h"
#include "bp_schedule.h"
#include "bp_held.h"
#include "bp_scheduler.h"

/** While records flow, a delivery wakes the scheduler at most this often
 *  (µs); four times the last decision's cost when that is longer. */
#define BP_SCHED_WAKE_MIN_US 1000

/** Strict, while the consumer queue is full (librdkafka then fetches
 *  nothing): the higher buckets' high watermarks are asked of their
 *  leaders at most this often (ms), with this timeout. */
#define BP_SCHED_PROBE_MS 10
#define BP_SCHED_PROBE_TIMEOUT_MS 100

/** A request sent only to wake librdkafka's fetcher is waited for this
 *  long (ms), not for its answer. */
#define BP_SCHED_WAKE_TIMEOUT_MS 1

/** Strict, librdkafka before 2.2: for this long (ms) after the queue was
 *  last nearly full, while it is not, the same requests at the same pace.
 *  Those versions stop fetching every partition once the queue reached a
 *  threshold, and decide again only when their broker thread wakes, up to
 *  a second later: pauses and resumes do not wake it, a request does.
 *  (2.2 and later wait fetch.queue.backoff.ms, which the plugin sets.) */
#define BP_SCHED_REFETCH_MS 1100

/** The start gate (bp_sched_queues.c): a higher partition that neither
 *  answered nor moved for this long (ms) holds the lower ranks no longer;
 *  while a partition owes, decisions come every millisecond. */
#define BP_SCHED_GATE_MS 5000

/** Strict, after pausing on a nearly full queue: the scheduler decides
 *  every millisecond for this long (ms), to wake the fetcher again as soon
 *  as the paused records left the queue. */
#define BP_SCHED_DRAIN_WATCH_MS 20

/* The scheduler's view of one bucket (held->lock). */
typedef struct bp_sched_bucket {
        int paused;              /* held paused by the scheduler */
        int64_t paused_since_ms;
        uint64_t paused_ms;      /* completed pauses */
        uint64_t pauses;
        uint64_t delivered_seen; /* weighted: counter at the last tick */
        double credit;           /* weighted: records owed (+) or ahead (-) */
        bp_sched_lead_t lead;    /* a resume of the whole bucket */
} bp_sched_bucket_t;

struct bp_scheduler {
        bp_client_t *c;
        rd_kafka_t *rk;
        bp_held_t *held;        /* the partitions held; its lock */
        bp_deliveries_t *served; /* buckets by rank, records delivered */
        int n;                  /* buckets served */
        bp_schedule_t mode;
        int64_t threshold;
        int64_t grace_ms;        /* unknown lag counts as lag this long */
        int64_t queue_min_msgs;  /* queued.min.messages */
        int64_t queue_max_bytes; /* queued.max.messages.kbytes, in bytes */
        int64_t last_probe_ms;   /* held->lock */
        int64_t full_seen_ms;    /* held->lock: queue nearly full then */
        int wake_fetcher;        /* librdkafka < 2.2: no queue backoff,
                                  * see BP_SCHED_REFETCH_MS */
        int queue_blocked;       /* held->lock: queue nearly full at the
                                  * last decision */

        /* held->lock: */
        bp_sched_part_t *view; /* held as the decisions see it */
        int32_t view_cap;
        uint8_t *paused_by_us; /* by partition, survives assignments */
        int32_t paused_cap;
        bp_sched_bucket_t b[BP_MAX_BUCKETS];

        pthread_mutex_t ctl_lock;
        pthread_cond_t ctl_cond;
        pthread_t thread;
        int thread_started, stop, wake, in_op;

        /* bucket.priority.hold=queue (bp_sched_queues.c): asked for
         * (want_queues), and set up at the first assignment, once the
         * consumer queue exists (hold_queues, under held->lock; never
         * cleared while the scheduler runs). */
        int want_queues;
        _Atomic int hold_queues;
        rd_kafka_queue_t *consumer_q, *front_q, *holding_q;
        rd_kafka_queue_t *rank_q[BP_MAX_BUCKETS];
        pthread_mutex_t splice_lock;  /* one move at a time; guards: */
        _Atomic int fronted;          /* the consumer queue forwards to
                                       * front_q (from the first record) */
        uint64_t in_front;            /* bit r: rank r moved to the front,
                                       * not yet known all taken */
        uint64_t proof_at;            /* a lowest-rank record taken at
                                       * this count or later knows it */
        _Atomic uint64_t taken;       /* records taken (on_consume) */
        _Atomic uint64_t kicks;       /* stalled partitions started again
                                       * (bp_sched_kick.c), the last one, and
                                       * how many were logged */
        int32_t kick_partition;
        int64_t kick_offset;
        uint64_t kicks_logged;
        _Atomic uint64_t low_taken_at; /* count of the last lowest-rank */
        int64_t route_until_ms;       /* held->lock: route at decisions */
        /* The start gate (bp_sched_queues.c, shared/bp_schedule.h): the
         * ranks up to open_to may reach the front, the lowest rank flows
         * in only when open_to is the lowest (changed under splice_lock
         * and held->lock); gating: some held partition may still owe
         * (held->lock to clear, set when partitions are assigned). */
        _Atomic int open_to;
        _Atomic int gating;
        _Atomic uint64_t splices;     /* moves to the front */

        _Atomic uint64_t paused_ranks; /* bit r: rank r paused */
        _Atomic int64_t next_wake_us;
        _Atomic int64_t tick_cost_us;
        _Atomic int64_t record_bytes; /* average record size delivered */
        _Atomic int64_t quick_until_ms; /* decide every ms until then */
};

/*
 * bp_sched_ctl.c: thread control of the scheduler: waking it, stopping
 * it, and the gate every pause, resume or request to the cluster passes,
 * so that none starts once the client is stopping.
 */

/** Before a pause, resume or request: 1 if it may run (end it with
 *  bp_sched_op_end()), 0 once the client is stopping or the consumer
 *  closed. */
int bp_sched_op_begin(bp_scheduler_t *s);

/** After an operation bp_sched_op_begin() let through. */
void bp_sched_op_end(bp_scheduler_t *s);

/**
 * Stops the thread (on_destroy). Returns -1 when an operation was still in
 * flight after a wait: the thread is then left behind, detached, and the
 * state must be kept.
 */
int bp_sched_stop(bp_scheduler_t *s);

/*
 * bp_sched_measure.c: what the scheduler measures beyond the held
 * partitions' lag (bp_held.h): how full the consumer queue is, and the
 * high watermarks asked of the leaders while that queue stops librdkafka's
 * fetching (requests to the cluster).
 */

/**
 * The consumer queue's fill in per mille of the nearer of its thresholds
 * (queued.min.messages, queued.max.messages.kbytes): 1000 means librdkafka
 * fetches nothing.
 */
int64_t bp_sched_queue_fill(bp_scheduler_t *s);

/**
 * With held->lock held: asks the leaders for the high watermarks of the
 * held partitions of every bucket but the lowest, which also wakes
 * librdkafka's fetcher. With \p note the answer counts as their high
 * watermarks (probed); without, only the fetcher is woken.
 */
void bp_sched_probe(bp_scheduler_t *s, int64_t now_ms, int note);

/*
 * bp_sched_pause.c: the glue between the scheduler's decisions
 * (shared/bp_schedule.h: which ranks may deliver now, strict or weighted,
 * and how a paused bucket resumes) and librdkafka's pause and resume of
 * the held partitions; and each bucket's pause statistics.
 */

/** With held->lock held: one decision over the held partitions (measure,
 *  decide, pause and resume), or, with none held, every bucket running. */
void bp_sched_evaluate(bp_scheduler_t *s);

/*
 * bp_sched_queues.c: the strict schedule holding lower buckets back
 * without dropping what librdkafka fetched (bucket.priority.hold=queue).
 *
 * librdkafka puts each partition's fetched records on the partition's
 * fetch queue, which forwards to the consumer queue that
 * rd_kafka_consumer_poll() serves. Here each held partition's fetch queue
 * forwards instead to a queue of its bucket, and the consumer queue itself
 * forwards to a *front queue* of the plugin's, which poll then serves:
 *
 *   partition fetch queues ──▶ rank 0 queue ─┐ (moved in by a splice)
 *                          ──▶ rank 1 queue ─┤
 *                          ──▶ lowest rank ──┴──▶ front queue ◀── consumer
 *                                  (flows in continuously)   │     queue
 *                                                            ▼
 *                                                          poll
 *
 * The lowest bucket's queue forwards into the front queue all the time. A
 * higher bucket's records enter it only by a *splice*, which puts them at
 * its front: the lowest queue stops forwarding, the front queue's content
 * moves aside into a holding queue, the higher queues' records move into
 * the emptied front queue (highest first), the held records follow, and
 * the lowest queue forwards again. When the front queue is empty, waiting
 * records are simply appended. Every move is rd_kafka_queue_forward(),
 * which appends a queue's whole content to another, in order, and drops
 * nothing.
 *
 * Why a front queue of the plugin's: a splice redirects the queue it
 * rearranges for a moment, and rd_kafka_consumer_close() redirects the
 * consumer queue (to a queue of its own, which it serves until the group
 * is left). Splicing the consumer queue itself could undo that redirection
 * and hang the close, so it could only be done on the application's
 * thread inside poll. The plugin never redirects the consumer queue but
 * once: at the first record taken (on_consume, inside poll), to the front
 * queue; before that, waiting records are only appended to an empty
 * consumer queue. So a splice may run on any thread at any time, and the
 * scheduler thread makes one as soon as a higher bucket's records arrive
 * (librdkafka's queue event wakes it), not only when the application takes
 * its next record. A close simply stops serving the front queue.
 *
 * When a splice may move a rank, so that no partition's records are
 * delivered out of order: only while none of that rank's records moved
 * before can still be in the front queue (in_front), and only ranks above
 * every rank still there. A rank's moved records are known taken when the
 * front queue is empty, or once a record of the lowest rank is taken that
 * was popped after the move ended: the lowest rank only ever enters behind
 * everything moved. With one thread polling (librdkafka's and every
 * client's model), the record taken two on_consume calls after a move
 * ended was popped after it (one after, for a move made inside
 * on_consume). A rank whose moved records were dropped by poll (a
 * revocation's version barrier) is freed the same way, so none stays
 * stuck.
 *
 * The start gate: when partitions are assigned (the first assignment, a
 * restart, a takeover, growth, an incremental assignment), a lower rank's
 * records reach the front only once every newly held partition of the
 * ranks above it has answered its first fetch and, for strict, the
 * application was handed its records up to the high watermark of that
 * answer (bp_sched_gate_owed()): before the first answer nothing says
 * whether a higher bucket has a backlog, and the lower ranks' answers
 * would otherwise reach the application first. Held records stay in
 * their rank's queue (fetched, none dropped; librdkafka stops fetching
 * that rank once its queue reaches queued.min.messages). A partition that
 * makes no progress for BP_SCHED_GATE_MS no longer holds anyone.
 *
 * librdkafka facts this stands on (its source, 2.0.2 to 2.15):
 *   - a forward set by the application (rd_kafka_queue_forward() on a
 *     partition's queue) is kept when the partition's fetch starts, and
 *     cleared when its fetch stops (a revocation): the held partitions
 *     are routed again before each assignment and, for a few seconds after
 *     one, at every decision (a stop that lands late would otherwise leave
 *     the partition's records on its own queue);
 *   - a record of a partition revoked since it was fetched is dropped by
 *     poll (its version barrier), wherever it waited;
 *   - poll follows the consumer queue's forward, and a queue's content
 *     moved by a forward wakes a poll waiting on the destination;
 *   - the consumer queue's forward is set by librdkafka only in
 *     rd_kafka_consumer_close(), and on_destroy runs after that close.
 */

/** With held->lock held, at the first assignment (the consumer queue
 *  exists from then on): sets up the bucket queues of scheduler \p s.
 *  Returns 0, or -1 when librdkafka cannot give them (then the schedule
 *  holds by pause). */
int bp_sched_queues_start(bp_scheduler_t *s);

/** With held->lock held: forwards each held partition's fetch queue to
 *  its bucket's queue; before an assignment (\p assigning: also opens the
 *  window in which decisions route again, and closes the start gate while
 *  a newly held higher partition owes its backlog) and while that window
 *  lasts. */
void bp_sched_queues_route(bp_scheduler_t *s, int assigning);

/** on_consume, the application took a record of rank \p rank: at the
 *  first, the consumer queue forwards to the front queue; then records
 *  waiting in the higher ranks are moved to the front where they may be. */
void bp_sched_queues_taken(bp_scheduler_t *s, int rank);

/** The scheduler thread, with held->lock held: routes again in the window
 *  after an assignment, and moves the higher ranks' waiting records to the
 *  front where they may be. */
void bp_sched_queues_tick(bp_scheduler_t *s);

/** weighted holding by queue, the scheduler thread with held->lock held,
 *  after its decision: seeks a resumed higher-bucket partition that fetches
 *  nothing to its position, which starts its fetch again
 *  (bp_sched_kick.c). */
void bp_sched_kick_stalled(bp_scheduler_t *s, int64_t now);

/** The scheduler thread, without held->lock (the log may reach the
 *  application): logs the partitions started again since it last did. */
void bp_sched_kick_report(bp_scheduler_t *s);

/** Records waiting in the queue of rank \p rank (not yet in the consumer
 *  queue). */
int64_t bp_sched_queues_waiting(bp_scheduler_t *s, int rank);

/** Stops forwarding and releases the queues (on_destroy). */
void bp_sched_queues_end(bp_scheduler_t *s);

#endif /* BP_SCHED_STATE_H */
