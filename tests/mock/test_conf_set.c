/*
 * test_conf_set.c - the configuration as users set it: through
 * rd_kafka_conf_set() with the plugin loaded by plugin.library.paths.
 *
 * Empty values (librdkafka hands "" to the plugin as NULL) are refused for
 * every property; an assignor or sticky partitioning chosen before the
 * plugin loaded is refused like one chosen after it; every row of the
 * errors table in docs/configuration.md is triggered and its text compared
 * with the message (the table is read from the file, so a doc edit that no
 * longer matches fails); the log of an incomplete configuration at
 * rd_kafka_new() names the client.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#include <cmocka.h>

#include "include/bucket_priority.h"
#include "bp_test_util.h"

#define P "bucket.priority."

/* A property and its value; a NULL name ends a list. */
typedef struct {
        const char *name, *value;
} kv_t;

/* Sets every pair of \p kvs, each of which must be accepted. */
static void set_all_ok(rd_kafka_conf_t *conf, const kv_t *kvs,
                       const char *what) {
        char err[512];
        for (; kvs && kvs->name; kvs++)
                if (bp_test_set(conf, kvs->name, kvs->value, err,
                                sizeof(err)) != RD_KAFKA_CONF_OK)
                        fail_msg("%s: %s=\"%s\" refused: %s", what, kvs->name,
                                 kvs->value ? kvs->value : "(null)", err);
}

/* A configuration: \p early set before plugin.library.paths, then the
 * plugin, then \p after. */
static rd_kafka_conf_t *conf_with(const kv_t *early, const kv_t *after,
                                  const char *what) {
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        char err[512];

        set_all_ok(conf, early, what);
        if (bp_test_set(conf, "plugin.library.paths", bp_test_plugin_path(),
                        err, sizeof(err)) != RD_KAFKA_CONF_OK)
                fail_msg("plugin.library.paths: %s", err);
        set_all_ok(conf, after, what);
        return conf;
}

static const kv_t producer_example[] = {{P "topic", "orders"},
                                        {P "buckets", "Platinum, Gold"},
                                        {P "allocation", "70%, 30%"},
                                        {NULL, NULL}};
static const kv_t consumer_example[] = {{P "bucket", "Gold"},
                                        {P "topic", "orders"},
                                        {P "buckets", "Platinum, Gold"},
                                        {P "allocation", "70%, 30%"},
                                        {"group.id", "app"},
                                        {NULL, NULL}};

/* Sets name=value on \p conf, expecting a refusal whose errstr starts with
 * \p start; fails naming \p what otherwise. */
static void expect_refused(rd_kafka_conf_t *conf, const char *name,
                           const char *value, const char *start,
                           const char *what) {
        char err[1024] = "";
        rd_kafka_conf_res_t r =
            bp_test_set(conf, name, value, err, sizeof(err));
        if (r != RD_KAFKA_CONF_INVALID)
                fail_msg("%s: %s=\"%s\" gave %d (%s), expected a refusal",
                         what, name, value ? value : "(null)", (int)r, err);
        if (strncmp(err, start, strlen(start)))
                fail_msg("%s: errstr \"%s\" does not start with \"%s\"", what,
                         err, start);
}

static void conf_get(rd_kafka_conf_t *conf, const char *name, char *buf,
                     size_t size) {
        assert_int_equal(rd_kafka_conf_get(conf, name, buf, &size),
                         RD_KAFKA_CONF_OK);
}

/* --- empty values -------------------------------------------------------- */

/* "" and NULL, on a producer and on a consumer with the example set, for
 * every property: refused naming property and the empty value. Only the
 * property kept for the Java reference's files takes it. */
static void test_empty_values_refused(void **state) {
        static const char *names[] = {
            P "topic",         P "buckets",          P "allocation",
            P "delimiter",     P "layout",           P "within",
            P "fallback.partitioner", P "bucket",    P "group.per.bucket",
            P "rebalance.events.mapped", P "schedule", P "lag.threshold",
            P "hold"};
        const kv_t *examples[] = {producer_example, consumer_example};
        const char *empties[] = {"", NULL};
        char start[128], what[160];
        size_t n, e, x;
        (void)state;

        for (x = 0; x < 2; x++)
                for (e = 0; e < 2; e++)
                        for (n = 0; n < sizeof(names) / sizeof(names[0]);
                             n++) {
                                rd_kafka_conf_t *conf;
                                snprintf(what, sizeof(what), "%s %s on a %s",
                                         names[n], e ? "NULL" : "\"\"",
                                         x ? "consumer" : "producer");
                                conf = conf_with(NULL, examples[x], what);
                                snprintf(start, sizeof(start),
                                         "%s: invalid value \"\": ",
                                         names[n]);
                                expect_refused(conf, names[n], empties[e],
                                               start, what);
                                rd_kafka_conf_destroy(conf);
                        }
}

