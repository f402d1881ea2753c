/*
 * test_key.c - reading the bucket out of a record key (bp_key_bucket), and
 * the bounded escaping used to show keys and values in messages
 * (bp_escape, bp_json_escape).
 *
 * Keys are untrusted bytes of any length: the bounded-read tests place a
 * key right before an inaccessible guard page and claim it is 1 MiB long,
 * so a read past the documented window (longest name + delimiter) would
 * crash the test instead of passing unnoticed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bp_config.h"
#include "bp_escape.h"
#include "bp_key.h"

#define MIB (1024 * 1024)
#define PLATINUM 0
#define GOLD 1

/* --- helpers ------------------------------------------------------------- */

static void configure(bp_config_t *cfg, const char *buckets,
                      const char *delimiter) {
        char err[512];
        bp_config_init(cfg);
        if (delimiter)
                assert_int_equal(bp_config_set(cfg,
                                               "bucket.priority.delimiter",
                                               delimiter, err, sizeof(err)),
                                 BP_SET_OK);
        assert_int_equal(bp_config_set(cfg, "bucket.priority.buckets",
                                       buckets, err, sizeof(err)),
                         BP_SET_OK);
}

/* Bucket of a key given as a byte array literal (NULs included). */
#define KEY(cfg, lit) bp_key_bucket((cfg), (lit), sizeof(lit) - 1)

/* A page of readable memory followed by a PROT_NONE guard page. */
typedef struct {
        unsigned char *base;
        size_t page;
} guarded_t;

