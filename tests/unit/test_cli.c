/*
 * test_cli.c - the bp-layout command line tool, run as a child process
 * (path from the BP_LAYOUT_BIN environment variable, set by ctest): the
 * documented JSON, the table, the growth report for both layouts, and exit
 * code 2 with a message on stderr for every kind of bad input.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/bucket_priority.h"
#include "bp_test_run.h"

/* Runs bp-layout (BP_LAYOUT_BIN) with the NULL terminated \p args. */
static void run(run_t *r, const char *const *args) {
        bp_test_run(r, "BP_LAYOUT_BIN", args);
}

#define PG "--buckets", "Platinum, Gold", "--allocation", "70%, 30%"

/* --- good input ---------------------------------------------------------- */

static void test_json_documented(void **state) {
        static const char *args[] = {PG, "--partitions", "6", "--json", NULL};
        static run_t r;
        (void)state;
        run(&r, args);
        assert_int_equal(r.exit_code, 0);
        assert_string_equal(
            r.out,
            "{\"partitions\":6,\"layout\":\"contiguous\",\"buckets\":["
            "{\"name\":\"Platinum\",\"allocation\":70,\"partitions\":"
            "[0,1,2,3]},"
            "{\"name\":\"Gold\",\"allocation\":30,\"partitions\":[4,5]}]}\n");
        assert_string_equal(r.err, "");
}

/* Buckets in configuration order, whatever their priority. */
static void test_json_configuration_order(void **state) {
        static const char *args[] = {"--buckets",    "Gold, Platinum",
                                     "--allocation", "30, 70",
                                     "--partitions", "6",
                                     "--json",       NULL};
        static run_t r;
        (void)state;
        run(&r, args);
        assert_int_equal(r.exit_code, 0);
        expect_contains(r.out, "\"buckets\":[{\"name\":\"Gold\",\"allocation\""
                               ":30,\"partitions\":[4,5]},{\"name\":"
                               "\"Platinum\"");
}

static void test_json_stable_and_growth(void **state) {
        static const char *stable[] = {PG, "--layout", "stable",
                                       "--partitions", "6", "--json", NULL};
        static const char *growth[] = {PG, "--growth", "6,12", "--json",
                                       NULL};
        static run_t r;
        (void)state;
        run(&r, stable);
        assert_int_equal(r.exit_code, 0);
        expect_contains(r.out, "{\"partitions\":6,\"layout\":\"stable\",");
        run(&r, growth);
        assert_int_equal(r.exit_code, 0);
        assert_int_equal(r.out[0], '[');
        expect_contains(r.out, "{\"partitions\":6,");
        expect_contains(r.out, "]},{\"partitions\":12,");
        expect_contains(r.out, "[8,9,10,11]}]}]\n");
}

static void test_table(void **state) {
        static const char *args[] = {PG, "--partitions", "6", NULL};
        static run_t r;
        char line[256];
        (void)state;
        run(&r, args);
        assert_int_equal(r.exit_code, 0);
        line_with(r.out, "Platinum", line, sizeof(line));
        expect_contains(line, "0-3");
        expect_contains(line, "70%");
        line_with(r.out, "Gold", line, sizeof(line));
        expect_contains(line, "4-5");
        expect_contains(line, "30%");
        assert_string_equal(r.err, "");
}

static void test_growth_contiguous_moves(void **state) {
        static const char *args[] = {PG, "--growth", "6,12", NULL};
        static run_t r;
        (void)state;
        run(&r, args);
        assert_int_equal(r.exit_code, 0);
        /* 6: Platinum 0-3, Gold 4-5; 12: Platinum 0-7, Gold 8-11. */
        expect_contains(r.out, "partition 4 moves: Gold -> Platinum");
        expect_contains(r.out, "partition 5 moves: Gold -> Platinum");
        assert_null(strstr(r.out, "partition 3 moves"));
        assert_null(strstr(r.out, "no existing partition changes bucket"));
        expect_contains(r.out, "0-7");
        expect_contains(r.out, "8-11");
}

static void test_growth_stable_no_moves(void **state) {
        static const char *args[] = {PG, "--layout", "stable", "--growth",
                                     "6,12,24", NULL};
        static run_t r;
        (void)state;
        run(&r, args);
        assert_int_equal(r.exit_code, 0);
        expect_contains(r.out, "no existing partition changes bucket");
        assert_null(strstr(r.out, "moves"));
        expect_contains(r.out, "growing 12 -> 24 partitions");
}

static void test_help(void **state) {
        static const char *args[] = {"--help", NULL};
        static run_t r;
        (void)state;
        run(&r, args);
        assert_int_equal(r.exit_code, 0);
        expect_contains(r.out, "--buckets");
}

