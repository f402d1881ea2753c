/*
 * test_bind.c - the plugin's binding to a librdkafka copy (bp_rdk.c): the
 * short errors for a caller whose librdkafka cannot be reached (a Go
 * program with librdkafka linked statically and not exported) and for a
 * second, different copy in one process; and that the shared library has
 * no link-time dependency on librdkafka at all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define BP_RDK_NO_MACROS /* the table's fields are read by name here */
#include "plugin/bp_rdk.h"

/* An address inside libc: an object that loaded us without exporting any
 * librdkafka function, as a statically linked Go program does. */
static const void *libc_address(void) {
        return (const void *)&snprintf;
}

static void test_unexported_copy_fails_short(void **state) {
        char errstr[512];
        (void)state;

        assert_int_equal(bp_rdk_bind_caller(libc_address(), errstr,
                                            sizeof(errstr)),
                         -1);
        assert_false(bp_rdk_bound());
        assert_non_null(strstr(errstr, "-tags dynamic"));
        assert_non_null(strstr(errstr, "--export-dynamic"));
        assert_true(strlen(errstr) <= BP_RDK_ERR_MAX);
}

static void test_no_caller_fails(void **state) {
        char errstr[512];
        (void)state;

        assert_int_equal(bp_rdk_bind_caller(NULL, errstr, sizeof(errstr)), -1);
        assert_non_null(strstr(errstr, "bucket-priority"));
}

static void test_second_copy_refused(void **state) {
        char errstr[512];
        (void)state;

        /* Bound to the librdkafka this program links (and calls)... */
        assert_true(rd_kafka_version() >= 0x020002ff);
        assert_int_equal(bp_rdk_bind_default(errstr, sizeof(errstr)), 0);
        assert_true(bp_rdk_bound());
        assert_non_null(bp_rdk.rd_kafka_version);
        /* ...the same copy again is fine, another one is refused. */
        assert_int_equal(bp_rdk_bind_caller((const void *)bp_rdk.rd_kafka_new,
                                            errstr, sizeof(errstr)),
                         0);
        assert_int_equal(bp_rdk_bind_caller(libc_address(), errstr,
                                            sizeof(errstr)),
                         -1);
        assert_non_null(strstr(errstr, "second copy"));
        assert_true(strlen(errstr) <= BP_RDK_ERR_MAX);
}

/* The plugin must not pull the system librdkafka into a client that
 * carries its own (readelf on the built library). */
static void test_plugin_has_no_librdkafka_dependency(void **state) {
        const char *lib = getenv("BP_PLUGIN_PATH");
        char cmd[1024], line[512];
        FILE *p;
        int needed = 0, rdkafka = 0;
        (void)state;

        assert_non_null(lib);
        snprintf(cmd, sizeof(cmd), "readelf -d '%s'", lib);
        p = popen(cmd, "r");
        assert_non_null(p);
        while (fgets(line, sizeof(line), p)) {
                needed += strstr(line, "(NEEDED)") != NULL;
                rdkafka += strstr(line, "(NEEDED)") &&
                           strstr(line, "librdkafka");
        }
        assert_int_equal(pclose(p), 0);
        assert_true(needed > 0); /* readelf worked: libc at least */
        assert_int_equal(rdkafka, 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_unexported_copy_fails_short),
            cmocka_unit_test(test_no_caller_fails),
            cmocka_unit_test(test_second_copy_refused),
            cmocka_unit_test(test_plugin_has_no_librdkafka_dependency),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
