/*
 * test_config.c - the bucket.priority.* configuration through bp_config_set():
 * the bad-input table, walked by one test that names every failing row, and
 * the accepted forms.
 *
 * Every rejected row checks four things: the result is BP_SET_INVALID, the
 * errstr starts with the property and (a prefix of) the value and says what
 * is wrong, and the configuration is byte for byte what it was before. The
 * same through rd_kafka_conf_set() with the plugin loaded, and the errors
 * table of docs/configuration.md, are test_conf_set's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "bp_config.h"
#include "bp_fallback.h"

#define P_TOPIC "bucket.priority.topic"
#define P_BUCKETS "bucket.priority.buckets"
#define P_ALLOC "bucket.priority.allocation"
#define P_DELIM "bucket.priority.delimiter"
#define P_LAYOUT "bucket.priority.layout"
#define P_WITHIN "bucket.priority.within"
#define P_FALLBACK "bucket.priority.fallback.partitioner"
#define P_BUCKET "bucket.priority.bucket"
#define P_GROUP "bucket.priority.group.per.bucket"
#define P_EVENTS "bucket.priority.rebalance.events.mapped"
#define P_SCHEDULE "bucket.priority.schedule"
#define P_THRESHOLD "bucket.priority.lag.threshold"
#define P_HOLD "bucket.priority.hold"

/* Shown prefix of a value that the errstr must contain. */
#define SHOWN_PREFIX 40

/* --- helpers ------------------------------------------------------------- */

static void set_ok(bp_config_t *cfg, const char *name, const char *value) {
        char err[512] = "";
        if (bp_config_set(cfg, name, value, err, sizeof(err)) != BP_SET_OK)
                fail_msg("%s=\"%s\" rejected: %s", name,
                         value ? value : "(null)", err);
}

/* A fresh configuration with only the topic set. */
static void fresh(bp_config_t *cfg) {
        bp_config_init(cfg);
        set_ok(cfg, P_TOPIC, "orders");
}

/* The documented example: orders, Platinum/Gold at 70/30. */
static void base(bp_config_t *cfg) {
        fresh(cfg);
        set_ok(cfg, P_BUCKETS, "Platinum, Gold");
        set_ok(cfg, P_ALLOC, "70%, 30%");
}

static void expect_contains(const char *err, const char *what) {
        if (!strstr(err, what))
                fail_msg("errstr \"%s\" does not contain \"%s\"", err, what);
}

/* Writes \p n copies of \p c into buf and terminates it. */
static char *repeat(char *buf, char c, size_t n) {
        memset(buf, c, n);
        buf[n] = '\0';
        return buf;
}

/* "b1, b2, ..., bn" */
static char *bucket_list(char *buf, size_t size, int n) {
        size_t at = 0;
        int i;
        buf[0] = '\0';
        for (i = 1; i <= n; i++)
                at += (size_t)snprintf(buf + at, size - at, "%sb%d",
                                       i > 1 ? ", " : "", i);
        return buf;
}

/* --- the bad-input table ------------------------------------------------- */

/* Values too long to write out, filled by fill_long_values(). */
static char too_long_fallback[BP_MAX_FALLBACK_LEN + 2];
static char too_long_delimiter[BP_MAX_DELIMITER_LEN + 2];
static char too_long_value[BP_MAX_VALUE_LEN + 2];
static char too_long_name_list[BP_MAX_NAME_LEN + 32];
static char too_many_buckets[1024];
static char too_many_allocations[1024];
static char too_long_topic[BP_MAX_TOPIC_LEN + 2];

static void fill_long_values(void) {
        char name[BP_MAX_NAME_LEN + 2];
        size_t at = 0;
        int i;

        repeat(too_long_fallback, 'f', BP_MAX_FALLBACK_LEN + 1);
        repeat(too_long_delimiter, '#', BP_MAX_DELIMITER_LEN + 1);
        repeat(too_long_value, 'B', BP_MAX_VALUE_LEN + 1);
        snprintf(too_long_name_list, sizeof(too_long_name_list),
                 "Platinum, %s", repeat(name, 'G', BP_MAX_NAME_LEN + 1));
        bucket_list(too_many_buckets, sizeof(too_many_buckets),
                    BP_MAX_BUCKETS + 1);
        for (i = 0; i <= BP_MAX_BUCKETS; i++)
                at += (size_t)snprintf(too_many_allocations + at,
                                       sizeof(too_many_allocations) - at,
                                       "%s1", i ? "," : "");
        repeat(too_long_topic, 't', BP_MAX_TOPIC_LEN + 1);
}

