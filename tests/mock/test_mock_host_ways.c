/*
 * test_mock_host_ways.c - hosts that drive librdkafka their own way, as log
 * shippers do (docs/log-pipelines.md), on the embedded mock cluster:
 *   - a producer that picks the partition itself (rsyslog's omkafka by
 *     default): its records are counted per bucket, the misplaced ones
 *     apart, the first of them logged once with the fix, whether or not the
 *     partitioner ever ran;
 *   - a producer whose host set a partitioner callback of its own: the
 *     bucket topic by bucket, the other topics by the host's, said once;
 *   - a consumer whose brokers were added with rd_kafka_brokers_add()
 *     (rsyslog's imkafka): the plugin's helper clients bootstrap from the
 *     brokers the consumer knows, so the sibling group is read and nothing
 *     waits out a timeout;
 *   - a consumer whose helpers cannot reach the cluster while it can: the
 *     reads begun at its creation (3 s from then) and one helper wait at
 *     the rebalance (3 s), then the consumer asks itself and the sibling
 *     reads are skipped, so its first record comes within that bound of a
 *     plain consumer's (it was 3 s and 10 s more).
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

#define TOPIC "logs"
#define OTHER "metrics"
#define PARTITIONS 8
/* crit 6-7, info 0-5 at 8 partitions (bp-layout shows it). */
#define CRIT_LO 6
#define BUCKETS                                                                \
        "bucket.priority.topic", TOPIC, "bucket.priority.buckets",             \
            "crit, info", "bucket.priority.allocation", "25%, 75%"

static bp_test_cluster_t cluster;

static int setup(void **state) {
        bp_test_cluster_start(&cluster, 1);
        bp_test_cluster_topic(&cluster, TOPIC, PARTITIONS);
        bp_test_cluster_topic(&cluster, OTHER, 4);
        *state = &cluster;
        return 0;
}

/* The plugin's log lines (facility BUCKETPRIO) of the clients made here. */
static char logged[65536];

static void capture(const rd_kafka_t *rk, int level, const char *fac,
                    const char *buf) {
        size_t len = strlen(logged);
        (void)rk, (void)level;
        if (!strcmp(fac, "BUCKETPRIO") &&
            len + strlen(buf) + 2 < sizeof(logged))
                snprintf(logged + len, sizeof(logged) - len, "%s\n", buf);
}

static int occurrences(const char *text, const char *what) {
        int n = 0;
        for (; (text = strstr(text, what)); text += strlen(what))
                n++;
        return n;
}

/* Writes \p n records keyed \p key to \p partition (UA: the partitioner
 * chooses) and waits for their reports, each delivered. */
static void write_to(rd_kafka_t *rk, bp_test_drs_t *drs, const char *key,
                     int32_t partition, int n) {
        size_t want = drs->cnt + (size_t)n;
        int i;

        for (i = 0; i < n; i++)
                assert_int_equal(
                    rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(TOPIC),
                                      RD_KAFKA_V_PARTITION(partition),
                                      RD_KAFKA_V_KEY(key, strlen(key)),
                                      RD_KAFKA_V_VALUE("m", 1),
                                      RD_KAFKA_V_END),
                    0);
        bp_test_wait_drs(rk, drs, want, 10000);
        assert_int_equal(drs->cnt, want);
        for (i = 0; i < n; i++) {
                assert_int_equal(drs->v[want - 1 - (size_t)i].err, 0);
                if (partition != RD_KAFKA_PARTITION_UA)
                        assert_int_equal(drs->v[want - 1 - (size_t)i].partition,
                                         partition);
        }
}

static bp_explicit_stats_t explicit_of(rd_kafka_t *rk, int idx) {
        bp_explicit_stats_t s;
        assert_int_equal(bp_explicit_stats(rk, idx, &s), 0);
        return s;
}

/* Waits up to 10 s for the first misplaced record of bucket 0 (crit) to be
 * judged: the thread that learns the partition count answered. */
static void wait_judged(rd_kafka_t *rk) {
        int i;
        for (i = 0; i < 200 && explicit_of(rk, 0).misplaced == 0; i++)
                rd_kafka_poll(rk, 50);
}

/* A host that always picks the partition: the partitioner never runs, so
 * the partition count comes from the plugin's own metadata request. */
