/*
 * test_config.c - the bucket.priority.* configuration through bp_config_set():
 * the bad-input table, one test per row, and the accepted forms.
 *
 * Every rejected row checks four things: the result is BP_SET_INVALID, the
 * errstr names the property, shows (a prefix of) the value and says what is
 * wrong, and the configuration is byte for byte what it was before. The
 * plugin-level path (rd_kafka_conf_set) is tested with the plugin.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "bp_config.h"

#define P_TOPIC "bucket.priority.topic"
#define P_BUCKETS "bucket.priority.buckets"
#define P_ALLOC "bucket.priority.allocation"
#define P_DELIM "bucket.priority.delimiter"
#define P_LAYOUT "bucket.priority.layout"
#define P_WITHIN "bucket.priority.within"
#define P_FALLBACK "bucket.priority.fallback.partitioner"
#define P_BUCKET "bucket.priority.bucket"
#define P_GROUP "bucket.priority.group.per.bucket"

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

/* Sets name=value, expects rejection with an errstr naming err_name and
 * showing err_value (a prefix), containing \p reason, cfg unchanged. */
static void expect_invalid_as(bp_config_t *cfg, const char *name,
                              const char *value, const char *err_name,
                              const char *err_value, const char *reason) {
        bp_config_t before;
        char err[1024] = "", prefix[SHOWN_PREFIX + 1];

        memcpy(&before, cfg, sizeof(before));
        assert_int_equal(bp_config_set(cfg, name, value, err, sizeof(err)),
                         BP_SET_INVALID);
        expect_contains(err, err_name);
        snprintf(prefix, sizeof(prefix), "%s", err_value);
        expect_contains(err, prefix);
        expect_contains(err, reason);
        assert_memory_equal(&before, cfg, sizeof(before));
}

static void expect_invalid(bp_config_t *cfg, const char *name,
                           const char *value, const char *reason) {
        expect_invalid_as(cfg, name, value, name, value, reason);
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

/* --- the bad-input table, one test per row -------------------------------- */

static void test_bad_empty_bucket_list(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_BUCKETS, "", "empty");
}

static void test_bad_blank_bucket_list(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_BUCKETS, "  ", "empty");
}

static void test_bad_empty_name_leading(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_BUCKETS, ",Gold", "empty name");
}

static void test_bad_empty_name_trailing(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_BUCKETS, "Gold,", "empty name");
}

static void test_bad_empty_name_middle(void **state) {
        bp_config_t cfg;
        (void)state;
        fresh(&cfg);
        expect_invalid(&cfg, P_BUCKETS, "Platinum, , Gold", "empty name");
}

static void test_bad_duplicate_bucket(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_BUCKETS, "Gold, Gold", "twice");
}

static void test_bad_name_has_delimiter_buckets_first(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        set_ok(&cfg, P_BUCKETS, "Gold_Star, Silver");
        expect_invalid(&cfg, P_DELIM, "_", "contains the delimiter");
}

static void test_bad_name_has_delimiter_delimiter_first(void **state) {
        bp_config_t cfg;
        (void)state;
        fresh(&cfg);
        set_ok(&cfg, P_DELIM, ":");
        expect_invalid(&cfg, P_BUCKETS, "Go:ld, Silver",
                       "contains the delimiter");
}

static void test_bad_name_has_default_delimiter(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_BUCKETS, "Gold-Star, Silver",
                       "contains the delimiter");
}

static void test_bad_count_mismatch_buckets_first(void **state) {
        bp_config_t cfg;
        (void)state;
        fresh(&cfg);
        set_ok(&cfg, P_BUCKETS, "Platinum, Gold, Silver");
        expect_invalid(&cfg, P_ALLOC, "70%, 30%", "3 buckets");
}

static void test_bad_count_mismatch_allocation_first(void **state) {
        bp_config_t cfg;
        (void)state;
        fresh(&cfg);
        set_ok(&cfg, P_ALLOC, "70%, 30%");
        expect_invalid(&cfg, P_BUCKETS, "Platinum, Gold, Silver",
                       "2 allocations");
}