static void guarded_open(guarded_t *g) {
        g->page = (size_t)sysconf(_SC_PAGESIZE);
        g->base = mmap(NULL, 2 * g->page, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        assert_true(g->base != MAP_FAILED);
        assert_int_equal(mprotect(g->base + g->page, g->page, PROT_NONE), 0);
}

static void guarded_close(guarded_t *g) {
        munmap(g->base, 2 * g->page);
}

/* Copies \p len bytes so that they end exactly at the guard page. */
static const void *at_guard(guarded_t *g, const void *bytes, size_t len) {
        unsigned char *p = g->base + g->page - len;
        memcpy(p, bytes, len);
        return p;
}

/* --- bp_key_bucket ---------------------------------------------------------- */

static void test_key_prefix(void **state) {
        bp_config_t cfg;
        (void)state;
        configure(&cfg, "Platinum, Gold", NULL);
        assert_int_equal(KEY(&cfg, "Platinum-001"), PLATINUM);
        assert_int_equal(KEY(&cfg, "Gold-001"), GOLD);
        assert_int_equal(KEY(&cfg, "Gold-"), GOLD);
        assert_int_equal(KEY(&cfg, "Gold-Platinum-1"), GOLD);
        assert_int_equal(KEY(&cfg, "Gold--"), GOLD);
}

static void test_key_no_delimiter(void **state) {
        bp_config_t cfg;
        (void)state;
        configure(&cfg, "Platinum, Gold", NULL);
        assert_int_equal(KEY(&cfg, "Gold"), GOLD);
        assert_int_equal(KEY(&cfg, "Platinum"), PLATINUM);
        assert_int_equal(KEY(&cfg, "Gold1"), BP_KEY_UNKNOWN);
        assert_int_equal(KEY(&cfg, "PlatinumPlus"), BP_KEY_UNKNOWN);
}

static void test_key_unknown_bucket(void **state) {
        bp_config_t cfg;
        (void)state;
        configure(&cfg, "Platinum, Gold", NULL);
        assert_int_equal(KEY(&cfg, "Silver-1"), BP_KEY_UNKNOWN);
        assert_int_equal(KEY(&cfg, "gold-1"), BP_KEY_UNKNOWN);
        assert_int_equal(KEY(&cfg, " Gold-1"), BP_KEY_UNKNOWN);
        assert_int_equal(KEY(&cfg, "-Gold"), BP_KEY_UNKNOWN);
        assert_int_equal(KEY(&cfg, "-"), BP_KEY_UNKNOWN);
}

static void test_key_no_buckets(void **state) {
        bp_config_t cfg;
        (void)state;
        bp_config_init(&cfg);
        assert_int_equal(KEY(&cfg, "Gold-1"), BP_KEY_UNKNOWN);
        assert_int_equal(KEY(&cfg, "Gold"), BP_KEY_UNKNOWN);
}

static void test_key_null_and_empty(void **state) {
        bp_config_t cfg;
        (void)state;
        configure(&cfg, "Platinum, Gold", NULL);
        assert_int_equal(bp_key_bucket(&cfg, NULL, 0), BP_KEY_NONE);
        assert_int_equal(bp_key_bucket(&cfg, NULL, 8), BP_KEY_NONE);
        assert_int_equal(bp_key_bucket(&cfg, "", 0), BP_KEY_NONE);
        assert_int_equal(bp_key_bucket(&cfg, "Gold-1", 0), BP_KEY_NONE);
}

static void test_key_name_variants(void **state) {
        bp_config_t cfg;
        (void)state;
        configure(&cfg, "Platinum, Gold", NULL);
        assert_int_equal(KEY(&cfg, "Golden-1"), BP_KEY_UNKNOWN);
        assert_int_equal(KEY(&cfg, "Gol-1"), BP_KEY_UNKNOWN);
        assert_int_equal(KEY(&cfg, "Gol"), BP_KEY_UNKNOWN);
        assert_int_equal(KEY(&cfg, "Platinu-1"), BP_KEY_UNKNOWN);
        /* Shorter and longer names that share a prefix. */
        configure(&cfg, "Gold, Golden, Go", NULL);
        assert_int_equal(KEY(&cfg, "Golden-1"), 1);
        assert_int_equal(KEY(&cfg, "Gold-1"), 0);
        assert_int_equal(KEY(&cfg, "Go-1"), 2);
        assert_int_equal(KEY(&cfg, "Gol-1"), BP_KEY_UNKNOWN);
}

static void test_key_binary(void **state) {
        bp_config_t cfg;
        (void)state;
        configure(&cfg, "Platinum, Gold", NULL);
        assert_int_equal(KEY(&cfg, "Gold-\0\x01"), GOLD);
        assert_int_equal(KEY(&cfg, "Gold-\xff\xfe\0"), GOLD);
        assert_int_equal(KEY(&cfg, "Go\0ld-1"), BP_KEY_UNKNOWN);
        assert_int_equal(KEY(&cfg, "Gold\0-1"), BP_KEY_UNKNOWN);
        assert_int_equal(KEY(&cfg, "Gold\0"), BP_KEY_UNKNOWN);
        assert_int_equal(KEY(&cfg, "\0"), BP_KEY_UNKNOWN);
        assert_int_equal(KEY(&cfg, "\0\0\0\0\0\0\0\0\0\0\0\0"),
                         BP_KEY_UNKNOWN);
        /* A key that is the name without its terminating NUL. */
        assert_int_equal(bp_key_bucket(&cfg, "Goldmine", 4), GOLD);
}

static void test_key_multibyte_delimiter(void **state) {
        bp_config_t cfg;
        (void)state;
        configure(&cfg, "Platinum, Gold, A:B", "::");
        assert_int_equal(KEY(&cfg, "Gold::1"), GOLD);
        assert_int_equal(KEY(&cfg, "Gold:::1"), GOLD);
        assert_int_equal(KEY(&cfg, "Platinum::"), PLATINUM);
        assert_int_equal(KEY(&cfg, "A:B::x"), 2);
        assert_int_equal(KEY(&cfg, "A:B"), 2);
        assert_int_equal(KEY(&cfg, "Gold"), GOLD);
        assert_int_equal(KEY(&cfg, "Gold:1"), BP_KEY_UNKNOWN);
        assert_int_equal(KEY(&cfg, "Gold:"), BP_KEY_UNKNOWN);
        assert_int_equal(KEY(&cfg, "Gold-1"), BP_KEY_UNKNOWN);
        assert_int_equal(KEY(&cfg, "::Gold"), BP_KEY_UNKNOWN);
}

static void test_key_1mib(void **state) {
        bp_config_t cfg;
        char *key = malloc(MIB);
        (void)state;
        assert_non_null(key);
        configure(&cfg, "Platinum, Gold", NULL);

        memset(key, 'x', MIB);
        memcpy(key, "Gold-", 5);
        assert_int_equal(bp_key_bucket(&cfg, key, MIB), GOLD);
        memcpy(key, "Platinum-", 9);
        assert_int_equal(bp_key_bucket(&cfg, key, MIB), PLATINUM);

        memset(key, 'x', MIB);
        assert_int_equal(bp_key_bucket(&cfg, key, MIB), BP_KEY_UNKNOWN);
        memcpy(key, "Gold", 4);
        assert_int_equal(bp_key_bucket(&cfg, key, MIB), BP_KEY_UNKNOWN);
        /* A delimiter far beyond any name's length is not looked for. */
        key[MIB / 2] = '-';
        assert_int_equal(bp_key_bucket(&cfg, key, MIB), BP_KEY_UNKNOWN);
        free(key);
}

/* Only the window (longest name + delimiter) is readable; keylen claims
 * 1 MiB. Reading one byte more would hit the guard page. */
static void test_key_bounded_read(void **state) {
        static const struct {
                const char *buckets, *delimiter, *window;
                int expect;
        } cases[] = {
            {"Platinum, Gold", "-", "Gold-xxxx", GOLD},
            {"Platinum, Gold", "-", "Platinum-", PLATINUM},
            {"Platinum, Gold", "-", "PlatinumX", BP_KEY_UNKNOWN},
            {"Platinum, Gold", "-", "Gold", BP_KEY_UNKNOWN},
            {"Platinum, Gold", "::", "Platinum::", PLATINUM},
            {"Platinum, Gold", "::", "Gold::xxxx", GOLD},
            {"Platinum, Gold", "::", "Platinum:x", BP_KEY_UNKNOWN},
            {"Platinum, Gold", "<=>", "Gold<=>xxxx", GOLD},
        };
        bp_config_t cfg;
        guarded_t g;
        size_t i, window, len;
        char buf[64];
        const void *key;
        (void)state;

        guarded_open(&g);
        for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                configure(&cfg, cases[i].buckets, cases[i].delimiter);
                window = cfg.max_name_len + cfg.delimiter_len;
                len    = strlen(cases[i].window);
                assert_true(len <= window && window < sizeof(buf));
                /* Shorter texts are padded to fill the window. */
                memset(buf, 'y', window);
                memcpy(buf, cases[i].window, len);
                key = at_guard(&g, buf, window);
                if (bp_key_bucket(&cfg, key, MIB) != cases[i].expect)
                        fail_msg("case %zu (\"%s\") expected %d", i,
                                 cases[i].window, cases[i].expect);
        }
        guarded_close(&g);
}

