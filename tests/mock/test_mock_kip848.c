/*
 * test_mock_kip848.c - bucket consumers on the next generation consumer
 * group protocol (KIP-848, group.protocol=consumer) on librdkafka's mock
 * cluster, which speaks it from librdkafka 2.12 (its own broker-side
 * assignor, not Kafka's range): keep-and-pause through joins and a leave,
 * and through a leave while the topic's metadata cannot be read.
 * Each bucket has a member configured by properties only (the plugin's
 * callback) and one whose application callback assigns incrementally what
 * it is given (as confluent-kafka-python does). Every record is read by a
 * consumer of its bucket, each member holds the broker's whole assignment,
 * the partitions outside its bucket are never fetched (no position), and
 * each bucket partition is held unpaused by exactly one member. Skipped
 * (cmocka skip) on librdkafka older than 2.12.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bp_test_util.h"
#include "include/bucket_priority.h"

#define TOPIC "orders"
#define PARTITIONS 12
#define BUCKET_CONF                                                            \
        "bucket.priority.topic", TOPIC, "bucket.priority.buckets",             \
            "Platinum, Gold", "bucket.priority.allocation", "70%, 30%",        \
            "bucket.priority.layout", "stable"

static bp_test_cluster_t cluster;
static int bucket_of[PARTITIONS]; /* 0 Platinum, 1 Gold, from the DRs */

typedef struct member {
        rd_kafka_t *rk;
        const char *bucket;
        int closed;
        long consumed, wrong_bucket;
} member_t;

static int setup(void **state) {
        return bp_test_kip848_setup(&cluster, TOPIC, PARTITIONS, state);
}

/* A member of \p bucket; with \p app_cb, its application's own callback,
 * and group.protocol set before the bucket (librdkafka stores it at once);
 * without, set after the bucket (the order of the wheel's dict and of
 * bp-broker-client: the plugin holds it back until creation). */
static rd_kafka_t *consumer_of(const char *group, const char *bucket,
                               int app_cb) {
        rd_kafka_conf_t *conf =
            app_cb ? bp_test_conf(cluster.bootstraps, "group.protocol",
                                  "consumer", BUCKET_CONF,
                                  "bucket.priority.bucket", bucket, "group.id",
                                  group, "auto.offset.reset", "earliest",
                                  "auto.commit.interval.ms", "200", NULL)
                   : bp_test_conf(cluster.bootstraps, BUCKET_CONF,
                                  "bucket.priority.bucket", bucket, "group.id",
                                  group, "auto.offset.reset", "earliest",
                                  "auto.commit.interval.ms", "200",
                                  "group.protocol", "consumer", NULL);
        rd_kafka_topic_partition_list_t *sub;
        char errstr[512];
        rd_kafka_t *rk;

        if (app_cb)
                rd_kafka_conf_set_rebalance_cb(conf, bp_test_incremental_cb);
        rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
        if (!rk)
                fail_msg("rd_kafka_new: %s", errstr);
        rd_kafka_poll_set_consumer(rk);
        sub = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(sub, TOPIC, RD_KAFKA_PARTITION_UA);
        assert_int_equal(rd_kafka_subscribe(rk, sub), 0);
        rd_kafka_topic_partition_list_destroy(sub);
        return rk;
}

static rd_kafka_t *consumer(const char *bucket, int app_cb) {
        return consumer_of("kip848-app", bucket, app_cb);
}

/* Writes ids [from, to), a third keyed Gold, through the plugin's
 * partitioner; notes each partition's bucket from the delivery reports. */
static void produce_ids(int from, int to) {
        bp_test_drs_t drs = {0};
        size_t i;

        bp_test_produce_ids(bp_test_conf(cluster.bootstraps, BUCKET_CONF, NULL),
                            TOPIC, from, to, &drs);
        for (i = 0; i < drs.cnt; i++)
                bucket_of[drs.v[i].partition] =
                    !strncmp(drs.v[i].key, "Gold-", 5);
        bp_test_drs_free(&drs);
}

static int bucket_index(const char *bucket) {
        return !strcmp(bucket, "Gold");
}

