/*
 * bp_sched_queues.h - the strict schedule holding lower buckets back
 * without dropping what librdkafka fetched (bucket.priority.hold=queue).
 *
 * librdkafka puts each partition's fetched records on the partition's
 * fetch queue, which forwards to the consumer queue that
 * rd_kafka_consumer_poll() serves. Here each held partition's fetch queue
 * forwards instead to a queue of its bucket:
 *
 *   partition fetch queues ──▶ rank 0 queue ─┐ (moved in by a splice)
 *                          ──▶ rank 1 queue ─┤
 *                          ──▶ lowest rank ──┴──▶ consumer queue ──▶ poll
 *                                  (flows in continuously)
 *
 * The lowest bucket's queue forwards into the consumer queue all the time.
 * A higher bucket's records enter the consumer queue only by a *splice*,
 * which puts them at its front: the lowest queue stops forwarding, the
 * consumer queue's content moves aside into a holding queue, the higher
 * queues' records move into the emptied consumer queue (highest first),
 * the held records follow, and the lowest queue forwards again. Every
 * move is rd_kafka_queue_forward(), which appends a queue's whole content
 * to another, in order, and drops nothing.
 *
 * When a splice may run, so that no partition's records are delivered out
 * of order: the consumer queue then holds records of this rank and above
 * only at its front, in rank order, so while the application takes a
 * record of rank k, every record still queued is of rank k or lower
 * priority; splicing the ranks above k then puts nothing of theirs behind
 * a record of their own. So:
 *   - on_consume, on the application's thread (bp_sched_queues_taken()):
 *     the record taken is of rank k, and ranks above k have records
 *     waiting: they are spliced in front;
 *   - the scheduler thread (bp_sched_queues_tick()): when the consumer
 *     queue is empty (the application waits in poll), waiting records of
 *     the higher ranks are appended, which is the front too.
 * The splice redirects the consumer queue for a moment, so it runs only
 * on the application's thread inside poll: rd_kafka_consumer_close()
 * redirects that queue too, and is called by that thread, not during its
 * poll. The scheduler thread only appends.
 *
 * librdkafka facts this stands on (its source, 2.0.2 to 2.15):
 *   - a forward set by the application (rd_kafka_queue_forward() on a
 *     partition's queue) is kept when the partition's fetch starts, and
 *     cleared when its fetch stops (a revocation): the held partitions
 *     are routed again before each assignment and, for a few seconds after
 *     one, at every decision (a stop that lands late would otherwise leave
 *     the partition's records on its own queue);
 *   - a record of a partition revoked since it was fetched is dropped by
 *     poll (its version barrier), wherever it waited.
 */
#ifndef BP_SCHED_QUEUES_H
#define BP_SCHED_QUEUES_H

#include "bp_sched_state.h"

/** With held->lock held, at the first assignment (the consumer queue
 *  exists from then on): sets up the bucket queues of scheduler \p s.
 *  Returns 0, or -1 when librdkafka cannot give them (then the schedule
 *  holds by pause). */
int bp_sched_queues_start(bp_scheduler_t *s);

/** With held->lock held: forwards each held partition's fetch queue to
 *  its bucket's queue; before an assignment (\p assigning: also opens the
 *  window in which decisions route again) and while that window lasts. */
void bp_sched_queues_route(bp_scheduler_t *s, int assigning);

/** on_consume, the application took a record of rank \p rank: splices
 *  the waiting records of the ranks above it in front. */
void bp_sched_queues_taken(bp_scheduler_t *s, int rank);

/** The scheduler thread, with held->lock held: routes again in the window
 *  after an assignment, and appends the higher ranks' waiting records to
 *  an empty consumer queue. */
void bp_sched_queues_tick(bp_scheduler_t *s);

/** Records waiting in the queue of rank \p rank (not yet in the consumer
 *  queue). */
int64_t bp_sched_queues_waiting(bp_scheduler_t *s, int rank);

/** Stops forwarding and releases the queues (on_destroy). */
void bp_sched_queues_end(bp_scheduler_t *s);

#endif /* BP_SCHED_QUEUES_H */
