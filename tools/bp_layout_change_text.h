/*
 * bp_layout_change_text.h - bp-layout's change plan as readable text (see
 * bp_layout_change_text.c).
 */
#ifndef BP_LAYOUT_CHANGE_TEXT_H
#define BP_LAYOUT_CHANGE_TEXT_H

#include <stdint.h>

#include "bp_change.h"
#include "bp_config.h"

/** The readable plan on stdout; \p scratch has room for every partition.
 *  The exit status (0, 1 refused, 2 out of memory). */
int bp_lc_print_text(const bp_config_t *cfg, const bp_change_plan_t *pl,
                     const char *group_id, int32_t *scratch);

#endif /* BP_LAYOUT_CHANGE_TEXT_H */
