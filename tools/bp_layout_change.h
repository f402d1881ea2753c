/*
 * bp_layout_change.h - bp-layout's plan of a live layout change
 * (--next-buckets, --next-allocation, --next-layout with --partitions):
 * the current and next layout with their fingerprints, the partitions that
 * move, and each step with who rolls, what to set, who writes and reads
 * where, and what must be drained first (and the bp-audit command that
 * says so).
 */
#ifndef BP_LAYOUT_CHANGE_H
#define BP_LAYOUT_CHANGE_H

#include <stdint.h>

#include "bp_config.h"

/**
 * Prints the plan of the change \p cfg describes (cfg->next.set) at
 * \p partition_cnt partitions on stdout, as text or (\p json) one JSON
 * document. \p group_id names the bucket groups that drain
 * ("<group_id>.<bucket>"); NULL writes "<group>.<bucket>". Returns the
 * exit status: 0, 1 when the plan is refused (the reason printed), 2 when
 * no plan can be computed (the reason on stderr).
 */
int bp_layout_change_print(const bp_config_t *cfg, int32_t partition_cnt,
                           const char *group_id, int json);

#endif /* BP_LAYOUT_CHANGE_H */
