/*
 * bp_cli.h - the options skeleton of the command-line programs (bp-layout,
 * bp-audit, bp-demo, bp-bench-scheduler, bp-bench-hold, bp-bench-priority):
 * one parse loop, one way to spell and check an option's value, one
 * --help and --version, so that no program writes them its own way.
 *
 * A program describes itself once (bp_cli_t: its name, its getopt_long()
 * option table, its usage) and gives a function that takes each of its
 * own options; bp_cli_parse() does the rest:
 *
 *   --name value and --name=value  (getopt_long(); a short option too
 *                                   where the program has one)
 *   --help                         the program's help on stdout, exit 0
 *   --version                      "<program> <version>", exit 0
 *   an unknown option, a missing value
 *                                  getopt_long()'s line, the usage on
 *                                  stderr, exit 2
 *   a word that is not an option   "<program>: unexpected argument
 *                                  "<word>"", the usage on stderr, exit 2
 *   a value the program refuses    its own line on stderr (a number:
 *                                  bp_cli_whole() and bp_cli_decimal()
 *                                  name program, option and value), exit 2
 *
 *   static int take(void *ctx, int opt, char *value) {
 *           switch (opt) {
 *           case 'r': return bp_cli_int("bp-x", "--rounds", value, 1, 9,
 *                                       &opt_rounds);
 *           ...
 *   }
 *   int rc = bp_cli_parse(&cli, argc, argv);
 *   if (rc >= 0)
 *           return rc;          (help or version shown: 0; bad input: 2)
 *
 * Plain C, no librdkafka: the library bp_cli (CMakeLists.txt), beside the
 * layout options bp-layout and bp-audit share (bp_cli_layout_options.h).
 */
#ifndef BP_CLI_H
#define BP_CLI_H

#include <getopt.h>
#include <stdio.h>

/** getopt_long() value of --help, and its entry of an option table. */
#define BP_CLI_OPT_HELP 'h'
#define BP_CLI_HELP_OPTION {"help", no_argument, NULL, BP_CLI_OPT_HELP}

/** getopt_long() value of --version (above any character), and its entry
 *  of an option table. */
#define BP_CLI_OPT_VERSION 0x1ff
#define BP_CLI_VERSION_OPTION {"version", no_argument, NULL, BP_CLI_OPT_VERSION}

/** bp_cli_t.take's answer when the usage says what is wrong: an option it
 *  does not know, or a value outside a list the usage gives. */
#define BP_CLI_USAGE 1

/** A program's command line. */
typedef struct bp_cli {
        /** The program's name, the first word of its messages. */
        const char *program;
        /** Its getopt_long() table, ending with {NULL, 0, NULL, 0}; with
         *  BP_CLI_HELP_OPTION and BP_CLI_VERSION_OPTION where the program
         *  has --help and --version. */
        const struct option *options;
        /** Its short options for getopt_long() ("X:"), or NULL for none. */
        const char *short_options;
        /** Prints the usage on \p f (stdout for --help, stderr on bad
         *  input). */
        void (*usage)(FILE *f);
        /** Prints the help of --help on stdout; NULL: the usage. */
        void (*help)(void);
        /** What --version adds in parentheses ("librdkafka 2.0.2"), or
         *  NULL. */
        const char *version_detail;
        /** Takes option \p opt (its getopt_long() value) with \p value
         *  (NULL for an option without one): 0; -1 once it has said on
         *  stderr why it refuses the value; BP_CLI_USAGE to have the
         *  usage printed on stderr instead. Bad input either way: exit 2. */
        int (*take)(void *ctx, int opt, char *value);
        void *ctx;
} bp_cli_t;

/**
 * Reads the options of \p argv through \p cli (see the top of this file).
 * Returns -1 when all were taken and the program goes on; otherwise the
 * exit status the program ends with: 0 after --help or --version, 2 on
 * bad input (said on stderr).
 */
int bp_cli_parse(const bp_cli_t *cli, int argc, char **argv);

/** bp_cli_parse() for a program with nothing to free: exits with its
 *  status after --help, --version or bad input, returns otherwise. */
void bp_cli_parse_or_exit(const bp_cli_t *cli, int argc, char **argv);

/**
 * Reads \p text, the value of option \p option (as the user wrote it, such
 * as "--records") of program \p program, as a whole decimal number from
 * \p min to \p max into \p out.
 *
 * Anything else (empty, leading space or '+', other characters, out of
 * range) prints
 *   <program>: <option> "<text>": expected a whole number from <min> to <max>
 * on stderr and returns -1, leaving \p out unchanged; 0 on success.
 * \p min and \p max lie within +-2^53 (a double holds them exactly).
 */
int bp_cli_whole(const char *program, const char *option, const char *text,
                 long min, long max, long *out);

/** bp_cli_whole() into an int. */
int bp_cli_int(const char *program, const char *option, const char *text,
               int min, int max, int *out);

/**
 * The same for a decimal number such as 0.5 or -2e3 (no infinity, no NaN,
 * no hexadecimal); the message reads "expected a number from <min> to <max>".
 */
int bp_cli_decimal(const char *program, const char *option, const char *text,
                   double min, double max, double *out);

/**
 * Prints "<program> <version>" on stdout, followed by " (<detail>)" when
 * \p detail is not NULL (bp-audit names the librdkafka it runs on). The
 * version is the project's (include/bucket_priority.h, read by
 * CMakeLists.txt), the same that the plugin logs, pkg-config reports and
 * the packages carry.
 */
void bp_cli_print_version(const char *program, const char *detail);

#endif /* BP_CLI_H */
