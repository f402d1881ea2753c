/*
 * test_mock_producer.c - the partitioner plugin inside real librdkafka
 * producers on the embedded mock cluster: loaded only by configuration,
 * routing by key, fallbacks, failures that reach the application, other
 * topics untouched, independent clients, own topic configurations.
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
#define OTHER "other"

static bp_test_cluster_t cluster;

static int setup(void **state) {
        bp_test_cluster_start(&cluster, 1);
        bp_test_cluster_topic(&cluster, TOPIC, 12);
        bp_test_cluster_topic(&cluster, OTHER, 4);
        bp_test_cluster_topic(&cluster, "tiny", 1);
        bp_test_cluster_topic(&cluster, "six", 6);
        *state = &cluster;
        return 0;
}

/* A producer configured with the 70/30 example on TOPIC, plus extras. */
#define BUCKET_CONF                                                            \
        "bucket.priority.topic", TOPIC, "bucket.priority.buckets",             \
            "Platinum, Gold", "bucket.priority.allocation", "70%, 30%"

/* Produces one record; returns producev's result. NULL key if !key. */
static rd_kafka_resp_err_t produce(rd_kafka_t *rk, const char *topic,
                                   const void *key, size_t keylen) {
        if (!key)
                return rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic),
                                         RD_KAFKA_V_VALUE("v", 1),
                                         RD_KAFKA_V_END);
        return rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic),
                                 RD_KAFKA_V_KEY(key, keylen),
                                 RD_KAFKA_V_VALUE("v", 1), RD_KAFKA_V_END);
}

static rd_kafka_resp_err_t produce_str(rd_kafka_t *rk, const char *topic,
                                       const char *key) {
        return produce(rk, topic, key, strlen(key));
}

/* Makes sure the producer has the topic's metadata, so later records are
 * partitioned synchronously inside producev(). */
static void warm_up(rd_kafka_t *rk, bp_test_drs_t *drs, const char *topic,
                    const char *key) {
        size_t before = drs->cnt;
        assert_int_equal(produce_str(rk, topic, key), 0);
        bp_test_wait_drs(rk, drs, before + 1, 10000);
        assert_int_equal(drs->v[before].err, 0);
}

static int in_range(int32_t p, int32_t lo, int32_t hi) {
        return p >= lo && p <= hi;
}

/* Delivery reports from \p from on that failed as unroutable. */
static int unroutable_reports(const bp_test_drs_t *drs, size_t from) {
        int n = 0;
        for (; from < drs->cnt; from++)
                n += drs->v[from].err == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION;
        return n;
}

/* Every one of the first \p n reports delivered, on a partition of its
 * key's bucket in the 70/30 example on 12 partitions: Platinum 0-7, Gold
 * and no key (the fallback, the last bucket) 8-11. */
static void expect_routed_by_key(const bp_test_drs_t *drs, size_t n) {
        size_t i;
        for (i = 0; i < n; i++) {
                const bp_test_dr_t *d = &drs->v[i];
                int platinum = d->has_key && !strncmp(d->key, "Platinum-", 9);
                if (d->err || !(platinum ? in_range(d->partition, 0, 7)
                                         : in_range(d->partition, 8, 11)))
                        fail_msg("record %zu (key \"%s\"): partition %d, "
                                 "error %s",
                                 i, d->key, (int)d->partition,
                                 rd_kafka_err2name(d->err));
        }
}

/* A producer that sets nothing but properties routes every record of the
 * bucket topic into its key's bucket, round robin within the bucket. */
static void test_properties_only_routing(void **state) {
        bp_test_drs_t drs = {0};
        rd_kafka_t *rk;
        int per_partition[12] = {0};
        char key[32];
        int i;
        (void)state;

        rk = bp_test_producer(bp_test_conf(cluster.bootstraps, BUCKET_CONF,
                                           NULL),
                              &drs);
        for (i = 0; i < 2000; i++) {
                snprintf(key, sizeof(key), "%s-%d", i % 2 ? "Gold" : "Platinum",
                         i);
                assert_int_equal(produce_str(rk, TOPIC, key), 0);
        }
        bp_test_wait_drs(rk, &drs, 2000, 30000);
        expect_routed_by_key(&drs, 2000);
        for (i = 0; i < 2000; i++)
                per_partition[drs.v[i].partition]++;
        /* 1000 Platinum over 8 partitions, 1000 Gold over 4: balanced. */
        for (i = 0; i < 8; i++)
                assert_int_equal(per_partition[i], 125);
        for (i = 8; i < 12; i++)
                assert_int_equal(per_partition[i], 250);
        bp_test_producer_close(rk, NULL, &drs);
}

