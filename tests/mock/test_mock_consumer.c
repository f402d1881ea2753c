/*
 * test_mock_consumer.c - the consumer side on the embedded mock cluster:
 * configuration (derived group, forced roundrobin, refused settings), every
 * record consumed only by consumers of its bucket through rebalances, the
 * three ways to integrate (properties only, chained callback, replaced
 * callback caught by the safety net), the statistics of a consumer of one
 * bucket, and the start offsets that keep any record from being skipped
 * (with the clients made to read them at 50 buckets: at creation, none at
 * the rebalances; a first rebalance waiting for them; a destroy while
 * they run).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "bp_test_util.h"
#include "include/bucket_priority.h"

#define TOPIC "orders"
#define PARTITIONS 12
#define BUCKET_CONF                                                            \
        "bucket.priority.topic", TOPIC, "bucket.priority.buckets",             \
            "Platinum, Gold", "bucket.priority.allocation", "70%, 30%"
#define FAST_GROUP                                                             \
        "auto.offset.reset", "earliest", "auto.commit.interval.ms", "200",     \
            "session.timeout.ms", "6000", "heartbeat.interval.ms", "500"

static bp_test_cluster_t cluster;

static int setup(void **state) {
        bp_test_cluster_start(&cluster, 1);
        bp_test_cluster_topic(&cluster, TOPIC, 12);
        bp_test_cluster_topic(&cluster, "offsets", 12);
        *state = &cluster;
        return 0;
}

static void conf_get(rd_kafka_conf_t *conf, const char *name, char *buf,
                     size_t size) {
        assert_int_equal(rd_kafka_conf_get(conf, name, buf, &size),
                         RD_KAFKA_CONF_OK);
}

/* --- configuration ------------------------------------------------------- */

static void test_group_id_derived_in_any_order(void **state) {
        rd_kafka_conf_t *conf;
        char val[256], err[512];
        (void)state;

        /* group.id before the plugin loads. */
        conf = rd_kafka_conf_new();
        assert_int_equal(bp_test_set(conf, "group.id", "orders-app", err,
                                     sizeof(err)),
                         RD_KAFKA_CONF_OK);
        assert_int_equal(bp_test_set(conf, "plugin.library.paths",
                                     bp_test_plugin_path(), err, sizeof(err)),
                         RD_KAFKA_CONF_OK);
        assert_int_equal(bp_test_set(conf, "bucket.priority.bucket", "Gold",
                                     err, sizeof(err)),
                         RD_KAFKA_CONF_OK);
        conf_get(conf, "group.id", val, sizeof(val));
        assert_string_equal(val, "orders-app.Gold");
        conf_get(conf, "partition.assignment.strategy", val, sizeof(val));
        assert_string_equal(val, "roundrobin");
        rd_kafka_conf_destroy(conf);

        /* bucket first, group.id after; then turned off and on again. */
        conf = bp_test_conf(NULL, "bucket.priority.bucket", "Gold",
                            "group.id", "orders-app", NULL);
        conf_get(conf, "group.id", val, sizeof(val));
        assert_string_equal(val, "orders-app.Gold");
        assert_int_equal(bp_test_set(conf, "bucket.priority.group.per.bucket",
                                     "false", err, sizeof(err)),
                         RD_KAFKA_CONF_OK);
        conf_get(conf, "group.id", val, sizeof(val));
        assert_string_equal(val, "orders-app");
        assert_int_equal(bp_test_set(conf, "bucket.priority.group.per.bucket",
                                     "true", err, sizeof(err)),
                         RD_KAFKA_CONF_OK);
        conf_get(conf, "group.id", val, sizeof(val));
        assert_string_equal(val, "orders-app.Gold");

        /* A copy of the configuration (librdkafka++ and node-rdkafka create
         * their clients from one) keeps the derived group, not
         * "orders-app.Gold.Gold"; destroying the original first is safe. */
        {
                rd_kafka_conf_t *copy = rd_kafka_conf_dup(conf);
                rd_kafka_conf_destroy(conf);
                conf_get(copy, "group.id", val, sizeof(val));
                assert_string_equal(val, "orders-app.Gold");
                conf_get(copy, "partition.assignment.strategy", val,
                         sizeof(val));
                assert_string_equal(val, "roundrobin");
                conf = copy;
        }
        rd_kafka_conf_destroy(conf);

        /* per-bucket off first: group.id untouched. */
        conf = bp_test_conf(NULL, "bucket.priority.group.per.bucket", "false",
                            "group.id", "orders-gold", "bucket.priority.bucket",
                            "Gold", NULL);
        conf_get(conf, "group.id", val, sizeof(val));
        assert_string_equal(val, "orders-gold");
        rd_kafka_conf_destroy(conf);
}

/* Setting \p name = \p value on \p conf is refused, the error containing
 * each of the NULL-terminated fragments that follow. */
static void expect_invalid(rd_kafka_conf_t *conf, const char *name,
                           const char *value, ...) {
        char err[512];
        const char *fragment;
        va_list ap;

        if (bp_test_set(conf, name, value, err, sizeof(err)) !=
            RD_KAFKA_CONF_INVALID)
                fail_msg("%s=%s was accepted", name, value);
        va_start(ap, value);
        while ((fragment = va_arg(ap, const char *)))
                if (!strstr(err, fragment))
                        fail_msg("%s=%s: \"%s\" not in \"%s\"", name, value,
                                 fragment, err);
        va_end(ap);
}

