/*
 * bp_layout_change.c - bp-layout's plan of a live layout change (see
 * bp_layout_change.h): computes the plan and hands it to the text
 * (bp_layout_change_text.c) or JSON (bp_layout_change_json.c) printer.
 */
#include "bp_layout_change.h"

#include <stdio.h>
#include <stdlib.h>

#include "bp_change.h"
#include "bp_layout_change_json.h"
#include "bp_layout_change_text.h"

int bp_layout_change_print(const bp_config_t *cfg, int32_t partition_cnt,
                           const char *group_id, int json) {
        char err[512];
        bp_change_plan_t *pl =
            bp_change_plan_new(cfg, partition_cnt, err, sizeof(err));
        int32_t *scratch;
        int rc;

        if (!pl) {
                fprintf(stderr, "bp-layout: %s\n", err);
                return 2;
        }
        scratch = malloc(sizeof(*scratch) * (size_t)partition_cnt);
        if (!scratch) {
                fprintf(stderr, "bp-layout: out of memory\n");
                bp_change_plan_destroy(pl);
                return 2;
        }
        rc = json ? bp_lc_print_json(cfg, pl, group_id, scratch)
                  : bp_lc_print_text(cfg, pl, group_id, scratch);
        free(scratch);
        bp_change_plan_destroy(pl);
        return rc;
}