static void test_explicit_without_partitioner(void **state) {
        bp_test_drs_t drs = {0};
        rd_kafka_conf_t *conf = bp_test_conf(cluster.bootstraps, BUCKETS, NULL);
        rd_kafka_t *rk;
        char json[2048];
        (void)state;

        logged[0] = '\0';
        rd_kafka_conf_set_log_cb(conf, capture);
        rk = bp_test_producer(conf, &drs);
        write_to(rk, &drs, "crit", 0, 20);         /* misplaced */
        write_to(rk, &drs, "info", 1, 10);         /* its own bucket */
        write_to(rk, &drs, "crit", CRIT_LO, 5);    /* its own bucket */
        write_to(rk, &drs, "no-bucket", 2, 3);     /* names none */
        wait_judged(rk);
        assert_int_equal(explicit_of(rk, 0).written, 25);
        assert_int_equal(explicit_of(rk, 1).written, 10);
        assert_int_equal(explicit_of(rk, -1).written, 3);
        assert_int_equal(explicit_of(rk, 1).misplaced, 0);
        assert_int_equal(explicit_of(rk, -1).misplaced, 0);
        /* Before the count was known only the first was kept and judged. */
        assert_in_range(explicit_of(rk, 0).misplaced, 1, 20);
        /* Known now: every misplaced record counts, none logs again. */
        {
                uint64_t before = explicit_of(rk, 0).misplaced;
                write_to(rk, &drs, "crit", 3, 7);
                assert_int_equal(explicit_of(rk, 0).misplaced, before + 7);
                write_to(rk, &drs, "crit", CRIT_LO + 1, 4);
                assert_int_equal(explicit_of(rk, 0).misplaced, before + 7);
        }
        assert_int_equal(occurrences(logged, "chosen by the application"), 1);
        assert_non_null(strstr(logged, "written to partition 0, chosen"));
        assert_non_null(strstr(logged, "key \"crit\" is bucket \"crit\", "
                                       "partitions 6-7 of 8"));
        assert_non_null(strstr(logged, "partitions.auto=\"on\""));
        assert_true(bp_stats_json(rk, json, sizeof(json)) > 0);
        assert_non_null(strstr(json, "\"name\":\"crit\""));
        assert_non_null(strstr(json, "\"explicit\":36,\"misplaced\":"));
        assert_non_null(strstr(json, "\"explicit_other\":3"));
        bp_test_producer_close(rk, NULL, &drs);
}

/* A host that routes some records through the partitioner and picks the
 * partition for others: judged at once against the partitioner's layout. */
static void test_explicit_beside_partitioner(void **state) {
        bp_test_drs_t drs = {0};
        rd_kafka_conf_t *conf = bp_test_conf(cluster.bootstraps, BUCKETS, NULL);
        rd_kafka_t *rk;
        (void)state;

        logged[0] = '\0';
        rd_kafka_conf_set_log_cb(conf, capture);
        rk = bp_test_producer(conf, &drs);
        write_to(rk, &drs, "crit", RD_KAFKA_PARTITION_UA, 10);
        assert_true(drs.v[drs.cnt - 1].partition >= CRIT_LO);
        write_to(rk, &drs, "info", CRIT_LO, 9);
        assert_int_equal(explicit_of(rk, 1).written, 9);
        assert_int_equal(explicit_of(rk, 1).misplaced, 9);
        assert_int_equal(explicit_of(rk, 0).written, 0);
        assert_int_equal(occurrences(logged, "chosen by the application"), 1);
        assert_non_null(strstr(logged, "key \"info\" is bucket \"info\", "
                                       "partitions 0-5 of 8"));
        bp_test_producer_close(rk, NULL, &drs);
}

/* A producer destroyed while its count thread still asks (no cluster):
 * the destroy returns within a metadata slice, nothing leaks. */
static void test_explicit_destroy_while_asking(void **state) {
        rd_kafka_conf_t *conf =
            bp_test_conf("127.0.0.1:1", BUCKETS, "message.timeout.ms", "500",
                         NULL);
        bp_test_drs_t drs = {0};
        rd_kafka_t *rk;
        int64_t t0;
        (void)state;

        logged[0] = '\0';
        rd_kafka_conf_set_log_cb(conf, capture);
        rk = bp_test_producer(conf, &drs);
        assert_int_equal(rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(TOPIC),
                                           RD_KAFKA_V_PARTITION(0),
                                           RD_KAFKA_V_KEY("crit", 4),
                                           RD_KAFKA_V_END),
                         0);
        assert_int_equal(explicit_of(rk, 0).written, 1);
        bp_test_wait_drs(rk, &drs, 1, 5000); /* timed out: not delivered */
        t0 = tk_wall_ms();
        bp_test_producer_close(rk, NULL, &drs);
        if (!getenv("BP_TEST_NO_TIMING"))
                assert_true(tk_wall_ms() - t0 < 3000);
        assert_null(strstr(logged, "chosen by the application"));
}

