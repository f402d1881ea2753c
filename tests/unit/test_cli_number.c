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

/* Whole numbers are asked for from -5 to 10, decimal ones from 0.1 to
 * 10000: what is accepted (and as what), and what is refused. */
static const char *const whole_ok[]   = {"0", "10", "-5", "007"};
static const double whole_value[]     = {0, 10, -5, 7};
static const char *const decimal_ok[] = {"0.1", "1e3", ".5", "10000"};
static const double decimal_value[]   = {0.1, 1e3, 0.5, 1e4};
static const char *const whole_refused[] = {
    "11", "-6", "", " 5", "5 ", "+5", "5x", "1.5", "1e3", "0x10", "-", "--1",
    "99999999999999999999"};
static const char *const decimal_refused[] = {
    "0.09", "10001", "-1", "", " 1", "+1", "1,5", "inf", "nan", "0x10",
    "1e999", "e5", "."};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* One kind of number and the values to try; values NULL: all refused. */
static const struct {
        int whole;
        const char *const *texts;
        const double *values;
        size_t cnt;
} sets[] = {
    {1, whole_ok, whole_value, COUNT(whole_ok)},
    {0, decimal_ok, decimal_value, COUNT(decimal_ok)},
    {1, whole_refused, NULL, COUNT(whole_refused)},
    {0, decimal_refused, NULL, COUNT(decimal_refused)},
};

/* Parses value \p i of set \p s and checks the result, the value (left
 * alone on refusal) and what was printed on stderr. */
static void check(size_t s, size_t i) {
        const char *text = sets[s].texts[i];
        char want[256]   = "";
        captured_t cap;
        double out = -7;
        long n     = -7;
        int rc;

        capture_start(&cap);
        if (sets[s].whole)
                rc = bp_cli_whole("prog", "--opt", text, -5, 10, &n);
        else
                rc = bp_cli_decimal("prog", "--opt", text, 0.1, 10000, &out);
        capture_end(&cap);
        if (sets[s].whole)
                out = (double)n;
        if (!sets[s].values)
                snprintf(want, sizeof(want), "prog: --opt \"%s\": %s\n", text,
                         sets[s].whole ? "expected a whole number from -5 to 10"
                                       : "expected a number from 0.1 to 10000");
        if (rc != (sets[s].values ? 0 : -1) ||
            out != (sets[s].values ? sets[s].values[i] : -7) ||
            strcmp(cap.text, want))
                fail_msg("\"%s\": returned %d, value %g, printed \"%s\"", text,
                         rc, out, cap.text);
}

static void test_numbers(void **state) {
        size_t s, i;
        (void)state;
        for (s = 0; s < COUNT(sets); s++)
                for (i = 0; i < sets[s].cnt; i++)
                        check(s, i);
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_numbers),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
