/*
 * test_cli_number.c - the options skeleton of the command-line programs
 * (tools/bp_cli.h). Its checked option numbers (tools/bp_cli_number.c):
 * what is accepted, what is refused (empty, space, '+', trailing text,
 * fractions for whole numbers, hexadecimal, infinity, NaN, overflow, out
 * of range), the value left alone on refusal, and the one-line message
 * naming program, option and value. Its parse loop (tools/bp_cli.c):
 * --name value and --name=value, --help, a refused value, a value the
 * usage explains, an unknown option, a missing value, a word that is not
 * an option.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bp_cli.h"

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

/* A program of three options for the parse loop: --number (1 to 9),
 * --name, --flag; what it was given, and where its usage went. */
typedef struct {
        long number;
        const char *name;
        int flag, usage_out, usage_err;
} prog_t;

static prog_t prog;

static void prog_usage(FILE *f) {
        if (f == stdout)
                prog.usage_out++;
        else
                prog.usage_err++;
}

static int prog_take(void *ctx, int opt, char *value) {
        prog_t *p = ctx;
        switch (opt) {
        case 'n':
                return bp_cli_whole("prog", "--number", value, 1, 9,
                                    &p->number);
        case 's':
                if (!strcmp(value, "bad")) /* the usage says which */
                        return BP_CLI_USAGE;
                p->name = value;
                return 0;
        case 'f':
                p->flag = 1;
                return 0;
        default:
                return -1;
        }
}

/* Parses the words of \p line (at most 8) as prog's command line;
 * returns bp_cli_parse()'s answer, with prog and what it printed on
 * stderr in \p cap. */
static int parse_line(const char *line, captured_t *cap) {
        static const struct option opts[] = {
            {"number", required_argument, NULL, 'n'},
            {"name", required_argument, NULL, 's'},
            {"flag", no_argument, NULL, 'f'},
            BP_CLI_HELP_OPTION,
            {NULL, 0, NULL, 0}};
        const bp_cli_t cli = {.program = "prog",
                              .options = opts,
                              .usage   = prog_usage,
                              .take    = prog_take,
                              .ctx     = &prog};
        static char buf[256]; /* prog.name points into it */
        char *argv[10], *word;
        int argc = 0, rc;

        snprintf(buf, sizeof(buf), "prog %s", line);
        for (word = strtok(buf, " "); word && argc < 9;
             word = strtok(NULL, " "))
                argv[argc++] = word;
        argv[argc] = NULL;
        memset(&prog, 0, sizeof(prog));
        optind = 0; /* getopt_long() starts afresh */
        capture_start(cap);
        rc = bp_cli_parse(&cli, argc, argv);
        capture_end(cap);
        return rc;
}

static void test_parse(void **state) {
        captured_t cap;
        (void)state;

        /* Both spellings of a value; the program goes on (-1). */
        assert_int_equal(parse_line("--number 5 --name=x --flag", &cap), -1);
        assert_int_equal(prog.number, 5);
        assert_string_equal(prog.name, "x");
        assert_int_equal(prog.flag, 1);
        assert_string_equal(cap.text, "");
        assert_int_equal(parse_line("--number=7 --name y", &cap), -1);
        assert_int_equal(prog.number, 7);
        assert_string_equal(prog.name, "y");
        /* --help: the usage on stdout, exit 0. */
        assert_int_equal(parse_line("--number 5 --help", &cap), 0);
        assert_int_equal(prog.usage_out, 1);
        assert_int_equal(prog.usage_err, 0);
        /* A value refused: its line, no usage, exit 2. */
        assert_int_equal(parse_line("--number 0", &cap), 2);
        assert_string_equal(cap.text, "prog: --number \"0\": expected a "
                                      "whole number from 1 to 9\n");
        assert_int_equal(prog.usage_err, 0);
        /* A value the usage explains: the usage on stderr, exit 2. */
        assert_int_equal(parse_line("--name bad", &cap), 2);
        assert_int_equal(prog.usage_err, 1);
        /* Unknown, or without its value: getopt_long()'s line, the usage
         * on stderr, exit 2. */
        assert_int_equal(parse_line("--bogus", &cap), 2);
        assert_non_null(strstr(cap.text, "--bogus"));
        assert_int_equal(prog.usage_err, 1);
        assert_int_equal(parse_line("--name", &cap), 2);
        assert_non_null(strstr(cap.text, "name"));
        assert_int_equal(prog.usage_err, 1);
        /* A word that is not an option. */
        assert_int_equal(parse_line("--flag word", &cap), 2);
        assert_string_equal(cap.text, "prog: unexpected argument \"word\"\n");
        assert_int_equal(prog.usage_err, 1);
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_numbers),
            cmocka_unit_test(test_parse),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