static void test_bad_count_mismatch_one_allocation(void **state) {
        bp_config_t cfg;
        (void)state;
        fresh(&cfg);
        set_ok(&cfg, P_BUCKETS, "Platinum, Gold");
        expect_invalid(&cfg, P_ALLOC, "100%", "2 buckets");
}

static void test_bad_allocation_non_numeric(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_ALLOC, "seventy, 30", "not a number");
}

static void test_bad_allocation_trailing_junk(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_ALLOC, "70x, 30", "not a number");
}

static void test_bad_allocation_zero(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_ALLOC, "0, 100", "zero");
}

static void test_bad_allocation_negative(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_ALLOC, "-30, 130", "negative");
}

static void test_bad_allocation_nan(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_ALLOC, "nan, 30", "not a number");
}

static void test_bad_allocation_inf(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_ALLOC, "inf, 30", "not a number");
}

static void test_bad_allocation_empty_item(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_ALLOC, "70,,30", "empty");
}

static void test_bad_allocation_empty_list(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_ALLOC, "", "empty");
}

static void test_bad_allocation_sum_99(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_ALLOC, "70%, 29%", "add up to 99%");
}

static void test_bad_allocation_sum_101(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_ALLOC, "70%, 31%", "add up to 101%");
}

static void test_bad_allocation_sum_off_by_a_unit(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_ALLOC, "70.0001, 30", "100.0001%");
}

static void test_bad_allocation_above_100(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_ALLOC, "100.5, 30", "above 100");
}

static void test_bad_allocation_five_decimals(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_ALLOC, "69.99999, 30.00001",
                       "more than 4 decimals");
}

static void test_bad_unknown_layout(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_LAYOUT, "zigzag", "stable");
}

static void test_bad_unknown_within(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_WITHIN, "sticky", "hash");
}

static void test_bad_unknown_fallback_after_buckets(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_FALLBACK, "Bronze", "discard");
}

/* Accepted while no buckets are known; the buckets then reject it. */
static void test_bad_unknown_fallback_before_buckets(void **state) {
        bp_config_t cfg;
        (void)state;
        fresh(&cfg);
        set_ok(&cfg, P_FALLBACK, "Bronze");
        expect_invalid_as(&cfg, P_BUCKETS, "Platinum, Gold", P_FALLBACK,
                          "Bronze", P_BUCKETS);
}

static void test_bad_empty_fallback(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_FALLBACK, "", "discard");
}

static void test_bad_fallback_too_long(void **state) {
        bp_config_t cfg;
        char v[BP_MAX_FALLBACK_LEN + 2];
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_FALLBACK,
                       repeat(v, 'f', BP_MAX_FALLBACK_LEN + 1), "longer");
}

static void test_bad_empty_delimiter(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_DELIM, "", "empty");
}

static void test_bad_delimiter_too_long(void **state) {
        bp_config_t cfg;
        char v[BP_MAX_DELIMITER_LEN + 2];
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_DELIM,
                       repeat(v, '#', BP_MAX_DELIMITER_LEN + 1), "longer");
}

static void test_bad_value_too_long(void **state) {
        bp_config_t cfg;
        static char v[BP_MAX_VALUE_LEN + 2];
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_BUCKETS, repeat(v, 'B', BP_MAX_VALUE_LEN + 1),
                       "longer than 4096");
}

static void test_bad_name_too_long(void **state) {
        bp_config_t cfg;
        char name[BP_MAX_NAME_LEN + 2], v[BP_MAX_NAME_LEN + 32];
        (void)state;
        base(&cfg);
        snprintf(v, sizeof(v), "Platinum, %s",
                 repeat(name, 'G', BP_MAX_NAME_LEN + 1));
        expect_invalid(&cfg, P_BUCKETS, v, "longer than 64 bytes");
}