static void test_consumer_settings_refused(void **state) {
        rd_kafka_conf_t *conf;
        char val[64];
        (void)state;

        /* Another assignor after the bucket... */
        conf = bp_test_conf(NULL, "bucket.priority.bucket", "Gold", NULL);
        expect_invalid(conf, "partition.assignment.strategy",
                       "cooperative-sticky", "partition.assignment.strategy",
                       "cooperative-sticky", "roundrobin", NULL);
        /* ...and the next generation group protocol where librdkafka
         * has no KIP-848 (older than 2.12): refused naming the version. */
        if (rd_kafka_version() < 0x020c0000)
                expect_invalid(conf, "group.protocol", "consumer",
                               "group.protocol", "2.12",
                               rd_kafka_version_str(), NULL);
        rd_kafka_conf_destroy(conf);
        /* A list of buckets (the scheduler) too, and only there: from
         * 2.12 it keeps and pauses like one bucket. */
        conf = bp_test_conf(NULL, "bucket.priority.bucket", "Platinum, Gold",
                            NULL);
        if (rd_kafka_version() < 0x020c0000)
                expect_invalid(conf, "group.protocol", "consumer",
                               "group.protocol", "2.12",
                               rd_kafka_version_str(), "classic", NULL);
        else
                assert_int_equal(bp_test_set(conf, "group.protocol",
                                             "consumer", val, sizeof(val)),
                                 RD_KAFKA_CONF_OK);
        rd_kafka_conf_destroy(conf);

        /* ...or before it: the bucket is refused then. */
        conf = bp_test_conf(NULL, "partition.assignment.strategy", "range",
                            NULL);
        expect_invalid(conf, "bucket.priority.bucket", "Gold", "range", NULL);
        rd_kafka_conf_destroy(conf);

        /* An unknown bucket, whichever of the two comes second. */
        conf = bp_test_conf(NULL, "bucket.priority.buckets", "Platinum, Gold",
                            NULL);
        expect_invalid(conf, "bucket.priority.bucket", "Silver", "Silver",
                       NULL);
        rd_kafka_conf_destroy(conf);
        conf = bp_test_conf(NULL, "bucket.priority.bucket", "Silver", NULL);
        expect_invalid(conf, "bucket.priority.buckets", "Platinum, Gold",
                       "Silver", NULL);
        rd_kafka_conf_destroy(conf);

        /* Growth is noticed within seconds unless the user decides. */
        conf = bp_test_conf(NULL, BUCKET_CONF, NULL);
        conf_get(conf, "topic.metadata.refresh.interval.ms", val, sizeof(val));
        assert_string_equal(val, "5000");
        rd_kafka_conf_destroy(conf);
        conf = bp_test_conf(NULL, "topic.metadata.refresh.interval.ms",
                            "60000", BUCKET_CONF, NULL);
        conf_get(conf, "topic.metadata.refresh.interval.ms", val, sizeof(val));
        assert_string_equal(val, "60000");
        rd_kafka_conf_destroy(conf);
}

/* librdkafka 2.4 and later have group.protocol (KIP-848). Set before
 * plugin.library.paths, no interceptor of ours saw it: before 2.12 the
 * bucket must still be refused with our message naming the version
 * (otherwise rd_kafka_new() fails later with librdkafka's
 * "partition.assignment.strategy is not supported for
 * group.protocol=consumer", about a property the user never set); from
 * 2.12 the consumer is created on the consumer protocol, with the range
 * assignor and no assignment strategy set. A bucket consumer that did not
 * ask for it runs the classic protocol, whatever librdkafka's default. */
static void test_group_protocol_before_plugin(void **state) {
        rd_kafka_conf_t *conf;
        rd_kafka_t *rk;
        char err[512], val[64];
        (void)state;

        conf = rd_kafka_conf_new();
        if (rd_kafka_conf_set(conf, "group.protocol", "consumer", err,
                              sizeof(err)) == RD_KAFKA_CONF_UNKNOWN) {
                rd_kafka_conf_destroy(conf);
                skip(); /* librdkafka < 2.4: no such property */
        }
        assert_int_equal(bp_test_set(conf, "plugin.library.paths",
                                     bp_test_plugin_path(), err, sizeof(err)),
                         RD_KAFKA_CONF_OK);
        assert_int_equal(bp_test_set(conf, "bucket.priority.buckets",
                                     "Platinum, Gold", err, sizeof(err)),
                         RD_KAFKA_CONF_OK);
        if (rd_kafka_version() < 0x020c0000) {
                assert_int_equal(bp_test_set(conf, "bucket.priority.bucket",
                                             "Gold", err, sizeof(err)),
                                 RD_KAFKA_CONF_INVALID);
                assert_non_null(strstr(err, "group.protocol"));
                assert_non_null(strstr(err, rd_kafka_version_str()));
                rd_kafka_conf_destroy(conf);
        } else {
                assert_int_equal(bp_test_set(conf, "bucket.priority.bucket",
                                             "Gold", err, sizeof(err)),
                                 RD_KAFKA_CONF_OK);
                assert_int_equal(bp_test_set(conf, "bucket.priority.topic",
                                             TOPIC, err, sizeof(err)),
                                 RD_KAFKA_CONF_OK);
                assert_int_equal(bp_test_set(conf, "bucket.priority.allocation",
                                             "70%, 30%", err, sizeof(err)),
                                 RD_KAFKA_CONF_OK);
                assert_int_equal(bp_test_set(conf, "group.id", "app", err,
                                             sizeof(err)),
                                 RD_KAFKA_CONF_OK);
                conf_get(conf, "group.remote.assignor", val, sizeof(val));
                assert_string_equal(val, "range");
                conf_get(conf, "partition.assignment.strategy", val,
                         sizeof(val));
                assert_string_equal(val, "range,roundrobin"); /* unset */
                rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
                if (!rk)
                        fail_msg("rd_kafka_new: %s", err);
                rd_kafka_destroy(rk);
        }

        conf = bp_test_conf(cluster.bootstraps, BUCKET_CONF, "group.id", "app",
                            "bucket.priority.bucket", "Gold", NULL);
        conf_get(conf, "group.protocol", val, sizeof(val));
        assert_string_equal(val, "classic");
        rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
        if (!rk)
                fail_msg("rd_kafka_new: %s", err);
        rd_kafka_destroy(rk);
}

/* --- consumers on the mock cluster --------------------------------------- */

typedef struct member {
        rd_kafka_t *rk;
        const char *bucket;
        int closed;
        long consumed, wrong_bucket;
} member_t;

static int app_cb_calls;

static void chaining_cb(rd_kafka_t *rk, rd_kafka_resp_err_t err,
                        rd_kafka_topic_partition_list_t *parts, void *opaque) {
        rd_kafka_topic_partition_list_t *mapped;
        char errstr[256];
        (void)opaque;
        app_cb_calls++;
        if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
                mapped = bp_assignment_map(rk, parts, errstr, sizeof(errstr));
                assert_non_null(mapped);
                rd_kafka_assign(rk, mapped);
                rd_kafka_topic_partition_list_destroy(mapped);
        } else {
                rd_kafka_assign(rk, NULL);
        }
}

static void plain_cb(rd_kafka_t *rk, rd_kafka_resp_err_t err,
                     rd_kafka_topic_partition_list_t *parts, void *opaque) {
        (void)opaque;
        app_cb_calls++;
        rd_kafka_assign(rk, err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS ? parts
                                                                        : NULL);
}

/* An application that assigns partitions of its own choosing, whatever it
 * is given: the whole topic. */
static void foreign_cb(rd_kafka_t *rk, rd_kafka_resp_err_t err,
                       rd_kafka_topic_partition_list_t *parts, void *opaque) {
        rd_kafka_topic_partition_list_t *all;
        int32_t p;
        (void)opaque, (void)parts;
        app_cb_calls++;
        if (err != RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
                rd_kafka_assign(rk, NULL);
                return;
        }
        all = rd_kafka_topic_partition_list_new(PARTITIONS);
        for (p = 0; p < PARTITIONS; p++)
                rd_kafka_topic_partition_list_add(all, TOPIC, p);
        rd_kafka_assign(rk, all);
        rd_kafka_topic_partition_list_destroy(all);
}

