/*
 * test_cli_number.c - the checked option numbers of the command-line
 * programs (tools/bp_cli_number.c): what is accepted, what is refused
 * (empty, space, '+', trailing text, fractions for whole numbers,
 * hexadecimal, infinity, NaN, overflow, out of range), the value left
 * alone on refusal, and the one-line message naming program, option and
 * value.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bp_cli_number.h"

/* What a call printed on stderr, captured through a temporary file. */
typedef struct {
        FILE *file;
        int saved_fd;
        char text[512];
} captured_t;

static void capture_start(captured_t *c) {
        fflush(stderr);
        c->file = tmpfile();
        assert_non_null(c->file);
        c->saved_fd = dup(STDERR_FILENO);
        assert_true(c->saved_fd >= 0);
        assert_true(dup2(fileno(c->file), STDERR_FILENO) >= 0);
}

static void capture_end(captured_t *c) {
        size_t n;

        fflush(stderr);
        assert_true(dup2(c->saved_fd, STDERR_FILENO) >= 0);
        close(c->saved_fd);
        rewind(c->file);
        n          = fread(c->text, 1, sizeof(c->text) - 1, c->file);
        c->text[n] = '\0';
        fclose(c->file);
}

static const struct {
        const char *text;
        long min, max;
        int ok;
        long value;
} whole_rows[] = {
    {"0", 0, 10, 1, 0},
    {"10", 0, 10, 1, 10},
    {"-3", -5, 5, 1, -3},
    {"007", 0, 10, 1, 7},
    {"11", 0, 10, 0, 0},
    {"-1", 0, 10, 0, 0},
    {"", 0, 10, 0, 0},
    {" 5", 0, 10, 0, 0},
    {"5 ", 0, 10, 0, 0},
    {"+5", 0, 10, 0, 0},
    {"5x", 0, 10, 0, 0},
    {"1.5", 0, 10, 0, 0},
    {"1e3", 0, 10000, 0, 0},
    {"0x10", 0, 100, 0, 0},
    {"-", 0, 10, 0, 0},
    {"99999999999999999999", 0, 10, 0, 0},
};

static void test_whole(void **state) {
        size_t i;
        (void)state;
        for (i = 0; i < sizeof(whole_rows) / sizeof(whole_rows[0]); i++) {
                long out = 4242;
                captured_t cap;
                int rc;

                capture_start(&cap);
                rc = bp_cli_whole("prog", "--opt", whole_rows[i].text,
                                  whole_rows[i].min, whole_rows[i].max, &out);
                capture_end(&cap);
                if (rc != (whole_rows[i].ok ? 0 : -1))
                        fail_msg("\"%s\": returned %d", whole_rows[i].text,
                                 rc);
                assert_int_equal(out,
                                 whole_rows[i].ok ? whole_rows[i].value : 4242);
                if (whole_rows[i].ok) {
                        assert_string_equal(cap.text, "");
                } else {
                        char want[256];
                        snprintf(want, sizeof(want),
                                 "prog: --opt \"%s\": expected a whole number "
                                 "from %ld to %ld\n",
                                 whole_rows[i].text, whole_rows[i].min,
                                 whole_rows[i].max);
                        assert_string_equal(cap.text, want);
                }
        }
}

static const struct {
        const char *text;
        int ok;
        double value;
} decimal_rows[] = {
    {"0.1", 1, 0.1},   {"50", 1, 50},     {"1e3", 1, 1000}, {".5", 1, 0.5},
    {"10000", 1, 1e4}, {"0.09", 0, 0},    {"10001", 0, 0},  {"", 0, 0},
    {" 1", 0, 0},      {"+1", 0, 0},      {"1,5", 0, 0},    {"inf", 0, 0},
    {"nan", 0, 0},     {"0x10", 0, 0},    {"1e999", 0, 0},  {"e5", 0, 0},
};

static void test_decimal(void **state) {
        size_t i;
        (void)state;
        for (i = 0; i < sizeof(decimal_rows) / sizeof(decimal_rows[0]); i++) {
                double out = -7;
                captured_t cap;
                int rc;

                capture_start(&cap);
                rc = bp_cli_decimal("prog", "--rate", decimal_rows[i].text,
                                    0.1, 10000, &out);
                capture_end(&cap);
                if (rc != (decimal_rows[i].ok ? 0 : -1))
                        fail_msg("\"%s\": returned %d", decimal_rows[i].text,
                                 rc);
                if (decimal_rows[i].ok) {
                        assert_true(out == decimal_rows[i].value);
                        assert_string_equal(cap.text, "");
                } else {
                        char want[256];
                        assert_true(out == -7);
                        snprintf(want, sizeof(want),
                                 "prog: --rate \"%s\": expected a number from "
                                 "0.1 to 10000\n",
                                 decimal_rows[i].text);
                        assert_string_equal(cap.text, want);
                }
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_whole),
            cmocka_unit_test(test_decimal),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
