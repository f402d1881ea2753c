/*
 * test_mock_change.c - a live layout change on the embedded mock cluster:
 * producers write where their step says (bucket.priority.next.*), a
 * consumer reads its step's partitions, a partition taken over from
 * another bucket starts at the highest commit of the groups, and the wrong
 * paths are logged: a takeover of a partition its old bucket has not
 * drained, a record whose key names another bucket, a group committing
 * outside a member's layout.
 *
 * The change: critical, bulk 30/70 to 50/50 on 12 partitions, contiguous:
 * now bulk 0-7, critical 8-11; next critical 0-5, bulk 6-11 (5 steps).
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
#define NOW                                                                    \
        "bucket.priority.topic", TOPIC, "bucket.priority.buckets",             \
            "critical, bulk", "bucket.priority.allocation", "30%, 70%"
#define NEXT "bucket.priority.next.allocation", "50%, 50%"

static bp_test_cluster_t cluster;

static int setup(void **state) {
        bp_test_cluster_start(&cluster, 1);
        bp_test_cluster_topic(&cluster, TOPIC, 12);
        *state = &cluster;
        return 0;
}

/* The plugin's log lines (facility BUCKETPRIO) of the clients made here. */
static char logged[8192];

static void capture(const rd_kafka_t *rk, int level, const char *fac,
                    const char *buf) {
        size_t len = strlen(logged);
        (void)rk, (void)level;
        if (!strcmp(fac, "BUCKETPRIO") && len + strlen(buf) + 2 < sizeof(logged))
                snprintf(logged + len, sizeof(logged) - len, "%s\n", buf);
}

/* Produces 100 records of each bucket with a producer at \p step and
 * checks each landed in [lo, hi] of its bucket. */
static void produce_at(const char *step, int crit_lo, int crit_hi,
                       int bulk_lo, int bulk_hi) {
        bp_test_drs_t drs = {0};
        rd_kafka_conf_t *conf =
            bp_test_conf(cluster.bootstraps, NOW, NEXT,
                         "bucket.priority.next.step", step, NULL);
        rd_kafka_t *rk;
        char key[32];
        size_t i;
        int crit;

        rd_kafka_conf_set_log_cb(conf, capture);
        rk = bp_test_producer(conf, &drs);
        for (i = 0; i < 200; i++) {
                snprintf(key, sizeof(key), "%s-%zu", i % 2 ? "bulk" : "critical",
                         i);
                assert_int_equal(rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(TOPIC),
                                                   RD_KAFKA_V_KEY(key,
                                                                  strlen(key)),
                                                   RD_KAFKA_V_VALUE("v", 1),
                                                   RD_KAFKA_V_END),
                                 0);
        }
        bp_test_wait_drs(rk, &drs, 200, 30000);
        assert_int_equal(drs.cnt, 200);
        for (i = 0; i < drs.cnt; i++) {
                assert_int_equal(drs.v[i].err, 0);
                crit = !strncmp(drs.v[i].key, "critical-", 9);
                assert_in_range(drs.v[i].partition, crit ? crit_lo : bulk_lo,
                                crit ? crit_hi : bulk_hi);
        }
        bp_test_producer_close(rk, NULL, &drs);
}

/* Step 1: bulk writes only to 6-7 (the partitions it keeps), critical,
 * which keeps none, stays on 8-11. Step 3: critical moves to 0-5, which
 * bulk handed over. The producer logs its step and fingerprint. */
static void test_producers_follow_the_step(void **state) {
        (void)state;
        logged[0] = '\0';
        produce_at("1", 8, 11, 6, 7);
        assert_non_null(strstr(logged, "layout change step 1 of 5: this "
                                       "producer writes with layout "
                                       "fingerprint"));
        /* the fingerprint docs/layout-change.md shows for step 1, the one
         * bp-layout prints (test_cli_change computes it independently) */
        assert_non_null(strstr(logged, "layout fingerprint 4f217c9f "
                                       "(critical 8-11, bulk 6-7)"));
        produce_at("3", 0, 5, 6, 7);
        logged[0] = '\0';
        /* Step 5 is taken with the next properties: a producer told 5
         * writes as at step 4 and says so. */
        produce_at("5", 0, 5, 6, 7);
        assert_non_null(strstr(logged, "step 5 is taken by restarting "
                                       "producers"));
}

