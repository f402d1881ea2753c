/*
 * bp_cli_number.c - the options skeleton's checked numbers (see bp_cli.h):
 * a value that is not a number in its range is refused with one line
 * naming the program, the option and the value.
 */
#include "bp_cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads all of \p text as a number (a whole one if \p whole) into \p v;
 * -1 if it is not one. strtol() and strtod() alone would skip leading
 * space, take a '+', and strtod() "inf", "nan" and hexadecimal. */
static int read_number(const char *text, int whole, double *v) {
        const char *allowed = whole ? "-0123456789" : "-.0123456789eE+";
        char *end;

        if (!*text || *text == '+' || text[strspn(text, allowed)])
                return -1;
        errno = 0;
        *v    = whole ? (double)strtol(text, &end, 10) : strtod(text, &end);
        return errno || *end || end == text ? -1 : 0;
}

/* Prints why \p text is refused for \p option; returns -1. */
static int refuse(const char *program, const char *option, const char *text,
                  const char *expected, double min, double max) {
        fprintf(stderr, "%s: %s \"%s\": expected %s from %.15g to %.15g\n",
                program, option, text, expected, min, max);
        return -1;
}

int bp_cli_whole(const char *program, const char *option, const char *text,
                 long min, long max, long *out) {
        double v;

        if (read_number(text, 1, &v) || v < (double)min || v > (double)max)
                return refuse(program, option, text, "a whole number",
                              (double)min, (double)max);
        *out = (long)v;
        return 0;
}

int bp_cli_int(const char *program, const char *option, const char *text,
               int min, int max, int *out) {
        long v;

        if (bp_cli_whole(program, option, text, min, max, &v))
                return -1;
        *out = (int)v;
        return 0;
}

int bp_cli_decimal(const char *program, const char *option, const char *text,
                   double min, double max, double *out) {
        double v;

        if (read_number(text, 0, &v) || !(v >= min && v <= max))
                return refuse(program, option, text, "a number", min, max);
        *out = v;
        return 0;
}