/* Records to another topic get the partitioner they would have had. */
static void test_other_topic_untouched(void **state) {
        bp_test_drs_t drs = {0};
        rd_kafka_t *rk;
        rd_kafka_topic_t *rkt;
        char key[32];
        int i;
        (void)state;

        rk = bp_test_producer(bp_test_conf(cluster.bootstraps, BUCKET_CONF,
                                           "partitioner", "murmur2", NULL),
                              &drs);
        for (i = 0; i < 200; i++) {
                snprintf(key, sizeof(key), "Platinum-%d", i);
                assert_int_equal(produce_str(rk, OTHER, key), 0);
        }
        bp_test_wait_drs(rk, &drs, 200, 30000);
        rkt = rd_kafka_topic_new(rk, OTHER, NULL);
        for (i = 0; i < 200; i++) {
                assert_int_equal(drs.v[i].err, 0);
                assert_int_equal(drs.v[i].partition,
                                 rd_kafka_msg_partitioner_murmur2(
                                     rkt, drs.v[i].key, drs.v[i].keylen, 4,
                                     NULL, NULL));
        }
        bp_test_producer_close(rk, rkt, &drs);
}

/* NULL and empty keys reach the fallback (the last bucket by default)
 * although librdkafka's sticky partitioning is on by default. */
static void test_null_and_empty_keys_go_to_fallback(void **state) {
        bp_test_drs_t drs = {0};
        rd_kafka_conf_t *conf;
        rd_kafka_t *rk;
        char val[32];
        size_t size = sizeof(val);
        int i;
        (void)state;

        conf = bp_test_conf(cluster.bootstraps, BUCKET_CONF, NULL);
        rk   = bp_test_producer(conf, &drs);
        /* The plugin turns it off in the producer's own configuration. */
        assert_int_equal(rd_kafka_conf_get(rd_kafka_conf(rk),
                                           "sticky.partitioning.linger.ms",
                                           val, &size),
                         RD_KAFKA_CONF_OK);
        assert_string_equal(val, "0");
        for (i = 0; i < 100; i++)
                assert_int_equal(i % 2 ? produce(rk, TOPIC, NULL, 0)
                                       : produce(rk, TOPIC, "", 0),
                                 0);
        bp_test_wait_drs(rk, &drs, 100, 30000);
        for (i = 0; i < 100; i++) {
                assert_int_equal(drs.v[i].err, 0);
                assert_true(in_range(drs.v[i].partition, 8, 11));
        }
        bp_test_producer_close(rk, NULL, &drs);
}

/* Unknown buckets: to a named bucket, to a built-in partitioner over the
 * whole topic, or discarded with a failed delivery. */