/* A property set that a row makes before the one that must fail. */
typedef struct {
        const char *name, *value;
} prop_t;

/* One bad input: starting from the documented example (or, with
 * topic_only, from a configuration with only the topic set), \p before is
 * applied and must succeed, then name=value must be refused with an errstr
 * that starts with "<err_name>: invalid value \"<err_value>" (name and
 * value unless given; a NULL value shows as "") and contains \p reason,
 * the configuration unchanged. */
typedef struct {
        const char *row;
        int topic_only;
        prop_t before[2];
        const char *name, *value;
        const char *reason;
        const char *err_name, *err_value;
} bad_row_t;

#define NO_BEFORE {{NULL, NULL}}

static const bad_row_t bad_rows[] = {
    {"empty bucket list", 0, NO_BEFORE, P_BUCKETS, "", "the list is empty", NULL, NULL},
    {"blank bucket list", 0, NO_BEFORE, P_BUCKETS, "  ", "the list is empty", NULL, NULL},
    {"empty name leading", 0, NO_BEFORE, P_BUCKETS, ",Gold", "empty name", NULL, NULL},
    {"empty name trailing", 0, NO_BEFORE, P_BUCKETS, "Gold,", "empty name", NULL, NULL},
    {"empty name middle", 1, NO_BEFORE, P_BUCKETS, "Platinum, , Gold",
     "empty name", NULL, NULL},
    {"duplicate bucket", 0, NO_BEFORE, P_BUCKETS, "Gold, Gold", "twice", NULL, NULL},
    {"name has delimiter, buckets first", 0,
     {{P_BUCKETS, "Gold_Star, Silver"}}, P_DELIM, "_",
     "contains the delimiter", NULL, NULL},
    {"name has delimiter, delimiter first", 1, {{P_DELIM, ":"}}, P_BUCKETS,
     "Go:ld, Silver", "contains the delimiter", NULL, NULL},
    {"name has the default delimiter", 0, NO_BEFORE, P_BUCKETS,
     "Gold-Star, Silver", "contains the delimiter", NULL, NULL},
    {"count mismatch, buckets first", 1,
     {{P_BUCKETS, "Platinum, Gold, Silver"}}, P_ALLOC, "70%, 30%",
     "3 buckets", NULL, NULL},
    {"count mismatch, allocation first", 1, {{P_ALLOC, "70%, 30%"}},
     P_BUCKETS, "Platinum, Gold, Silver", "2 allocations", NULL, NULL},
    {"count mismatch, one allocation", 1, {{P_BUCKETS, "Platinum, Gold"}},
     P_ALLOC, "100%", "2 buckets", NULL, NULL},
    {"allocation not a number", 0, NO_BEFORE, P_ALLOC, "seventy, 30",
     "not a number", NULL, NULL},
    {"allocation trailing junk", 0, NO_BEFORE, P_ALLOC, "70x, 30",
     "not a number", NULL, NULL},
    {"allocation zero", 0, NO_BEFORE, P_ALLOC, "0, 100", "zero", NULL, NULL},
    {"allocation negative", 0, NO_BEFORE, P_ALLOC, "-30, 130", "negative", NULL, NULL},
    {"allocation NaN", 0, NO_BEFORE, P_ALLOC, "nan, 30", "not a number", NULL, NULL},
    {"allocation infinity", 0, NO_BEFORE, P_ALLOC, "inf, 30", "not a number", NULL, NULL},
    {"allocation empty item", 0, NO_BEFORE, P_ALLOC, "70,,30", "empty", NULL, NULL},
    {"allocation sum 99", 0, NO_BEFORE, P_ALLOC, "70%, 29%", "add up to 99%", NULL, NULL},
    {"allocation sum 101", 0, NO_BEFORE, P_ALLOC, "70%, 31%",
     "add up to 101%", NULL, NULL},
    {"allocation sum off by a unit", 0, NO_BEFORE, P_ALLOC, "70.0001, 30",
     "100.0001%", NULL, NULL},
    {"allocation above 100", 0, NO_BEFORE, P_ALLOC, "100.5, 30",
     "above 100", NULL, NULL},
    {"allocation five decimals", 0, NO_BEFORE, P_ALLOC, "69.99999, 30.00001",
     "more than 4 decimals", NULL, NULL},
    {"unknown layout", 0, NO_BEFORE, P_LAYOUT, "zigzag", "stable", NULL, NULL},
    {"unknown within", 0, NO_BEFORE, P_WITHIN, "sticky", "hash", NULL, NULL},
    {"unknown schedule", 0, NO_BEFORE, P_SCHEDULE, "fastest", "weighted", NULL, NULL},
    {"threshold negative", 0, NO_BEFORE, P_THRESHOLD, "-1", "whole number", NULL, NULL},
    {"threshold above 10^15", 0, NO_BEFORE, P_THRESHOLD,
     "1000000000000001", "at most 1000000000000000", NULL, NULL},
    {"unknown fallback after buckets", 0, NO_BEFORE, P_FALLBACK, "Bronze",
     "discard", NULL, NULL},
    /* Accepted while no buckets are known; the buckets then reject it. */
    {"unknown fallback before buckets", 1, {{P_FALLBACK, "Bronze"}},
     P_BUCKETS, "Platinum, Gold", P_BUCKETS, P_FALLBACK, "Bronze"},
    {"fallback too long", 0, NO_BEFORE, P_FALLBACK, too_long_fallback,
     "longer", NULL, NULL},
    {"delimiter too long", 0, NO_BEFORE, P_DELIM, too_long_delimiter,
     "longer", NULL, NULL},
    {"value too long", 0, NO_BEFORE, P_BUCKETS, too_long_value,
     "longer than 4096", NULL, NULL},
    {"name too long", 0, NO_BEFORE, P_BUCKETS, too_long_name_list,
     "longer than 64 bytes", NULL, NULL},
    {"too many buckets", 0, NO_BEFORE, P_BUCKETS, too_many_buckets,
     "more than 64 buckets", NULL, NULL},
    {"too many allocations", 0, NO_BEFORE, P_ALLOC, too_many_allocations,
     "more than 64", NULL, NULL},
    {"topic too long", 0, NO_BEFORE, P_TOPIC, too_long_topic, "at most 249", NULL, NULL},
    {"unknown property", 0, NO_BEFORE, "bucket.priority.xyz", "1",
     "no such bucket-priority property", NULL, NULL},
    {"consumer bucket, buckets first", 0, NO_BEFORE, P_BUCKET, "Bronze",
     "not one of the buckets", NULL, NULL},
    {"consumer bucket, bucket first", 1, {{P_BUCKET, "Bronze"}}, P_BUCKETS,
     "Platinum, Gold", "when " P_BUCKETS " was set", P_BUCKET, "Bronze"},
    {"consumer bucket twice", 0, NO_BEFORE, P_BUCKET, "Gold, Gold", "twice", NULL, NULL},
    {"bad boolean", 0, NO_BEFORE, P_GROUP, "maybe", "true or false", NULL, NULL},
    /* An empty value, "" or NULL (librdkafka's form of ""), is never a
     * reset: refused for every property. */
    {"empty topic", 0, NO_BEFORE, P_TOPIC, "", "expected a topic name", NULL, NULL},
    {"NULL topic", 0, NO_BEFORE, P_TOPIC, NULL, "expected a topic name", NULL, NULL},
    {"NULL bucket list", 0, NO_BEFORE, P_BUCKETS, NULL, "the list is empty", NULL, NULL},
    {"empty allocation", 0, NO_BEFORE, P_ALLOC, "", "the list is empty", NULL, NULL},
    {"NULL allocation", 0, NO_BEFORE, P_ALLOC, NULL, "the list is empty", NULL, NULL},
    {"empty delimiter", 0, NO_BEFORE, P_DELIM, "", "the delimiter is empty", NULL, NULL},
    {"NULL delimiter", 0, {{P_DELIM, "::"}}, P_DELIM, NULL,
     "the delimiter is empty", NULL, NULL},
    {"empty layout", 0, NO_BEFORE, P_LAYOUT, "", "stable", NULL, NULL},
    {"NULL layout", 0, {{P_LAYOUT, "stable"}}, P_LAYOUT, NULL, "stable", NULL, NULL},
    {"NULL within", 0, {{P_WITHIN, "hash"}}, P_WITHIN, NULL, "hash", NULL, NULL},
    {"empty fallback", 0, NO_BEFORE, P_FALLBACK, "", "discard", NULL, NULL},
    {"NULL fallback", 0, {{P_FALLBACK, "discard"}}, P_FALLBACK, NULL,
     "discard", NULL, NULL},
    {"empty consumer bucket", 0, NO_BEFORE, P_BUCKET, "", "bucket", NULL, NULL},
    {"NULL consumer bucket", 0, {{P_BUCKET, "Gold"}}, P_BUCKET, NULL,
     "bucket", NULL, NULL},
    {"NULL group per bucket", 0, {{P_GROUP, "false"}}, P_GROUP, NULL,
     "true or false", NULL, NULL},
    {"NULL events mapped", 0, NO_BEFORE, P_EVENTS, NULL, "true or false", NULL, NULL},
    {"NULL schedule", 0, {{P_SCHEDULE, "weighted"}}, P_SCHEDULE, NULL,
     "weighted", NULL, NULL},
    {"NULL threshold", 0, {{P_THRESHOLD, "100"}}, P_THRESHOLD, NULL,
     "whole number", NULL, NULL},
};

