/*
 * test_cli_layout_options.c - the layout options that bp-layout and
 * bp-audit share (tools/bp_cli_layout_options.c): each of --buckets,
 * --allocation, --layout and --delimiter (and --next-buckets,
 * --next-allocation, --next-layout for a live change), parsed by getopt_long() from a
 * table that also holds a program's own options, stands for the
 * bucket.priority.* property of its name, with its value; any other
 * option stands for no property.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "bp_cli_layout_options.h"

static const struct option layout_options[] = {BP_CLI_LAYOUT_OPTIONS};

/* Every entry takes a value and stands for bucket.priority.<its name>. */
static void test_each_option_names_its_property(void **state) {
        size_t i, n = sizeof(layout_options) / sizeof(layout_options[0]);
        char want[64];
        (void)state;
        assert_int_equal(n, 4);
        for (i = 0; i < n; i++) {
                const char *got = bp_cli_layout_property(layout_options[i].val);
                snprintf(want, sizeof(want), "bucket.priority.%s",
                         layout_options[i].name);
                assert_int_equal(layout_options[i].has_arg, required_argument);
                assert_null(layout_options[i].flag);
                assert_non_null(got);
                assert_string_equal(got, want);
        }
}

/* A command line as a program parses it: its own option in between, the
 * layout options in any order, each with its value. */
static void test_parsed_with_a_programs_own_options(void **state) {
        static const struct option opts[] = {
            {"partitions", required_argument, NULL, 'p'},
            BP_CLI_LAYOUT_OPTIONS,
            {"json", no_argument, NULL, 'j'},
            {NULL, 0, NULL, 0}};
        char *argv[] = {"prog",        "--delimiter", "_",
                        "--partitions", "6",          "--buckets",
                        "a_x, b",      "--json",      "--layout=stable",
                        "--allocation", "70, 30",     NULL};
        static const char *const want[][2] = {
            {"bucket.priority.delimiter", "_"},
            {"bucket.priority.buckets", "a_x, b"},
            {"bucket.priority.layout", "stable"},
            {"bucket.priority.allocation", "70, 30"}};
        int argc = (int)(sizeof(argv) / sizeof(argv[0])) - 1, opt, seen = 0,
            own = 0;
        (void)state;
        optind = 1;
        while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
                const char *property = bp_cli_layout_property(opt);
                if (opt == 'p' || opt == 'j') {
                        assert_null(property);
                        own++;
                        continue;
                }
                assert_true(seen < 4);
                assert_non_null(property);
                assert_string_equal(property, want[seen][0]);
                assert_string_equal(optarg, want[seen][1]);
                seen++;
        }
        assert_int_equal(seen, 4);
        assert_int_equal(own, 2);
        assert_int_equal(optind, argc);
}

/* getopt_long()'s other answers ('?' for an unknown option, ':' for a
 * missing value) and other programs' option values stand for nothing. */
static void test_other_values_name_no_property(void **state) {
        static const int others[] = {'?', ':', 0, -1, 'B', 'p', 'j', 'L',
                                     'A', 'D'};
        size_t i;
        (void)state;
        for (i = 0; i < sizeof(others) / sizeof(others[0]); i++)
                assert_null(bp_cli_layout_property(others[i]));
}

static const struct option next_options[] = {BP_CLI_NEXT_LAYOUT_OPTIONS};

/* --next-<x> stands for bucket.priority.next.<x>, and its value lies
 * outside the characters a program's one-letter options use. */
static void test_next_options_name_next_properties(void **state) {
        size_t i, n = sizeof(next_options) / sizeof(next_options[0]);
        char want[64];
        (void)state;
        assert_int_equal(n, 3);
        for (i = 0; i < n; i++) {
                const char *got = bp_cli_layout_property(next_options[i].val);
                assert_true(strncmp(next_options[i].name, "next-", 5) == 0);
                snprintf(want, sizeof(want), "bucket.priority.next.%s",
                         next_options[i].name + 5);
                assert_int_equal(next_options[i].has_arg, required_argument);
                assert_true(next_options[i].val > 255);
                assert_non_null(got);
                assert_string_equal(got, want);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_each_option_names_its_property),
            cmocka_unit_test(test_parsed_with_a_programs_own_options),
            cmocka_unit_test(test_other_values_name_no_property),
            cmocka_unit_test(test_next_options_name_next_properties),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