static char captured_log[2048];

static void capture_log(const rd_kafka_t *rk, int level, const char *fac,
                        const char *buf) {
        (void)rk, (void)level;
        if (!strcmp(fac, "BUCKETPRIO") && strstr(buf, "received a record"))
                snprintf(captured_log, sizeof(captured_log), "%s", buf);
}

typedef enum { CB_PLUGIN, CB_CHAINED, CB_PLAIN, CB_FOREIGN } cb_kind_t;

static rd_kafka_t *consumer(const char *bucket, const char *group,
                            cb_kind_t kind) {
        rd_kafka_conf_t *conf = bp_test_conf(
            cluster.bootstraps, BUCKET_CONF, "bucket.priority.bucket", bucket,
            "group.id", group, FAST_GROUP, NULL);
        rd_kafka_topic_partition_list_t *sub;
        char errstr[512];
        rd_kafka_t *rk;

        if (kind == CB_CHAINED)
                rd_kafka_conf_set_rebalance_cb(conf, chaining_cb);
        if (kind == CB_PLAIN)
                rd_kafka_conf_set_rebalance_cb(conf, plain_cb);
        if (kind == CB_FOREIGN) {
                rd_kafka_conf_set_rebalance_cb(conf, foreign_cb);
                rd_kafka_conf_set_log_cb(conf, capture_log);
        }
        rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
        assert_non_null(rk);
        rd_kafka_poll_set_consumer(rk);
        sub = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(sub, TOPIC, RD_KAFKA_PARTITION_UA);
        assert_int_equal(rd_kafka_subscribe(rk, sub), 0);
        rd_kafka_topic_partition_list_destroy(sub);
        return rk;
}

static void produce_ids(int from, int to) {
        bp_test_drs_t drs = {0};
        bp_test_produce_ids(bp_test_conf(cluster.bootstraps, BUCKET_CONF, NULL),
                            TOPIC, from, to, &drs);
        bp_test_drs_free(&drs);
}

static int bucket_partition(const char *bucket, int32_t p) {
        return !strcmp(bucket, "Gold") ? p >= 8 && p <= 11 : p >= 0 && p <= 7;
}

/* Polls every open member until the ids in [from, to) that the ledger
 * has as written are read. */
static void consume_until(member_t *m, int cnt, tk_ledger_t *lg, int from,
                          int to, int timeout_ms) {
        int64_t deadline = tk_now_ms() + timeout_ms;
        long missing     = tk_ledger_missing(lg, from, to);
        int i, k;

        while (missing > 0 && tk_now_ms() < deadline) {
                for (k = 0; k < cnt; k++) {
                        rd_kafka_message_t *msg;
                        if (m[k].closed)
                                continue;
                        msg = rd_kafka_consumer_poll(m[k].rk, 5);
                        if (!msg)
                                continue;
                        if (!msg->err && msg->key) {
                                i = (int)tk_key_id(msg->key, msg->key_len,
                                                   NULL);
                                m[k].consumed++;
                                if (!tk_key_is_bucket(msg->key, msg->key_len,
                                                      m[k].bucket) ||
                                    !bucket_partition(m[k].bucket,
                                                      msg->partition))
                                        m[k].wrong_bucket++;
                                if (tk_ledger_read(lg, i) == 1 && i >= from &&
                                    i < to)
                                        missing--;
                        }
                        rd_kafka_message_destroy(msg);
                }
        }
        assert_int_equal(missing, 0);
}

static void check_assignments(member_t *m, int cnt) {
        int owners[12] = {0}, k, i;
        for (k = 0; k < cnt; k++) {
                rd_kafka_topic_partition_list_t *a;
                if (m[k].closed)
                        continue;
                assert_int_equal(rd_kafka_assignment(m[k].rk, &a), 0);
                for (i = 0; i < a->cnt; i++) {
                        assert_true(bucket_partition(m[k].bucket,
                                                     a->elems[i].partition));
                        owners[a->elems[i].partition]++;
                }
                rd_kafka_topic_partition_list_destroy(a);
        }
        for (i = 0; i < 12; i++)
                assert_int_equal(owners[i], 1); /* exactly once */
}

static void close_member(member_t *m) {
        rd_kafka_consumer_close(m->rk);
        rd_kafka_destroy(m->rk);
        m->closed = 1;
}

/* 3 + 2 consumers configured by properties only, 20 000 records, one of
 * each bucket closed, 20 000 more: all read, only by their bucket. */
static void test_groups_per_bucket_through_rebalance(void **state) {
        member_t m[5] = {{.bucket = "Platinum"}, {.bucket = "Platinum"},
                         {.bucket = "Platinum"}, {.bucket = "Gold"},
                         {.bucket = "Gold"}};
        tk_ledger_t lg;
        int k;
        (void)state;

        assert_int_equal(tk_ledger_init(&lg, 40000), 0);
        for (k = 0; k < lg.n; k++)
                tk_ledger_write(&lg, k);
        for (k = 0; k < 5; k++)
                m[k].rk = consumer(m[k].bucket, "orders-app", CB_PLUGIN);
        produce_ids(0, 20000);
        consume_until(m, 5, &lg, 0, 20000, 120000);
        check_assignments(m, 5);

        close_member(&m[2]);
        close_member(&m[4]);
        produce_ids(20000, 40000);
        consume_until(m, 5, &lg, 20000, 40000, 120000);
        check_assignments(m, 5);

        for (k = 0; k < 5; k++) {
                assert_int_equal(m[k].wrong_bucket, 0);
                assert_true(m[k].consumed > 0);
        }
        print_message("40000 records, %ld duplicates after rebalances\n",
                      lg.duplicates);
        for (k = 0; k < 5; k++) {
                if (!m[k].closed)
                        close_member(&m[k]);
        }
        tk_ledger_free(&lg);
}

/* A consumer of one bucket counts without a scheduler: after reading the
 * Gold records of the topic (the 40 000 written above), its statistics
 * give every record it was handed, its 4 partitions and no lag; the bucket
 * it does not serve has rank -1 and nothing; an index past the buckets,
 * and a producer, have no consumer statistics. */