/* Checks one row; returns 0, or -1 after printing what is wrong. */
static int check_bad_row(const bad_row_t *r) {
        const char *err_name = r->err_name ? r->err_name : r->name;
        const char *err_value =
            r->err_value ? r->err_value : r->value ? r->value : "";
        bp_config_t cfg, before;
        char err[1024] = "", start[256];
        size_t i;

        if (r->topic_only)
                fresh(&cfg);
        else
                base(&cfg);
        for (i = 0; i < 2 && r->before[i].name; i++)
                set_ok(&cfg, r->before[i].name, r->before[i].value);
        memcpy(&before, &cfg, sizeof(before));
        if (bp_config_set(&cfg, r->name, r->value, err, sizeof(err)) !=
            BP_SET_INVALID) {
                print_error("row \"%s\": %s=\"%s\" accepted\n", r->row,
                            r->name, r->value ? r->value : "(null)");
                return -1;
        }
        snprintf(start, sizeof(start), "%s: invalid value \"%.*s", err_name,
                 SHOWN_PREFIX, err_value);
        if (strncmp(err, start, strlen(start)) || !strstr(err, r->reason)) {
                print_error("row \"%s\": errstr \"%s\" does not start with "
                            "\"%s\" or lacks \"%s\"\n",
                            r->row, err, start, r->reason);
                return -1;
        }
        if (memcmp(&before, &cfg, sizeof(before))) {
                print_error("row \"%s\": the refused set changed the "
                            "configuration\n",
                            r->row);
                return -1;
        }
        return 0;
}

