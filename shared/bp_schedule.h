/*
 * bp_schedule.h - the decisions of the scheduler of a consumer serving
 * several buckets (bucket.priority.schedule), as pure functions: no
 * librdkafka, no clock, no threads. The scheduler (assignor/scheduler/bp_sched_thread.c)
 * measures, calls these with what it measured and the time, and pauses or
 * resumes what they say. Buckets are numbered by rank: their order in the
 * consumer's bucket.priority.bucket list, rank 0 first.
 */
#ifndef BP_SCHEDULE_H
#define BP_SCHEDULE_H

#include <stdint.h>

#include "bp_limits.h"

/** A weighted bucket more than this many records ahead of its share is
 *  paused; it is resumed once back at its share. */
#define BP_SCHED_WEIGHT_SLACK 32

/** Weighted: how far (records) a bucket's credit or debt may grow: the
 *  memory of the proportion, a sliding window of about this size. */
#define BP_SCHED_WEIGHT_WINDOW 128

/** A bucket resumed as a whole starts with one partition, in turn (see
 *  bp_sched_stagger()); buckets of more partitions held than this resume
 *  the rest at once. */
#define BP_SCHED_STAGGER_MAX 1024

/** One partition the consumer holds, as the decisions see it. */
typedef struct bp_sched_part {
        int32_t partition;
        int rank;          /**< Its bucket's rank. */
        int64_t lag;       /**< Records behind the high watermark; -1:
                            *   unknown. */
        int64_t at;        /**< Position; -1: unknown. */
        int64_t since_ms;  /**< Assigned or resumed at. */
        int stale;         /**< Its watermark may predate records. */
        int paused;        /**< Paused by the scheduler. */
} bp_sched_part_t;

/** What the held partitions say of each rank. */
typedef struct bp_sched_ranks {
        int held[BP_MAX_BUCKETS];     /**< Partitions held. */
        int lagging[BP_MAX_BUCKETS];  /**< One above the threshold. */
        int unsure[BP_MAX_BUCKETS];   /**< One whose lag may be stale. */
        int has_work[BP_MAX_BUCKETS]; /**< One with lag above 0. */
} bp_sched_ranks_t;

/**
 * Summarises the \p k held partitions per rank: lagging above
 * \p threshold, with work, and unsure - paused (its watermark is not
 * refreshed), stale, or of unknown lag for less than \p grace_ms since it
 * was assigned or resumed (until then an unknown lag counts as a lag).
 */
void bp_sched_summarise(const bp_sched_part_t *parts,
                        int k,
                        int64_t threshold,
                        int64_t grace_ms,
                        int64_t now_ms,
                        bp_sched_ranks_t *rs);

/**
 * strict: \p want[r] = 1 (pause rank r) while any rank above it that holds
 * partitions lags or may lag. Ranks holding nothing are never paused and
 * block nobody.
 */
void bp_sched_decide_strict(int n, const bp_sched_ranks_t *rs, int *want);

/** The weighted schedule's memory of one rank. */
typedef struct bp_sched_share {
        double credit; /**< Records owed (+) or ahead (-). */
        int paused;    /**< Paused now (a paused rank resumes at 0). */
} bp_sched_share_t;

/**
 * weighted: the \p delivered[r] records delivered by each rank since the
 * last decision are shared out by \p allocation[r] among the active ranks
 * (holding partitions, with records waiting or delivered); a rank more
 * than BP_SCHED_WEIGHT_SLACK records ahead of its share pauses while
 * another rank has records waiting, and resumes once back at its share.
 * Ranks with nothing to deliver bank no credit; never are all paused (the
 * rank owed most runs). Updates \p share, fills \p want.
 */
void bp_sched_decide_weighted(int n,
                              const bp_sched_ranks_t *rs,
                              const double *allocation,
                              const uint64_t *delivered,
                              bp_sched_share_t *share,
                              int *want);

/**
 * weighted, holding by queue (bucket.priority.hold=queue): a rank's
 * fetched records already go ahead of every lower rank's
 * (assignor/scheduler/bp_sched_queues.c), so a rank ahead of its share is
 * held back only for a lower one: \p want[r] stays 1 only while a rank
 * below r holds partitions with records waiting. The lowest rank is then
 * never paused, and a higher rank only while it takes more than its share
 * from a lower one that has records.
 */
void bp_sched_hold_only_for_lower(int n, const bp_sched_ranks_t *rs,
                                  int *want);

/** A bucket's staggered resume in progress. */
typedef struct bp_sched_lead {
        unsigned rotation; /**< Which partition leads next. */
        int32_t lead;      /**< The partition resumed alone, or -1. */
        int64_t lead_at;   /**< Its position then. */
        int64_t since_ms;  /**< Resumed at. */
} bp_sched_lead_t;

