/*
 * bp_sched_pause.h - the glue between the scheduler's decisions
 * (shared/bp_schedule.h: which ranks may deliver now, strict or weighted,
 * and how a paused bucket resumes) and librdkafka's pause and resume of
 * the held partitions; and each bucket's pause statistics.
 */
#ifndef BP_SCHED_PAUSE_H
#define BP_SCHED_PAUSE_H

#include "bp_sched_state.h"

/** With held->lock held: one decision over the held partitions (measure,
 *  decide, pause and resume), or, with none held, every bucket running. */
void bp_sched_evaluate(bp_scheduler_t *s);

/** With held->lock held: whether bucket \p b is paused now, how many times
 *  it was, and for how long in all (ms) at \p now_ms. */
void bp_sched_bucket_pauses(const bp_scheduler_t *s,
                            int b,
                            int64_t now_ms,
                            int *paused,
                            uint64_t *pauses,
                            uint64_t *paused_ms);

#endif /* BP_SCHED_PAUSE_H */