/* Every row of the table, each named when it fails. */
static void test_bad_input_table(void **state) {
        size_t i, failed = 0, n = sizeof(bad_rows) / sizeof(bad_rows[0]);
        (void)state;
        fill_long_values();
        for (i = 0; i < n; i++)
                if (check_bad_row(&bad_rows[i]))
                        failed++;
        if (failed)
                fail_msg("%zu of %zu bad-input rows failed", failed, n);
}

/* Only the property kept for the Java reference's files takes any value,
 * an empty one too. */
static void test_fallback_assignor_ignored(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        set_ok(&cfg, "bucket.priority.fallback.assignor", "");
        set_ok(&cfg, "bucket.priority.fallback.assignor", NULL);
        set_ok(&cfg, "bucket.priority.fallback.assignor", "x.Y");
}

/* --- accepted values ----------------------------------------------------- */

static void expect_units(const char *buckets, const char *alloc,
                         const uint32_t *want, int n) {
        bp_config_t cfg;
        fresh(&cfg);
        set_ok(&cfg, P_BUCKETS, buckets);
        set_ok(&cfg, P_ALLOC, alloc);
        assert_int_equal(cfg.allocation_cnt, n);
        assert_memory_equal(cfg.allocation, want, (size_t)n * sizeof(*want));
}

static void test_allocation_forms(void **state) {
        const uint32_t seventy_thirty[] = {700000, 300000};
        const uint32_t thirds[]         = {333333, 333333, 333334};
        const uint32_t eighths[]        = {125000, 875000};
        (void)state;
        expect_units("Platinum, Gold", "70%, 30%", seventy_thirty, 2);
        expect_units("Platinum, Gold", " 70 ,30 ", seventy_thirty, 2);
        expect_units("Platinum, Gold", "70 %,30%", seventy_thirty, 2);
        expect_units("A, B, C", "33.3333,33.3333,33.3334", thirds, 3);
        expect_units("A, B", "12.5%, 87.5%", eighths, 2);
}