/** bp_sched_stagger(): resume every paused partition of the rank. */
#define BP_SCHED_RESUME_ALL -1
/** bp_sched_stagger(): resume none yet (the lead's records come first). */
#define BP_SCHED_RESUME_NONE -2

/**
 * Rank \p r is to run: may its paused partitions resume now? Returns the
 * one partition to resume alone, BP_SCHED_RESUME_ALL or
 * BP_SCHED_RESUME_NONE.
 *
 * After a resume librdkafka queues each fetched partition's records one
 * partition after the other, starting mostly with the same one, and the
 * next pause drops what the application did not reach: a bucket paused
 * many times a second would progress on its first partitions only. So a
 * bucket resumed as a whole resumes one partition first, in turn (its
 * lead); the others follow once the lead delivered a record (moved from
 * lead_at), has nothing to deliver, or \p settle_ms (a fetch's answer)
 * passed.
 */
int32_t bp_sched_stagger(const bp_sched_part_t *parts,
                         int k,
                         int r,
                         int64_t settle_ms,
                         int64_t now_ms,
                         bp_sched_lead_t *lead);

/*
 * The start gate of a consumer holding by queue (bucket.priority.hold=queue):
 * a partition of a higher bucket that the consumer has just been given
 * (its first assignment, a restart, a takeover, growth, an incremental
 * assignment) *owes* its backlog until the lower buckets may go ahead of
 * it. Until its first fetch answers, nothing says whether records wait
 * there, and a lower bucket's records fetched meanwhile would reach the
 * application first. So the lower buckets' records stay in their queues
 * (fetched, nothing dropped) while a higher partition owes:
 *   - until its high watermark is known (its first fetch answered);
 *   - strict: then until the application was handed every record up to
 *     that first high watermark (its backlog when it was given to this
 *     consumer); weighted: no longer (its share then holds it);
 *   - never longer than \p grace_ms without progress (no answer, or a
 *     position that does not move: a leader away, a partition the
 *     application paused), so that a lower bucket is never held for good.
 */

/** bp_sched_gate_owed()'s \p owed_to once the partition owes nothing. */
#define BP_SCHED_OWES_NOTHING (-2)

/** Where a partition stands at the gate, kept between decisions. */
typedef struct bp_sched_owed {
        int64_t owed_to; /**< -1: its backlog's end not known yet; >= 0:
                          *   the offset to be handed out up to;
                          *   BP_SCHED_OWES_NOTHING. */
        int64_t at;      /**< Position at its last progress (-1: none). */
        int64_t since_ms; /**< Of its last progress (or its assignment). */
} bp_sched_owed_t;

/**
 * One decision for one partition of a higher bucket at \p now_ms: \p hwm
 * its high watermark (-1: unknown), \p at the application's position
 * there (or where it starts; -1: unknown), \p strict the schedule.
 * Updates \p o; returns 1 while it owes (lower buckets wait), else 0.
 */
int bp_sched_gate_owed(bp_sched_owed_t *o, int64_t hwm, int64_t at,
                       int strict, int64_t grace_ms, int64_t now_ms);

/*
 * The stall watch of weighted holding by queue (assignor/scheduler/
 * bp_sched_kick.c): a higher-bucket partition that runs (the scheduler
 * does not pause it), has records to read (lag above 0) and none of whose
 * bucket waits in the bucket's queue, whose position stands still for
 * wait_ms while the application takes at least BP_SCHED_STALL_TAKEN
 * records, is started again. Each start that does not move it doubles the
 * wait, from BP_SCHED_STALL_MS up to BP_SCHED_STALL_MAX_MS, so that a fetch
 * slower than the wait is never cut off for good; progress resets it.
 */
#define BP_SCHED_STALL_MS 50
#define BP_SCHED_STALL_MAX_MS 1600
#define BP_SCHED_STALL_TAKEN 100

/** One partition's stall watch, kept between decisions (zeroed: none). */
typedef struct bp_sched_stall {
        int64_t at;       /**< Position last seen (-1: none yet). */
        int64_t since_ms; /**< When it was last seen to move (or reset). */
        int64_t wait_ms;  /**< Standing still this long means stalled. */
        uint64_t taken;   /**< Records the application had taken then. */
} bp_sched_stall_t;

/**
 * One decision at \p now_ms for a partition at position \p at (-1:
 * unknown) with lag \p lag, \p running unless the scheduler paused it,
 * \p waiting when records of its bucket wait in the bucket's queue,
 * \p taken the records the application took so far. Updates \p st;
 * returns 1 when it is to be started again now (from \p at).
 */
int bp_sched_stalled(bp_sched_stall_t *st, int64_t at, int64_t lag,
                     int running, int waiting, uint64_t taken,
                     int64_t now_ms);

#endif /* BP_SCHEDULE_H */