/* Short keys that end at the guard page: nothing past keylen is read. */
static void test_key_reads_within_keylen(void **state) {
        static const struct {
                const char *key;
                int expect;
        } cases[] = {
            {"Gold", GOLD},     {"Gol", BP_KEY_UNKNOWN},
            {"G", BP_KEY_UNKNOWN}, {"Gold-", GOLD},
            {"Platinum", PLATINUM}, {"Platinu", BP_KEY_UNKNOWN},
        };
        bp_config_t cfg;
        guarded_t g;
        size_t i;
        (void)state;

        guarded_open(&g);
        configure(&cfg, "Platinum, Gold", NULL);
        for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                size_t len      = strlen(cases[i].key);
                const void *key = at_guard(&g, cases[i].key, len);
                assert_int_equal(bp_key_bucket(&cfg, key, len),
                                 cases[i].expect);
        }
        guarded_close(&g);
}

/* The word matcher of the partitioner's fast path agrees with
 * bp_key_bucket() on every key it decides, for generated keys built from
 * the bucket names, their prefixes and extensions, and random bytes. */
static unsigned next_rand(unsigned *seed) {
        *seed = *seed * 1103515245u + 12345u;
        return *seed >> 8;
}

static void test_key_matcher_agrees(void **state) {
        static const char *sets[][2] = {
            {"Platinum, Gold", "-"},
            {"a, bb, ccc", "-"},
            {"critical, normal, bulk", ":"},
            {"x1234567, y12345678901234", "-"},
            {"Gold, Golden, Go", "_"},
        };
        unsigned seed = 12345;
        bp_config_t cfg;
        bp_key_matcher_t m;
        unsigned char key[48];
        size_t set, i, len, j, extra, decided = 0;
        int b, fast;
        (void)state;

        for (set = 0; set < sizeof(sets) / sizeof(*sets); set++) {
                configure(&cfg, sets[set][0], sets[set][1]);
                bp_key_matcher_init(&m, &cfg);
                for (i = 0; i < 100000; i++) {
                        b   = (int)(next_rand(&seed) % (unsigned)cfg.bucket_cnt);
                        len = cfg.buckets[b].name_len;
                        if (next_rand(&seed) % 3 == 0 && len > 1)
                                len--; /* a cut name */
                        memcpy(key, cfg.buckets[b].name, len);
                        if (next_rand(&seed) % 4)
                                key[len++] = (unsigned char)cfg.delimiter[0];
                        extra = next_rand(&seed) % 20;
                        for (j = 0; j < extra; j++)
                                key[len++] = (unsigned char)next_rand(&seed);
                        fast = bp_key_match(&m, key, len);
                        if (fast == BP_KEY_UNDECIDED)
                                continue;
                        decided++;
                        assert_int_equal(fast, bp_key_bucket(&cfg, key, len));
                }
        }
        assert_true(decided > 100000); /* the fast path really decides */
}