static void test_one_bucket_stats(void **state) {
        rd_kafka_t *rk = consumer("Gold", "stats-app", CB_PLUGIN);
        bp_consumer_bucket_stats_t st;
        int64_t deadline = tk_now_ms() + 120000;
        uint64_t read    = 0;
        int drained      = 0;
        bp_test_drs_t drs = {0};
        rd_kafka_t *producer;
        (void)state;

        while (!drained && tk_now_ms() < deadline) {
                rd_kafka_message_t *msg = rd_kafka_consumer_poll(rk, 50);
                if (msg) {
                        if (!msg->err) {
                                assert_true(bucket_partition("Gold",
                                                             msg->partition));
                                read++;
                        }
                        rd_kafka_message_destroy(msg);
                        continue;
                }
                assert_int_equal(bp_consumer_bucket_stats(rk, 1, &st), 0);
                drained = read > 0 && st.partitions == 4 && st.lag == 0 &&
                          st.lag_unknown == 0;
        }
        assert_true(drained);
        assert_string_equal(st.name, "Gold");
        assert_int_equal(st.rank, 0);
        assert_int_equal(st.delivered, read);
        assert_int_equal(st.paused, 0);
        assert_int_equal(st.pauses, 0);
        assert_int_equal(st.paused_ms, 0);

        assert_int_equal(bp_consumer_bucket_stats(rk, 0, &st), 0);
        assert_string_equal(st.name, "Platinum");
        assert_int_equal(st.rank, -1);
        assert_int_equal(st.delivered, 0);
        assert_int_equal(st.partitions, 0);
        assert_int_equal(bp_consumer_bucket_stats(rk, 2, &st), -1);
        print_message("one-bucket consumer: %llu records, stats agree\n",
                      (unsigned long long)read);
        rd_kafka_consumer_close(rk);
        rd_kafka_destroy(rk);

        producer = bp_test_producer(
            bp_test_conf(cluster.bootstraps, BUCKET_CONF, NULL), &drs);
        assert_int_equal(bp_consumer_bucket_stats(producer, 0, &st), -1);
        rd_kafka_destroy(producer);
        bp_test_drs_free(&drs);
}

/* One consumer of Gold in \p group with callback \p kind reads every Gold
 * record of the 40 000 in the topic, nothing else, through its callback. */
static void gold_through_callback(const char *group, cb_kind_t kind) {
        member_t m = {.bucket = "Gold"};
        tk_ledger_t lg;
        bp_stats_t st;
        int i;

        assert_int_equal(tk_ledger_init(&lg, 40000), 0);
        /* The topic holds 40 000 records by now; Gold has every third. */
        for (i = 0; i < lg.n; i += 3)
                tk_ledger_write(&lg, i);
        app_cb_calls = 0;
        m.rk         = consumer("Gold", group, kind);
        consume_until(&m, 1, &lg, 0, 40000, 120000);
        assert_true(app_cb_calls > 0);
        assert_int_equal(m.wrong_bucket, 0);
        assert_int_equal(bp_stats(m.rk, &st), 0);
        assert_int_equal(st.foreign, 0);
        close_member(&m);
        tk_ledger_free(&lg);
}

/* An application with its own callback that chains bp_assignment_map():
 * the list the plugin already mapped is not mapped twice. */
static void test_chained_callback(void **state) {
        (void)state;
        gold_through_callback("chain-app", CB_CHAINED);
}

/* An application with its own callback that assigns what it is given and
 * knows nothing of buckets (what confluent-kafka-python, kcat -G and C++
 * RebalanceCb programs do): the plugin maps in front of it. */
static void test_plain_callback_gets_bucket(void **state) {
        (void)state;
        gold_through_callback("plain-app", CB_PLAIN);
}

/* A callback that assigns partitions of its own choosing: the safety net
 * reports it. */
static void test_replaced_callback_caught(void **state) {
        rd_kafka_t *rk;
        bp_stats_t st;
        long deadline = tk_now_ms() + 120000;
        (void)state;

        captured_log[0] = '\0';
        rk = consumer("Gold", "override-app", CB_FOREIGN);
        while (tk_now_ms() < deadline) {
                rd_kafka_message_t *msg = rd_kafka_consumer_poll(rk, 5);
                if (msg)
                        rd_kafka_message_destroy(msg);
                if (bp_stats(rk, &st) == 0 && st.foreign > 100)
                        break;
        }
        assert_int_equal(bp_stats(rk, &st), 0);
        assert_true(st.foreign > 100);
        assert_non_null(strstr(captured_log, "received a record from orders ["));
        assert_non_null(strstr(captured_log, "bp_assignment_map"));
        rd_kafka_consumer_close(rk);
        rd_kafka_destroy(rk);
}

/* --- clients that take rebalances as events (confluent-kafka-go) -------- */

static rd_kafka_t *events_consumer(const char *group, const char *mapped,
                                   char *errstr, size_t errstr_size) {
        rd_kafka_conf_t *conf = bp_test_conf(
            cluster.bootstraps, BUCKET_CONF, "bucket.priority.bucket", "Gold",
            "group.id", group, FAST_GROUP, NULL);
        rd_kafka_t *rk;
        char err[256];

        if (mapped)
                assert_int_equal(
                    bp_test_set(conf, "bucket.priority.rebalance.events.mapped",
                                mapped, err, sizeof(err)),
                    RD_KAFKA_CONF_OK);
        rd_kafka_conf_set_events(conf, RD_KAFKA_EVENT_REBALANCE |
                                           RD_KAFKA_EVENT_FETCH |
                                           RD_KAFKA_EVENT_ERROR);
        rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, errstr_size);
        if (!rk)
                rd_kafka_conf_destroy(conf); /* still the caller's */
        return rk;
}

static char events_log[2048], paused_log[2048];

static void capture_events_log(const rd_kafka_t *rk, int level,
                               const char *fac, const char *buf) {
        (void)rk;
        if (strcmp(fac, "BUCKETPRIO") || level > 3)
                return;
        if (strstr(buf, "rebalances as events"))
                snprintf(events_log, sizeof(events_log), "%s", buf);
        if (strstr(buf, "a rebalance event it does not map"))
                snprintf(paused_log, sizeof(paused_log), "%s", buf);
}

/* A consumer that takes rebalances as events without saying it maps them
 * (Go without the helper) is told at creation; once it joined its group
 * and assigned what the event gave it, it reads at most one record, is
 * told again, and its assignment stays paused. With the property it is
 * left alone (test_events_mapped_by_name reads through). */
