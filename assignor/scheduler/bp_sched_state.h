/*
 * bp_sched_state.h - the state of the scheduler of a consumer serving
 * several buckets (bp_scheduler.h), shared by the files that make it:
 * bp_sched_ctl.c (thread control), bp_sched_measure.c (the consumer queue,
 * requests to the cluster), bp_sched_pause.c (decisions applied with pause
 * and resume) and bp_scheduler.c (the thread, creation, hooks); and how
 * often it acts.
 *
 * Decisions and pause state changes happen under the held set's lock
 * (held->lock), one actor at a time; thread control (stop, wake, an
 * operation in progress) under ctl_lock.
 */
#ifndef BP_SCHED_STATE_H
#define BP_SCHED_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "bp_client.h"
#include "bp_clock.h"
#include "bp_schedule.h"
#include "bp_deliveries.h"
#include "bp_held.h"

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

typedef struct bp_scheduler {
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

        /* bucket.priority.hold=queue (bp_sched_queues.h): asked for
         * (want_queues), and set up at the first assignment, once the
         * consumer queue exists (hold_queues, under held->lock; never
         * cleared while the scheduler runs). */
        int want_queues;
        _Atomic int hold_queues;
        rd_kafka_queue_t *consumer_q, *holding_q;
        rd_kafka_queue_t *rank_q[BP_MAX_BUCKETS];
        pthread_mutex_t splice_lock;  /* one splice or append at a time */
        int64_t route_until_ms;       /* held->lock: route at decisions */
        _Atomic uint64_t splices;     /* moves to the front, for the log */

        _Atomic uint64_t paused_ranks; /* bit r: rank r paused */
        _Atomic int64_t next_wake_us;
        _Atomic int64_t tick_cost_us;
        _Atomic int64_t record_bytes; /* average record size delivered */
        _Atomic int64_t quick_until_ms; /* decide every ms until then */
} bp_scheduler_t;

#endif /* BP_SCHED_STATE_H */