/* The two librdkafka properties the plugin depends on: an empty value
 * would reset them to librdkafka's defaults. */
/* On a configuration with \p example set, an empty \p name is refused
 * naming the property and the empty value, and \p name keeps \p kept.
 * Returns the configuration. */
static rd_kafka_conf_t *expect_empty_refused(const kv_t *example,
                                             const char *name,
                                             const char *kept,
                                             const char *what) {
        rd_kafka_conf_t *conf = conf_with(NULL, example, what);
        char start[160], val[64];

        snprintf(start, sizeof(start), "%s: invalid value \"\" ", name);
        expect_refused(conf, name, "", start, what);
        conf_get(conf, name, val, sizeof(val));
        assert_string_equal(val, kept);
        return conf;
}

static void test_empty_dependencies_refused(void **state) {
        rd_kafka_conf_t *conf;
        char err[512];
        (void)state;

        /* librdkafka's default is kept on the configuration: the plugin
         * sets 0 on the producer's own copy (test_sticky_before_plugin). */
        conf = expect_empty_refused(producer_example,
                                    "sticky.partitioning.linger.ms", "10",
                                    "empty sticky on a producer");
        assert_int_equal(bp_test_set(conf, P "fallback.assignor", "", err,
                                     sizeof(err)),
                         RD_KAFKA_CONF_OK);
        rd_kafka_conf_destroy(conf);
        rd_kafka_conf_destroy(expect_empty_refused(
            consumer_example, "partition.assignment.strategy", "roundrobin",
            "empty assignor on a consumer"));
}

/* --- choices made before the plugin loaded -------------------------------- */

/* \p choice (one property) set before the plugin loads, then after it on
 * another configuration: \p name = \p value is refused both times with an
 * error starting with \p start, and the choice made before is kept. */
static void expect_choice_refused(const kv_t *choice, const char *name,
                                  const char *value, const char *start,
                                  const char *what) {
        char before[160], after[160], val[64];
        rd_kafka_conf_t *conf;

        snprintf(before, sizeof(before), "%s before the plugin", what);
        snprintf(after, sizeof(after), "%s after the plugin", what);
        conf = conf_with(choice, NULL, before);
        expect_refused(conf, name, value, start, before);
        conf_get(conf, choice->name, val, sizeof(val));
        assert_string_equal(val, choice->value);
        rd_kafka_conf_destroy(conf);
        conf = conf_with(NULL, choice, after);
        expect_refused(conf, name, value, start, after);
        rd_kafka_conf_destroy(conf);
}

/* \p early (one property, or NULL) set before the plugin, the producer
 * example after it: the producer made from it reads \p want for
 * sticky.partitioning.linger.ms on its own (live) configuration. */
static void expect_producer_sticky(const kv_t *early, const char *want,
                                   const char *what) {
        rd_kafka_conf_t *conf = conf_with(early, producer_example, what);
        char err[512], val[64];
        rd_kafka_t *rk;

        rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
        if (!rk)
                fail_msg("%s: rd_kafka_new: %s", what, err);
        conf_get((rd_kafka_conf_t *)rd_kafka_conf(rk), "sticky.partitioning.linger.ms", val,
                 sizeof(val));
        assert_string_equal(val, want);
        rd_kafka_destroy(rk);
}

/* \p early (one property) set before the plugin, \p example after it: the
 * property then reads \p want. */
static void expect_replaced(const kv_t *early, const kv_t *example,
                            const char *want, const char *what) {
        rd_kafka_conf_t *conf = conf_with(early, example, what);
        char val[64];
        conf_get(conf, early->name, val, sizeof(val));
        assert_string_equal(val, want);
        rd_kafka_conf_destroy(conf);
}

static void test_assignor_before_plugin(void **state) {
        static const kv_t coop[] = {
            {"partition.assignment.strategy", "cooperative-sticky"},
            {NULL, NULL}};
        static const kv_t rr[] = {
            {"partition.assignment.strategy", "roundrobin"}, {NULL, NULL}};
        static const kv_t dflt[] = {
            {"partition.assignment.strategy", "range,roundrobin"},
            {NULL, NULL}};
        static const char *start =
            P "bucket: invalid value \"Gold\": partition.assignment.strategy "
              "is \"cooperative-sticky\"";
        (void)state;

        /* Another assignor, before the plugin or after it: the bucket is
         * refused, the assignor kept. */
        expect_choice_refused(coop, P "bucket", "Gold", start, "assignor");

        /* roundrobin is what the plugin needs; librdkafka's default cannot
         * be told from unset and is replaced. */
        expect_replaced(rr, consumer_example, "roundrobin",
                        "roundrobin before");
        expect_replaced(dflt, consumer_example, "roundrobin",
                        "default before");
}