static void test_events_stopped(void **state) {
        const char *mapped[] = {NULL, "false", "true"};
        char errstr[512];
        rd_kafka_t *rk;
        rd_kafka_queue_t *q;
        rd_kafka_topic_partition_list_t *sub, *assigned;
        size_t i;
        int j;
        (void)state;

        for (i = 0; i < 3; i++) {
                long deadline = tk_now_ms() + 120000, records = 0, assigns = 0;
                long consumed = 0;
                char group[32];
                rd_kafka_conf_t *conf;

                snprintf(group, sizeof(group), "unmapped-app-%zu", i);
                conf = bp_test_conf(cluster.bootstraps, BUCKET_CONF,
                                    "bucket.priority.bucket", "Gold",
                                    "group.id", group, FAST_GROUP, NULL);

                events_log[0] = paused_log[0] = '\0';
                if (mapped[i])
                        assert_int_equal(
                            bp_test_set(conf,
                                        "bucket.priority.rebalance.events."
                                        "mapped",
                                        mapped[i], errstr, sizeof(errstr)),
                            RD_KAFKA_CONF_OK);
                rd_kafka_conf_set_log_cb(conf, capture_events_log);
                rd_kafka_conf_set_events(conf, RD_KAFKA_EVENT_REBALANCE |
                                                   RD_KAFKA_EVENT_FETCH |
                                                   RD_KAFKA_EVENT_ERROR);
                rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr,
                                  sizeof(errstr));
                assert_non_null(rk);
                if (i == 2) {
                        assert_string_equal(events_log, "");
                        rd_kafka_destroy(rk);
                        continue;
                }
                assert_non_null(strstr(
                    events_log, "bucket.priority.rebalance.events.mapped=true"));
                q   = rd_kafka_queue_get_consumer(rk);
                sub = rd_kafka_topic_partition_list_new(1);
                rd_kafka_topic_partition_list_add(sub, TOPIC,
                                                  RD_KAFKA_PARTITION_UA);
                assert_int_equal(rd_kafka_subscribe(rk, sub), 0);
                rd_kafka_topic_partition_list_destroy(sub);
                /* Assigns what the event gives, as Go does by default;
                 * then 3 s more past the first record. */
                while (tk_now_ms() < deadline) {
                        rd_kafka_event_t *ev = rd_kafka_queue_poll(q, 10);
                        if (!ev)
                                continue;
                        if (rd_kafka_event_type(ev) ==
                            RD_KAFKA_EVENT_REBALANCE) {
                                if (rd_kafka_event_error(ev) ==
                                    RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
                                        assigns++;
                                        rd_kafka_assign(
                                            rk,
                                            rd_kafka_event_topic_partition_list(
                                                ev));
                                } else
                                        rd_kafka_assign(rk, NULL);
                        }
                        if (rd_kafka_event_type(ev) == RD_KAFKA_EVENT_FETCH)
                                while (rd_kafka_event_message_next(ev))
                                        if (!records++)
                                                deadline = tk_now_ms() + 3000;
                        rd_kafka_event_destroy(ev);
                }
                assert_int_equal(rd_kafka_assignment(rk, &assigned), 0);
                print_message("events consumer, mapped=%s: %ld assignments "
                              "of %d partitions, %ld records; \"%s\"\n",
                              mapped[i] ? mapped[i] : "(unset)", assigns,
                              assigned->cnt, records, paused_log);
                /* The topic holds 40 000 records: the lone member is given
                 * all 12 partitions and would read them all. */
                assert_int_equal(assigns, 1);
                assert_int_equal(records, 1);
                assert_true(assigned->cnt > 0);
                for (j = 0; j < assigned->cnt; j++) {
                        rd_kafka_topic_partition_list_t *one =
                            rd_kafka_topic_partition_list_new(1);
                        rd_kafka_topic_partition_list_add(
                            one, TOPIC, assigned->elems[j].partition);
                        assert_int_equal(rd_kafka_position(rk, one), 0);
                        if (one->elems[0].offset > 0)
                                consumed += (long)one->elems[0].offset;
                        rd_kafka_topic_partition_list_destroy(one);
                }
                /* Nothing consumed past the one record (a fresh group
                 * starts at offset 0). */
                assert_int_equal(consumed, 1);
                rd_kafka_topic_partition_list_destroy(assigned);
                assert_non_null(strstr(paused_log, "partitions are paused"));
                rd_kafka_queue_destroy(q);
                rd_kafka_consumer_close(rk);
                rd_kafka_destroy(rk);
        }
}

/* Maps one rebalance event as the Go helper does: by client name, arrays. */
static void map_event_by_name(rd_kafka_t *rk, rd_kafka_event_t *ev) {
        const rd_kafka_topic_partition_list_t *given =
            rd_kafka_event_topic_partition_list(ev);
        int cnt = given->cnt, i, n;
        const char **topics   = calloc((size_t)cnt + 1, sizeof(*topics));
        int32_t *parts        = calloc((size_t)cnt + 1, sizeof(*parts));
        int32_t *idx          = calloc((size_t)cnt + 1, sizeof(*idx));
        int32_t *out_parts    = calloc((size_t)cnt + 1, sizeof(*out_parts));
        int64_t *out_offsets  = calloc((size_t)cnt + 1, sizeof(*out_offsets));
        rd_kafka_topic_partition_list_t *assign;
        char errstr[256];

        for (i = 0; i < cnt; i++) {
                topics[i] = given->elems[i].topic;
                parts[i]  = given->elems[i].partition;
        }
        n = bp_assignment_map_by_name(rd_kafka_name(rk), topics, parts, cnt,
                                      idx, out_parts, out_offsets, errstr,
                                      sizeof(errstr));
        assert_true(n >= 0);
        assign = rd_kafka_topic_partition_list_new(n);
        for (i = 0; i < n; i++) {
                assert_true(bucket_partition("Gold", out_parts[i]));
                rd_kafka_topic_partition_list_add(assign, topics[idx[i]],
                                                  out_parts[i])
                    ->offset = out_offsets[i];
        }
        assert_int_equal(rd_kafka_assign(rk, assign), 0);
        rd_kafka_topic_partition_list_destroy(assign);
        free(topics), free(parts), free(idx), free(out_parts);
        free(out_offsets);
}

/* With the property, the application maps each assignment through
 * bp_assignment_map_by_name() and reads exactly its bucket. */
static void test_events_mapped_by_name(void **state) {
        char errstr[512], key[32];
        rd_kafka_t *rk;
        rd_kafka_queue_t *q;
        rd_kafka_topic_partition_list_t *sub;
        const rd_kafka_message_t *msg;
        long deadline = tk_now_ms() + 120000, gold = 0, wrong = 0;
        int rebalances = 0;
        (void)state;

        rk = events_consumer("events-app", "true", errstr, sizeof(errstr));
        assert_non_null(rk);
        assert_int_equal(bp_assignment_map_by_name("no-such-client", NULL, NULL,
                                                   0, NULL, NULL, NULL, errstr,
                                                   sizeof(errstr)),
                         -1);
        assert_non_null(strstr(errstr, "no-such-client"));
        q   = rd_kafka_queue_get_consumer(rk);
        sub = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(sub, TOPIC, RD_KAFKA_PARTITION_UA);
        assert_int_equal(rd_kafka_subscribe(rk, sub), 0);
        rd_kafka_topic_partition_list_destroy(sub);
        /* The topic holds 40 000 records, a third of them Gold. */
        while (gold < 40000 / 3 && tk_now_ms() < deadline) {
                rd_kafka_event_t *ev = rd_kafka_queue_poll(q, 10);
                if (!ev)
                        continue;
                if (rd_kafka_event_type(ev) == RD_KAFKA_EVENT_REBALANCE) {
                        rebalances++;
                        if (rd_kafka_event_error(ev) ==
                            RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS)
                                map_event_by_name(rk, ev);
                        else
                                rd_kafka_assign(rk, NULL);
                }
                while (rd_kafka_event_type(ev) == RD_KAFKA_EVENT_FETCH &&
                       (msg = rd_kafka_event_message_next(ev))) {
                        if (msg->err || !msg->key)
                                continue;
                        snprintf(key, sizeof(key), "%.*s", (int)msg->key_len,
                                 (const char *)msg->key);
                        if (!strncmp(key, "Gold-", 5) &&
                            bucket_partition("Gold", msg->partition))
                                gold++;
                        else
                                wrong++;
                }
                rd_kafka_event_destroy(ev);
        }
        print_message("events consumer: %ld Gold records, %ld wrong, %d "
                      "rebalances\n",
                      gold, wrong, rebalances);
        assert_true(rebalances > 0);
        assert_int_equal(wrong, 0);
        assert_true(gold >= 40000 / 3);
        rd_kafka_queue_destroy(q);
        rd_kafka_consumer_close(rk);
        rd_kafka_destroy(rk);
}