static void test_buckets_trimmed(void **state) {
        bp_config_t cfg;
        (void)state;
        fresh(&cfg);
        set_ok(&cfg, P_BUCKETS, "  Platinum ,\tGold Star ");
        assert_int_equal(cfg.bucket_cnt, 2);
        assert_string_equal(cfg.buckets[0].name, "Platinum");
        assert_int_equal(cfg.buckets[0].name_len, 8);
        assert_string_equal(cfg.buckets[1].name, "Gold Star");
        assert_int_equal(cfg.max_name_len, 9);
        assert_int_equal(bp_config_find_bucket(&cfg, "Gold Star", 9), 1);
        assert_int_equal(bp_config_find_bucket(&cfg, "Gold", 4), -1);
}

static void test_bounds_accepted(void **state) {
        bp_config_t cfg;
        char name[BP_MAX_NAME_LEN + 1], list[1024];
        char topic[BP_MAX_TOPIC_LEN + 1], delim[BP_MAX_DELIMITER_LEN + 1];
        (void)state;
        fresh(&cfg);
        set_ok(&cfg, P_BUCKETS, repeat(name, 'G', BP_MAX_NAME_LEN));
        assert_int_equal(cfg.max_name_len, BP_MAX_NAME_LEN);
        set_ok(&cfg, P_BUCKETS, bucket_list(list, sizeof(list), BP_MAX_BUCKETS));
        assert_int_equal(cfg.bucket_cnt, BP_MAX_BUCKETS);
        set_ok(&cfg, P_TOPIC, repeat(topic, 't', BP_MAX_TOPIC_LEN));
        assert_string_equal(cfg.topic, topic);
        set_ok(&cfg, P_DELIM, repeat(delim, '#', BP_MAX_DELIMITER_LEN));
        assert_int_equal(cfg.delimiter_len, BP_MAX_DELIMITER_LEN);
}

static void test_default_fallback_is_last_bucket(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        assert_int_equal(cfg.fallback_kind, BP_FALLBACK_BUCKET);
        assert_int_equal(cfg.fallback_bucket, 1);
        fresh(&cfg);
        set_ok(&cfg, P_BUCKETS, "A, B, C");
        set_ok(&cfg, P_ALLOC, "50, 30, 20");
        assert_int_equal(cfg.fallback_bucket, 2);
}

static void test_fallback_bucket_name(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        set_ok(&cfg, P_FALLBACK, "Platinum");
        assert_int_equal(cfg.fallback_kind, BP_FALLBACK_BUCKET);
        assert_int_equal(cfg.fallback_bucket, 0);
        /* Set before the buckets: resolved once they are known. */
        fresh(&cfg);
        set_ok(&cfg, P_FALLBACK, "Platinum");
        assert_int_equal(cfg.fallback_bucket, -1);
        set_ok(&cfg, P_BUCKETS, "Gold, Platinum");
        assert_int_equal(cfg.fallback_bucket, 1);
}

static void test_fallback_discard(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        set_ok(&cfg, P_FALLBACK, "discard");
        assert_int_equal(cfg.fallback_kind, BP_FALLBACK_DISCARD);
        assert_int_equal(cfg.fallback_bucket, -1);
}

static void test_fallback_builtins(void **state) {
        static const char *names[] = {
            "random",         "consistent", "consistent_random", "murmur2",
            "murmur2_random", "fnv1a",      "fnv1a_random",      "roundrobin"};
        bp_config_t cfg;
        int i;
        (void)state;
        assert_int_equal(sizeof(names) / sizeof(names[0]), BP_BUILTIN__CNT);
        for (i = 0; i < BP_BUILTIN__CNT; i++) {
                base(&cfg);
                set_ok(&cfg, P_FALLBACK, names[i]);
                assert_int_equal(cfg.fallback_kind, BP_FALLBACK_BUILTIN);
                assert_string_equal(bp_builtin_name(cfg.fallback_builtin),
                                    names[i]);
                assert_int_equal(cfg.fallback_bucket, -1);
        }
        assert_string_equal(bp_builtin_name(BP_BUILTIN__CNT), "?");
}