static void test_fallback_variants(void **state) {
        bp_test_drs_t drs = {0};
        rd_kafka_t *rk;
        rd_kafka_topic_t *rkt;
        bp_stats_t st;
        int i, failed = 0;
        char key[32];
        (void)state;

        /* Named bucket. */
        rk = bp_test_producer(
            bp_test_conf(cluster.bootstraps, BUCKET_CONF,
                         "bucket.priority.fallback.partitioner", "Platinum",
                         NULL),
            &drs);
        for (i = 0; i < 50; i++) {
                snprintf(key, sizeof(key), "Silver-%d", i);
                assert_int_equal(produce_str(rk, TOPIC, key), 0);
        }
        bp_test_wait_drs(rk, &drs, 50, 30000);
        for (i = 0; i < 50; i++)
                assert_true(in_range(drs.v[i].partition, 0, 7));
        bp_test_producer_close(rk, NULL, &drs);

        /* Built-in over the whole topic: murmur2, as the Java default. */
        rk = bp_test_producer(
            bp_test_conf(cluster.bootstraps, BUCKET_CONF,
                         "bucket.priority.fallback.partitioner",
                         "org.apache.kafka.clients.producer.internals."
                         "DefaultPartitioner",
                         NULL),
            &drs);
        for (i = 0; i < 100; i++) {
                snprintf(key, sizeof(key), "Silver-%d", i);
                assert_int_equal(produce_str(rk, TOPIC, key), 0);
        }
        bp_test_wait_drs(rk, &drs, 100, 30000);
        rkt = rd_kafka_topic_new(rk, TOPIC, NULL);
        for (i = 0; i < 100; i++)
                assert_int_equal(drs.v[i].partition,
                                 rd_kafka_msg_partitioner_murmur2(
                                     rkt, drs.v[i].key, drs.v[i].keylen, 12,
                                     NULL, NULL));
        rd_kafka_topic_destroy(rkt);
        assert_int_equal(bp_stats(rk, &st), 0);
        assert_int_equal(st.fallback_other, 100);
        bp_test_producer_close(rk, NULL, &drs);

        /* Discard: every such record fails, none is lost silently. */
        rk = bp_test_producer(
            bp_test_conf(cluster.bootstraps, BUCKET_CONF,
                         "bucket.priority.fallback.partitioner", "discard",
                         NULL),
            &drs);
        warm_up(rk, &drs, TOPIC, "Gold-0");
        for (i = 0; i < 20; i++) {
                snprintf(key, sizeof(key), "Silver-%d", i);
                if (produce_str(rk, TOPIC, key) ==
                    RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION)
                        failed++;
        }
        rd_kafka_flush(rk, 5000);
        rd_kafka_poll(rk, 0);
        assert_int_equal(failed + unroutable_reports(&drs, 1), 20);
        assert_int_equal(bp_stats(rk, &st), 0);
        assert_int_equal(st.discarded, 20);
        bp_test_producer_close(rk, NULL, &drs);
}

/* Records queued before metadata arrived and then unroutable fail their
 * delivery report (they are partitioned later, off the produce call). */
static void test_unroutable_fails_delivery_report(void **state) {
        bp_test_drs_t drs = {0};
        rd_kafka_t *rk;
        int i, failed = 0;
        (void)state;

        rk = bp_test_producer(
            bp_test_conf(cluster.bootstraps, BUCKET_CONF,
                         "bucket.priority.fallback.partitioner", "discard",
                         NULL),
            &drs);
        /* No warm-up: the first records wait for metadata. */
        for (i = 0; i < 10; i++)
                if (produce_str(rk, TOPIC, "Nobody-1") ==
                    RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION)
                        failed++;
        rd_kafka_flush(rk, 10000);
        for (i = 0; i < (int)drs.cnt; i++) {
                assert_int_equal(drs.v[i].err,
                                 RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION);
                failed++;
        }
        assert_int_equal(failed, 10);
        assert_int_equal(rd_kafka_outq_len(rk), 0); /* nothing hangs */
        bp_test_producer_close(rk, NULL, &drs);
}

/* An incomplete configuration never routes: bucket topic records fail,
 * other topics still work. */
static void test_incomplete_config_fails_bucket_records(void **state) {
        bp_test_drs_t drs = {0};
        rd_kafka_t *rk;
        int failed = 0, i;
        (void)state;

        rk = bp_test_producer(bp_test_conf(cluster.bootstraps,
                                           "bucket.priority.topic", TOPIC,
                                           "bucket.priority.buckets",
                                           "Platinum, Gold", NULL),
                              &drs);
        warm_up(rk, &drs, OTHER, "Gold-1");
        for (i = 0; i < 10; i++)
                if (produce_str(rk, TOPIC, "Gold-1"))
                        failed++;
        rd_kafka_flush(rk, 5000);
        for (i = 1; i < (int)drs.cnt; i++)
                if (drs.v[i].err)
                        failed++;
        assert_int_equal(failed, 10);
        bp_test_producer_close(rk, NULL, &drs);
}