static void test_sticky_before_plugin(void **state) {
        static const kv_t five[] = {{"sticky.partitioning.linger.ms", "5"},
                                    {NULL, NULL}};
        static const kv_t zero[] = {{"sticky.partitioning.linger.ms", "0"},
                                    {NULL, NULL}};
        static const kv_t dflt[] = {{"sticky.partitioning.linger.ms", "10"},
                                    {NULL, NULL}};
        static const kv_t bucket_first[] = {{P "bucket", "Gold"},
                                            {NULL, NULL}};
        static const char *start =
            P "topic: invalid value \"orders\": sticky.partitioning.linger.ms "
              "is 5,";
        rd_kafka_conf_t *conf;
        (void)state;

        expect_choice_refused(five, P "topic", "orders", start, "sticky");

        /* A consumer (its bucket set first) is no producer of the topic. */
        conf = conf_with(five, bucket_first, "sticky on a consumer");
        set_all_ok(conf, producer_example, "sticky on a consumer");
        rd_kafka_conf_destroy(conf);

        /* 0 is kept; librdkafka's default cannot be told from unset and is
         * replaced by 0, in the producer made from the configuration. */
        expect_producer_sticky(zero, "0", "sticky 0 before");
        expect_producer_sticky(dflt, "0", "sticky default before");
        expect_producer_sticky(NULL, "0", "sticky unset");
}

/* --- a consumer is given no producer property, in any order --------------- */

/* The configuration warnings (CONFWARN) of the clients made here, and
 * the plugin's own lines (BUCKETPRIO) too while plugin_too is set. */
static struct {
        pthread_mutex_t lock;
        int cnt;
        char text[512];
        int plugin_too; /* count BUCKETPRIO lines too */
} noise = {PTHREAD_MUTEX_INITIALIZER, 0, "", 0};

static void on_noise(const rd_kafka_t *rk, int level, const char *fac,
                     const char *buf) {
        (void)rk, (void)level;
        if (strcmp(fac, "CONFWARN") &&
            (!noise.plugin_too || strcmp(fac, "BUCKETPRIO")))
                return;
        pthread_mutex_lock(&noise.lock);
        if (!noise.cnt++)
                snprintf(noise.text, sizeof(noise.text), "%s: %s", fac, buf);
        pthread_mutex_unlock(&noise.lock);
}

/* The consumer quick start's five properties (README.md) in every one of
 * their 120 orders after plugin.library.paths, as a Python dict or a sorted
 * properties file gives them: the consumer logs no CONFWARN (before, the
 * bucket definitions set before bucket.priority.bucket gave it
 * sticky.partitioning.linger.ms and partitioner_cb, producer properties
 * librdkafka warns about), and its configuration keeps librdkafka's
 * sticky.partitioning.linger.ms. */
static void test_consumer_any_order_no_warning(void **state) {
        const kv_t *props = consumer_example; /* 5 entries */
        int order[5] = {0, 1, 2, 3, 4}, n = 0, i, j, k;
        (void)state;

        for (;;) {
                kv_t kv[6];
                rd_kafka_conf_t *conf;
                rd_kafka_t *rk;
                char err[512], val[16];

                for (i = 0; i < 5; i++)
                        kv[i] = props[order[i]];
                kv[5] = (kv_t){NULL, NULL};
                conf  = conf_with(NULL, kv, "consumer order");
                rd_kafka_conf_set_log_cb(conf, on_noise);
                rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
                if (!rk)
                        fail_msg("order %d: rd_kafka_new: %s", n, err);
                conf_get((rd_kafka_conf_t *)rd_kafka_conf(rk), "sticky.partitioning.linger.ms",
                         val, sizeof(val));
                rd_kafka_destroy(rk);
                if (noise.cnt)
                        fail_msg("order %d (%s first, %s last): %s", n,
                                 kv[0].name, kv[4].name, noise.text);
                assert_string_equal(val, "10");
                n++;
                /* next permutation (lexicographic) */
                for (i = 3; i >= 0 && order[i] > order[i + 1]; i--)
                        ;
                if (i < 0)
                        break;
                for (j = 4; order[j] < order[i]; j--)
                        ;
                k = order[i], order[i] = order[j], order[j] = k;
                for (j = i + 1, k = 4; j < k; j++, k--) {
                        int t    = order[j];
                        order[j] = order[k];
                        order[k] = t;
                }
        }
        assert_int_equal(n, 120);
}

