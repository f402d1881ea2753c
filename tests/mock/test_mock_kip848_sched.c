/*
 * test_mock_kip848_sched.c - a consumer of several buckets (the scheduler,
 * bucket.priority.bucket = "critical, bulk": strict set to pause, whose
 * queue is test_mock_sched_queue.c's and test_mock_scheduler.c's, and
 * weighted holding by queue, its default) on the next
 * generation consumer group protocol (KIP-848, group.protocol=consumer) on
 * librdkafka's mock cluster, which speaks it from librdkafka 2.12 (its own
 * range-like assignor, handing out partitions incrementally). The topic
 * has three buckets, "critical, normal, bulk", so the consumers hold
 * partitions outside their buckets (normal's), kept paused.
 *
 * One member (properties only, the plugin's callback) under a bulk backlog
 * and bursts of critical records; a second member (its application's
 * callback assigning incrementally, as confluent-kafka-python does) joins
 * and leaves again. Judged at every record, through public calls only:
 *   - no record of a partition outside the member's buckets is delivered,
 *     none of another bucket's key;
 *   - strict: at every bulk record, the member's critical lag (cached high
 *     watermark minus position on the critical partitions it holds and has
 *     a position on); a run of bulk records delivered while it is above 0
 *     is an episode, at most STRICT_BOUND records (the control, a plain
 *     consumer on the same protocol, shows runs of thousands);
 *   - in every settled state the members hold the whole topic between
 *     them, each partition once; the normal partitions were never fetched
 *     (no position); each member's scheduler holds exactly the critical
 *     and bulk partitions of its assignment (bp_consumer_bucket_stats()),
 *     revoked ones gone;
 *   - at the end every record of both buckets read, lag 0 per bucket in
 *     the statistics, bulk paused and critical never, 0 foreign;
 *   - weighted (a critical backlog beside the bulk one): the critical share
 *     of the records delivered while both buckets lag, per window of
 *     WEIGHT_WINDOW and overall, around its 25 / (25 + 50) of the list
 *     through the join and the leave; bulk, the lowest bucket, never
 *     paused; the same checks of what was delivered, held and read.
 * BP_TEST_NO_TIMING=1 (valgrind): the bounds that depend on how fast the
 * scheduler reacts, and the volumes of each phase, are printed, not
 * asserted. Skipped (cmocka skip) on librdkafka older than 2.12, where the
 * plugin refuses group.protocol=consumer naming the version
 * (test_mock_consumer).
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bp_test_util.h"
#include "include/bucket_priority.h"

#define TOPIC "jobs"
#define PARTS 12
#define BUCKET_CONF                                                            \
        "bucket.priority.topic", TOPIC, "bucket.priority.buckets",             \
            "critical, normal, bulk", "bucket.priority.allocation",            \
            "25%, 25%, 50%", "bucket.priority.layout", "stable"
#define BULK_N 60000
#define CRITICAL_BASE 100000
#define NORMAL_BASE 300000
#define MAX_ID 300000
/* Bulk records one member delivers while its critical lag is above 0, per
 * episode (test_mock_scheduler.c holds the classic protocol to the same). */
#define STRICT_BOUND_NATIVE BP_TEST_STRICT_BOUND_NATIVE
#define STRICT_BOUND BP_TEST_STRICT_BOUND
#define WORK_US 100
/* Weighted: critical's share of the list "critical, bulk", in percent,
 * judged per window of this many deliveries made while both lag, with
 * test_mock_scheduler.c's tolerances. */
#define WEIGHT_SHARE (100.0 * 25 / 75)
#define WEIGHT_WINDOW 2000
#define WEIGHT_TOLERANCE 10.0
#define WEIGHT_OVERALL_TOLERANCE 5.0
#define WEIGHT_BACKLOG 12000

enum { CRITICAL, NORMAL, BULK };
static const char *const names[] = {"critical", "normal", "bulk"};

static bp_test_cluster_t cluster;
static int bucket_of[PARTS]; /* from the delivery reports */
static tk_ledger_t ledger;
static rd_kafka_t *stream; /* a producer of critical bursts */
static int next_critical = CRITICAL_BASE;

typedef struct member {
        rd_kafka_t *rk;
        int closed, judged;
        long delivered[3], outside, wrong_key;
        long episode, worst, episodes;
        int weighted; /* judged by shares, not by episodes */
        long both, both_critical, window, window_critical, windows;
        double min_share, max_share;
        int assigned[PARTS]; /* the assignment, re-read every 20 ms */
        int64_t next_refresh_ms;
} member_t;

