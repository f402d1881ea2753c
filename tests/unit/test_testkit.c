/*
 * test_testkit.c - the test kit's own pieces that decide what other tests
 * conclude (tests/kit/testkit.h): the ledger of record ids (first reads,
 * duplicates, ids never read) and the record key parsing, and the plugin
 * path lookup.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testkit.h"

static void test_ledger(void **state) {
        tk_ledger_t lg;
        (void)state;

        assert_int_equal(tk_ledger_init(&lg, 10), 0);
        tk_ledger_write(&lg, 2);
        tk_ledger_write(&lg, 3);
        tk_ledger_write(&lg, 3);  /* again: no change */
        tk_ledger_write(&lg, 10); /* out of range: ignored */
        assert_int_equal(lg.written_cnt, 2);
        assert_int_equal(tk_ledger_missing(&lg, 0, 10), 2);
        assert_int_equal(tk_ledger_missing(&lg, 3, 10), 1);
        assert_int_equal(tk_ledger_read(&lg, 2), 1);  /* first read */
        assert_int_equal(tk_ledger_read(&lg, 2), 0);  /* duplicate */
        assert_int_equal(tk_ledger_read(&lg, 5), 0);  /* not written */
        assert_int_equal(tk_ledger_read(&lg, -1), -1);
        assert_int_equal(tk_ledger_read(&lg, 10), -1);
        assert_int_equal(lg.duplicates, 1);
        assert_int_equal(tk_ledger_missing(&lg, 0, 10), 1);
        assert_int_equal(tk_ledger_read(&lg, 3), 1);
        assert_int_equal(tk_ledger_missing(&lg, -5, 50), 0);
        tk_ledger_reset_reads(&lg);
        assert_int_equal(lg.duplicates, 0);
        assert_int_equal(tk_ledger_missing(&lg, 0, 10), 2);
        tk_ledger_free(&lg);
}

static void expect_key(const char *key, long id, size_t bucket_len) {
        size_t got = 99;
        if (tk_key_id(key, key ? strlen(key) : 0, &got) != id ||
            got != bucket_len)
                fail_msg("key \"%s\": id %ld, bucket length %zu; expected "
                         "%ld, %zu",
                         key ? key : "(null)",
                         tk_key_id(key, key ? strlen(key) : 0, NULL), got, id,
                         bucket_len);
}

static void test_keys(void **state) {
        (void)state;
        expect_key("critical-123", 123, 8);
        expect_key("bulk-0", 0, 4);
        expect_key("a-b-7", 7, 3);       /* the last '-' */
        expect_key("Gold-", -1, 4);      /* no id */
        expect_key("Gold-12x", -1, 4);   /* not a number */
        expect_key("Gold", -1, 4);       /* no '-' */
        expect_key("", -1, 0);
        expect_key(NULL, -1, 0);
        expect_key("x-1234567890123456789", -1, 1); /* too long */
        assert_true(tk_key_is_bucket("critical-5", 10, "critical"));
        assert_false(tk_key_is_bucket("critical-5", 10, "crit"));
        assert_false(tk_key_is_bucket("bulk-5", 6, "critical"));
        assert_false(tk_key_is_bucket("critical", 8, "critical"));
        assert_false(tk_key_is_bucket(NULL, 0, "critical"));
}

static void test_plugin_path(void **state) {
        const char *saved = getenv("BP_PLUGIN_PATH");
        char *copy        = saved ? strdup(saved) : NULL;
        (void)state;

        setenv("BP_PLUGIN_PATH", "/x/libbucketpriority.so", 1);
        assert_string_equal(tk_plugin_path("fallback"),
                            "/x/libbucketpriority.so");
        setenv("BP_PLUGIN_PATH", "", 1);
        assert_string_equal(tk_plugin_path("fallback"), "fallback");
        unsetenv("BP_PLUGIN_PATH");
        assert_null(tk_plugin_path(NULL));
        if (copy)
                setenv("BP_PLUGIN_PATH", copy, 1);
        free(copy);
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_ledger),
            cmocka_unit_test(test_keys),
            cmocka_unit_test(test_plugin_path),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