/* --- the errors table of docs/configuration.md ---------------------------- */

static char long_name[66], long_delimiter[18], long_value[4098],
    long_topic[251], many_buckets[1024];

static void fill_long_values(void) {
        size_t at = 0;
        int i;
        memset(long_name, 'G', 65);
        memset(long_delimiter, '#', 17);
        memset(long_value, 'B', 4097);
        memset(long_topic, 't', 250);
        for (i = 1; i <= 65; i++)
                at += (size_t)snprintf(many_buckets + at,
                                       sizeof(many_buckets) - at, "%sb%d",
                                       i > 1 ? ", " : "", i);
}

/* One example of a row: \p early before the plugin, \p after it (all
 * accepted, the producer example first unless \p bare), then \p bad, which
 * must be refused. */
typedef struct {
        const char *row; /* the row's first column, as written */
        int bare;
        kv_t early[2];
        kv_t after[3];
        kv_t bad;
} trigger_t;

/* The row refused only on librdkafka older than 2.12 (no KIP-848): newer
 * ones accept its example, which is not compared there. */
#define KIP848_ROW                                                             \
        "`group.protocol=consumer` on a bucket consumer (one bucket or a "     \
        "list) on librdkafka older than 2.12"

#define NONE {{NULL, NULL}}
#define ALLOC P "allocation"

