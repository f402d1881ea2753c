/*
 * bp_scheduler.h - one consumer serving several buckets, highest priority
 * first (bucket.priority.bucket = "critical, normal, bulk").
 *
 * The consumer reads the union of its buckets' partitions (bp_classic.c,
 * bp_kip848.c); the scheduler decides, every few milliseconds, which of
 * those partitions may deliver records, and pauses or resumes them with
 * librdkafka's rd_kafka_pause_partitions() / rd_kafka_resume_partitions():
 *
 *   strict    every partition of a lower bucket is paused while a partition
 *             of a higher bucket held by this consumer has a lag above
 *             bucket.priority.lag.threshold, and resumed when it drained;
 *   weighted  every bucket with records waiting is served in proportion to
 *             its allocation (a deficit counter per bucket pauses the one
 *             that got ahead of its share).
 *
 * With bucket.priority.hold=queue (the default of both schedules)
 * each bucket's fetched records wait in a queue of their own and a higher
 * bucket's are moved ahead (bp_sched_queues.c): strict then pauses
 * nothing, and weighted pauses a bucket ahead of its share only while a
 * lower bucket has records waiting (bp_sched_hold_only_for_lower()).
 *
 * Lag is the partition's cached high watermark minus the consumer's
 * position: no request to the cluster per decision (except while the
 * consumer queue is full and librdkafka fetches nothing, see
 * bp_sched_probe() in bp_sched_measure.c). Records of a partition already fetched when it is
 * paused are dropped by librdkafka (its op version barrier) and fetched
 * again from the position on resume, so pausing never loses or skips a
 * record and never triggers a rebalance.
 *
 * librdkafka 2.0.2 facts this file stands on (read in its source, checked on
 * the mock cluster):
 *   - a pause survives rd_kafka_assign(): a partition paused, revoked and
 *     assigned again stays paused, and a pause set before the assignment
 *     holds once it is assigned; so the rebalance hooks below set the state
 *     of every new partition before the application assigns it;
 *   - resuming a partition that is not paused still raises its version
 *     barrier and restarts its fetch from an older offset (duplicates,
 *     librdkafka #4636, fixed in 2.4.0): only partitions the scheduler
 *     paused are ever resumed;
 *   - pause and resume wait for librdkafka's main thread; the scheduler
 *     thread stops before that thread ends (on_destroy), and never starts
 *     an operation once the consumer is closed;
 *   - the fetch queue thresholds (queued.min.messages, .kbytes) count the
 *     one consumer queue every partition feeds: a full queue stops the
 *     fetching of every bucket, and librdkafka looks again up to a second
 *     later (2.0) or after fetch.queue.backoff.ms (2.2 and later).
 */
#ifndef BP_SCHEDULER_H
#define BP_SCHEDULER_H

#include "bp_rdk.h"

#include "bp_client.h"
#include "bp_held.h"

/** The scheduler decides at least this often (ms). */
#define BP_SCHED_TICK_MS 10

/** One consumer's scheduler (its inside: bp_sched_state.h). */
typedef struct bp_scheduler bp_scheduler_t;

/**
 * Starts the scheduler of consumer \p rk (client \p c, created from
 * \p conf), which serves the d->n >= 2 buckets of \p d, named \p names in
 * its log, and holds the partitions of \p h: a thread that decides every
 * BP_SCHED_TICK_MS, or when woken, under h->lock. NULL when it cannot
 * start (logged): the buckets are then served without priority.
 */
bp_scheduler_t *bp_scheduler_start(bp_client_t *c,
                                   rd_kafka_t *rk,
                                   const rd_kafka_conf_t *conf,
                                   bp_held_t *h,
                                   bp_deliveries_t *d,
                                   const char *names);

/**
 * Stops the thread and frees the scheduler; on_destroy. Returns -1 when
 * the thread was left behind instead, its state kept (a pause or resume
 * was in flight while the client was destroyed, see bp_sched_stop()).
 */
int bp_scheduler_end(bp_scheduler_t *s);

/** on_consume, once the record \p m of a bucket of rank \p rank was
 *  counted: wakes the scheduler when a decision may change (a partition
 *  drained while another bucket waits, or at most every
 *  BP_SCHED_WAKE_MIN_US while records flow). */
void bp_scheduler_on_record(bp_scheduler_t *s,
                            rd_kafka_t *rk,
                            const rd_kafka_message_t *m,
                            int rank);

/**
 * With h->lock held, right after a new assignment became the held set
 * (before rd_kafka_assign()): the weighted credits start again, and the
 * new partitions are paused or resumed for the current lags, so that no
 * record of a lower bucket slips through a rebalance. Wake the scheduler
 * (bp_sched_wake()) once the lock is released.
 */
void bp_scheduler_assigning(bp_scheduler_t *s);

/** With h->lock held, the held set emptied (revocation, lost partitions,
 *  errors) or, on the consumer protocol, some partitions revoked from it:
 *  the scheduler decides again over what is still held (with nothing,
 *  every bucket counts as running), and no pause is in progress when this
 *  returns. */
void bp_scheduler_revoking(bp_scheduler_t *s);

/** Has the scheduler thread decide now (bp_sched_ctl.c). */
void bp_sched_wake(bp_scheduler_t *s);

/** With held->lock held: whether bucket \p b is paused now, how many times
 *  it was, and for how long in all (ms) at \p now_ms
 *  (bp_sched_pause.c). */
void bp_sched_bucket_pauses(const bp_scheduler_t *s,
                            int b,
                            int64_t now_ms,
                            int *paused,
                            uint64_t *pauses,
                            uint64_t *paused_ms);

#endif /* BP_SCHEDULER_H */