/* --- start offsets -------------------------------------------------------- */

/* Commits \p offset for partition \p p of \p topic in group \p group on
 * the cluster at \p bootstraps. */
static void commit_topic_as(const char *bootstraps, const char *group,
                            const char *topic, int32_t p, int64_t offset) {
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        rd_kafka_topic_partition_list_t *l =
            rd_kafka_topic_partition_list_new(1);
        char err[512];
        rd_kafka_t *rk;

        rd_kafka_conf_set(conf, "bootstrap.servers", bootstraps, err,
                          sizeof(err));
        rd_kafka_conf_set(conf, "group.id", group, err, sizeof(err));
        rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
        assert_non_null(rk);
        rd_kafka_topic_partition_list_add(l, topic, p)->offset = offset;
        assert_int_equal(rd_kafka_commit(rk, l, 0), 0);
        rd_kafka_topic_partition_list_destroy(l);
        rd_kafka_destroy(rk);
}

/* commit_topic_as() on "offsets". */
static void commit_as(const char *bootstraps, const char *group, int32_t p,
                      int64_t offset) {
        commit_topic_as(bootstraps, group, "offsets", p, offset);
}

/* The plugin's lines about sibling groups, from the last consumer made by
 * offsets_consumer_logged() with it. */
static char sibling_log[1024];

static void capture_sibling_log(const rd_kafka_t *rk, int level,
                                const char *fac, const char *buf) {
        (void)rk, (void)level;
        if (!strcmp(fac, "BUCKETPRIO") && strstr(buf, "sibling group"))
                snprintf(sibling_log, sizeof(sibling_log), "%s", buf);
}

/* offsets_consumer() with \p log_cb as its log callback (NULL: none). */
static rd_kafka_t *offsets_consumer_logged(
    const char *bootstraps, const char *bucket,
    void (*log_cb)(const rd_kafka_t *, int, const char *, const char *)) {
        rd_kafka_conf_t *conf = bp_test_conf(
            bootstraps, "bucket.priority.topic", "offsets",
            "bucket.priority.buckets", "Platinum, Gold, Silver",
            "bucket.priority.allocation", "50, 25, 25",
            "bucket.priority.bucket", bucket, "group.id", "app",
            "auto.offset.reset", "latest", NULL);
        char errstr[512];
        rd_kafka_t *rk;

        if (log_cb)
                rd_kafka_conf_set_log_cb(conf, log_cb);
        rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
        assert_non_null(rk);
        return rk;
}

/* A consumer of "offsets" serving bucket \p bucket (3 buckets, 12
 * partitions: Platinum 0-5, Gold 6-8, Silver 9-11) in group base "app". */
static rd_kafka_t *offsets_consumer(const char *bootstraps,
                                    const char *bucket) {
        return offsets_consumer_logged(bootstraps, bucket, NULL);
}

static int64_t start_of(rd_kafka_t *rk, int32_t index, int32_t *partition) {
        rd_kafka_topic_partition_list_t *given =
            rd_kafka_topic_partition_list_new(1), *mapped;
        char errstr[256];
        int64_t off;

        rd_kafka_topic_partition_list_add(given, "offsets", index);
        mapped = bp_assignment_map(rk, given, errstr, sizeof(errstr));
        assert_non_null(mapped);
        assert_int_equal(mapped->cnt, 1);
        *partition = mapped->elems[0].partition;
        off        = mapped->elems[0].offset;
        rd_kafka_topic_partition_list_destroy(mapped);
        rd_kafka_topic_partition_list_destroy(given);
        return off;
}

static void test_start_offsets(void **state) {
        rd_kafka_t *rk;
        int32_t p;
        (void)state;

        /* A brand-new group: auto.offset.reset decides. */
        rk = offsets_consumer(cluster.bootstraps, "Gold");
        assert_int_equal(start_of(rk, 0, &p), RD_KAFKA_OFFSET_INVALID);
        assert_int_equal(p, 6);
        rd_kafka_destroy(rk);

        /* Siblings committed partition 7: the highest wins. */
        commit_as(cluster.bootstraps, "app.Platinum", 7, 42);
        commit_as(cluster.bootstraps, "app.Silver", 7, 17);
        /* The group has committed before (partition 8), never 6 or 7. */
        commit_as(cluster.bootstraps, "app.Gold", 8, 5);
        rk = offsets_consumer(cluster.bootstraps, "Gold");
        assert_int_equal(start_of(rk, 1, &p), 42);
        assert_int_equal(p, 7);
        assert_int_equal(start_of(rk, 0, &p), RD_KAFKA_OFFSET_BEGINNING);
        assert_int_equal(p, 6);
        /* A committed partition keeps its committed offset. */
        assert_int_equal(start_of(rk, 2, &p), RD_KAFKA_OFFSET_INVALID);
        assert_int_equal(p, 8);
        rd_kafka_destroy(rk);
}

#define API_OFFSET_FETCH 9 /* the Kafka protocol's ApiKey of OffsetFetch */

/* A cluster of 3 brokers with topic "offsets" (12 partitions) where each
 * bucket group has its own coordinator: app.Gold on broker 1,
 * app.Platinum on 2, app.Silver on 3. */
static void three_coordinators(bp_test_cluster_t *three) {
        bp_test_cluster_start(three, 3);
        bp_test_cluster_topic(three, "offsets", 12);
        rd_kafka_mock_coordinator_set(three->mcluster, "group", "app.Gold", 1);
        rd_kafka_mock_coordinator_set(three->mcluster, "group", "app.Platinum",
                                      2);
        rd_kafka_mock_coordinator_set(three->mcluster, "group", "app.Silver",
                                      3);
}