/* In the order of the examples in each row. */
static const trigger_t triggers[] = {
    {"empty value of any property but `bucket.priority.fallback.assignor` "
     "(see [Empty values](#empty-values))",
     0, NONE, NONE, {P "layout", ""}},
    {"empty bucket list", 0, NONE, NONE, {P "buckets", ""}},
    {"empty bucket name", 0, NONE, NONE, {P "buckets", "Gold,"}},
    {"duplicate bucket", 0, NONE, NONE, {P "buckets", "Gold, Gold"}},
    {"name with the delimiter (also when the delimiter is set second)", 0,
     NONE, NONE, {P "buckets", "Gold-1, Silver"}},
    {"name with the delimiter (also when the delimiter is set second)", 0,
     NONE, {{P "buckets", "Gold_Star, Silver"}}, {P "delimiter", "_"}},
    {"name longer than 64 bytes, more than 64 buckets", 0, NONE, NONE,
     {P "buckets", long_name}},
    {"name longer than 64 bytes, more than 64 buckets", 0, NONE, NONE,
     {P "buckets", many_buckets}},
    {"allocation count differs from bucket count (named after whichever was "
     "set second)",
     0, NONE, NONE, {ALLOC, "50, 30, 20"}},
    {"not a number, NaN, infinity", 0, NONE, NONE, {ALLOC, "70%, abc"}},
    {"not a number, NaN, infinity", 0, NONE, NONE, {ALLOC, "nan, 30"}},
    {"not a number, NaN, infinity", 0, NONE, NONE, {ALLOC, "inf, 30"}},
    {"zero, negative, above 100", 0, NONE, NONE, {ALLOC, "100, 0"}},
    {"zero, negative, above 100", 0, NONE, NONE, {ALLOC, "-30, 130"}},
    {"zero, negative, above 100", 0, NONE, NONE, {ALLOC, "100.5, 30"}},
    {"more than 4 decimals", 0, NONE, NONE,
     {ALLOC, "69.99999, 30.00001"}},
    {"sum other than 100", 0, NONE, NONE, {ALLOC, "70, 20"}},
    {"unknown layout, within", 0, NONE, NONE, {P "layout", "zigzag"}},
    {"unknown layout, within", 0, NONE, NONE, {P "within", "sticky"}},
    {"unknown fallback", 0, NONE, NONE,
     {P "fallback.partitioner", "Silver"}},
    {"empty delimiter", 0, NONE, NONE, {P "delimiter", ""}},
    {"delimiter longer than 16 bytes", 0, NONE, NONE,
     {P "delimiter", long_delimiter}},
    {"value longer than 4096 bytes", 0, NONE, NONE,
     {P "buckets", long_value}},
    {"empty topic", 0, NONE, NONE, {P "topic", ""}},
    {"topic longer than 249 characters", 0, NONE, NONE,
     {P "topic", long_topic}},
    {"consumer bucket not listed (whichever of the two is set second)", 1,
     NONE, {{P "bucket", "Silver"}}, {P "buckets", "Platinum, Gold"}},
    {"bad boolean", 0, NONE, NONE, {P "group.per.bucket", "maybe"}},
    {"unknown schedule", 0, NONE, NONE, {P "schedule", "fastest"}},
    {"unknown hold", 0, NONE, NONE, {P "hold", "drop"}},
    {"threshold not a whole number, negative", 0, NONE, NONE,
     {P "lag.threshold", "-1"}},
    {"threshold above 10^15", 0, NONE, NONE,
     {P "lag.threshold", "99999999999999999999"}},
    {"unknown `bucket.priority.*` name", 0, NONE, NONE,
     {P "bukets", "Platinum, Gold"}},
    {"layout change: step out of range", 0, NONE, NONE, {P "next.step", "6"}},
    {"layout change: next bucket and allocation counts differ (once both "
     "are set)",
     0, NONE, {{P "next.buckets", "Platinum, Gold, Silver"}},
     {P "next.allocation", "50, 50"}},
    {"layout change: the fallback bucket is one the change removes", 0, NONE,
     {{P "fallback.partitioner", "Gold"}},
     {P "next.buckets", "Platinum, Silver"}},
    {"layout change: a built-in fallback partitioner", 0, NONE,
     {{P "next.allocation", "50, 50"}},
     {P "fallback.partitioner", "murmur2"}},
    {"another assignor on a consumer, or an empty one (librdkafka would "
     "reset it to `range,roundrobin`)",
     1, NONE, {{P "bucket", "Gold"}},
     {"partition.assignment.strategy", "cooperative-sticky"}},
    {"another assignor on a consumer, or an empty one (librdkafka would "
     "reset it to `range,roundrobin`)",
     1, NONE, {{P "bucket", "Gold"}}, {"partition.assignment.strategy", ""}},
    {"the consumer's bucket after another assignor was set, before or after "
     "the plugin",
     1, {{"partition.assignment.strategy", "cooperative-sticky"}}, NONE,
     {P "bucket", "Gold"}},
    {KIP848_ROW, 1, NONE, {{P "bucket", "Platinum, Gold"}},
     {"group.protocol", "consumer"}},
    {"sticky partitioning on a producer, or an empty value (librdkafka "
     "would reset it to 10)",
     0, NONE, NONE, {"sticky.partitioning.linger.ms", "5"}},
    {"sticky partitioning on a producer, or an empty value (librdkafka "
     "would reset it to 10)",
     0, NONE, NONE, {"sticky.partitioning.linger.ms", ""}},
    {"the first producer property after sticky partitioning was set above "
     "0, before or after the plugin",
     1, {{"sticky.partitioning.linger.ms", "5"}}, NONE,
     {P "topic", "orders"}},
};
#define TRIGGER_CNT (sizeof(triggers) / sizeof(triggers[0]))

/* Whether \p text matches \p pattern, where "..." stands for any text. */
static int matches(const char *text, const char *pattern) {
        const char *dots = strstr(pattern, "...");
        size_t head = dots ? (size_t)(dots - pattern) : strlen(pattern);
        const char *rest, *at;

        if (!dots)
                return !strcmp(text, pattern);
        if (strncmp(text, pattern, head))
                return 0;
        rest = dots + 3;
        for (at = text + head;; at++) {
                if (matches(at, rest))
                        return 1;
                if (!*at)
                        return 0;
        }
}

/* Runs a trigger; returns the errstr in \p err, or fails. */
static void run_trigger(const trigger_t *t, char *err, size_t size) {
        rd_kafka_conf_t *conf = conf_with(t->early, NULL, t->row);
        rd_kafka_conf_res_t r;

        if (!t->bare)
                set_all_ok(conf, producer_example, t->row);
        set_all_ok(conf, t->after, t->row);
        err[0] = '\0';
        r = bp_test_set(conf, t->bad.name, t->bad.value, err, size);
        rd_kafka_conf_destroy(conf);
        if (r != RD_KAFKA_CONF_INVALID)
                fail_msg("row \"%s\": %s=\"%.40s\" not refused (%d)", t->row,
                         t->bad.name, t->bad.value, (int)r);
}

