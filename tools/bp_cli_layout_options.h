/*
 * bp_cli_layout_options.h - the four command-line options that describe a
 * bucket layout, shared by bp-layout and bp-audit: --buckets, --allocation,
 * --layout and --delimiter, each standing for its bucket.priority.*
 * property, so that both programs spell and map them alike.
 */
#ifndef BP_CLI_LAYOUT_OPTIONS_H
#define BP_CLI_LAYOUT_OPTIONS_H

#include <getopt.h>
#include <stddef.h>

/**
 * The four entries of a getopt_long() option table, to put in a program's
 * own table. getopt_long() returns 'b', 'a', 'l' and 'd' for them: a
 * program using these must not give those values to options of its own.
 */
#define BP_CLI_LAYOUT_OPTIONS                                   \
        {"buckets", required_argument, NULL, 'b'},              \
        {"allocation", required_argument, NULL, 'a'},           \
        {"layout", required_argument, NULL, 'l'},               \
        {"delimiter", required_argument, NULL, 'd'}

/**
 * The property that the option getopt_long() returned as \p opt stands for
 * ("bucket.priority.buckets" for 'b', ...); NULL when \p opt is not one of
 * BP_CLI_LAYOUT_OPTIONS.
 */
const char *bp_cli_layout_property(int opt);

#endif /* BP_CLI_LAYOUT_OPTIONS_H */