/* What each member holds, for a failure's diagnosis. */
static void dump_members(member_t *m, int cnt) {
        int k, i;
        for (k = 0; k < cnt; k++) {
                rd_kafka_topic_partition_list_t *a;
                if (m[k].closed || rd_kafka_assignment(m[k].rk, &a))
                        continue;
                rd_kafka_position(m[k].rk, a);
                fprintf(stderr, "member %d (%s):", k, m[k].bucket);
                for (i = 0; i < a->cnt; i++)
                        fprintf(stderr, " %d@%lld", (int)a->elems[i].partition,
                                (long long)a->elems[i].offset);
                fprintf(stderr, "\n");
                rd_kafka_topic_partition_list_destroy(a);
        }
}

/* Polls member \p m once: a record read is noted in the ledger and judged
 * by its key. Returns 1 when it is an id in [from, to) read the first
 * time. */
static int poll_member(member_t *m, tk_ledger_t *lg, int from, int to,
                       int timeout_ms) {
        rd_kafka_message_t *msg = rd_kafka_consumer_poll(m->rk, timeout_ms);
        int i, first = 0;

        if (!msg)
                return 0;
        if (!msg->err && msg->key) {
                i = (int)tk_key_id(msg->key, msg->key_len, NULL);
                m->consumed++;
                if (!tk_key_is_bucket(msg->key, msg->key_len, m->bucket))
                        m->wrong_bucket++;
                first = tk_ledger_read(lg, i) == 1 && i >= from && i < to;
        }
        rd_kafka_message_destroy(msg);
        return first;
}

/* Polls every open member until ids [from, to) are read. */
static void consume_until(member_t *m, int cnt, tk_ledger_t *lg, int from,
                          int to, int timeout_ms) {
        int64_t deadline = tk_now_ms() + timeout_ms;
        long missing     = tk_ledger_missing(lg, from, to);
        int k;

        while (missing > 0 && tk_now_ms() < deadline)
                for (k = 0; k < cnt; k++)
                        if (!m[k].closed)
                                missing -= poll_member(&m[k], lg, from, to, 5);
        if (missing > 0)
                dump_members(m, cnt);
        assert_int_equal(missing, 0);
}

/* Polls the members (their records go to the ledger) until each bucket
 * group's members together hold all PARTITIONS partitions, each once: the
 * broker's assignment, kept whole. */
static void wait_kept(member_t *m, int cnt, tk_ledger_t *lg,
                      int timeout_ms) {
        int64_t deadline = tk_now_ms() + timeout_ms;
        int held[2][PARTITIONS], k, i, b, ok = 0;

        while (!ok && tk_now_ms() < deadline) {
                memset(held, 0, sizeof(held));
                for (k = 0; k < cnt; k++) {
                        rd_kafka_topic_partition_list_t *a;
                        if (m[k].closed)
                                continue;
                        poll_member(&m[k], lg, 0, 0, 20);
                        assert_int_equal(rd_kafka_assignment(m[k].rk, &a), 0);
                        for (i = 0; i < a->cnt; i++)
                                held[bucket_index(m[k].bucket)]
                                    [a->elems[i].partition]++;
                        rd_kafka_topic_partition_list_destroy(a);
                }
                ok = 1;
                for (b = 0; b < 2; b++)
                        for (i = 0; i < PARTITIONS; i++)
                                ok &= held[b][i] == 1;
        }
        if (!ok) {
                dump_members(m, cnt);
                fail_msg("the bucket groups do not hold every partition once");
        }
}

/* Each member's partitions outside its bucket were never fetched (no
 * position); each bucket partition is held by exactly one member of its
 * bucket and was fetched (a position) once records were read. */