static int timing_asserted(void) {
        const char *v = getenv("BP_TEST_NO_TIMING");
        return !v || strcmp(v, "1");
}

/* Writes ids [from, to) keyed "<bucket>-<id>" through the plugin's
 * partitioner of producer \p rk, without waiting; notes them written. */
static void produce(rd_kafka_t *rk, int bucket, int from, int to) {
        char key[32];
        int id;

        for (id = from; id < to; id++) {
                int n = snprintf(key, sizeof(key), "%s-%d", names[bucket], id);
                while (rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(TOPIC),
                                         RD_KAFKA_V_KEY(key, (size_t)n),
                                         RD_KAFKA_V_VALUE("v", 1),
                                         RD_KAFKA_V_END) ==
                       RD_KAFKA_RESP_ERR__QUEUE_FULL)
                        rd_kafka_poll(rk, 10);
                if (id < MAX_ID)
                        tk_ledger_write(&ledger, id);
        }
}

static void note_buckets(const bp_test_drs_t *drs) {
        size_t i;
        int b;
        for (i = 0; i < drs->cnt; i++)
                for (b = 0; b < 3; b++)
                        if (tk_key_is_bucket(drs->v[i].key, drs->v[i].keylen,
                                             names[b]))
                                bucket_of[drs->v[i].partition] = b;
}

static int setup(void **state) {
        bp_test_drs_t drs = {0};
        void (*heartbeat)(rd_kafka_mock_cluster_t *, int);
        rd_kafka_t *rk;

        if (!bp_test_kip848_host())
                return 0;
        bp_test_cluster_start(&cluster, 1);
        *state = &cluster;
        bp_test_cluster_topic(&cluster, TOPIC, PARTS);
        /* Joins in about a second, not the mock's 3 s heartbeats (the
         * setter exists from librdkafka 2.12, not in older headers). */
        *(void **)&heartbeat = dlsym(
            RTLD_DEFAULT,
            "rd_kafka_mock_set_group_consumer_heartbeat_interval_ms");
        if (heartbeat)
                heartbeat(cluster.mcluster, 500);
        assert_int_equal(tk_ledger_init(&ledger, MAX_ID), 0);
        rk = bp_test_producer(bp_test_conf(cluster.bootstraps, BUCKET_CONF,
                                           "batch.num.messages", "10000",
                                           NULL),
                              &drs);
        produce(rk, BULK, 0, BULK_N);
        produce(rk, NORMAL, NORMAL_BASE, NORMAL_BASE + 3000);
        produce(rk, CRITICAL, next_critical, next_critical + 1000);
        next_critical += 1000;
        bp_test_wait_drs(rk, &drs, BULK_N + 4000, 120000);
        note_buckets(&drs);
        rd_kafka_destroy(rk);
        bp_test_drs_free(&drs);
        return 0;
}

static int teardown(void **state) {
        if (!bp_test_kip848_host())
                return 0;
        tk_ledger_free(&ledger);
        return bp_test_cluster_teardown(state);
}

/* A member of the list "critical, bulk" (strict set to pause, or with
 * \p weighted the weighted schedule holding as by default), or with
 * \p plain a consumer of the whole topic without the plugin (the
 * control). */
