/*
 * bp_cli_layout_options.c - which bucket.priority.* property each layout
 * option stands for (see bp_cli_layout_options.h).
 */
#include "bp_cli_layout_options.h"

#include "bp_properties.h"

const char *bp_cli_layout_property(int opt) {
        switch (opt) {
        case 'b':
                return BP_PROP_BUCKETS;
        case 'a':
                return BP_PROP_ALLOCATION;
        case 'l':
                return BP_PROP_LAYOUT;
        case 'd':
                return BP_PROP_DELIMITER;
        case BP_CLI_OPT_NEXT_BUCKETS:
                return BP_PROP_NEXT_BUCKETS;
        case BP_CLI_OPT_NEXT_ALLOCATION:
                return BP_PROP_NEXT_ALLOCATION;
        case BP_CLI_OPT_NEXT_LAYOUT:
                return BP_PROP_NEXT_LAYOUT;
        default:
                return NULL;
        }
}
