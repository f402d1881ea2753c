/*
 * bp_cli_number.h - checked numbers for the options of the command-line
 * programs (bp-audit, the benchmarks): a value that is not a number in its
 * range is refused with one line naming the program, the option and the
 * value, so that no program parses numbers its own way.
 */
#ifndef BP_CLI_NUMBER_H
#define BP_CLI_NUMBER_H

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

/**
 * The same for a decimal number such as 0.5 or -2e3 (no infinity, no NaN,
 * no hexadecimal); the message reads "expected a number from <min> to <max>".
 */
int bp_cli_decimal(const char *program, const char *option, const char *text,
                   double min, double max, double *out);

#endif /* BP_CLI_NUMBER_H */
