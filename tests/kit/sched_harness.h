/*
 * sched_harness.h - the harness of test_mock_scheduler.c: one topic of
 * "critical, bulk" on the embedded mock cluster with a deep bulk backlog,
 * producers and a stream of critical records, consumers ("probes") that
 * judge every record delivered through public calls only, and the
 * scenario every run goes through (one consumer, then a second one joining
 * the group and leaving again). The checks themselves, and what they
 * hold the scheduler to, are in test_mock_scheduler.c.
 *
 * The topic: 12 partitions, bulk 0-7 (70%), critical 8-11 (30%). Records
 * are keyed "<bucket>-<id>", their value the monotonic ms they were
 * produced at; every id written and read is in harness.ledger.
 */
#ifndef SCHED_HARNESS_H
#define SCHED_HARNESS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "bp_test_util.h"

#define TOPIC "jobs"
#define PARTS 12
#define CRITICAL_FIRST 8 /* critical: 8-11, bulk: 0-7 */
#define BULK_N 50000
#define MAX_ID 400000
#define CRITICAL_BASE 100000 /* critical ids start here */

#define BUCKET_CONF                                                            \
        "bucket.priority.topic", TOPIC, "bucket.priority.buckets",             \
            "critical, bulk", "bucket.priority.allocation", "30%, 70%"
#define FAST_GROUP                                                             \
        "auto.offset.reset", "earliest", "auto.commit.interval.ms", "200",     \
            "session.timeout.ms", "6000", "heartbeat.interval.ms", "500",      \
            "fetch.wait.max.ms", "20"

/* Weighted: the critical share is judged per window of this many
 * deliveries made while both buckets had records waiting. */
#define WEIGHT_WINDOW 2000

/* What the tests share with the harness. */
typedef struct sched_harness {
        bp_test_cluster_t cluster;
        tk_ledger_t ledger;   /* every id written, reads per id */
        int next_critical_id; /* the next critical record's id */
        /* Critical ids from this one on are the current stream's: their
         * delays are kept. */
        int delay_from_id;
        /* queued.min.messages of the scheduled consumers, when set (a
         * small queue that the bulk backlog fills: librdkafka then fetches
         * nothing). */
        const char *queue_min;
        /* bucket.priority.hold of the scheduled consumers: NULL sets
         * "pause" (the tests written for pausing), "default" leaves it
         * unset (both schedules then queue), else the value set.
         * Non-NULL: the strict consumers hold bulk back in a queue. */
        const char *hold;
        /* bucket.priority.hold of the consumer that joins in the scenario,
         * when it differs from the first one's (a rolling restart). */
        const char *hold_second;
} sched_harness_t;

extern sched_harness_t harness;

/* BP_TEST_NO_TIMING=1 (the valgrind and ThreadSanitizer passes, where the
 * scheduler reacts many times slower than the application it races): the
 * bounds that depend on how fast it reacts (strict episodes, stream
 * delays, the spread over bulk partitions) are printed, not asserted;
 * everything else still is. */
int timing_asserted(void);

/* cmocka group setup: the cluster, the topic and the bulk backlog; and
 * the teardown. */
int harness_setup(void **state);
int harness_teardown(void **state);

/* After every test: stops and closes what a failed assertion left running
 * (cmocka leaves the test function at once), so that the next test and
 * the process end cleanly (a consumer left open kept valgrind from
 * exiting). */
int harness_cleanup(void **state);

/* --- producing ------------------------------------------------------------ */

typedef struct producer {
        rd_kafka_t *rk;
        long acked, failed;
} producer_t;

/* A producer of the bucket topic; \p batch caps records per batch. */
void producer_start(producer_t *p, const char *batch);
void producer_stop(producer_t *p);

/* Writes the next critical id through \p p and waits for its
 * acknowledgement. */
void produce_critical_now(producer_t *p);

/* Writes ids [from, to) to \p bucket in batches of at most \p batch. */
void produce_range(const char *bucket, int from, int to, const char *batch);