static void member_start(member_t *m, const char *group, int app_cb,
                         int plain, int weighted) {
        const char *schedule = weighted ? "weighted" : "strict";
        rd_kafka_conf_t *conf;
        rd_kafka_topic_partition_list_t *sub;
        char errstr[512];

        memset(m, 0, sizeof(*m));
        m->judged    = 1;
        m->weighted  = weighted;
        m->min_share = 100;
        if (plain) {
                conf = rd_kafka_conf_new();
                assert_int_equal(bp_test_set(conf, "bootstrap.servers",
                                             cluster.bootstraps, errstr,
                                             sizeof(errstr)),
                                 RD_KAFKA_CONF_OK);
                assert_int_equal(bp_test_set(conf, "group.protocol",
                                             "consumer", errstr,
                                             sizeof(errstr)),
                                 RD_KAFKA_CONF_OK);
                assert_int_equal(bp_test_set(conf, "group.id", group, errstr,
                                             sizeof(errstr)),
                                 RD_KAFKA_CONF_OK);
                assert_int_equal(bp_test_set(conf, "auto.offset.reset",
                                             "earliest", errstr,
                                             sizeof(errstr)),
                                 RD_KAFKA_CONF_OK);
        } else if (app_cb) {
                conf = bp_test_conf(
                    cluster.bootstraps, "group.protocol", "consumer",
                    BUCKET_CONF, "bucket.priority.bucket", "critical, bulk",
                    "bucket.priority.schedule", schedule, "group.id", group,
                    "auto.offset.reset", "earliest",
                    "auto.commit.interval.ms", "200", "fetch.wait.max.ms",
                    "20", NULL);
                rd_kafka_conf_set_rebalance_cb(conf, bp_test_incremental_cb);
        } else {
                conf = bp_test_conf(
                    cluster.bootstraps, BUCKET_CONF, "bucket.priority.bucket",
                    "critical, bulk", "group.id", group, "auto.offset.reset",
                    "earliest", "auto.commit.interval.ms", "200",
                    "fetch.wait.max.ms", "20", "group.protocol", "consumer",
                    "bucket.priority.schedule", schedule, NULL);
        }
        if (!plain && !weighted)
                assert_int_equal(bp_test_set(conf, "bucket.priority.hold",
                                             "pause", errstr, sizeof(errstr)),
                                 RD_KAFKA_CONF_OK);
        m->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
        if (!m->rk)
                fail_msg("rd_kafka_new: %s", errstr);
        rd_kafka_poll_set_consumer(m->rk);
        sub = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(sub, TOPIC, RD_KAFKA_PARTITION_UA);
        assert_int_equal(rd_kafka_subscribe(m->rk, sub), 0);
        rd_kafka_topic_partition_list_destroy(sub);
}

static void member_close(member_t *m) {
        if (m->closed || !m->rk)
                return;
        rd_kafka_consumer_close(m->rk);
        rd_kafka_destroy(m->rk);
        m->closed = 1;
}

static void refresh(member_t *m) {
        rd_kafka_topic_partition_list_t *a = NULL;
        int i;

        m->next_refresh_ms = tk_now_ms() + 20;
        if (rd_kafka_assignment(m->rk, &a) || !a)
                return;
        memset(m->assigned, 0, sizeof(m->assigned));
        for (i = 0; i < a->cnt; i++)
                if (a->elems[i].partition >= 0 &&
                    a->elems[i].partition < PARTS)
                        m->assigned[a->elems[i].partition] = 1;
        rd_kafka_topic_partition_list_destroy(a);
}

/* The member's lag on the partitions of \p bucket it holds and has a
 * position on (a partition not fetched yet is left out: lenient, never
 * strict by mistake). */
static int64_t lag_of(member_t *m, int bucket) {
        rd_kafka_topic_partition_list_t *l =
            rd_kafka_topic_partition_list_new(PARTS);
        int64_t lag = 0, lo, hi;
        int i;

        for (i = 0; i < PARTS; i++)
                if (m->assigned[i] && bucket_of[i] == bucket)
                        rd_kafka_topic_partition_list_add(l, TOPIC, i);
        rd_kafka_position(m->rk, l);
        for (i = 0; i < l->cnt; i++)
                if (l->elems[i].offset >= 0 &&
                    !rd_kafka_get_watermark_offsets(
                        m->rk, TOPIC, l->elems[i].partition, &lo, &hi) &&
                    hi > l->elems[i].offset)
                        lag += hi - l->elems[i].offset;
        rd_kafka_topic_partition_list_destroy(l);
        return lag;
}

/* Weighted: counts a delivery made while both buckets lag into the
 * member's window and overall share. */
static void judge_share(member_t *m, int critical) {
        double share;

        if (lag_of(m, CRITICAL) <= 0 || lag_of(m, BULK) <= 0)
                return;
        m->both++;
        m->both_critical += critical;
        m->window++;
        m->window_critical += critical;
        if (m->window < WEIGHT_WINDOW)
                return;
        share = 100.0 * m->window_critical / m->window;
        if (share < m->min_share)
                m->min_share = share;
        if (share > m->max_share)
                m->max_share = share;
        m->windows++;
        m->window = m->window_critical = 0;
}

