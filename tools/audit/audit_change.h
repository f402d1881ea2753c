/*
 * audit_change.h - bp-audit during a live layout change (the properties
 * carry bucket.priority.next.*): the step given by next.step, whether the
 * next consumer step may start (the partitions it hands over drained by
 * their old readers: commit at the end, end not moving), records that
 * the step's routing does not put where they were found (and which layout
 * they fit), groups committing outside what their bucket reads at the
 * step, and the fingerprints producers and consumers should log.
 */
#ifndef AUDIT_CHANGE_H
#define AUDIT_CHANGE_H

#include <stdint.h>

#include "audit_model.h"
#include "bp_change_steps.h"

/** Which layout misplaced records fit. */
typedef enum {
        AUDIT_FIT_NEXT = 0, /**< The next layout's owner of the partition. */
        AUDIT_FIT_CURRENT,  /**< The current layout's, past its group's
                             *   commit. */
        AUDIT_FIT_NONE,     /**< Neither. */
        AUDIT_FIT__CNT
} audit_fit_t;

/** Per partition, what the change check found. */
typedef struct audit_change_part {
        int drain;          /**< 1: to drain before check_step. */
        int drain_group;    /**< Audit group of the old reader, -1. */
        int64_t commit;     /**< Its commit (the later read), -1 none. */
        int64_t high_end;   /**< End offset at the end of the audit, -1. */
        int drained;        /**< Verdict for a partition to drain. */
        int64_t misplaced[AUDIT_FIT__CNT];
        char sample[AUDIT_SAMPLE_SIZE]; /**< A misplaced key, escaped. */
        const char *writer_now, *writer_prev; /**< Bucket names or NULL. */
        const char *reader_now, *reader_prev;
} audit_change_part_t;

typedef struct audit_change {
        bp_change_plan_t *plan;
        int step;       /**< bucket.priority.next.step */
        int check_step; /**< The next consumer step at or after it; 0. */
        bp_step_layout_t writes, reads; /**< At step: fingerprints. */
        bp_layout_t *read_layout; /**< At step, in the current bucket
                                   *   indexes (ownership is judged by it) */
        audit_change_part_t *parts;
        int64_t *committed_end; /**< group_cnt x partitions, -1 none; NULL
                                 *   until read. */
        int drain_cnt, not_drained, waiting;
} audit_change_t;

/**
 * Plans the change \p a's configuration describes at its partition count
 * and attaches it (a->change). 0 when the configuration has none (nothing
 * attached) or on success; -1 with \p err when no plan can be computed.
 */
int audit_change_init(audit_t *a, char *err, size_t err_size);

/** Judges one sampled record of partition \p p at \p offset (call after
 *  the groups' commits were read). */
void audit_change_count_key(audit_t *a, int32_t p, int64_t offset,
                            const void *key, size_t keylen);

/** Room for the second read of every group's commits (a->change's
 *  committed_end). 0, or -1 when out of memory. */
int audit_change_alloc_commits(audit_t *a);

/** Adds the change findings: drained or waiting, misplaced records,
 *  groups reading with another layout. Call once everything was read. */
void audit_change_judge(audit_t *a);

/** Frees a->change (if any, even one audit_change_init() failed to
 *  complete); call it before audit_destroy(). */
void audit_change_destroy(audit_t *a);

#endif /* AUDIT_CHANGE_H */