/* Fewer partitions than buckets: records fail rather than misroute. */
static void test_fewer_partitions_than_buckets(void **state) {
        bp_test_drs_t drs = {0};
        rd_kafka_t *rk;
        bp_stats_t st;
        int failed = 0, i;
        (void)state;

        rk = bp_test_producer(
            bp_test_conf(cluster.bootstraps, "bucket.priority.topic", "tiny",
                         "bucket.priority.buckets", "Platinum, Gold",
                         "bucket.priority.allocation", "70%, 30%", NULL),
            &drs);
        for (i = 0; i < 10; i++)
                if (produce_str(rk, "tiny", "Gold-1"))
                        failed++;
        rd_kafka_flush(rk, 10000);
        assert_int_equal(failed + unroutable_reports(&drs, 0), 10);
        assert_int_equal(bp_stats(rk, &st), 0);
        assert_int_equal(st.unroutable, 10);
        bp_test_producer_close(rk, NULL, &drs);
}

/* Two producers in one process with different bucket configurations. */
static void test_two_producers_independent(void **state) {
        bp_test_drs_t a = {0}, b = {0};
        rd_kafka_t *ra, *rb;
        int i;
        (void)state;

        ra = bp_test_producer(bp_test_conf(cluster.bootstraps, BUCKET_CONF,
                                           NULL),
                              &a);
        rb = bp_test_producer(
            bp_test_conf(cluster.bootstraps, "bucket.priority.topic", TOPIC,
                         "bucket.priority.buckets", "Gold, Platinum",
                         "bucket.priority.allocation", "25, 75",
                         "bucket.priority.delimiter", ":", NULL),
            &b);
        for (i = 0; i < 100; i++) {
                assert_int_equal(produce_str(ra, TOPIC, "Gold-x"), 0);
                assert_int_equal(produce_str(rb, TOPIC, "Gold:x"), 0);
        }
        bp_test_wait_drs(ra, &a, 100, 30000);
        bp_test_wait_drs(rb, &b, 100, 30000);
        for (i = 0; i < 100; i++) {
                assert_true(in_range(a.v[i].partition, 8, 11));
                /* 75% Platinum takes 0-8, Gold (25%) 9-11. */
                assert_true(in_range(b.v[i].partition, 9, 11));
        }
        rd_kafka_destroy(ra);
        rd_kafka_destroy(rb);
        bp_test_drs_free(&a);
        bp_test_drs_free(&b);
}

/* An application's own topic configuration needs one call. */
static void test_own_topic_conf(void **state) {
        bp_test_drs_t drs = {0};
        rd_kafka_t *rk;
        rd_kafka_topic_conf_t *tconf = rd_kafka_topic_conf_new();
        rd_kafka_topic_t *rkt;
        int i;
        (void)state;

        rk = bp_test_producer(bp_test_conf(cluster.bootstraps, BUCKET_CONF,
                                           NULL),
                              &drs);
        bp_topic_conf_set_partitioner(tconf);
        rkt = rd_kafka_topic_new(rk, TOPIC, tconf);
        assert_non_null(rkt);
        for (i = 0; i < 100; i++)
                assert_int_equal(rd_kafka_produce(rkt, RD_KAFKA_PARTITION_UA,
                                                  RD_KAFKA_MSG_F_COPY, "v", 1,
                                                  i % 2 ? "Gold-1"
                                                        : "Platinum-1",
                                                  i % 2 ? 6 : 10, NULL),
                                 0);
        bp_test_wait_drs(rk, &drs, 100, 30000);
        expect_routed_by_key(&drs, 100);
        bp_test_producer_close(rk, rkt, &drs);
}

/* What kcat does: a topic configuration of its own, made before the plugin
 * loaded and never touched by it, given to rd_kafka_topic_new(): the
 * records are routed by bucket all the same (the plugin made the topic's
 * handle first), NULL keys included. */