/* A sibling group whose coordinator is still loading when the consumer is
 * assigned (as after a broker restart moved it): its offsets are read once
 * the coordinator answers, so the partition still starts where that sibling
 * stopped, not at another sibling's lower offset. Each group has its own
 * coordinator on a cluster of 3 brokers; only app.Platinum's answers
 * "coordinator load in progress", 3 times. */
static void test_start_offsets_sibling_coordinator_loading(void **state) {
        rd_kafka_resp_err_t loading =
            RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS;
        bp_test_cluster_t three;
        rd_kafka_t *rk;
        int32_t p;
        (void)state;

        three_coordinators(&three);
        commit_as(three.bootstraps, "app.Platinum", 7, 42);
        commit_as(three.bootstraps, "app.Silver", 7, 17);
        commit_as(three.bootstraps, "app.Gold", 8, 5);
        rd_kafka_mock_broker_push_request_error_rtts(
            three.mcluster, 2, API_OFFSET_FETCH, 3, loading, 0, loading, 0,
            loading, 0);

        rk = offsets_consumer(three.bootstraps, "Gold");
        assert_int_equal(start_of(rk, 1, &p), 42);
        assert_int_equal(p, 7);
        rd_kafka_destroy(rk);
        bp_test_cluster_stop(&three);
}

/* A sibling group whose offsets cannot be read (its coordinator answers
 * "loading" past the plugin's 10 s wait): the plugin logs it and the
 * partition falls to rule 3, the beginning (the group has committed
 * before), rather than to a guess. */
static void test_start_offsets_sibling_unreadable(void **state) {
        rd_kafka_resp_err_t loading =
            RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS;
        bp_test_cluster_t three;
        rd_kafka_t *rk;
        int32_t p;
        int i;
        (void)state;

        three_coordinators(&three);
        commit_as(three.bootstraps, "app.Platinum", 7, 42);
        commit_as(three.bootstraps, "app.Gold", 8, 5);
        for (i = 0; i < 50; i++)
                rd_kafka_mock_broker_push_request_error_rtts(
                    three.mcluster, 2, API_OFFSET_FETCH, 4, loading, 0,
                    loading, 0, loading, 0, loading, 0);

        sibling_log[0] = '\0';
        rk = offsets_consumer_logged(three.bootstraps, "Gold",
                                     capture_sibling_log);
        assert_int_equal(start_of(rk, 1, &p), RD_KAFKA_OFFSET_BEGINNING);
        assert_int_equal(p, 7);
        assert_non_null(strstr(sibling_log, "cannot read the offsets of "
                                            "sibling group \"app.Platinum\""));
        rd_kafka_destroy(rk);
        bp_test_cluster_stop(&three);
}

/* --- sibling reads at 50 buckets ------------------------------------------ */

#define FIFTY 50

static void sleep_ms(int ms) {
        struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
}

static int64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The plugin's "start offsets:" line of the last rebalance and its line
 * on the reads begun at creation (log_level 7); the second comes from a
 * thread of the plugin's. */
static pthread_mutex_t reads_lock = PTHREAD_MUTEX_INITIALIZER;
static char reads_log[512], created_log[512];

static void capture_reads_log(const rd_kafka_t *rk, int level,
                              const char *fac, const char *buf) {
        (void)rk, (void)level;
        if (strcmp(fac, "BUCKETPRIO"))
                return;
        pthread_mutex_lock(&reads_lock);
        if (strstr(buf, "start offsets:"))
                snprintf(reads_log, sizeof(reads_log), "%s", buf);
        if (strstr(buf, "sibling offsets read at creation:"))
                snprintf(created_log, sizeof(created_log), "%s", buf);
        pthread_mutex_unlock(&reads_lock);
}

/* What the last rebalance's line says: groups read, partitions read for,
 * readers alive at once, partitions known from before. */
typedef struct sibling_reads {
        int read, groups, partitions, peak, known;
} sibling_reads_t;

static sibling_reads_t last_reads(void) {
        sibling_reads_t r = {-1, -1, -1, -1, -1};
        long long ms;
        pthread_mutex_lock(&reads_lock);
        assert_int_equal(
            sscanf(reads_log,
                   "start offsets: %d of %d sibling groups read for %d "
                   "partitions, at most %d at once, in %lld ms; %d",
                   &r.read, &r.groups, &r.partitions, &r.peak, &ms, &r.known),
            6);
        reads_log[0] = '\0';
        pthread_mutex_unlock(&reads_lock);
        return r;
}

/* What the reads begun at creation found, once their line is logged
 * (waits up to 30 s): groups answered of groups, partitions read for, of
 * the topic's, readers alive at once. */
typedef struct created_reads {
        int answered, groups, partitions, of, peak;
} created_reads_t;

static created_reads_t created_reads(void) {
        created_reads_t r = {-1, -1, -1, -1, -1};
        int i, n = 0;

        for (i = 0; i < 3000 && n != 5; i++) {
                pthread_mutex_lock(&reads_lock);
                n = sscanf(created_log,
                           "sibling offsets read at creation: %d of %d "
                           "groups answered for %d partitions of %d, at "
                           "most %d at once",
                           &r.answered, &r.groups, &r.partitions, &r.of,
                           &r.peak);
                pthread_mutex_unlock(&reads_lock);
                if (n != 5)
                        sleep_ms(10);
        }
        assert_int_equal(n, 5);
        return r;
}

/* Starts of the bucket's partitions for the whole topic handed to the
 * consumer, as a classic group of one member gets it. */
static void map_all(rd_kafka_t *rk, int32_t cnt, int64_t *start) {
        rd_kafka_topic_partition_list_t *given =
            rd_kafka_topic_partition_list_new(cnt), *mapped;
        char errstr[256];
        int32_t p;
        int i;

        for (p = 0; p < cnt; p++)
                rd_kafka_topic_partition_list_add(given, "fifty", p);
        mapped = bp_assignment_map(rk, given, errstr, sizeof(errstr));
        assert_non_null(mapped);
        assert_int_equal(mapped->cnt, 2); /* b0: partitions 0 and 1 */
        for (i = 0; i < mapped->cnt; i++)
                start[mapped->elems[i].partition] = mapped->elems[i].offset;
        rd_kafka_topic_partition_list_destroy(mapped);
        rd_kafka_topic_partition_list_destroy(given);
}

/* A consumer of bucket b0 of 50 (2% each, 100 partitions) of group base
 * "many" on \p bootstraps, logging through capture_reads_log. */