static void check_paused(member_t *m, int cnt) {
        int owners[PARTITIONS] = {0}, k, i, own = 0, other = 0;

        for (k = 0; k < cnt; k++) {
                rd_kafka_topic_partition_list_t *a;
                if (m[k].closed)
                        continue;
                assert_int_equal(rd_kafka_assignment(m[k].rk, &a), 0);
                assert_int_equal(rd_kafka_position(m[k].rk, a), 0);
                for (i = 0; i < a->cnt; i++) {
                        int32_t p = a->elems[i].partition;
                        if (bucket_of[p] != bucket_index(m[k].bucket)) {
                                if (a->elems[i].offset !=
                                    RD_KAFKA_OFFSET_INVALID)
                                        fail_msg("%s member fetched "
                                                 "partition %d of another "
                                                 "bucket (position %lld)",
                                                 m[k].bucket, (int)p,
                                                 (long long)a->elems[i]
                                                     .offset);
                                other++;
                                continue;
                        }
                        owners[p]++;
                        own++;
                }
                rd_kafka_topic_partition_list_destroy(a);
        }
        for (i = 0; i < PARTITIONS; i++)
                assert_int_equal(owners[i], 1);
        assert_int_equal(own, PARTITIONS);
        assert_int_equal(other, PARTITIONS); /* kept, paused */
}

static void close_member(member_t *m) {
        rd_kafka_consumer_close(m->rk);
        rd_kafka_destroy(m->rk);
        m->closed = 1;
}

/* The members read nothing of another bucket (the test's judgement of
 * each key, and the plugin's count of foreign records); the open ones are
 * closed. */
static void close_checked(member_t *m, int cnt) {
        bp_stats_t st;
        int k;

        for (k = 0; k < cnt; k++) {
                assert_int_equal(m[k].wrong_bucket, 0);
                if (m[k].closed)
                        continue;
                assert_int_equal(bp_stats(m[k].rk, &st), 0);
                assert_int_equal(st.foreign, 0);
                close_member(&m[k]);
        }
}

/* Two members per bucket (properties only, and an application callback
 * assigning incrementally), 6 000 records; a member of each bucket leaves;
 * 6 000 more: all read, only by their bucket, never a fetch outside it. */
static void test_keep_and_pause(void **state) {
        member_t m[4] = {{.bucket = "Platinum"}, {.bucket = "Platinum"},
                         {.bucket = "Gold"}, {.bucket = "Gold"}};
        tk_ledger_t lg;
        int k;
        (void)state;

        if (!bp_test_kip848_host())
                skip();
        assert_int_equal(tk_ledger_init(&lg, 12000), 0);
        for (k = 0; k < lg.n; k++)
                tk_ledger_write(&lg, k);
        produce_ids(0, 6000);
        for (k = 0; k < 4; k++)
                m[k].rk = consumer(m[k].bucket, k % 2);
        wait_kept(m, 4, &lg, 60000);
        consume_until(m, 4, &lg, 0, 6000, 120000);
        wait_kept(m, 4, &lg, 60000);
        check_paused(m, 4);

        close_member(&m[1]); /* Platinum, properties only */
        close_member(&m[3]); /* Gold, application callback */
        produce_ids(6000, 12000);
        wait_kept(m, 4, &lg, 60000);
        consume_until(m, 4, &lg, 6000, 12000, 120000);
        check_paused(m, 4);

        for (k = 0; k < 4; k++)
                assert_true(m[k].consumed > 0);
        close_checked(m, 4);
        tk_ledger_free(&lg);
}

/* Whether member \p m holds partition \p p; polls it once first. */
static int holds(member_t *m, tk_ledger_t *lg, int32_t p) {
        rd_kafka_topic_partition_list_t *a;
        int i, yes = 0;

        poll_member(m, lg, 0, 0, 20);
        assert_int_equal(rd_kafka_assignment(m->rk, &a), 0);
        for (i = 0; i < a->cnt; i++)
                yes |= a->elems[i].partition == p;
        rd_kafka_topic_partition_list_destroy(a);
        return yes;
}

/* A leave while the topic's metadata answers LEADER_NOT_AVAILABLE: two
 * Platinum members and a Gold one; the Platinum member without the last
 * partition leaves, for 5 s with the error on. librdkafka holds the new
 * assignment back until it can read the topic's metadata (seen with
 * 2.15.1: the remaining member is given the partitions once the error is
 * cleared), so the plugin's callback judges with fresh metadata. Then
 * 3 000 records: all read, only by their bucket, never a fetch outside
 * it, nothing foreign. */