/* --version prints the version of the public header, the one place it is
 * written (CMakeLists.txt reads it from there). */
static void test_version(void **state) {
        static const char *args[] = {"--version", NULL};
        static run_t r;
        (void)state;
        run(&r, args);
        assert_int_equal(r.exit_code, 0);
        assert_string_equal(r.out, "bp-layout " BP_VERSION_STR "\n");
}

/* --- bad input: exit code 2 and a message naming the problem ------------- */

static const struct {
        const char *what;
        const char *args[MAX_ARGS];
        const char *message; /* must appear on stderr */
} bad_inputs[] = {
    {"sum not 100",
     {"--buckets", "Platinum, Gold", "--allocation", "70%, 20%",
      "--partitions", "6", NULL},
     "add up to 90%"},
    {"missing --buckets",
     {"--allocation", "70%, 30%", "--partitions", "6", NULL},
     "--buckets"},
    {"missing --allocation",
     {"--buckets", "Platinum, Gold", "--partitions", "6", NULL},
     "--allocation"},
    {"missing --partitions", {PG, NULL}, "--partitions"},
    {"--partitions 0", {PG, "--partitions", "0", NULL}, "--partitions \"0\""},
    {"--partitions abc",
     {PG, "--partitions", "abc", NULL},
     "--partitions \"abc\""},
    {"--partitions -6", {PG, "--partitions", "-6", NULL}, "--partitions"},
    {"fewer partitions than buckets",
     {"--buckets", "A, B, C", "--allocation", "50, 30, 20", "--partitions",
      "2", NULL},
     "2 partitions but 3 buckets"},
    {"unknown layout",
     {PG, "--layout", "zigzag", "--partitions", "6", NULL},
     "zigzag"},
    {"decreasing growth", {PG, "--growth", "12,6", NULL}, "--growth"},
    {"repeated growth step", {PG, "--growth", "6,6", NULL}, "--growth"},
    {"bad growth step", {PG, "--growth", "6,x", NULL}, "--growth"},
    {"both --partitions and --growth",
     {PG, "--partitions", "6", "--growth", "6,12", NULL},
     "not both"},
    {"duplicate bucket",
     {"--buckets", "Gold, Gold", "--allocation", "50, 50", "--partitions",
      "6", NULL},
     "twice"},
    {"unexpected argument",
     {PG, "--partitions", "6", "extra", NULL},
     "extra"},
    {"unknown option", {PG, "--partitions", "6", "--frobnicate", NULL},
     "frobnicate"},
    /* a live layout change (test_cli_change.c) */
    {"next allocation not 100",
     {PG, "--partitions", "12", "--next-allocation", "50, 40", NULL},
     "100%"},
    {"next counts differ",
     {PG, "--partitions", "12", "--next-buckets", "a, b, c", NULL},
     "one allocation per bucket"},
    {"next layout unknown",
     {PG, "--partitions", "12", "--next-layout", "zigzag", NULL},
     "bucket.priority.next.layout: invalid value \"zigzag\""},
    {"change with --growth",
     {PG, "--growth", "6,12", "--next-allocation", "50, 50", NULL},
     "give --partitions, not --growth"},
    {"--group-id without a change",
     {PG, "--partitions", "12", "--group-id", "app", NULL},
     "--group-id names the groups of a change"},
    {"too few partitions for the next layout",
     {PG, "--partitions", "2", "--next-buckets", "a, b, c",
      "--next-allocation", "20, 30, 50", NULL},
     "2 partitions but 3 buckets"},
};

static void test_bad_inputs(void **state) {
        static run_t r;
        size_t i;
        (void)state;
        for (i = 0; i < sizeof(bad_inputs) / sizeof(bad_inputs[0]); i++) {
                run(&r, bad_inputs[i].args);
                if (r.exit_code != 2)
                        fail_msg("%s: exit code %d, expected 2",
                                 bad_inputs[i].what, r.exit_code);
                if (!strstr(r.err, bad_inputs[i].message))
                        fail_msg("%s: \"%s\" not on stderr:\n%s",
                                 bad_inputs[i].what, bad_inputs[i].message,
                                 r.err);
                if (r.out[0])
                        fail_msg("%s: unexpected stdout:\n%s",
                                 bad_inputs[i].what, r.out);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_json_documented),
            cmocka_unit_test(test_json_configuration_order),
            cmocka_unit_test(test_json_stable_and_growth),
            cmocka_unit_test(test_table),
            cmocka_unit_test(test_growth_contiguous_moves),
            cmocka_unit_test(test_growth_stable_no_moves),
            cmocka_unit_test(test_help),
            cmocka_unit_test(test_version),
            cmocka_unit_test(test_bad_inputs),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