/* Commits group \p group's offset \p offset on partition \p p. */
static void commit_as(const char *group, int32_t p, int64_t offset) {
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        rd_kafka_topic_partition_list_t *l =
            rd_kafka_topic_partition_list_new(1);
        char err[512];
        rd_kafka_t *rk;

        rd_kafka_conf_set(conf, "bootstrap.servers", cluster.bootstraps, err,
                          sizeof(err));
        rd_kafka_conf_set(conf, "group.id", group, err, sizeof(err));
        rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
        assert_non_null(rk);
        rd_kafka_topic_partition_list_add(l, TOPIC, p)->offset = offset;
        assert_int_equal(rd_kafka_commit(rk, l, 0), 0);
        rd_kafka_topic_partition_list_destroy(l);
        rd_kafka_destroy(rk);
}

/* A consumer of \p bucket in group base "app" at step \p step ("" for
 * none: the current layout). */
static rd_kafka_t *consumer_at(const char *bucket, const char *step) {
        rd_kafka_conf_t *conf = bp_test_conf(
            cluster.bootstraps, NOW, "bucket.priority.bucket", bucket,
            "group.id", "app", "auto.offset.reset", "earliest", NULL);
        char errstr[512];
        rd_kafka_t *rk;

        if (step[0]) {
                assert_int_equal(bp_test_set(conf, NEXT, errstr,
                                             sizeof(errstr)),
                                 RD_KAFKA_CONF_OK);
                assert_int_equal(bp_test_set(conf, "bucket.priority.next.step",
                                             step, errstr, sizeof(errstr)),
                                 RD_KAFKA_CONF_OK);
        }
        rd_kafka_conf_set_log_cb(conf, capture);
        rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
        assert_non_null(rk);
        return rk;
}

/* Maps indexes 0..11 (a group of one) and returns the mapped list. */
static rd_kafka_topic_partition_list_t *map_all(rd_kafka_t *rk) {
        rd_kafka_topic_partition_list_t *given =
            rd_kafka_topic_partition_list_new(12), *mapped;
        char errstr[256];
        int32_t i;

        for (i = 0; i < 12; i++)
                rd_kafka_topic_partition_list_add(given, TOPIC, i);
        mapped = bp_assignment_map(rk, given, errstr, sizeof(errstr));
        assert_non_null(mapped);
        rd_kafka_topic_partition_list_destroy(given);
        return mapped;
}

static int64_t offset_of(const rd_kafka_topic_partition_list_t *l,
                         int32_t p) {
        int i;
        for (i = 0; i < l->cnt; i++)
                if (l->elems[i].partition == p)
                        return l->elems[i].offset;
        fail_msg("partition %d not assigned", (int)p);
        return -1;
}

/* At step 2 critical reads 0-5 and 8-11. Partition 3 was bulk's: critical
 * takes it over where bulk's group stopped (30), above its own stale
 * commit there (10, from an earlier layout), and since bulk has not read
 * it to its end (40 bulk records and the critical ones of the first test)
 * the takeover is logged with the count. */
static void test_consumer_step_and_takeover(void **state) {
        rd_kafka_topic_partition_list_t *mapped;
        bp_test_drs_t drs = {0};
        int64_t lo = -1, hi = -1;
        rd_kafka_conf_t *conf;
        char more[64];
        rd_kafka_t *rk;
        int i;
        (void)state;

        /* 40 bulk records on partition 3, written by a producer of the
         * current layout (bulk 0-7), round robin: enough reach 3. */
        conf = bp_test_conf(cluster.bootstraps, NOW, NULL);
        rd_kafka_conf_set_log_cb(conf, capture);
        logged[0] = '\0';
        rk = bp_test_producer(conf, &drs);
        for (i = 0; i < 320; i++)
                assert_int_equal(
                    rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(TOPIC),
                                      RD_KAFKA_V_KEY("bulk-x", 6),
                                      RD_KAFKA_V_VALUE("v", 1),
                                      RD_KAFKA_V_END),
                    0);
        bp_test_wait_drs(rk, &drs, 320, 30000);
        bp_test_producer_close(rk, NULL, &drs);
        /* without a change, the layout's fingerprint (info level): the
         * current layout's, as bp-layout prints it */
        assert_non_null(strstr(logged, "at 12 partitions: layout fingerprint "
                                       "6f2ba9dc (critical 8-11, bulk 0-7)"));
        commit_as("app.bulk", 3, 30);
        commit_as("app.critical", 3, 10);

        logged[0] = '\0';
        rk     = consumer_at("critical", "2");
        assert_int_equal(rd_kafka_query_watermark_offsets(rk, TOPIC, 3, &lo,
                                                          &hi, 10000),
                         0);
        assert_true(hi >= 40);
        mapped = map_all(rk);
        assert_int_equal(mapped->cnt, 10); /* 0-5 and 8-11 */
        assert_int_equal(offset_of(mapped, 3), 30);
        assert_non_null(strstr(logged, "takes over orders [3] at offset 30"));
        snprintf(more, sizeof(more), "%lld more records", (long long)(hi - 30));
        assert_non_null(strstr(logged, more));
        rd_kafka_topic_partition_list_destroy(mapped);
        rd_kafka_destroy(rk);

        /* Drained (bulk committed at the end): no such line. */
        commit_as("app.bulk", 3, hi);
        logged[0] = '\0';
        rk     = consumer_at("critical", "2");
        mapped = map_all(rk);
        assert_int_equal(offset_of(mapped, 3), hi);
        assert_null(strstr(logged, "takes over"));
        rd_kafka_topic_partition_list_destroy(mapped);
        rd_kafka_destroy(rk);
}

