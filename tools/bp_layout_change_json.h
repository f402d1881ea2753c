/*
 * bp_layout_change_json.h - bp-layout's change plan as one JSON document
 * (see bp_layout_change_json.c).
 */
#ifndef BP_LAYOUT_CHANGE_JSON_H
#define BP_LAYOUT_CHANGE_JSON_H

#include <stdint.h>

#include "bp_change.h"
#include "bp_config.h"

/** The JSON plan on stdout; \p scratch has room for every partition.
 *  The exit status as bp_lc_print_text(). */
int bp_lc_print_json(const bp_config_t *cfg, const bp_change_plan_t *pl,
                     const char *group_id, int32_t *scratch);

#endif /* BP_LAYOUT_CHANGE_JSON_H */