/* Polls \p m once and judges the record. Returns 1 if one came. */
static int member_poll(member_t *m, int timeout_ms) {
        rd_kafka_message_t *msg;
        int b, id;

        if (m->closed)
                return 0;
        if (tk_now_ms() >= m->next_refresh_ms)
                refresh(m);
        if (!(msg = rd_kafka_consumer_poll(m->rk, timeout_ms)))
                return 0;
        if (msg->err || !msg->key || msg->partition < 0 ||
            msg->partition >= PARTS) {
                rd_kafka_message_destroy(msg);
                return 0;
        }
        b = bucket_of[msg->partition];
        m->delivered[b]++;
        if (b == NORMAL)
                m->outside++;
        if (!tk_key_is_bucket(msg->key, msg->key_len, names[b]))
                m->wrong_key++;
        id = (int)tk_key_id(msg->key, msg->key_len, NULL);
        if (id >= 0 && id < MAX_ID)
                tk_ledger_read(&ledger, id);
        rd_kafka_message_destroy(msg);
        if (m->weighted && m->judged && b != NORMAL)
                judge_share(m, b == CRITICAL);
        else if (b == BULK && m->judged) {
                if (lag_of(m, CRITICAL) > 0) {
                        if (m->episode++ == 0)
                                m->episodes++;
                        if (m->episode > m->worst)
                                m->worst = m->episode;
                } else {
                        m->episode = 0;
                }
        }
        tk_sleep_us(WORK_US); /* the application's work */
        return 1;
}

/* Polls the open members for \p ms (and until \p critical_min critical
 * and \p bulk_min bulk records more were delivered), with a burst of 5
 * critical records every 50 ms. */
static void run_phase(member_t *m, int cnt, long ms, long critical_min,
                      long bulk_min) {
        int64_t end = tk_now_ms() + ms, next_burst = 0,
                deadline = tk_now_ms() + 120000;
        long c0 = 0, b0 = 0, c = 0, b = 0;
        int k;

        if (!timing_asserted()) { /* valgrind: slow, strict starves bulk */
                critical_min = critical_min > 0;
                bulk_min     = bulk_min > 0;
        }
        for (k = 0; k < cnt; k++) {
                c0 += m[k].delivered[CRITICAL];
                b0 += m[k].delivered[BULK];
        }
        while (tk_now_ms() < deadline &&
               (tk_now_ms() < end || c - c0 < critical_min ||
                b - b0 < bulk_min)) {
                if (tk_now_ms() >= next_burst) {
                        produce(stream, CRITICAL, next_critical,
                                next_critical + 5);
                        next_critical += 5;
                        next_burst = tk_now_ms() + 50;
                }
                rd_kafka_poll(stream, 0);
                for (k = 0; k < cnt; k++)
                        member_poll(&m[k], 1);
                for (c = 0, b = 0, k = 0; k < cnt; k++) {
                        c += m[k].delivered[CRITICAL];
                        b += m[k].delivered[BULK];
                }
        }
        print_message("phase: %ld critical, %ld bulk records delivered\n",
                      c - c0, b - b0);
        assert_true(c - c0 >= critical_min);
        assert_true(b - b0 >= bulk_min);
}

/* The member's scheduler holds the critical and bulk partitions of its
 * assignment, none of normal's. */
static int held_matches(member_t *m, const int *assigned) {
        bp_consumer_bucket_stats_t st;
        int b, p, want;

        for (b = 0; b < 3; b++) {
                for (want = 0, p = 0; p < PARTS; p++)
                        want += assigned[p] && bucket_of[p] == b &&
                                b != NORMAL;
                if (bp_consumer_bucket_stats(m->rk, b, &st) ||
                    st.partitions != want)
                        return 0;
        }
        return 1;
}

/* Polls until the open members hold the whole topic between them, each
 * partition once, and each member's scheduler holds exactly its critical
 * and bulk partitions; then checks that no normal partition was fetched. */