/* --- bp_escape ----------------------------------------------------------- */

static void expect_escape(const void *data, size_t len, size_t max,
                          const char *want) {
        char out[256];
        bp_escape(data, len, max, out, sizeof(out));
        assert_string_equal(out, want);
}

static void test_escape_printable(void **state) {
        (void)state;
        expect_escape("Gold-1", 6, 16, "Gold-1");
        expect_escape("", 0, 16, "");
        expect_escape("abcdefgh", 8, 8, "abcdefgh");
}

static void test_escape_non_printable(void **state) {
        (void)state;
        expect_escape("\x01\x7f\xff", 3, 16, "\\x01\\x7f\\xff");
        expect_escape("a\0b", 3, 16, "a\\x00b");
        expect_escape("\n\t", 2, 16, "\\x0a\\x09");
}

static void test_escape_quotes_backslashes(void **state) {
        (void)state;
        expect_escape("a\"b\\c", 5, 16, "a\\\"b\\\\c");
}

static void test_escape_truncates(void **state) {
        (void)state;
        expect_escape("abcdefghij", 10, 4, "abcd...");
        expect_escape("\x01\x02\x03", 3, 1, "\\x01...");
        expect_escape("abc", 3, 0, "...");
}

static void test_escape_null(void **state) {
        (void)state;
        expect_escape(NULL, 0, 16, "(null)");
        expect_escape(NULL, 42, 16, "(null)");
}

/* A small output buffer holds a prefix of the full rendering, whole escape
 * sequences only, terminated, and nothing is written past it. */