/* The message starts with "<a property set>: invalid value \"". */
static int starts_as_documented(const trigger_t *t, const char *err) {
        const kv_t *lists[] = {t->early, t->after, &t->bad,
                               t->bare ? NULL : producer_example};
        char start[160];
        size_t i;
        const kv_t *kv;

        for (i = 0; i < 4; i++)
                for (kv = lists[i]; kv && kv->name; kv++) {
                        snprintf(start, sizeof(start),
                                 "%s: invalid value \"", kv->name);
                        if (!strncmp(err, start, strlen(start)))
                                return 1;
                        if (kv == &t->bad)
                                break;
                }
        return 0;
}

/* Reads the errors table: one row per line after "## Errors". */
typedef struct {
        char label[512];
        char examples[8][600];
        int example_cnt;
} doc_row_t;

static int read_rows(doc_row_t *rows, int max) {
        char path[1024], line[8192];
        FILE *f;
        int n = 0, in_section = 0, seen_table = 0;

        snprintf(path, sizeof(path), "%s/docs/configuration.md",
                 BP_SOURCE_DIR);
        f = fopen(path, "r");
        if (!f)
                fail_msg("cannot open %s", path);
        while (fgets(line, sizeof(line), f)) {
                char *cell, *p, *q;
                if (!strncmp(line, "## ", 3)) {
                        in_section = !strcmp(line, "## Errors\n");
                        continue;
                }
                if (!in_section || line[0] != '|') {
                        if (seen_table && in_section)
                                in_section = 0; /* the table ended */
                        continue;
                }
                seen_table = 1;
                if (!strncmp(line, "| Bad input", 11) ||
                    !strncmp(line, "|---", 4))
                        continue;
                assert_true(n < max);
                cell = line + 2;
                p    = strstr(cell, " | ");
                assert_non_null(p);
                snprintf(rows[n].label, sizeof(rows[n].label), "%.*s",
                         (int)(p - cell), cell);
                rows[n].example_cnt = 0;
                for (p += 3; (p = strchr(p, '`')); p = q + 1) {
                        q = strchr(p + 1, '`');
                        assert_non_null(q);
                        assert_true(rows[n].example_cnt < 8);
                        snprintf(rows[n].examples[rows[n].example_cnt++],
                                 sizeof(rows[n].examples[0]), "%.*s",
                                 (int)(q - p - 1), p + 1);
                }
                n++;
        }
        fclose(f);
        return n;
}

static void test_errors_table_matches_docs(void **state) {
        static doc_row_t rows[64];
        char err[1024];
        int n, i, k, failed = 0;
        size_t t, used = 0;
        (void)state;

        fill_long_values();
        n = read_rows(rows, 64);
        assert_true(n >= 20);
        for (i = 0; i < n; i++) {
                k = 0;
                for (t = 0; t < TRIGGER_CNT; t++) {
                        if (strcmp(triggers[t].row, rows[i].label))
                                continue;
                        used++;
                        if (!strcmp(triggers[t].row, KIP848_ROW) &&
                            rd_kafka_version() >= 0x020c0000) {
                                k++; /* accepted here: nothing to compare */
                                continue;
                        }
                        run_trigger(&triggers[t], err, sizeof(err));
                        if (k >= rows[i].example_cnt) {
                                print_error("row \"%s\": more triggers than "
                                            "examples\n",
                                            rows[i].label);
                                failed++;
                        } else if (!matches(err, rows[i].examples[k])) {
                                print_error("row \"%s\": documented\n  %s\n"
                                            "but the message is\n  %s\n",
                                            rows[i].label,
                                            rows[i].examples[k], err);
                                failed++;
                        } else if (strlen(err) > 255) {
                                /* confluent-kafka-python shows 255 */
                                print_error("row \"%s\": \"%s\" is longer "
                                            "than 255 bytes\n",
                                            rows[i].label, err);
                                failed++;
                        } else if (!starts_as_documented(&triggers[t], err)) {
                                print_error("row \"%s\": \"%s\" does not "
                                            "start with a property set and "
                                            "\": invalid value \\\"\"\n",
                                            rows[i].label, err);
                                failed++;
                        }
                        k++;
                }
                if (k != rows[i].example_cnt) {
                        print_error("row \"%s\": %d examples, %d triggered "
                                    "(add its trigger to test_conf_set.c)\n",
                                    rows[i].label, rows[i].example_cnt, k);
                        failed++;
                }
        }
        if (used != TRIGGER_CNT) {
                print_error("%zu triggers name no row of the table\n",
                            TRIGGER_CNT - used);
                failed++;
        }
        if (failed)
                fail_msg("%d mismatches between docs/configuration.md and "
                         "the plugin",
                         failed);
}

/* --- the log of an incomplete configuration ------------------------------- */

