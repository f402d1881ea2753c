/*
 * bp_layout_change_plan.h - what bp-layout's change plan printers (text in
 * bp_layout_change_text.c, JSON in bp_layout_change_json.c) share: the
 * properties of a step, the bp-audit command that checks a drain, the
 * partitions to drain grouped by old reader, and partition lists as
 * ranges (bp_layout_cli.c prints layouts with them too).
 */
#ifndef BP_LAYOUT_CHANGE_PLAN_H
#define BP_LAYOUT_CHANGE_PLAN_H

#include <stdint.h>
#include <stdio.h>

#include "bp_change.h"
#include "bp_change_steps.h"
#include "bp_config.h"
#include "bp_layout.h"

/* A list value: every bucket's name or allocation, ", " between. */
#define LIST_SIZE (BP_MAX_BUCKETS * (BP_MAX_NAME_LEN + 2) + 1)
#define JSON_SIZE (6 * LIST_SIZE + 1)
/* Most properties a step sets. */
#define MAX_PROPS 4
/* Room for the bp-audit command of a step. */
#define COMMAND_SIZE (4 * LIST_SIZE + 128)

typedef struct prop {
        const char *name;
        char value[LIST_SIZE];
} prop_t;

/** "contiguous" or "stable". */
const char *bp_lc_layout_name(bp_layout_kind_t k);

/** Prints p[0..n-1] as ranges ("0-3,8,10-11"), or "(none)". */
void bp_lc_print_list(FILE *f, const int32_t *p, int32_t n);

/** Prints bucket \p b's partitions of \p l as ranges ("0-3,8,10-11"), or
 *  "(none)". */
void bp_layout_print_ranges(FILE *f, const bp_layout_t *l, int b);

/** "critical, bulk" (names) or "50%, 50%" (\p allocations) of \p c. */
void bp_lc_list_value(char *buf, size_t size, const bp_config_t *c,
                      int allocations);

/** 1 when \p step is the last of its kind: its clients take the next
 *  values as their main properties. */
int bp_lc_is_final(const bp_change_plan_t *pl, int step);

/** 1 at the last consumer step of a change that removes a bucket: the
 *  consumers keep the next.* lines with next.step there, since a consumer
 *  takes the removed bucket's partitions over from its group only while
 *  its properties name that bucket. */
int bp_lc_stays_on_step(const bp_config_t *cfg, const bp_change_plan_t *pl,
                        int step);

/** The properties clients set at \p step (the next.* ones given and
 *  next.step; at a last step the next values as main properties, unless
 *  \p via_step or bp_lc_stays_on_step()); returns how many (at most MAX_PROPS). */
int bp_lc_step_properties(const bp_config_t *cfg, const bp_change_plan_t *pl,
                          int step, int via_step, prop_t *out);

/** The bp-audit command that says whether consumer step \p step may
 *  start, into \p buf. */
void bp_lc_audit_command(char *buf, size_t size, const bp_config_t *cfg,
                         const bp_change_plan_t *pl, int step);

/** The partitions of \p l no bucket holds, into \p out; how many. */
int32_t bp_lc_unheld(const bp_layout_t *l, int32_t *out);

/** Calls \p fn once per old reader of the partitions to drain before
 *  consumer step \p step (marked in \p drain): its bucket's name, its
 *  partitions, and 1 for the first call. \p scratch has room for every
 *  partition. */
void bp_lc_each_drain_group(const bp_config_t *cfg, const bp_change_plan_t *pl,
                            int step, const uint8_t *drain, int32_t *scratch,
                            void (*fn)(void *ctx, const char *bucket,
                                       const int32_t *parts, int32_t n,
                                       int first),
                            void *ctx);

#endif /* BP_LAYOUT_CHANGE_PLAN_H */