static rd_kafka_t *fifty_consumer(const char *bootstraps) {
        char names[FIFTY * 4], alloc[FIFTY * 4], errstr[512];
        size_t n = 0, a = 0;
        rd_kafka_conf_t *conf;
        rd_kafka_t *rk;
        int b;

        for (b = 0; b < FIFTY; b++) {
                n += (size_t)snprintf(names + n, sizeof(names) - n, "%sb%d",
                                      b ? "," : "", b);
                a += (size_t)snprintf(alloc + a, sizeof(alloc) - a, "%s2",
                                      b ? "," : "");
        }
        conf = bp_test_conf(bootstraps, "bucket.priority.topic", "fifty",
                            "bucket.priority.buckets", names,
                            "bucket.priority.allocation", alloc,
                            "bucket.priority.bucket", "b0", "group.id",
                            "many", "log_level", "7", NULL);
        rd_kafka_conf_set_log_cb(conf, capture_reads_log);
        pthread_mutex_lock(&reads_lock);
        reads_log[0] = created_log[0] = '\0';
        pthread_mutex_unlock(&reads_lock);
        rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
        assert_non_null(rk);
        return rk;
}

/* A consumer of bucket b0 of 50 (2% each, 100 partitions) reads the 49
 * sibling groups when it is created, with one short-lived client each,
 * several at once; its first rebalance then reads none, nor do the next
 * ones under the same layout, and all start where the highest sibling
 * commit says (many.b7's 42 on partition 1). */
static void test_sibling_reads_fifty_buckets(void **state) {
        created_reads_t c;
        sibling_reads_t r;
        int64_t start[100];
        rd_kafka_t *rk;
        int round;
        (void)state;

        bp_test_cluster_topic(&cluster, "fifty", 100);
        commit_topic_as(cluster.bootstraps, "many.b7", "fifty", 1, 42);
        commit_topic_as(cluster.bootstraps, "many.b3", "fifty", 1, 17);

        rk = fifty_consumer(cluster.bootstraps);
        c  = created_reads();
        assert_int_equal(c.groups, FIFTY - 1); /* one client per sibling */
        assert_int_equal(c.answered, FIFTY - 1);
        assert_int_equal(c.partitions, 2);
        assert_int_equal(c.of, 100);
        assert_true(c.peak >= 2);  /* read in parallel */
        assert_true(c.peak <= 16); /* BP_SIBLING_READERS_MAX */

        /* The first rebalance, a join, a leave: the same layout, nothing
         * read at any of them. */
        for (round = 0; round < 3; round++) {
                start[0] = start[1] = 0;
                map_all(rk, 100, start);
                r = last_reads();
                assert_int_equal(r.groups, 0);
                assert_int_equal(r.partitions, 0);
                assert_int_equal(r.known, 2);
                assert_int_equal(start[1], 42);
                assert_int_equal(start[0], RD_KAFKA_OFFSET_INVALID);
        }
        rd_kafka_destroy(rk);
}

/* The first rebalance comes while the reads begun at creation still run
 * (the sibling groups' OffsetFetch answered 300 ms late): it waits for
 * them rather than reading a second time, and the highest commit wins. */
static void test_sibling_reads_first_rebalance_waits(void **state) {
        const char *waited;
        sibling_reads_t r;
        long long ms;
        int64_t start[100];
        rd_kafka_t *rk;
        int i;
        (void)state;

        commit_topic_as(cluster.bootstraps, "many.b9", "fifty", 0, 60);
        commit_topic_as(cluster.bootstraps, "many.b41", "fifty", 0, 61);
        for (i = 0; i < FIFTY; i++)
                rd_kafka_mock_broker_push_request_error_rtts(
                    cluster.mcluster, 1, API_OFFSET_FETCH, 1,
                    RD_KAFKA_RESP_ERR_NO_ERROR, 300);
        rk = fifty_consumer(cluster.bootstraps);
        map_all(rk, 100, start);
        pthread_mutex_lock(&reads_lock);
        waited = strstr(reads_log, "), ");
        assert_non_null(waited);
        assert_int_equal(sscanf(waited, "), %lld ms of it waiting", &ms), 1);
        pthread_mutex_unlock(&reads_lock);
        print_message("first rebalance waited %lld ms for the reads begun "
                      "at creation\n", ms);
        assert_true(ms > 0);
        r = last_reads();
        assert_int_equal(r.groups, 0);
        assert_int_equal(r.partitions, 0);
        assert_int_equal(r.known, 2);
        assert_int_equal(start[0], 61);
        assert_int_equal(start[1], 42);
        rd_kafka_destroy(rk);
}

/* Destroyed while it reads the sibling groups (each OffsetFetch of the
 * first reader of every group answered 2 s late): no further group is
 * begun, and rd_kafka_destroy() returns once those under way are done,
 * well within the plugin's bound (their 3 s timeout plus 3 s); nothing is
 * left allocated (the valgrind pass). Then destroyed at once, before the
 * thread has done anything. */
static void test_sibling_reads_destroyed_while_reading(void **state) {
        int64_t t0;
        rd_kafka_t *rk;
        int i;
        (void)state;

        for (i = 0; i < 16; i++)
                rd_kafka_mock_broker_push_request_error_rtts(
                    cluster.mcluster, 1, API_OFFSET_FETCH, 1,
                    RD_KAFKA_RESP_ERR_NO_ERROR, 2000);
        rk = fifty_consumer(cluster.bootstraps);
        sleep_ms(300); /* the readers are waiting */
        t0 = now_ms();
        rd_kafka_destroy(rk);
        t0 = now_ms() - t0;
        print_message("destroyed while reading in %lld ms\n", (long long)t0);
        assert_true(t0 < 6000);
        sleep_ms(2500); /* no late answer left for the next */

        t0 = now_ms();
        rd_kafka_destroy(fifty_consumer(cluster.bootstraps));
        t0 = now_ms() - t0;
        print_message("destroyed at once in %lld ms\n", (long long)t0);
        assert_true(t0 < 6000);
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_group_id_derived_in_any_order),
            cmocka_unit_test(test_consumer_settings_refused),
            cmocka_unit_test(test_group_protocol_before_plugin),
            cmocka_unit_test(test_groups_per_bucket_through_rebalance),
            cmocka_unit_test(test_one_bucket_stats),
            cmocka_unit_test(test_chained_callback),
            cmocka_unit_test(test_plain_callback_gets_bucket),
            cmocka_unit_test(test_replaced_callback_caught),
            cmocka_unit_test(test_events_stopped),
            cmocka_unit_test(test_events_mapped_by_name),
            cmocka_unit_test(test_start_offsets),
            cmocka_unit_test(test_start_offsets_sibling_coordinator_loading),
            cmocka_unit_test(test_start_offsets_sibling_unreadable),
            cmocka_unit_test(test_sibling_reads_fifty_buckets),
            cmocka_unit_test(test_sibling_reads_first_rebalance_waits),
            cmocka_unit_test(test_sibling_reads_destroyed_while_reading),
        };
        return cmocka_run_group_tests(tests, setup, bp_test_cluster_teardown);
}
