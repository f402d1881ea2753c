/*
 * bp_sched_measure.h - what the scheduler measures beyond the held
 * partitions' lag (bp_held.h): how full the consumer queue is, and the
 * high watermarks asked of the leaders while that queue stops librdkafka's
 * fetching (requests to the cluster).
 */
#ifndef BP_SCHED_MEASURE_H
#define BP_SCHED_MEASURE_H

#include "bp_sched_state.h"

/**
 * The consumer queue's fill in per mille of the nearer of its thresholds
 * (queued.min.messages, queued.max.messages.kbytes): 1000 means librdkafka
 * fetches nothing.
 */
int64_t bp_sched_queue_fill(bp_scheduler_t *s);

/**
 * With held->lock held: asks the leaders for the high watermarks of the
 * held partitions of every bucket but the lowest, which also wakes
 * librdkafka's fetcher. With \p note the answer counts as their high
 * watermarks (probed); without, only the fetcher is woken.
 */
void bp_sched_probe(bp_scheduler_t *s, int64_t now_ms, int note);

#endif /* BP_SCHED_MEASURE_H */