static void test_foreign_topic_conf_routed(void **state) {
        bp_test_drs_t drs = {0};
        rd_kafka_topic_conf_t *tconf = rd_kafka_topic_conf_new();
        char err[256];
        rd_kafka_t *rk;
        rd_kafka_topic_t *rkt;
        int i;
        (void)state;

        assert_int_equal(rd_kafka_topic_conf_set(tconf, "partitioner",
                                                 "murmur2", err, sizeof(err)),
                         RD_KAFKA_CONF_OK);
        rk = bp_test_producer(bp_test_conf(cluster.bootstraps, BUCKET_CONF,
                                           NULL),
                              &drs);
        rkt = rd_kafka_topic_new(rk, TOPIC, tconf);
        assert_non_null(rkt);
        for (i = 0; i < 150; i++)
                assert_int_equal(
                    rd_kafka_produce(rkt, RD_KAFKA_PARTITION_UA,
                                     RD_KAFKA_MSG_F_COPY, "v", 1,
                                     i % 3 == 2 ? NULL
                                     : i % 3    ? "Gold-1"
                                                : "Platinum-1",
                                     i % 3 == 2 ? 0 : i % 3 ? 6 : 10, NULL),
                    0);
        bp_test_wait_drs(rk, &drs, 150, 30000);
        expect_routed_by_key(&drs, 150);
        bp_test_producer_close(rk, rkt, &drs);
}

/* What node-rdkafka does: replaces the default topic configuration after
 * the plugin loaded. Records produced by topic name are still routed. */
static void test_replaced_default_topic_conf_routed(void **state) {
        bp_test_drs_t drs = {0};
        rd_kafka_conf_t *conf = bp_test_conf(cluster.bootstraps, BUCKET_CONF,
                                             NULL);
        rd_kafka_t *rk;
        int i;
        (void)state;

        rd_kafka_conf_set_default_topic_conf(conf, rd_kafka_topic_conf_new());
        rk = bp_test_producer(conf, &drs);
        for (i = 0; i < 100; i++) {
                const char *key = i % 2 ? "Gold-1" : "Platinum-1";
                assert_int_equal(
                    rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(TOPIC),
                                      RD_KAFKA_V_KEY(key, strlen(key)),
                                      RD_KAFKA_V_VALUE("v", 1),
                                      RD_KAFKA_V_END),
                    0);
        }
        bp_test_wait_drs(rk, &drs, 100, 30000);
        expect_routed_by_key(&drs, 100);
        bp_test_producer_close(rk, NULL, &drs);
}

/* The layout follows the partition count the partitioner is given. */
static void test_growth_recomputes_layout(void **state) {
        bp_test_drs_t drs = {0};
        rd_kafka_t *rk;
        rd_kafka_topic_t *rkt;
        int i;
        int32_t p;
        bp_bucket_stats_t bs;
        (void)state;

        rk = bp_test_producer(bp_test_conf(cluster.bootstraps, BUCKET_CONF,
                                           NULL),
                              &drs);
        warm_up(rk, &drs, TOPIC, "Gold-1"); /* registers the topic handle */
        rkt = rd_kafka_topic_new(rk, TOPIC, NULL);
        for (i = 0; i < 20; i++) {
                p = bp_partitioner(rkt, "Gold-1", 6, 6, NULL, NULL);
                assert_true(in_range(p, 4, 5));
                p = bp_partitioner(rkt, "Gold-1", 6, 12, NULL, NULL);
                assert_true(in_range(p, 8, 11));
                p = bp_partitioner(rkt, "Gold-1", 6, 24, NULL, NULL);
                assert_true(in_range(p, 17, 23));
        }
        assert_int_equal(bp_bucket_stats(rk, 1, &bs), 0);
        assert_string_equal(bs.name, "Gold");
        assert_int_equal(bs.partitions, 7);
        assert_int_equal(bs.routed, 61);
        bp_test_producer_close(rk, rkt, &drs);
}

/* Configuration errors surface at rd_kafka_conf_set() through the plugin,
 * cross-field checks in either order, copies keep the configuration. */