static void test_bad_too_many_buckets(void **state) {
        bp_config_t cfg;
        char v[1024];
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_BUCKETS,
                       bucket_list(v, sizeof(v), BP_MAX_BUCKETS + 1),
                       "more than 64 buckets");
}

static void test_bad_too_many_allocations(void **state) {
        bp_config_t cfg;
        char v[1024];
        size_t at = 0;
        int i;
        (void)state;
        base(&cfg);
        for (i = 0; i <= BP_MAX_BUCKETS; i++)
                at += (size_t)snprintf(v + at, sizeof(v) - at, "%s1",
                                       i ? "," : "");
        expect_invalid(&cfg, P_ALLOC, v, "more than 64");
}

static void test_bad_topic_too_long(void **state) {
        bp_config_t cfg;
        char v[BP_MAX_TOPIC_LEN + 2];
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_TOPIC, repeat(v, 't', BP_MAX_TOPIC_LEN + 1),
                       "at most 249");
}

static void test_bad_empty_topic(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_TOPIC, "", "topic name");
}

/* Names the property and lists the known ones (the value of a property
 * that does not exist has nothing to be checked against). */
static void test_bad_unknown_property(void **state) {
        bp_config_t cfg, before;
        char err[1024] = "";
        (void)state;
        base(&cfg);
        memcpy(&before, &cfg, sizeof(before));
        assert_int_equal(bp_config_set(&cfg, "bucket.priority.xyz", "1", err,
                                       sizeof(err)),
                         BP_SET_INVALID);
        expect_contains(err, "bucket.priority.xyz");
        expect_contains(err, "allocation");
        assert_memory_equal(&before, &cfg, sizeof(before));
}

static void test_bad_consumer_bucket_buckets_first(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_BUCKET, "Bronze", "not one of the buckets");
}

static void test_bad_consumer_bucket_bucket_first(void **state) {
        bp_config_t cfg;
        (void)state;
        fresh(&cfg);
        set_ok(&cfg, P_BUCKET, "Bronze");
        expect_invalid_as(&cfg, P_BUCKETS, "Platinum, Gold", P_BUCKET,
                          "Bronze", "when " P_BUCKETS " was set");
}

static void test_bad_consumer_bucket_twice(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_BUCKET, "Gold, Gold", "twice");
}

static void test_bad_consumer_bucket_empty(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_BUCKET, "", "bucket");
}