typedef struct {
        pthread_mutex_t lock;
        int cnt;
        char name[128];
        char text[1024];
        const char *want; /* the lines counted contain this */
        int lines;        /* every plugin line */
        int first;        /* index among them of the first line counted */
} seen_log_t;

static seen_log_t seen = {PTHREAD_MUTEX_INITIALIZER, 0, "", "",
                          "not configured completely", 0, -1};

static void on_log(const rd_kafka_t *rk, int level, const char *fac,
                   const char *buf) {
        (void)level;
        if (strcmp(fac, "BUCKETPRIO"))
                return;
        pthread_mutex_lock(&seen.lock);
        seen.lines++;
        if (!strstr(buf, seen.want)) {
                pthread_mutex_unlock(&seen.lock);
                return;
        }
        if (seen.first < 0)
                seen.first = seen.lines - 1;
        seen.cnt++;
        snprintf(seen.name, sizeof(seen.name), "%s", rd_kafka_name(rk));
        snprintf(seen.text, sizeof(seen.text), "%s", buf);
        pthread_mutex_unlock(&seen.lock);
}

/* Waits up to 5 s for the log; returns how many were seen. */
static int wait_log(void) {
        int i, cnt = 0;
        for (i = 0; i < 500 && !cnt; i++) {
                pthread_mutex_lock(&seen.lock);
                cnt = seen.cnt;
                pthread_mutex_unlock(&seen.lock);
                if (!cnt)
                        tk_sleep_us(10000);
        }
        return cnt;
}

static void expect_named_log(rd_kafka_type_t type, const kv_t *props,
                             const char *says) {
        rd_kafka_conf_t *conf = conf_with(NULL, props, "incomplete");
        char err[512];
        rd_kafka_t *rk;

        pthread_mutex_lock(&seen.lock);
        seen.cnt = 0;
        pthread_mutex_unlock(&seen.lock);
        rd_kafka_conf_set_log_cb(conf, on_log);
        rk = rd_kafka_new(type, conf, err, sizeof(err));
        if (!rk)
                fail_msg("rd_kafka_new: %s", err);
        assert_int_equal(wait_log(), 1);
        pthread_mutex_lock(&seen.lock);
        assert_true(seen.name[0] != '\0');
        assert_string_equal(seen.name, rd_kafka_name(rk));
        assert_non_null(strstr(seen.text, says));
        pthread_mutex_unlock(&seen.lock);
        rd_kafka_destroy(rk);
        assert_int_equal(seen.cnt, 1); /* logged once, not again at destroy */
}

static void test_incomplete_log_names_client(void **state) {
        static const kv_t producer[] = {{P "topic", "orders"}, {NULL, NULL}};
        static const kv_t consumer[] = {{P "bucket", "Gold"},
                                        {P "topic", "orders"},
                                        {"group.id", "app"},
                                        {NULL, NULL}};
        (void)state;
        expect_named_log(RD_KAFKA_PRODUCER, producer,
                         P "buckets is not set");
        expect_named_log(RD_KAFKA_CONSUMER, consumer,
                         P "buckets is not set");
}

/* The plugin's first line in a client names its version (the header's)
 * and the librdkafka it runs on, at level 6; log_level 5 mutes it. Lines
 * a client logs before it is named are all given out by destroy. */
static int version_lines(rd_kafka_type_t type, const kv_t *props,
                         const char *log_level) {
        rd_kafka_conf_t *conf = conf_with(NULL, props, "version line");
        char err[512];
        rd_kafka_t *rk;

        if (log_level)
                assert_int_equal(rd_kafka_conf_set(conf, "log_level", log_level,
                                                   err, sizeof(err)),
                                 RD_KAFKA_CONF_OK);
        pthread_mutex_lock(&seen.lock);
        seen.cnt = seen.lines = 0;
        seen.first = -1;
        seen.want = "bucket-priority " BP_VERSION_STR " on librdkafka ";
        pthread_mutex_unlock(&seen.lock);
        rd_kafka_conf_set_log_cb(conf, on_log);
        rk = rd_kafka_new(type, conf, err, sizeof(err));
        if (!rk)
                fail_msg("rd_kafka_new: %s", err);
        rd_kafka_destroy(rk);
        pthread_mutex_lock(&seen.lock);
        seen.want = "not configured completely";
        pthread_mutex_unlock(&seen.lock);
        return seen.cnt;
}

