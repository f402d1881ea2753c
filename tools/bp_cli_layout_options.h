/*
 * bp_cli_layout_options.h - the command-line options that describe a
 * bucket layout, shared by bp-layout and bp-audit: --buckets, --allocation,
 * --layout and --delimiter, and the layout a live change moves to,
 * --next-buckets, --next-allocation and --next-layout, each standing for
 * its bucket.priority.* property, so that both programs spell and map
 * them alike.
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

/** getopt_long() values of the next.* options: above any character, so
 *  that no program's one-letter option meets them. */
#define BP_CLI_OPT_NEXT_BUCKETS 0x101
#define BP_CLI_OPT_NEXT_ALLOCATION 0x102
#define BP_CLI_OPT_NEXT_LAYOUT 0x103

/**
 * The three entries for a live layout change (bucket.priority.next.*), to
 * put in a program's table beside BP_CLI_LAYOUT_OPTIONS.
 */
#define BP_CLI_NEXT_LAYOUT_OPTIONS                                          \
        {"next-buckets", required_argument, NULL, BP_CLI_OPT_NEXT_BUCKETS}, \
        {"next-allocation", required_argument, NULL,                        \
         BP_CLI_OPT_NEXT_ALLOCATION},                                       \
        {"next-layout", required_argument, NULL, BP_CLI_OPT_NEXT_LAYOUT}

/**
 * The property that the option getopt_long() returned as \p opt stands for
 * ("bucket.priority.buckets" for 'b', "bucket.priority.next.buckets" for
 * BP_CLI_OPT_NEXT_BUCKETS, ...); NULL when \p opt is not one of
 * BP_CLI_LAYOUT_OPTIONS or BP_CLI_NEXT_LAYOUT_OPTIONS.
 */
const char *bp_cli_layout_property(int opt);

#endif /* BP_CLI_LAYOUT_OPTIONS_H */
