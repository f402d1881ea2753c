/*
 * bp_change_steps.h - what the clients of a live layout change use once a
 * step is rolled, as the operators' tools (bp-layout, bp-audit) show it:
 * the layout producers write with and the one consumers read, with the
 * configuration whose bucket names index it, so that fingerprints come
 * out as the plugin logs them (plugin/bp_client_layout.c): a client on
 * next.step K fingerprints bp_change_route_layout() or
 * bp_change_read_layout() with its current configuration; a client given
 * the next values as its main properties fingerprints the next layout.
 */
#ifndef BP_CHANGE_STEPS_H
#define BP_CHANGE_STEPS_H

#include "bp_change.h"

/** A layout a kind of client uses, and the names of its buckets. */
typedef struct bp_step_layout {
        bp_layout_t *layout;     /**< Owned; NULL when out of memory. */
        const bp_config_t *cfg;  /**< Bucket names (not owned). */
        int main_properties;     /**< 1: clients set the next values as
                                  *   their main properties (no next.*). */
        char fingerprint[9];     /**< bp_layout_fingerprint() of it. */
} bp_step_layout_t;

/** The last step producers (BP_STEP_PRODUCERS) or consumers roll. */
int bp_change_last_step(const bp_change_plan_t *plan, bp_step_kind_t kind);

/**
 * The layout producers write with once step \p step (1..step_cnt) is
 * rolled: bp_change_route_layout() on \p cfg (the current configuration,
 * whose plan it is), or the next layout from the last producer step on.
 * Returns 0, or -1 when out of memory.
 */
int bp_change_step_writes(const bp_change_plan_t *plan,
                          const bp_config_t *cfg,
                          int step,
                          bp_step_layout_t *out);

/**
 * The layout consumers read once step \p step is rolled: the current
 * layout before the first consumer step, bp_change_read_layout() on
 * \p cfg, or, from the last consumer step on, the next layout (as
 * consumers given the next values as main properties read it). With
 * \p via_step set, from the last consumer step on the layout is the one a
 * consumer still on next.step computes (the same partitions; its
 * fingerprint differs when the change adds, removes or reorders buckets).
 * Returns 0, or -1 when out of memory.
 */
int bp_change_step_reads(const bp_change_plan_t *plan,
                         const bp_config_t *cfg,
                         int step,
                         int via_step,
                         bp_step_layout_t *out);

/** Frees what \p l holds. */
void bp_step_layout_clear(bp_step_layout_t *l);

/** The next consumer step at or after \p step; 0 when none is left. */
int bp_change_next_consumer_step(const bp_change_plan_t *plan, int step);

#endif /* BP_CHANGE_STEPS_H */