static void test_conf_errors_and_dup(void **state) {
        rd_kafka_conf_t *conf, *dup;
        bp_test_drs_t drs = {0};
        rd_kafka_t *rk;
        char err[512];
        int i;
        (void)state;

        conf = bp_test_conf(NULL, NULL);
        assert_int_equal(bp_test_set(conf, "bucket.priority.allocation",
                                     "70%, abc", err, sizeof(err)),
                         RD_KAFKA_CONF_INVALID);
        assert_non_null(strstr(err, "bucket.priority.allocation"));
        assert_non_null(strstr(err, "abc"));
        assert_int_equal(bp_test_set(conf, "bucket.priority.allocation",
                                     "50, 30, 20", err, sizeof(err)),
                         RD_KAFKA_CONF_OK);
        assert_int_equal(bp_test_set(conf, "bucket.priority.buckets",
                                     "Platinum, Gold", err, sizeof(err)),
                         RD_KAFKA_CONF_INVALID);
        assert_non_null(strstr(err, "allocation"));
        assert_int_equal(bp_test_set(conf, "sticky.partitioning.linger.ms",
                                     "0", err, sizeof(err)),
                         RD_KAFKA_CONF_OK);
        rd_kafka_conf_destroy(conf);

        /* Sticky partitioning explicitly on contradicts the bucket topic. */
        conf = bp_test_conf(NULL, "bucket.priority.topic", TOPIC, NULL);
        assert_int_equal(bp_test_set(conf, "sticky.partitioning.linger.ms",
                                     "10", err, sizeof(err)),
                         RD_KAFKA_CONF_INVALID);
        assert_non_null(strstr(err, "sticky.partitioning.linger.ms"));
        rd_kafka_conf_destroy(conf);

        /* Before the plugin loads, its properties are unknown. */
        conf = rd_kafka_conf_new();
        assert_int_equal(bp_test_set(conf, "bucket.priority.topic", TOPIC, err,
                                     sizeof(err)),
                         RD_KAFKA_CONF_UNKNOWN);
        rd_kafka_conf_destroy(conf);

        /* A copy routes like the original, after the original is gone. */
        conf = bp_test_conf(cluster.bootstraps, BUCKET_CONF, NULL);
        dup  = rd_kafka_conf_dup(conf);
        rd_kafka_conf_destroy(conf);
        rk = bp_test_producer(dup, &drs);
        for (i = 0; i < 20; i++)
                assert_int_equal(produce_str(rk, TOPIC, "Gold-1"), 0);
        bp_test_wait_drs(rk, &drs, 20, 30000);
        for (i = 0; i < 20; i++)
                assert_true(in_range(drs.v[i].partition, 8, 11));
        bp_test_producer_close(rk, NULL, &drs);
}

/* The stats call reports per bucket routing as JSON. */
static void test_stats_json(void **state) {
        bp_test_drs_t drs = {0};
        rd_kafka_t *rk;
        char json[1024];
        int i, n;
        (void)state;

        rk = bp_test_producer(bp_test_conf(cluster.bootstraps, BUCKET_CONF,
                                           NULL),
                              &drs);
        for (i = 0; i < 30; i++)
                assert_int_equal(produce_str(rk, TOPIC,
                                             i < 10 ? "Platinum-1" : "Gold-2"),
                                 0);
        bp_test_wait_drs(rk, &drs, 30, 30000);
        n = bp_stats_json(rk, json, sizeof(json));
        assert_true(n > 0 && (size_t)n < sizeof(json));
        assert_non_null(strstr(json, "\"name\":\"Platinum\",\"partitions\":8,"
                                     "\"routed\":10"));
        assert_non_null(strstr(json, "\"name\":\"Gold\",\"partitions\":4,"
                                     "\"routed\":20"));
        assert_int_equal(bp_stats_json(rk, json, 8), n); /* truncated */
        assert_int_equal(strlen(json), 7);
        assert_int_equal(bp_stats_json(cluster.owner, json, sizeof(json)), -1);
        bp_test_producer_close(rk, NULL, &drs);
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_properties_only_routing),
            cmocka_unit_test(test_other_topic_untouched),
            cmocka_unit_test(test_null_and_empty_keys_go_to_fallback),
            cmocka_unit_test(test_fallback_variants),
            cmocka_unit_test(test_unroutable_fails_delivery_report),
            cmocka_unit_test(test_incomplete_config_fails_bucket_records),
            cmocka_unit_test(test_fewer_partitions_than_buckets),
            cmocka_unit_test(test_two_producers_independent),
            cmocka_unit_test(test_own_topic_conf),
            cmocka_unit_test(test_foreign_topic_conf_routed),
            cmocka_unit_test(test_replaced_default_topic_conf_routed),
            cmocka_unit_test(test_growth_recomputes_layout),
            cmocka_unit_test(test_conf_errors_and_dup),
            cmocka_unit_test(test_stats_json),
        };
        return cmocka_run_group_tests(tests, setup, bp_test_cluster_teardown);
}
