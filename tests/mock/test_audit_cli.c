/*
 * test_audit_cli.c - the bp-audit program (BP_AUDIT_BIN, set by ctest):
 * exit code 2 with a message naming what failed for every kind of bad
 * input (properties file missing or malformed, bad or missing bucket
 * properties, no bootstrap, bad options, a topic that does not exist);
 * exit code 3 ("not checked") for a cluster that does not answer; and on
 * the embedded mock cluster (which has no DescribeGroups) exact key
 * counts, the misrouted fault, and the ownership check reported as not
 * done: exit 3, never healthy; during a live layout change the drain
 * verdict (exit status 4 while a partition is not drained, the wait
 * outranking the unchecked ownership; 3 once it is drained, "may_start"
 * true, only the ownership unchecked) and records that fit the next
 * layout too early (exit status 1).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "include/bucket_priority.h"
#include "bp_test_run.h"
#include "bp_test_util.h"

#define BUCKETS "bucket.priority.buckets=critical, normal, bulk\n" \
                "bucket.priority.allocation=20%, 30%, 50%\n"

static char path[64];

/* Writes \p text to a fresh properties file; its name is in path. */
static void write_props(const char *text) {
        FILE *f;
        snprintf(path, sizeof(path), "/tmp/bp-audit-test-%ld.properties",
                 (long)getpid());
        f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

static void run_audit(run_t *r, const char *const *args) {
        bp_test_run(r, "BP_AUDIT_BIN", args);
}

static void expect_bad(const char *const *args, const char *msg) {
        static run_t r;
        run_audit(&r, args);
        assert_int_equal(r.exit_code, 2);
        expect_contains(r.err, msg);
        assert_string_equal(r.out, "");
}

static void test_missing_file(void **state) {
        const char *args[] = {"--config", "/nonexistent/app.properties",
                              NULL};
        (void)state;
        expect_bad(args, "bp-audit: --config /nonexistent/app.properties: "
                         "cannot open: No such file or directory");
}

static void test_malformed_file(void **state) {
        const char *args[] = {"--config", path, NULL};
        char want[128];
        (void)state;
        write_props("bootstrap.servers=127.0.0.1:1\nthis line is wrong\n");
        snprintf(want, sizeof(want),
                 "%s:2: expected name=value, got \"this line is wrong\"",
                 path);
        expect_bad(args, want);
        write_props("bootstrap.servers=127.0.0.1:1\n"
                    "bucket.priority.topic=t\n" BUCKETS
                    "bucket.priority.layout=zigzag\n");
        snprintf(want, sizeof(want),
                 "%s:5: bucket.priority.layout: invalid value \"zigzag\"",
                 path);
        expect_bad(args, want);
        unlink(path);
}

static void test_incomplete(void **state) {
        const char *args[] = {"--config", path, NULL};
        const char *no_bootstrap[] = {"--config", path, "--topic", "t", NULL};
        (void)state;
        write_props("bootstrap.servers=127.0.0.1:1\n" BUCKETS);
        expect_bad(args, "bucket.priority.topic");
        write_props("group.id=app\n" BUCKETS);
        expect_bad(no_bootstrap, "bootstrap.servers is not set");
        unlink(path);
}

static void test_bad_options(void **state) {
        const char *records[] = {"--records", "many", NULL};
        const char *timeout[] = {"--timeout", "5", NULL};
        const char *x[]       = {"-X", "novalue", NULL};
        const char *extra[]   = {"--json", "stray", NULL};
        (void)state;
        expect_bad(records, "--records \"many\": expected a whole number");
        expect_bad(timeout, "--timeout \"5\": expected a whole number from "
                            "100");
        expect_bad(x, "-X \"novalue\": expected name=value");
        expect_bad(extra, "unexpected argument \"stray\"");
}

/* Nothing listens on port 1: nothing checked (exit 3), said within the
 * timeout. */
static void test_unreachable(void **state) {
        const char *args[] = {"--bootstrap", "127.0.0.1:1", "--topic",
                              "orders",      "--buckets",   "a, b",
                              "--allocation", "50, 50",     "--timeout",
                              "1000",        NULL};
        static run_t r;
        (void)state;
        run_audit(&r, args);
        assert_int_equal(r.exit_code, 3);
        expect_contains(r.err, "bp-audit: nothing checked: the cluster did "
                               "not answer within --timeout 1000 ms");
        assert_string_equal(r.out, "");
}

/* --help gives every exit status. */
static void test_help(void **state) {
        const char *args[] = {"--help", NULL};
        static run_t r;
        (void)state;
        run_audit(&r, args);
        assert_int_equal(r.exit_code, 0);
        expect_contains(r.out, "0 healthy");
        expect_contains(r.out, "1 a fault was found");
        expect_contains(r.out, "2 bad input");
        expect_contains(r.out, "3 not checked");
        expect_contains(r.out, "needs librdkafka 2.10 or later");
}

/* --version: the header's version and the librdkafka bp-audit runs on. */
static void test_version(void **state) {
        const char *args[] = {"--version", NULL};
        char expected[128];
        static run_t r;
        (void)state;
        run_audit(&r, args);
        assert_int_equal(r.exit_code, 0);
        snprintf(expected, sizeof(expected),
                 "bp-audit " BP_VERSION_STR " (librdkafka %s)\n",
                 rd_kafka_version_str());
        assert_string_equal(r.out, expected);
}

/* --- on the mock cluster ------------------------------------------------- */

static bp_test_cluster_t tc;

static int start_cluster(void **state) {
        bp_test_cluster_start(&tc, 1);
        bp_test_cluster_topic(&tc, "orders", 12);
        *state = &tc;
        return 0;
}

/* A producer without the plugin writes \p key to partition \p p. */
static void produce_to(rd_kafka_t *rk, int32_t p, const char *key) {
        assert_int_equal(
            rd_kafka_producev(rk, RD_KAFKA_V_TOPIC("orders"),
                              RD_KAFKA_V_PARTITION(p),
                              RD_KAFKA_V_KEY(key, key ? strlen(key) : 0),
                              RD_KAFKA_V_VALUE("v", 1), RD_KAFKA_V_END),
            0);
}

/* A producer without the plugin, on the mock cluster. */
static rd_kafka_t *plain_producer(void) {
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        char err[256];
        rd_kafka_t *rk;
        assert_int_equal(rd_kafka_conf_set(conf, "bootstrap.servers",
                                           tc.bootstraps, err, sizeof(err)),
                         RD_KAFKA_CONF_OK);
        rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
        assert_non_null(rk);
        return rk;
}

static void mock_props(void) {
        char text[512];
        snprintf(text, sizeof(text),
                 "# the clients' file\nbootstrap.servers=%s\n"
                 "plugin.library.paths=/not/loaded/by/bp-audit.so\n"
                 "bucket.priority.topic=orders\n%sgroup.id=app\n",
                 tc.bootstraps, BUCKETS);
        write_props(text);
}

/* 12 partitions: 10-11 critical, 6-9 normal, 0-5 bulk (bp-layout). Each
 * partition gets 3 records of its own bucket; partition 0 also 2 critical
 * keys (misrouted), 1 unknown and 1 NULL key. */
static void test_mock_routing(void **state) {
        const char *json[] = {"--config", path, "--json", "--timeout",
                              "1000", NULL};
        const char *text[] = {"--config", path, "--timeout", "1000", NULL};
        static const char *own[12] = {"bulk-1",   "bulk-1",    "bulk-1",
                                      "bulk-1",   "bulk-1",    "bulk-1",
                                      "normal-1", "normal-1",  "normal-1",
                                      "normal-1", "critical-1", "critical-1"};
        static run_t r;
        rd_kafka_t *rk;
        int32_t p;
        int i;
        (void)state;

        rk = plain_producer();
        for (p = 0; p < 12; p++)
                for (i = 0; i < 3; i++)
                        produce_to(rk, p, own[p]);
        assert_int_equal(rd_kafka_flush(rk, 10000), 0);
        mock_props();

        /* All in their buckets, but the mock cluster cannot describe
         * groups: ownership not checked, so not healthy (exit 3). */
        run_audit(&r, text);
        assert_int_equal(r.exit_code, 3);
        expect_contains(r.out, "UNCHECKED unchecked: ownership not checked: "
                               "the cluster does not support listing or "
                               "describing groups");
        expect_contains(r.out, "NOT CHECKED: 0 faults, ");
        assert_null(strstr(r.out, "healthy"));

        produce_to(rk, 0, "critical-2");
        produce_to(rk, 0, "critical-3");
        produce_to(rk, 0, "nobody-1");
        produce_to(rk, 0, NULL);
        assert_int_equal(rd_kafka_flush(rk, 10000), 0);
        rd_kafka_destroy(rk);

        run_audit(&r, json);
        assert_int_equal(r.exit_code, 1);
        expect_contains(r.out, "{\"version\":1,\"topic\":\"orders\","
                               "\"partitions\":12,\"layout\":\"contiguous\","
                               "\"group_id\":\"app\",\"healthy\":false,"
                               "\"faults\":1,");
        expect_contains(r.out, "{\"partition\":0,\"bucket\":\"bulk\","
                               "\"low\":0,\"high\":7,");
        expect_contains(r.out, "\"keys\":{\"in_bucket\":3,\"misrouted\":2,"
                               "\"old_layout\":0,\"unknown\":1,\"null\":1},"
                               "\"routing_complete\":true,"
                               "\"misrouted_samples\":[\"critical-2\","
                               "\"critical-3\"]}");
        expect_contains(r.out, "{\"partition\":11,\"bucket\":\"critical\","
                               "\"low\":0,\"high\":3,");
        expect_contains(r.out, "\"keys\":{\"in_bucket\":3,\"misrouted\":0,");
        expect_contains(r.out, "{\"kind\":\"misrouted\",\"fault\":true,"
                               "\"bucket\":\"bulk\",\"partition\":0,"
                               "\"group\":null,\"member\":null,\"count\":2,");
        expect_contains(r.out, "{\"kind\":\"unknown_keys\",\"fault\":false,");
        /* The next growth (as bp-layout --growth 12,24 shows it). */
        expect_contains(r.out, "\"growth\":{\"partitions\":24,\"moves\":["
                               "{\"partition\":6,\"from\":\"normal\","
                               "\"to\":\"bulk\"},");
        expect_contains(r.out, "{\"kind\":\"unchecked\",\"fault\":false,");
        expect_contains(r.out, "\"verdict\":\"not healthy\",");
        /* The last N records only: --records 2 sees no misrouted key
         * (ownership still not checked). */
        {
                const char *last2[] = {"--config", path, "--records", "2",
                                       "--timeout", "1000", "--json", NULL};
                run_audit(&r, last2);
                assert_int_equal(r.exit_code, 3);
                expect_contains(r.out, "\"healthy\":false,\"faults\":0,");
                expect_contains(r.out, "\"verdict\":\"not checked\",");
        }
        unlink(path);
}

/* Commits \p offset for group \p group on partitions lo..hi of orders,
 * as a consumer of that group does. */
static void commit(const char *group, int32_t lo, int32_t hi, int64_t offset) {
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        rd_kafka_topic_partition_list_t *tp;
        char err[256];
        rd_kafka_t *rk;
        int32_t p;

        assert_int_equal(rd_kafka_conf_set(conf, "bootstrap.servers",
                                           tc.bootstraps, err, sizeof(err)),
                         RD_KAFKA_CONF_OK);
        assert_int_equal(rd_kafka_conf_set(conf, "group.id", group, err,
                                           sizeof(err)),
                         RD_KAFKA_CONF_OK);
        rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
        assert_non_null(rk);
        tp = rd_kafka_topic_partition_list_new(hi - lo + 1);
        for (p = lo; p <= hi; p++)
                rd_kafka_topic_partition_list_add(tp, "orders", p)->offset =
                    offset;
        assert_int_equal(rd_kafka_commit(rk, tp, 0), 0);
        rd_kafka_topic_partition_list_destroy(tp);
        rd_kafka_consumer_close(rk);
        rd_kafka_destroy(rk);
}

/* critical, bulk 30/70 -> 50/50 on 12 partitions (contiguous): bulk 0-7,
 * critical 8-11 now; before consumer step 2, app.bulk must have read 0-5
 * to their end. Producers are on step 1. */
static void test_mock_change_drain(void **state) {
        const char *text[] = {"--config", path, "--timeout", "1000", NULL};
        const char *json[] = {"--config", path, "--timeout", "1000", "--json",
                              NULL};
        static run_t r;
        char props[512];
        rd_kafka_t *rk;
        int32_t p;
        int i;
        (void)state;

        rk = plain_producer();
        for (p = 0; p < 12; p++)
                for (i = 0; i < 3; i++)
                        produce_to(rk, p, p < 8 ? "bulk-1" : "critical-1");
        assert_int_equal(rd_kafka_flush(rk, 10000), 0);
        snprintf(props, sizeof(props),
                 "bootstrap.servers=%s\nbucket.priority.topic=orders\n"
                 "bucket.priority.buckets=critical, bulk\n"
                 "bucket.priority.allocation=30%%, 70%%\n"
                 "bucket.priority.next.allocation=50%%, 50%%\n"
                 "bucket.priority.next.step=1\ngroup.id=app\n",
                 tc.bootstraps);
        write_props(props);

        /* app.bulk read 0-4 to their end (3), partition 5 only to 1. */
        commit("app.bulk", 0, 4, 3);
        commit("app.bulk", 5, 5, 1);
        run_audit(&r, text);
        assert_int_equal(r.exit_code, 4);
        expect_contains(r.out, "layout change: step 1 of 5");
        expect_contains(r.out, "step 2 must wait: 1 partition not drained");
        expect_contains(r.out, "WAIT  wait: step 2 must wait: 1 partition "
                               "not drained (5)");
        expect_contains(r.out, "NOT CHECKED, and WAIT: 0 faults, 1 check "
                               "not made");
        {
                char line[256];
                line_with(r.out, "NOT drained", line, sizeof(line));
                expect_contains(line, "   5 app.bulk");
                line_with(r.out, "   4 app.bulk", line, sizeof(line));
                expect_contains(line, "drained");
                assert_null(strstr(line, "NOT"));
        }
        /* as bp-layout prints them for step 1 */
        expect_contains(r.out, "producers should log layout fingerprint "
                               "4f217c9f (critical 8-11, bulk 6-7)");
        expect_contains(r.out, "consumers should log layout fingerprint "
                               "6f2ba9dc (critical 8-11, bulk 0-7)");

        /* Drained: step 2 may start (exit 3 here: the mock cluster
         * cannot describe groups, so ownership is not checked; 0 on a
         * real cluster, broker_change). */
        commit("app.bulk", 5, 5, 3);
        run_audit(&r, json);
        assert_int_equal(r.exit_code, 3);
        expect_contains(r.out, "\"verdict\":\"not checked\",\"unchecked\":1,");
        expect_contains(r.out, "\"change\":{\"step\":1,\"step_count\":5,");
        expect_contains(r.out, "\"check_step\":2,\"may_start\":true,");
        expect_contains(r.out, "{\"partition\":5,\"group\":\"app.bulk\","
                               "\"committed\":3,\"high\":3,"
                               "\"high_later\":3,\"drained\":true}");

        /* A producer already on the next layout writes critical into 0. */
        produce_to(rk, 0, "critical-7");
        assert_int_equal(rd_kafka_flush(rk, 10000), 0);
        rd_kafka_destroy(rk);
        run_audit(&r, text);
        assert_int_equal(r.exit_code, 1);
        expect_contains(r.out, "FAULT step_misplaced: partition 0: 1 of the "
                               "last records name a bucket whose producers "
                               "may not write here at step 1");
        expect_contains(r.out, "\"critical-7\"; they fit the next layout: a "
                               "producer switched early");
        /* and partition 0 is no longer drained: its end moved past 3 */
        expect_contains(r.out, "step 2 must wait: 1 partition not drained");
        unlink(path);
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_missing_file),
            cmocka_unit_test(test_malformed_file),
            cmocka_unit_test(test_incomplete),
            cmocka_unit_test(test_bad_options),
            cmocka_unit_test(test_unreachable),
            cmocka_unit_test(test_help),
            cmocka_unit_test(test_version),
            cmocka_unit_test_setup_teardown(test_mock_routing, start_cluster,
                                            bp_test_cluster_teardown),
            cmocka_unit_test_setup_teardown(test_mock_change_drain,
                                            start_cluster,
                                            bp_test_cluster_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