static void test_escape_small_output(void **state) {
        static const char data[] = "ab\x01\"cd";
        char full[64], out[32];
        size_t size;
        (void)state;

        bp_escape(data, sizeof(data) - 1, 64, full, sizeof(full));
        assert_string_equal(full, "ab\\x01\\\"cd");
        for (size = 1; size < strlen(full) + 1; size++) {
                memset(out, 'Z', sizeof(out));
                bp_escape(data, sizeof(data) - 1, 64, out, size);
                assert_true(strlen(out) < size);
                assert_memory_equal(out, full, strlen(out));
                assert_int_equal(out[size], 'Z');
        }
        /* "ab" fits in 5 bytes but "\x01" does not: no half sequence. */
        bp_escape(data, sizeof(data) - 1, 64, out, 5);
        assert_string_equal(out, "ab");
        memset(out, 'Z', sizeof(out));
        bp_escape(data, sizeof(data) - 1, 64, out, 0);
        assert_int_equal(out[0], 'Z');
}

/* The preview of a 1 MiB key reads only what it shows. */
static void test_escape_bounded_read(void **state) {
        guarded_t g;
        char out[128];
        const void *key;
        (void)state;

        guarded_open(&g);
        key = at_guard(&g, "Gold-0123456789ab", BP_KEY_PREVIEW_LEN);
        bp_escape(key, MIB, BP_KEY_PREVIEW_LEN, out, sizeof(out));
        assert_string_equal(out, "Gold-0123456789a...");
        guarded_close(&g);
}

/* --- bp_json_escape ------------------------------------------------------ */

static void test_json_escape(void **state) {
        char out[128];
        (void)state;
        bp_json_escape("Gold", 4, out, sizeof(out));
        assert_string_equal(out, "Gold");
        bp_json_escape("a\"b\\c", 5, out, sizeof(out));
        assert_string_equal(out, "a\\\"b\\\\c");
        bp_json_escape("\n\t\x01\x1f ~\x7f", 7, out, sizeof(out));
        assert_string_equal(out, "\\u000a\\u0009\\u0001\\u001f ~\x7f");
        bp_json_escape("a\0b", 3, out, sizeof(out));
        assert_string_equal(out, "a\\u0000b");
        bp_json_escape("Gr\xc3\xbcn", 5, out, sizeof(out));
        assert_string_equal(out, "Gr\xc3\xbcn");
        bp_json_escape("", 0, out, sizeof(out));
        assert_string_equal(out, "");
}

static void test_json_escape_small_output(void **state) {
        char out[16];
        (void)state;
        memset(out, 'Z', sizeof(out));
        bp_json_escape("Platinum", 8, out, 5);
        assert_string_equal(out, "Plat");
        assert_int_equal(out[5], 'Z');
        memset(out, 'Z', sizeof(out));
        bp_json_escape("a\x01", 2, out, 6);
        assert_string_equal(out, "a");
        memset(out, 'Z', sizeof(out));
        bp_json_escape("a", 1, out, 0);
        assert_int_equal(out[0], 'Z');
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_key_prefix),
            cmocka_unit_test(test_key_no_delimiter),
            cmocka_unit_test(test_key_unknown_bucket),
            cmocka_unit_test(test_key_no_buckets),
            cmocka_unit_test(test_key_null_and_empty),
            cmocka_unit_test(test_key_name_variants),
            cmocka_unit_test(test_key_binary),
            cmocka_unit_test(test_key_multibyte_delimiter),
            cmocka_unit_test(test_key_1mib),
            cmocka_unit_test(test_key_bounded_read),
            cmocka_unit_test(test_key_reads_within_keylen),
            cmocka_unit_test(test_key_matcher_agrees),
            cmocka_unit_test(test_escape_printable),
            cmocka_unit_test(test_escape_non_printable),
            cmocka_unit_test(test_escape_quotes_backslashes),
            cmocka_unit_test(test_escape_truncates),
            cmocka_unit_test(test_escape_null),
            cmocka_unit_test(test_escape_small_output),
            cmocka_unit_test(test_escape_bounded_read),
            cmocka_unit_test(test_json_escape),
            cmocka_unit_test(test_json_escape_small_output),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