static void test_fallback_java_classes(void **state) {
        static const struct {
                const char *java;
                bp_fallback_kind_t kind;
                const char *builtin;
        } map[] = {
            {"org.apache.kafka.clients.producer.internals.DefaultPartitioner",
             BP_FALLBACK_BUILTIN, "murmur2_random"},
            {"org.apache.kafka.clients.producer.UniformStickyPartitioner",
             BP_FALLBACK_BUILTIN, "random"},
            {"org.apache.kafka.clients.producer.RoundRobinPartitioner",
             BP_FALLBACK_BUILTIN, "roundrobin"},
            {"com.riferrei.kafka.core.DiscardPartitioner",
             BP_FALLBACK_DISCARD, NULL},
            {"blog.buildon.aws.streaming.kafka.DiscardPartitioner",
             BP_FALLBACK_DISCARD, NULL},
        };
        bp_config_t cfg;
        size_t i;
        (void)state;
        for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
                base(&cfg);
                set_ok(&cfg, P_FALLBACK, map[i].java);
                assert_int_equal(cfg.fallback_kind, map[i].kind);
                if (map[i].builtin)
                        assert_string_equal(
                            bp_builtin_name(cfg.fallback_builtin),
                            map[i].builtin);
        }
}

static void test_group_per_bucket_values(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        assert_int_equal(cfg.group_per_bucket, 1);
        set_ok(&cfg, P_GROUP, "false");
        assert_int_equal(cfg.group_per_bucket, 0);
        set_ok(&cfg, P_GROUP, "TRUE");
        assert_int_equal(cfg.group_per_bucket, 1);
        set_ok(&cfg, P_GROUP, "0");
        assert_int_equal(cfg.group_per_bucket, 0);
}

static void test_consumer_buckets_resolve(void **state) {
        bp_config_t cfg;
        (void)state;
        fresh(&cfg);
        set_ok(&cfg, P_BUCKET, "Gold");
        set_ok(&cfg, P_BUCKETS, "Platinum, Gold");
        assert_int_equal(cfg.consumer_bucket_cnt, 1);
        assert_int_equal(cfg.consumer_buckets[0], 1);
}

static void expect_missing(const bp_config_t *cfg, const char *prop) {
        char err[512] = "";
        assert_int_equal(bp_config_check_complete(cfg, err, sizeof(err)), -1);
        if (strncmp(err, prop, strlen(prop)) || err[strlen(prop)] != ' ')
                fail_msg("errstr \"%s\" does not start with %s", err, prop);
}

static void test_check_complete(void **state) {
        bp_config_t cfg;
        char err[512] = "";
        (void)state;
        bp_config_init(&cfg);
        expect_missing(&cfg, P_TOPIC);
        set_ok(&cfg, P_BUCKETS, "Platinum, Gold");
        set_ok(&cfg, P_ALLOC, "70, 30");
        expect_missing(&cfg, P_TOPIC);
        fresh(&cfg);
        expect_missing(&cfg, P_BUCKETS);
        set_ok(&cfg, P_BUCKETS, "Platinum, Gold");
        expect_missing(&cfg, P_ALLOC);
        set_ok(&cfg, P_ALLOC, "70, 30");
        assert_int_equal(bp_config_check_complete(&cfg, err, sizeof(err)), 0);
}

static void test_other_properties_unknown(void **state) {
        static const char *names[] = {"bootstrap.servers", "bucket.priority",
                                      "bucket.priorityx.topic",
                                      "Bucket.priority.topic", ""};
        bp_config_t cfg, before;
        char err[64];
        size_t i;
        (void)state;
        bp_config_init(&cfg);
        memcpy(&before, &cfg, sizeof(before));
        for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
                assert_int_equal(bp_config_set(&cfg, names[i], "x", err,
                                               sizeof(err)),
                                 BP_SET_UNKNOWN);
        assert_memory_equal(&before, &cfg, sizeof(before));
        assert_false(bp_config_is_touched(&cfg));
}

static void test_touched(void **state) {
        bp_config_t cfg;
        char err[256];
        (void)state;
        bp_config_init(&cfg);
        assert_false(bp_config_is_touched(&cfg));
        assert_int_equal(bp_config_set(&cfg, P_LAYOUT, "zigzag", err,
                                       sizeof(err)),
                         BP_SET_INVALID);
        assert_false(bp_config_is_touched(&cfg));
        set_ok(&cfg, P_LAYOUT, "stable");
        assert_true(bp_config_is_touched(&cfg));
}

/* How a list consumer holds lower buckets back, in every order of the
 * three properties that decide it: queue by default for strict, pause
 * when a lag threshold above 0 is set without a hold (a threshold is a
 * pause's, and weighted ignores it), what hold says when set. */