static void wait_settled(member_t *m, int cnt, const char *what) {
        int64_t deadline = tk_now_ms() + 60000;
        int held[PARTS], a[2][PARTS], k, i, p, ok = 0;

        while (!ok && tk_now_ms() < deadline) {
                memset(held, 0, sizeof(held));
                memset(a, 0, sizeof(a));
                ok = 1;
                for (k = 0; k < cnt; k++) {
                        rd_kafka_topic_partition_list_t *l;
                        if (m[k].closed)
                                continue;
                        member_poll(&m[k], 5);
                        assert_int_equal(rd_kafka_assignment(m[k].rk, &l), 0);
                        ok &= l->cnt > 0;
                        for (i = 0; i < l->cnt; i++) {
                                held[l->elems[i].partition]++;
                                a[k][l->elems[i].partition] = 1;
                        }
                        rd_kafka_topic_partition_list_destroy(l);
                        ok &= held_matches(&m[k], a[k]);
                }
                for (p = 0; p < PARTS; p++)
                        ok &= held[p] == 1;
        }
        if (!ok)
                fail_msg("%s: the members do not hold the topic once, or a "
                         "scheduler holds other partitions than its "
                         "assignment's critical and bulk ones",
                         what);
        for (k = 0; k < cnt; k++) {
                rd_kafka_topic_partition_list_t *l;
                if (m[k].closed)
                        continue;
                assert_int_equal(rd_kafka_assignment(m[k].rk, &l), 0);
                assert_int_equal(rd_kafka_position(m[k].rk, l), 0);
                print_message("%s: member %d holds", what, k);
                for (i = 0; i < l->cnt; i++) {
                        p = l->elems[i].partition;
                        print_message(" %d(%c)", p, names[bucket_of[p]][0]);
                        if (bucket_of[p] == NORMAL &&
                            l->elems[i].offset != RD_KAFKA_OFFSET_INVALID)
                                fail_msg("member %d fetched normal "
                                         "partition %d (position %lld)",
                                         k, p,
                                         (long long)l->elems[i].offset);
                }
                print_message("\n");
                rd_kafka_topic_partition_list_destroy(l);
        }
}

static void stream_open(void) {
        static bp_test_drs_t drs;
        if (!stream)
                stream = bp_test_producer(
                    bp_test_conf(cluster.bootstraps, BUCKET_CONF,
                                 "linger.ms", "0", NULL),
                    &drs);
}

/* Without the scheduler, the critical bursts wait behind the bulk
 * backlog: the measure sees long episodes. */
static void test_control(void **state) {
        member_t m;
        (void)state;

        if (!bp_test_kip848_host())
                skip();
        stream_open();
        member_start(&m, "kip848-control", 0, 1, 0);
        refresh(&m);
        run_phase(&m, 1, 2000, 100, 5000);
        print_message("control: %ld episodes, worst %ld bulk records\n",
                      m.episodes, m.worst);
        if (timing_asserted())
                assert_true(m.worst > 5 * STRICT_BOUND_NATIVE);
        member_close(&m);
}

/* One member of the list in \p group (strict or \p weighted), a second
 * one joining with its application's incremental callback, and leaving
 * again; the members read for a phase in each state. */
static void join_and_leave(member_t *m, const char *group, int weighted) {
        const char *what = weighted ? "weighted" : "strict";
        char state[64];

        member_start(&m[0], group, 0, 0, weighted);
        m[1].closed = 1;
        snprintf(state, sizeof(state), "%s, one member", what);
        wait_settled(m, 1, state);
        run_phase(m, 1, 2000, 200, 2000);

        member_start(&m[1], group, 1, 0, weighted);
        snprintf(state, sizeof(state), "%s, a second member joined", what);
        wait_settled(m, 2, state);
        run_phase(m, 2, 2000, 200, 2000);
        assert_true(m[1].delivered[CRITICAL] > 0);
        assert_true(m[1].delivered[BULK] > 0);

        member_close(&m[1]);
        snprintf(state, sizeof(state), "%s, the second member left", what);
        wait_settled(m, 2, state);
        run_phase(m, 2, 2000, 200, 2000);
}

/* The judging ends: the first member reads every record of both buckets;
 * nothing outside the members' buckets was read, no stale lag or
 * partition of the revocations is left behind, and the buckets were
 * paused as the schedule holds them (strict, set to pause: bulk, never
 * critical; weighted, by queue: never bulk, the lowest). */