static void test_bad_group_per_bucket(void **state) {
        bp_config_t cfg;
        (void)state;
        base(&cfg);
        expect_invalid(&cfg, P_GROUP, "maybe", "true or false");
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
        set_ok(&cfg, P_ALLOC, NULL);
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

static void test_null_resets_defaults(void **state) {
        bp_config_t cfg, dflt;
        (void)state;
        bp_config_init(&dflt);
        base(&cfg);
        set_ok(&cfg, P_DELIM, "::");
        set_ok(&cfg, P_LAYOUT, "stable");
        set_ok(&cfg, P_WITHIN, "hash");
        set_ok(&cfg, P_FALLBACK, "discard");
        set_ok(&cfg, P_BUCKET, "Gold");
        set_ok(&cfg, P_GROUP, "false");
        assert_int_equal(cfg.delimiter_len, 2);
        assert_int_equal(cfg.layout, BP_LAYOUT_STABLE);
        assert_int_equal(cfg.within, BP_WITHIN_HASH);
        assert_int_equal(cfg.consumer_bucket_cnt, 1);
        assert_int_equal(cfg.consumer_buckets[0], 1);
        assert_int_equal(cfg.group_per_bucket, 0);

        set_ok(&cfg, P_DELIM, NULL);
        assert_string_equal(cfg.delimiter, dflt.delimiter);
        assert_int_equal(cfg.delimiter_len, dflt.delimiter_len);
        set_ok(&cfg, P_LAYOUT, NULL);
        assert_int_equal(cfg.layout, dflt.layout);
        set_ok(&cfg, P_WITHIN, NULL);
        assert_int_equal(cfg.within, dflt.within);
        set_ok(&cfg, P_FALLBACK, NULL);
        assert_int_equal(cfg.fallback_kind, BP_FALLBACK_BUCKET);
        assert_int_equal(cfg.fallback_bucket, 1);
        set_ok(&cfg, P_BUCKET, NULL);
        assert_int_equal(cfg.consumer_bucket_cnt, 0);
        set_ok(&cfg, P_GROUP, NULL);
        assert_int_equal(cfg.group_per_bucket, dflt.group_per_bucket);
        set_ok(&cfg, P_ALLOC, NULL);
        assert_int_equal(cfg.allocation_cnt, 0);
        set_ok(&cfg, P_BUCKETS, NULL);
        assert_int_equal(cfg.bucket_cnt, 0);
        set_ok(&cfg, P_TOPIC, NULL);
        assert_false(cfg.topic_set);
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
            ROW(test_bad_empty_bucket_list),
            ROW(test_bad_blank_bucket_list),
            ROW(test_bad_empty_name_leading),
            ROW(test_bad_empty_name_trailing),
            ROW(test_bad_empty_name_middle),
            ROW(test_bad_duplicate_bucket),
            ROW(test_bad_name_has_delimiter_buckets_first),
            ROW(test_bad_name_has_delimiter_delimiter_first),
            ROW(test_bad_name_has_default_delimiter),
            ROW(test_bad_count_mismatch_buckets_first),
            ROW(test_bad_count_mismatch_allocation_first),
            ROW(test_bad_count_mismatch_one_allocation),
            ROW(test_bad_allocation_non_numeric),
            ROW(test_bad_allocation_trailing_junk),
            ROW(test_bad_allocation_zero),
            ROW(test_bad_allocation_negative),
            ROW(test_bad_allocation_nan),
            ROW(test_bad_allocation_inf),
            ROW(test_bad_allocation_empty_item),
            ROW(test_bad_allocation_empty_list),
            ROW(test_bad_allocation_sum_99),
            ROW(test_bad_allocation_sum_101),
            ROW(test_bad_allocation_sum_off_by_a_unit),
            ROW(test_bad_allocation_above_100),
            ROW(test_bad_allocation_five_decimals),
            ROW(test_bad_unknown_layout),
            ROW(test_bad_unknown_within),
            ROW(test_bad_unknown_fallback_after_buckets),
            ROW(test_bad_unknown_fallback_before_buckets),
            ROW(test_bad_empty_fallback),
            ROW(test_bad_fallback_too_long),
            ROW(test_bad_empty_delimiter),
            ROW(test_bad_delimiter_too_long),
            ROW(test_bad_value_too_long),
            ROW(test_bad_name_too_long),
            ROW(test_bad_too_many_buckets),
            ROW(test_bad_too_many_allocations),
            ROW(test_bad_topic_too_long),
            ROW(test_bad_empty_topic),
            ROW(test_bad_unknown_property),
            ROW(test_bad_consumer_bucket_buckets_first),
            ROW(test_bad_consumer_bucket_bucket_first),
            ROW(test_bad_consumer_bucket_twice),
            ROW(test_bad_consumer_bucket_empty),
            ROW(test_bad_group_per_bucket),
            ROW(test_allocation_forms),
            ROW(test_buckets_trimmed),
            ROW(test_bounds_accepted),
            ROW(test_default_fallback_is_last_bucket),
            ROW(test_fallback_bucket_name),
            ROW(test_fallback_discard),
            ROW(test_fallback_builtins),
            ROW(test_fallback_java_classes),
            ROW(test_null_resets_defaults),
            ROW(test_group_per_bucket_values),
            ROW(test_consumer_buckets_resolve),
            ROW(test_check_complete),
            ROW(test_other_properties_unknown),
            ROW(test_touched),
            ROW(test_bad_value_escaped_and_cut),
            ROW(test_small_errstr),
            ROW(test_allocation_format),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
