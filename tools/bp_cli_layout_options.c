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
        default:
                return NULL;
        }
}