static void finish(member_t *m, int weighted) {
        bp_consumer_bucket_stats_t st;
        bp_stats_t bs;
        int64_t deadline;
        long missing;
        int k;

        m[0].judged = 0;
        rd_kafka_flush(stream, 30000);
        deadline = tk_now_ms() + 180000;
        do {
                for (k = 0; k < 500; k++)
                        member_poll(&m[0], 1);
                missing = tk_ledger_missing(&ledger, 0, BULK_N) +
                          tk_ledger_missing(&ledger, CRITICAL_BASE,
                                            next_critical);
        } while (missing > 0 && tk_now_ms() < deadline);
        assert_int_equal(missing, 0);

        for (k = 0; k < 2; k++)
                print_message("member %d: critical %ld, bulk %ld, outside "
                              "%ld, wrong key %ld; %ld episodes, worst %ld "
                              "bulk records (bound %d)\n",
                              k, m[k].delivered[CRITICAL],
                              m[k].delivered[BULK], m[k].outside,
                              m[k].wrong_key, m[k].episodes, m[k].worst,
                              STRICT_BOUND);
        for (k = 0; k < 2; k++) {
                assert_int_equal(m[k].outside, 0);
                assert_int_equal(m[k].delivered[NORMAL], 0);
                assert_int_equal(m[k].wrong_key, 0);
                if (!weighted && timing_asserted())
                        assert_true(m[k].worst <= STRICT_BOUND);
        }
        for (k = 0; k < 3; k++) {
                assert_int_equal(bp_consumer_bucket_stats(m[0].rk, k, &st),
                                 0);
                print_message("%s: delivered %llu, lag %lld, partitions %d, "
                              "paused %llu times\n",
                              st.name, (unsigned long long)st.delivered,
                              (long long)st.lag, st.partitions,
                              (unsigned long long)st.pauses);
                assert_int_equal(st.lag, 0);
                if (k == CRITICAL && !weighted)
                        assert_int_equal(st.pauses, 0);
                if (k == BULK)
                        assert_true(weighted ? st.pauses == 0
                                             : st.pauses > 0);
                if (k == NORMAL)
                        assert_int_equal(st.partitions, 0);
        }
        assert_int_equal(bp_stats(m[0].rk, &bs), 0);
        assert_int_equal(bs.foreign, 0);
        member_close(&m[0]);
        rd_kafka_destroy(stream);
        stream = NULL;
}

static void test_strict_list(void **state) {
        member_t m[2];
        (void)state;

        if (!bp_test_kip848_host())
                skip();
        stream_open();
        tk_ledger_reset_reads(&ledger);
        join_and_leave(m, "kip848-sched", 0);
        finish(m, 0);
}

/* Weighted, holding by queue as it does by default: with a critical
 * backlog beside the bulk one, critical gets its share of the list in
 * every window through a join (the application's incremental callback)
 * and a leave; bulk, the lowest bucket, is never paused. */
static void test_weighted_list(void **state) {
        member_t m[2];
        long both = 0, both_critical = 0, windows = 0;
        double lo = 100, hi = 0, overall;
        int k;
        (void)state;

        if (!bp_test_kip848_host())
                skip();
        stream_open();
        produce(stream, CRITICAL, next_critical,
                next_critical + WEIGHT_BACKLOG);
        next_critical += WEIGHT_BACKLOG;
        rd_kafka_flush(stream, 30000);
        tk_ledger_reset_reads(&ledger);
        join_and_leave(m, "kip848-weighted", 1);

        for (k = 0; k < 2; k++) {
                both += m[k].both;
                both_critical += m[k].both_critical;
                windows += m[k].windows;
                if (m[k].windows && m[k].min_share < lo)
                        lo = m[k].min_share;
                if (m[k].windows && m[k].max_share > hi)
                        hi = m[k].max_share;
        }
        overall = both ? 100.0 * both_critical / both : 0;
        print_message("weighted: %ld deliveries with both buckets lagging, "
                      "critical %.1f%% overall (share %.1f%%), %ld windows "
                      "of %d between %.1f%% and %.1f%%\n",
                      both, overall, WEIGHT_SHARE, windows, WEIGHT_WINDOW,
                      lo, hi);
        if (timing_asserted()) {
                assert_true(windows >= 3);
                assert_true(overall >= WEIGHT_SHARE - WEIGHT_OVERALL_TOLERANCE &&
                            overall <= WEIGHT_SHARE + WEIGHT_OVERALL_TOLERANCE);
                assert_true(lo >= WEIGHT_SHARE - WEIGHT_TOLERANCE);
                assert_true(hi <= WEIGHT_SHARE + WEIGHT_TOLERANCE);
        }
        finish(m, 1);
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_control),
            cmocka_unit_test(test_strict_list),
            cmocka_unit_test(test_weighted_list),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