static void test_no_metadata(void **state) {
        member_t m[3] = {{.bucket = "Platinum"}, {.bucket = "Platinum"},
                         {.bucket = "Gold"}};
        int from = 12000, to = 15000, k, leaver, keeper;
        int64_t deadline;
        tk_ledger_t lg;
        (void)state;

        if (!bp_test_kip848_host())
                skip();
        assert_int_equal(tk_ledger_init(&lg, to), 0);
        for (k = from; k < to; k++)
                tk_ledger_write(&lg, k);
        for (k = 0; k < 3; k++)
                m[k].rk = consumer_of("kip848-meta", m[k].bucket, k == 1);
        wait_kept(m, 3, &lg, 60000);
        keeper = holds(&m[0], &lg, PARTITIONS - 1) ? 0 : 1;
        leaver = 1 - keeper;

        rd_kafka_mock_topic_set_error(cluster.mcluster, TOPIC,
                                      RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE);
        close_member(&m[leaver]);
        deadline = tk_now_ms() + 5000;
        while (tk_now_ms() < deadline) {
                rd_kafka_topic_partition_list_t *a;
                int cnt;

                poll_member(&m[keeper], &lg, 0, 0, 50);
                poll_member(&m[2], &lg, 0, 0, 0);
                assert_int_equal(rd_kafka_assignment(m[keeper].rk, &a), 0);
                cnt = a->cnt;
                rd_kafka_topic_partition_list_destroy(a);
                if (cnt == PARTITIONS)
                        break;
        }
        rd_kafka_mock_topic_set_error(cluster.mcluster, TOPIC,
                                      RD_KAFKA_RESP_ERR_NO_ERROR);
        wait_kept(m, 3, &lg, 60000);

        produce_ids(from, to);
        consume_until(m, 3, &lg, from, to, 120000);
        check_paused(m, 3);
        close_checked(m, 3);
        tk_ledger_free(&lg);
}

static char warnings[4096];

static void capture_log(const rd_kafka_t *rk, int level, const char *fac,
                        const char *buf) {
        size_t at = strlen(warnings);
        (void)rk;
        if (!strcmp(fac, "BUCKETPRIO") && level == 4)
                snprintf(warnings + at, sizeof(warnings) - at, "%s\n", buf);
}

/* The broker's default assignor (uniform) and the contiguous layout are
 * allowed, with a warning each naming the measured imbalance and the fix;
 * range and stable (test_keep_and_pause) warn about nothing. */
static void test_warnings(void **state) {
        const char *assignor[] = {"uniform", "range"};
        const char *layout[]   = {"contiguous", "stable"};
        rd_kafka_conf_t *conf;
        char errstr[512];
        rd_kafka_t *rk;
        int i;
        (void)state;

        if (!bp_test_kip848_host())
                skip();
        for (i = 0; i < 2; i++) {
                warnings[0] = '\0';
                conf        = bp_test_conf(
                    cluster.bootstraps, "bucket.priority.topic", TOPIC,
                    "bucket.priority.buckets", "Platinum, Gold",
                    "bucket.priority.allocation", "70%, 30%",
                    "bucket.priority.layout", layout[i],
                    "bucket.priority.bucket", "Gold", "group.id", "w",
                    "group.protocol", "consumer", "group.remote.assignor",
                    assignor[i], NULL);
                rd_kafka_conf_set_log_cb(conf, capture_log);
                rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr,
                                  sizeof(errstr));
                if (!rk)
                        fail_msg("rd_kafka_new: %s", errstr);
                rd_kafka_destroy(rk);
                if (i == 0) {
                        assert_non_null(strstr(warnings, "\"uniform\""));
                        assert_non_null(strstr(warnings, "2 to 4 apart"));
                        assert_non_null(strstr(warnings, "up to 10 of 48"));
                        assert_non_null(
                            strstr(warnings, "bucket.priority.layout=stable"));
                } else {
                        assert_string_equal(warnings, "");
                }
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_keep_and_pause),
            cmocka_unit_test(test_no_metadata),
            cmocka_unit_test(test_warnings),
        };
        return cmocka_run_group_tests(tests, setup, bp_test_kip848_teardown);
}