/* A member of the group commits on a partition outside this member's
 * layout between two rebalances: it reads with another layout. */
static void test_members_disagree_logged(void **state) {
        rd_kafka_topic_partition_list_t *mapped;
        rd_kafka_t *rk;
        (void)state;

        commit_as("app.critical", 1, 5);
        logged[0] = '\0';
        rk     = consumer_at("critical", ""); /* reads 8-11 */
        mapped = map_all(rk);
        rd_kafka_topic_partition_list_destroy(mapped);
        assert_null(strstr(logged, "reads with another layout"));
        commit_as("app.critical", 1, 9); /* someone of app.critical reads 1 */
        mapped = map_all(rk);
        rd_kafka_topic_partition_list_destroy(mapped);
        assert_non_null(strstr(logged, "group \"app.critical\" committed on "
                                       "orders [1] (offset 9, was 5)"));
        assert_non_null(strstr(logged, "reads with another layout"));
        rd_kafka_destroy(rk);
}

/* A record on this consumer's partition whose key names the other bucket
 * is named once (a producer on another layout). */
static void test_misrouted_key_logged(void **state) {
        rd_kafka_topic_partition_list_t *l =
            rd_kafka_topic_partition_list_new(1);
        bp_test_drs_t drs = {0};
        rd_kafka_conf_t *pc = rd_kafka_conf_new();
        rd_kafka_message_t *m;
        rd_kafka_t *p, *rk;
        char err[256];
        int seen = 0, i;
        (void)state;

        /* A producer without the plugin writes bulk-7 to partition 9
         * (critical's). */
        rd_kafka_conf_set(pc, "bootstrap.servers", cluster.bootstraps, err,
                          sizeof(err));
        p = bp_test_producer(pc, &drs);
        assert_int_equal(rd_kafka_producev(p, RD_KAFKA_V_TOPIC(TOPIC),
                                           RD_KAFKA_V_PARTITION(9),
                                           RD_KAFKA_V_KEY("bulk-7", 6),
                                           RD_KAFKA_V_VALUE("v", 1),
                                           RD_KAFKA_V_END),
                         0);
        bp_test_wait_drs(p, &drs, 1, 10000);
        bp_test_producer_close(p, NULL, &drs);

        logged[0] = '\0';
        rk = consumer_at("critical", "");
        rd_kafka_topic_partition_list_add(l, TOPIC, 9)->offset =
            RD_KAFKA_OFFSET_BEGINNING;
        assert_int_equal(rd_kafka_assign(rk, l), 0);
        for (i = 0; i < 100 && !seen; i++) {
                m = rd_kafka_consumer_poll(rk, 100);
                if (m && !m->err && m->key_len == 6 &&
                    !memcmp(m->key, "bulk-7", 6))
                        seen = 1;
                if (m)
                        rd_kafka_message_destroy(m);
        }
        assert_true(seen);
        assert_non_null(strstr(logged, "key \"bulk-7\" names bucket \"bulk\""));
        rd_kafka_topic_partition_list_destroy(l);
        rd_kafka_consumer_close(rk);
        rd_kafka_destroy(rk);
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_producers_follow_the_step),
            cmocka_unit_test(test_consumer_step_and_takeover),
            cmocka_unit_test(test_members_disagree_logged),
            cmocka_unit_test(test_misrouted_key_logged),
        };
        return cmocka_run_group_tests(tests, setup, bp_test_cluster_teardown);
}
