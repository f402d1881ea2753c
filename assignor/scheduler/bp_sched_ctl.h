/*
 * bp_sched_ctl.h - thread control of the scheduler: waking it, stopping
 * it, and the gate every pause, resume or request to the cluster passes,
 * so that none starts once the client is stopping.
 */
#ifndef BP_SCHED_CTL_H
#define BP_SCHED_CTL_H

#include "bp_sched_state.h"

/** Has the scheduler thread decide now. */
void bp_sched_wake(bp_scheduler_t *s);

/** Before a pause, resume or request: 1 if it may run (end it with
 *  bp_sched_op_end()), 0 once the client is stopping or the consumer
 *  closed. */
int bp_sched_op_begin(bp_scheduler_t *s);

/** After an operation bp_sched_op_begin() let through. */
void bp_sched_op_end(bp_scheduler_t *s);

/**
 * Stops the thread (on_destroy). Returns -1 when an operation was still in
 * flight after a wait: the thread is then left behind, detached, and the
 * state must be kept.
 */
int bp_sched_stop(bp_scheduler_t *s);

#endif /* BP_SCHED_CTL_H */