static void test_hold_resolved(void **state) {
        static const struct {
                const char *schedule, *threshold, *hold;
                bp_hold_t want;
        } rows[] = {
            {NULL, NULL, NULL, BP_HOLD_QUEUE},
            {"strict", NULL, NULL, BP_HOLD_QUEUE},
            {"strict", "0", NULL, BP_HOLD_QUEUE},
            {"strict", "100", NULL, BP_HOLD_PAUSE},
            {"strict", "100", "queue", BP_HOLD_QUEUE},
            {"strict", NULL, "pause", BP_HOLD_PAUSE},
            {"strict", "0", "queue", BP_HOLD_QUEUE},
            {"weighted", NULL, NULL, BP_HOLD_QUEUE},
            {"weighted", NULL, "queue", BP_HOLD_QUEUE},
            {"weighted", NULL, "pause", BP_HOLD_PAUSE},
            {"weighted", "100", NULL, BP_HOLD_QUEUE},
            {"weighted", "100", "pause", BP_HOLD_PAUSE},
        };
        size_t i;
        int order;
        (void)state;
        for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
                for (order = 0; order < 2; order++) {
                        const char *name[3] = {P_SCHEDULE, P_THRESHOLD,
                                               P_HOLD};
                        const char *value[3] = {rows[i].schedule,
                                                rows[i].threshold,
                                                rows[i].hold};
                        bp_config_t cfg;
                        int k;
                        bp_config_init(&cfg);
                        for (k = 0; k < 3; k++) {
                                int j = order ? 2 - k : k;
                                if (value[j])
                                        set_ok(&cfg, name[j], value[j]);
                        }
                        if (bp_config_hold(&cfg) != rows[i].want)
                                fail_msg("row %zu (order %d): hold %d, "
                                         "expected %d",
                                         i, order, bp_config_hold(&cfg),
                                         rows[i].want);
                }
}

/* A small errstr is truncated, never overrun. */
/* A long value of unprintable bytes: shown escaped, cut to 80 bytes, and
 * marked as cut. */
static void test_bad_value_escaped_and_cut(void **state) {
        bp_config_t cfg;
        char v[201], err[1024] = "";
        (void)state;
        base(&cfg);
        memset(v, '\x01', 200);
        v[200] = '\0';
        assert_int_equal(bp_config_set(&cfg, P_ALLOC, v, err, sizeof(err)),
                         BP_SET_INVALID);
        expect_contains(err, "\\x01\\x01");
        expect_contains(err, "...\": ");
        assert_null(strchr(err, '\x01'));
}

static void test_small_errstr(void **state) {
        bp_config_t cfg;
        char err[16];
        (void)state;
        base(&cfg);
        memset(err, 'Z', sizeof(err));
        assert_int_equal(bp_config_set(&cfg, P_ALLOC, "70, 29", err, 8),
                         BP_SET_INVALID);
        assert_int_equal(strlen(err), 7);
        assert_int_equal(err[8], 'Z');
}

static void test_allocation_format(void **state) {
        char buf[32];
        (void)state;
        bp_allocation_format(700000, buf, sizeof(buf));
        assert_string_equal(buf, "70");
        bp_allocation_format(333333, buf, sizeof(buf));
        assert_string_equal(buf, "33.3333");
        bp_allocation_format(125000, buf, sizeof(buf));
        assert_string_equal(buf, "12.5");
        bp_allocation_format(1, buf, sizeof(buf));
        assert_string_equal(buf, "0.0001");
}

#define ROW(t) cmocka_unit_test(t)

int main(void) {
        const struct CMUnitTest tests[] = {
            ROW(test_bad_input_table),
            ROW(test_fallback_assignor_ignored),
            ROW(test_allocation_forms),
            ROW(test_buckets_trimmed),
            ROW(test_bounds_accepted),
            ROW(test_default_fallback_is_last_bucket),
            ROW(test_fallback_bucket_name),
            ROW(test_fallback_discard),
            ROW(test_fallback_builtins),
            ROW(test_fallback_java_classes),
            ROW(test_group_per_bucket_values),
            ROW(test_consumer_buckets_resolve),
            ROW(test_check_complete),
            ROW(test_other_properties_unknown),
            ROW(test_touched),
            ROW(test_hold_resolved),
            ROW(test_bad_value_escaped_and_cut),
            ROW(test_small_errstr),
            ROW(test_allocation_format),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