/* A stream of critical records from a thread: a burst of `burst` records
 * every `every_ms` until stopped. No cmocka calls in the thread. */
typedef struct stream {
        pthread_t thread;
        int burst, every_ms;
        atomic_int stop;
        int first_id, next_id;
        producer_t p;
} stream_t;

void stream_start(stream_t *st, int burst, int every_ms);
/* Stops the stream; every record it produced was acknowledged. */
void stream_stop(stream_t *st);

/* --- consumers and what the test sees of them ---------------------------- */

typedef enum { JUDGE_NONE, JUDGE_STRICT, JUDGE_WEIGHTED } judge_t;

typedef struct probe {
        rd_kafka_t *rk;
        int closed;
        int held[PARTS];      /* the consumer holds partition p */
        int assigned;         /* partitions of the topic assigned now */
        int64_t start[PARTS]; /* where it started there */
        long next_refresh_ms;
        long next_reread_ms;  /* start of a partition held again */
        long delivered[2];    /* critical, bulk */
        long by_partition[PARTS]; /* records delivered per partition */
        int64_t last_offset[PARTS]; /* of the last record delivered */
        long reordered; /* records read for the first time behind a later
                         * one of their partition */
        /* strict */
        long episode, max_episode, episodes;
        int64_t max_critical_lag; /* seen at critical deliveries */
        /* delays of the critical stream (ms from producev() to delivery) */
        long *delays;
        int delay_cnt, delay_cap;
        /* weighted */
        int window_critical, window_cnt;
        double min_share, max_share;
        long both_critical, both_cnt;
        long both_check;
        int both;
        int windows;
} probe_t;

/* A consumer of the list "critical, bulk" with \p schedule, or with
 * \p schedule NULL a plain consumer of the whole topic (the control). */
void probe_start(probe_t *pr, const char *group, const char *schedule,
                 const char *threshold);

/* Re-reads the consumer's assignment and where it started on each
 * partition. */
void probe_refresh(probe_t *pr);

/* Polls \p pr once; judges a delivered record as \p judge says and spends
 * \p work_us on it (the application's work). Returns 1 if a record came. */
int probe_poll(probe_t *pr, judge_t judge, int64_t threshold, long work_us);

/* Records the consumer \p rk fetched from the cluster so far (librdkafka's
 * statistics, "rxmsgs": a record fetched again counts again), as of its
 * last statistics (every 100 ms); -1 before the first. */
long probe_fetched(rd_kafka_t *rk);

/* BP_TEST_DEBUG=1: prints the consumer's bucket statistics. */
void probe_debug(probe_t *pr);

void probe_close(probe_t *pr);

/* Polls every open probe until every written id was read. */
void drain(probe_t *pr, int cnt, int timeout_ms);

/* bp_consumer_bucket_stats() agrees with what \p pr was delivered, and
 * both buckets' lag is 0 (drained). */
void check_stats(probe_t *pr);

/* --- the scenario --------------------------------------------------------- */

/* A consumer (two while a second one is in the group) judged at every
 * record: the scenario every run goes through. */
typedef struct scenario {
        probe_t pr[2];
        stream_t *stream; /* started once the first consumer is assigned */
        int open;       /* probes polled: 1, or 2 while the second is in */
        judge_t judge;
        long work_us;   /* the application's work per record */
        long next_debug;
} scenario_t;

/* One consumer for \p phase_ms; with \p rebalance, a second consumer then
 * joins the same group (both run \p phase_ms once the group settled) and
 * leaves again (the first runs \p phase_ms on all partitions). Each phase
 * also lasts until \p phase_records more records of \p phase_bucket (0
 * critical, 1 bulk) were delivered. */
void scenario_run(scenario_t *sc, const char *group, const char *schedule,
                  int rebalance, long phase_ms, long phase_records,
                  int phase_bucket);

#endif /* SCHED_HARNESS_H */
