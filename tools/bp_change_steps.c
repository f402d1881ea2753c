/*
 * bp_change_steps.c - the layouts producers and consumers use once a step
 * of a live layout change is rolled (see bp_change_steps.h).
 */
#include "bp_change_steps.h"

#include <string.h>

int bp_change_last_step(const bp_change_plan_t *plan, bp_step_kind_t kind) {
        return kind == BP_STEP_PRODUCERS ? plan->step_cnt : plan->step_cnt - 1;
}

/* The next layout, as a client with the next values as main properties
 * computes it. */
static int next_layout(const bp_change_plan_t *plan, bp_step_layout_t *out) {
        char err[256];
        out->layout = bp_layout_compute(&plan->next, plan->partition_cnt, err,
                                        sizeof(err));
        out->cfg             = &plan->next;
        out->main_properties = 1;
        return out->layout ? 0 : -1;
}

static int finish(bp_step_layout_t *out) {
        if (!out->layout)
                return -1;
        bp_layout_fingerprint(out->layout, out->cfg, out->fingerprint);
        return 0;
}

int bp_change_step_writes(const bp_change_plan_t *plan,
                          const bp_config_t *cfg,
                          int step,
                          bp_step_layout_t *out) {
        memset(out, 0, sizeof(*out));
        if (step >= bp_change_last_step(plan, BP_STEP_PRODUCERS) &&
            !plan->refused[0]) {
                next_layout(plan, out);
                return finish(out);
        }
        out->layout = bp_change_route_layout(plan, step);
        out->cfg    = cfg;
        return finish(out);
}

int bp_change_step_reads(const bp_change_plan_t *plan,
                         const bp_config_t *cfg,
                         int step,
                         int via_step,
                         bp_step_layout_t *out) {
        memset(out, 0, sizeof(*out));
        if (plan->refused[0])
                step = 1; /* consumers stay on the current layout */
        if (step >= bp_change_last_step(plan, BP_STEP_CONSUMERS) &&
            !via_step) {
                next_layout(plan, out);
                return finish(out);
        }
        out->layout = bp_change_read_layout(plan, step);
        out->cfg    = cfg;
        return finish(out);
}

void bp_step_layout_clear(bp_step_layout_t *l) {
        bp_layout_destroy(l->layout);
        memset(l, 0, sizeof(*l));
}

int bp_change_next_consumer_step(const bp_change_plan_t *plan, int step) {
        int s;
        for (s = step < 1 ? 1 : step; s <= plan->step_cnt; s++)
                if (bp_change_step_kind(plan, s) == BP_STEP_CONSUMERS)
                        return s;
        return 0;
}