static void test_version_line(void **state) {
        (void)state;
        assert_int_equal(version_lines(RD_KAFKA_PRODUCER, producer_example,
                                       NULL),
                         1);
        assert_int_equal(seen.first, 0);
        assert_non_null(strstr(seen.text, rd_kafka_version_str()));
        assert_non_null(strstr(seen.text, "topic \"orders\", 2 buckets"));
        assert_int_equal(version_lines(RD_KAFKA_CONSUMER, consumer_example,
                                       NULL),
                         1);
        assert_int_equal(seen.first, 0);
        assert_int_equal(version_lines(RD_KAFKA_PRODUCER, producer_example,
                                       "5"),
                         0);
}

/* --- share consumers (KIP-932) ------------------------------------------- */

/* rd_kafka_share_consumer_new() and rd_kafka_share_destroy() of librdkafka
 * 2.15 and later, looked up at run time (this test is built on 2.0.2's
 * header; the version matrix runs it on 2.15.1). */
typedef void *(share_new_fn)(rd_kafka_conf_t *, char *, size_t);
typedef rd_kafka_error_t *(share_destroy_fn)(void *);

/* A share consumer configured with the producer properties (one properties
 * file for every client of an app) is created, and the plugin stays out of
 * its way: no line of its own (before: "cannot register the client's
 * interceptors ..."), no CONFWARN. With a bucket it does not start. */
static void test_share_consumer(void **state) {
        share_new_fn *share_new =
            (share_new_fn *)dlsym(RTLD_DEFAULT, "rd_kafka_share_consumer_new");
        share_destroy_fn *share_destroy =
            (share_destroy_fn *)dlsym(RTLD_DEFAULT, "rd_kafka_share_destroy");
        rd_kafka_conf_t *conf;
        rd_kafka_error_t *error;
        char err[512];
        void *share;
        (void)state;

        if (!share_new || !share_destroy)
                skip(); /* librdkafka older than 2.15: no share consumer */
        conf = conf_with(NULL, producer_example, "share consumer");
        assert_int_equal(rd_kafka_conf_set(conf, "group.id", "app", err,
                                           sizeof(err)),
                         RD_KAFKA_CONF_OK);
        rd_kafka_conf_set_log_cb(conf, on_noise);
        noise.cnt        = 0;
        noise.plugin_too = 1;
        share            = share_new(conf, err, sizeof(err));
        if (!share)
                fail_msg("share consumer with producer properties: %s", err);
        if ((error = share_destroy(share)))
                rd_kafka_error_destroy(error);
        noise.plugin_too = 0;
        if (noise.cnt)
                fail_msg("share consumer logged: %s", noise.text);

        conf = conf_with(NULL, consumer_example, "share consumer, bucket");
        err[0] = '\0';
        assert_null(share_new(conf, err, sizeof(err)));
        assert_non_null(strstr(err, "share consumer"));
        rd_kafka_conf_destroy(conf);
}

/* On librdkafka older than 2.4, which knows no group.protocol,
 * group.protocol=consumer set before the bucket (Go's ConfigMap sets its
 * entries in no order) is refused naming the version, not as an unknown
 * property. */
static void test_protocol_before_bucket_old_librdkafka(void **state) {
        const kv_t topic[] = {{P "topic", "orders"},
                              {P "buckets", "Platinum, Gold"},
                              {P "allocation", "70%, 30%"},
                              {"group.id", "g"},
                              {NULL, NULL}};
        rd_kafka_conf_t *conf;
        char err[512], runs[64];
        (void)state;

        if (rd_kafka_version() >= 0x02040000)
                skip();
        conf = conf_with(NULL, topic, "protocol before bucket");
        assert_int_equal(bp_test_set(conf, "group.protocol", "consumer", err,
                                     sizeof(err)),
                         RD_KAFKA_CONF_INVALID);
        snprintf(runs, sizeof(runs), "runs librdkafka %s",
                 rd_kafka_version_str());
        if (!strstr(err, "needs librdkafka 2.12 or later") ||
            !strstr(err, runs))
                fail_msg("group.protocol refused without the version: %s",
                         err);
        rd_kafka_conf_destroy(conf);
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_empty_values_refused),
            cmocka_unit_test(test_empty_dependencies_refused),
            cmocka_unit_test(test_assignor_before_plugin),
            cmocka_unit_test(test_sticky_before_plugin),
            cmocka_unit_test(test_errors_table_matches_docs),
            cmocka_unit_test(test_incomplete_log_names_client),
            cmocka_unit_test(test_version_line),
            cmocka_unit_test(test_consumer_any_order_no_warning),
            cmocka_unit_test(test_share_consumer),
            cmocka_unit_test(test_protocol_before_bucket_old_librdkafka),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