/* A host's own partitioner (collectd's write_kafka sets one): always the
 * last partition, counting its calls. */
static int host_calls;
static int32_t host_partitioner(const rd_kafka_topic_t *rkt, const void *key,
                                size_t keylen, int32_t partition_cnt,
                                void *rkt_opaque, void *msg_opaque) {
        (void)rkt, (void)key, (void)keylen, (void)rkt_opaque, (void)msg_opaque;
        host_calls++;
        return partition_cnt - 1;
}

/* Set on the default topic configuration: the bucket topic is routed by
 * bucket, the other topic by the host's callback, and the log says so
 * once; without one, nothing is said. */
static void test_host_partitioner(void **state) {
        rd_kafka_conf_t *conf = bp_test_conf(cluster.bootstraps, BUCKETS, NULL);
        rd_kafka_topic_conf_t *tconf = rd_kafka_topic_conf_new();
        bp_test_drs_t drs = {0};
        rd_kafka_t *rk;
        size_t want;
        (void)state;

        logged[0] = '\0';
        rd_kafka_topic_conf_set_partitioner_cb(tconf, host_partitioner);
        rd_kafka_conf_set_default_topic_conf(conf, tconf);
        rd_kafka_conf_set_log_cb(conf, capture);
        rk = bp_test_producer(conf, &drs);
        write_to(rk, &drs, "crit", RD_KAFKA_PARTITION_UA, 10);
        assert_true(drs.v[drs.cnt - 1].partition >= CRIT_LO);
        want = drs.cnt + 5;
        for (int i = 0; i < 5; i++)
                assert_int_equal(rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(OTHER),
                                                   RD_KAFKA_V_KEY("k", 1),
                                                   RD_KAFKA_V_END),
                                 0);
        bp_test_wait_drs(rk, &drs, want, 10000);
        assert_int_equal(drs.cnt, want);
        assert_int_equal(drs.v[want - 1].partition, 3);
        assert_true(host_calls >= 5);
        assert_int_equal(occurrences(logged, "partitioner callback of its "
                                             "own"),
                         1);
        bp_test_producer_close(rk, NULL, &drs);

        logged[0] = '\0';
        conf      = bp_test_conf(cluster.bootstraps, BUCKETS, NULL);
        rd_kafka_conf_set_log_cb(conf, capture);
        rk = bp_test_producer(conf, &drs);
        write_to(rk, &drs, "info", RD_KAFKA_PARTITION_UA, 3);
        assert_true(drs.v[drs.cnt - 1].partition < CRIT_LO);
        assert_null(strstr(logged, "partitioner callback of its own"));
        bp_test_producer_close(rk, NULL, &drs);
}

/* Writes 50 crit and 50 info records through the plugin's partitioner. */
static void fill(void) {
        bp_test_drs_t drs = {0};
        rd_kafka_t *rk =
            bp_test_producer(bp_test_conf(cluster.bootstraps, BUCKETS, NULL),
                             &drs);
        write_to(rk, &drs, "crit", RD_KAFKA_PARTITION_UA, 50);
        write_to(rk, &drs, "info", RD_KAFKA_PARTITION_UA, 50);
        bp_test_producer_close(rk, NULL, &drs);
}

static void set_ok(rd_kafka_conf_t *conf, const char *name,
                   const char *value) {
        char errstr[512];
        if (rd_kafka_conf_set(conf, name, value, errstr, sizeof(errstr)) !=
            RD_KAFKA_CONF_OK)
                fail_msg("%s=%s: %s", name, value, errstr);
}

/* A consumer of bucket crit (group "ship-<n>", so "ship-<n>.crit" with the
 * sibling "ship-<n>.info"), or a plain one of group "plain-<n>" when
 * \p plugin is 0,
 * given \p bootstraps (NULL: none) and then the cluster's brokers with
 * rd_kafka_brokers_add(). Returns the milliseconds from its subscription
 * to its first record, having checked each of its records is crit's. */
