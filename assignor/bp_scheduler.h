/*
 * bp_scheduler.h - one consumer serving several buckets, highest priority
 * first (bucket.priority.bucket = "critical, normal, bulk").
 *
 * The consumer reads the union of its buckets' partitions (bp_rebalance.c);
 * this file decides, every few milliseconds, which of those partitions may
 * deliver records, and pauses or resumes them with librdkafka's
 * rd_kafka_pause_partitions() / rd_kafka_resume_partitions():
 *
 *   strict    every partition of a lower bucket is paused while a partition
 *             of a higher bucket held by this consumer has a lag above
 *             bucket.priority.lag.threshold, and resumed when it drained;
 *   weighted  every bucket with records waiting is served in proportion to
 *             its allocation (a deficit counter per bucket pauses the one
 *             that got ahead of its share).
 *
 * Lag is the partition's cached high watermark minus the consumer's
 * position: no request to the cluster per decision (except while the
 * consumer queue is full and librdkafka fetches nothing, see probe() in
 * bp_scheduler.c). Records of a partition already fetched when it is
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
 *     librdkafka #4636, fixed in 2.4.0): only partitions this file paused
 *     are ever resumed;
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

#include "../plugin/bp_rdk.h"

#include "../plugin/bp_client.h"
#include "../shared/bp_layout.h"
#include "../shared/bp_schedule.h"

typedef struct bp_scheduler bp_scheduler_t;

/** The scheduler decides at least this often (ms). */
#define BP_SCHED_TICK_MS 10

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

/** Strict, after pausing on a nearly full queue: the scheduler decides
 *  every millisecond for this long (ms), to wake the fetcher again as soon
 *  as the paused records left the queue. */
#define BP_SCHED_DRAIN_WATCH_MS 20

/** fetch.queue.backoff.ms (librdkafka >= 2.2) of a consumer of several
 *  buckets, unless the user sets it: how soon librdkafka fetches again
 *  once its queue was full (its default, 1000 ms, would hold a higher
 *  bucket's records that long behind a lower bucket's backlog). */
#define BP_SCHED_QUEUE_BACKOFF_MS_TEXT "10"

/** fetch.wait.max.ms of a consumer of several buckets, unless the user
 *  sets it: a resumed bucket's records come with the next fetch, which
 *  waits for the fetch the broker holds meanwhile (up to this long) for
 *  the other buckets; librdkafka's default, 500 ms, would hold every
 *  switch between buckets that long. */
#define BP_SCHED_FETCH_WAIT_MS_TEXT "100"

/** Configuration time, from conf_init(): properties set before the plugin
 *  loaded. */
void bp_scheduler_conf_init(bp_client_t *c, const rd_kafka_conf_t *conf);

/** Configuration time, for every property set: notes the user's own
 *  values of the properties the scheduler tunes. */
void bp_scheduler_conf_seen(bp_client_t *c, const char *name);

/**
 * Configuration time, after bucket.priority.bucket changed: a consumer of
 * several buckets gets BP_SCHED_FETCH_WAIT_MS_TEXT and, where librdkafka
 * has the property (2.2 and later), BP_SCHED_QUEUE_BACKOFF_MS_TEXT, each
 * unless the user set it; librdkafka's defaults come back when the list
 * shrinks to one bucket. Returns RD_KAFKA_CONF_OK.
 */
rd_kafka_conf_res_t bp_scheduler_conf_apply(bp_client_t *c,
                                            rd_kafka_conf_t *conf);

/**
 * Called from on_new() for every bucket consumer: counts the records each
 * bucket delivers (stats), and for a consumer serving more than one bucket
 * starts the scheduler thread. Registers its own on_consume and on_destroy
 * interceptors. Failure only means no scheduling (logged).
 */
void bp_scheduler_on_new(bp_client_t *c,
                         rd_kafka_t *rk,
                         const rd_kafka_conf_t *conf);

/**
 * Called by bp_offsets_decide() with the group's committed offsets of every
 * partition of the bucket topic (RD_KAFKA_OFFSET_INVALID when none): where
 * a newly assigned partition starts, before the consumer has a position.
 */
void bp_scheduler_note_committed(bp_client_t *c,
                                 const rd_kafka_topic_partition_list_t *all);

/**
 * Called by bp_assignment_map() with the list the application is about to
 * assign (start offsets decided) and the layout it was mapped with. Makes
 * it the scheduler's assignment and pauses or resumes its partitions for
 * the current lags, before rd_kafka_assign(): no record of a lower bucket
 * slips through a rebalance.
 */
void bp_scheduler_assigning(bp_client_t *c,
                            rd_kafka_t *rk,
                            const rd_kafka_topic_partition_list_t *assigned,
                            const bp_layout_t *layout);

/**
 * Called by bp_rebalance_cb() before it unassigns (revocation, lost
 * partitions, errors): the scheduler holds nothing until the next
 * assignment, and no pause is in progress when this returns.
 */
void bp_scheduler_revoking(bp_client_t *c);

#endif /* BP_SCHEDULER_H */