static int64_t first_record_ms(int plugin, const char *bootstraps) {
        static int group_cnt;
        rd_kafka_conf_t *conf;
        rd_kafka_topic_partition_list_t *topics;
        rd_kafka_message_t *m;
        rd_kafka_t *rk;
        char errstr[512], group[32];
        int64_t t0, first = -1;
        int got = 0, i;

        snprintf(group, sizeof(group), "%s-%d", plugin ? "ship" : "plain",
                 group_cnt++);
        if (plugin)
                conf = bp_test_conf(bootstraps, BUCKETS,
                                    "bucket.priority.bucket", "crit", NULL);
        else {
                conf = rd_kafka_conf_new();
                if (bootstraps)
                        set_ok(conf, "bootstrap.servers", bootstraps);
        }
        set_ok(conf, "group.id", group);
        set_ok(conf, "auto.offset.reset", "earliest");
        set_ok(conf, "log_level", "7");
        rd_kafka_conf_set_log_cb(conf, capture);
        rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
        assert_non_null(rk);
        assert_true(rd_kafka_brokers_add(rk, cluster.bootstraps) > 0);
        rd_kafka_poll_set_consumer(rk);
        topics = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(topics, TOPIC, RD_KAFKA_PARTITION_UA);
        t0 = tk_wall_ms();
        assert_int_equal(rd_kafka_subscribe(rk, topics), 0);
        rd_kafka_topic_partition_list_destroy(topics);
        for (i = 0; i < 600 && got < (plugin ? 50 : 100); i++) {
                if (!(m = rd_kafka_consumer_poll(rk, 100)))
                        continue;
                if (!m->err) {
                        if (first < 0)
                                first = tk_wall_ms() - t0;
                        if (plugin)
                                assert_true(m->partition >= CRIT_LO);
                        got++;
                }
                rd_kafka_message_destroy(m);
        }
        assert_int_equal(got, plugin ? 50 : 100);
        rd_kafka_consumer_close(rk);
        rd_kafka_destroy(rk);
        return first;
}

/* imkafka's way: no bootstrap.servers, brokers added after creation. */
static void test_brokers_added(void **state) {
        int64_t plain, ours;
        (void)state;

        fill();
        plain     = first_record_ms(0, NULL);
        logged[0] = '\0';
        ours      = first_record_ms(1, NULL);
        print_message("first record %lld ms after subscribing, %lld ms "
                      "without the plugin\n",
                      (long long)ours, (long long)plain);
        assert_non_null(strstr(logged, "helper clients bootstrap from the "
                                       "brokers the consumer knows"));
        assert_non_null(strstr(logged, "start offsets: 1 of 1 sibling groups "
                                       "read"));
        assert_null(strstr(logged, "got no answer"));
        assert_null(strstr(logged, "cannot read the offsets"));
        assert_null(strstr(logged, "helper clients have no broker"));
        /* Nothing waited out a timeout (3 s and more before the fix). */
        if (!getenv("BP_TEST_NO_TIMING"))
                assert_true(ours < plain + 1000);
}

/* Helpers that cannot reach the cluster (their bootstrap address is dead,
 * the consumer also has live brokers added): one helper wait, then the
 * consumer answers itself and no sibling reader is made. */
static void test_helpers_unreachable(void **state) {
        int64_t plain, ours;
        (void)state;

        plain     = first_record_ms(0, "127.0.0.1:1");
        logged[0] = '\0';
        ours      = first_record_ms(1, "127.0.0.1:1");
        print_message("first record %lld ms after subscribing, %lld ms "
                      "without the plugin\n",
                      (long long)ours, (long long)plain);
        assert_non_null(strstr(logged, "read through the consumer's own "
                                       "connection for the next 300 s"));
        assert_non_null(strstr(logged, "sibling offsets not read: the "
                                       "plugin's helper clients got no "
                                       "answer"));
        /* The bound: what is left of the reads begun at creation and one
         * helper wait of 3 s; not 10 s more for the sibling readers. */
        if (!getenv("BP_TEST_NO_TIMING"))
                assert_true(ours < plain + 3000 + 3000 + 1500);
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_explicit_without_partitioner),
            cmocka_unit_test(test_explicit_beside_partitioner),
            cmocka_unit_test(test_explicit_destroy_while_asking),
            cmocka_unit_test(test_host_partitioner),
            cmocka_unit_test(test_brokers_added),
            cmocka_unit_test(test_helpers_unreachable),
        };
        return cmocka_run_group_tests(tests, setup, bp_test_cluster_teardown);
}
