/*
 * demo_sched.h - the strict run's scheduler as the demo shows it: the
 * plugin's per-bucket figures (bp_consumer_bucket_stats) summed over the
 * worker and its restarts, the partitions each bucket holds as the worker
 * saw them, and the narration of what "strict" does while it happens.
 */
#ifndef DEMO_SCHED_H
#define DEMO_SCHED_H

#include <stddef.h>

#include "demo_consumer.h"
#include "demo_stats.h"

/** What the story already told about the scheduler. */
typedef struct demo_sched_story {
        int started;       /* the campaign had started at the last call */
        long pauses_then;  /* bulk pauses when it started */
        long critical_then; /* critical records delivered when it started */
        int told_pause, told_written;
} demo_sched_story_t;

/**
 * The figures of the \p cnt workers in \p cons that serve several buckets:
 * delivered records, pauses and paused time summed (a restarted worker
 * starts from zero), lag, partitions and the paused state of the live one.
 * @returns 0, or -1 when none has figures yet.
 */
int demo_sched_figures(const demo_consumer_t *cons, int cnt,
                       demo_sched_t out[DEMO_CLASSES]);

/**
 * Waits (at most a second) until every live worker of \p cons serving
 * several buckets has read its figures twice more, so that they are no
 * older than this call (a worker reads them every 200 ms).
 */
void demo_sched_refresh(const demo_consumer_t *cons, int cnt);

/**
 * The partitions of class \p cls held by the live worker of \p cons
 * serving several buckets: its assignment restricted to the partitions
 * that delivered records of the class to any of the \p cnt workers, as
 * "6,7"; or "<n> of <assignment>" while some of the \p held partitions the
 * scheduler counts have delivered nothing yet.
 */
void demo_sched_partitions(const demo_consumer_t *cons, int cnt, int live,
                           int cls, long held, char *out, size_t size);

/**
 * Narrates the scheduler from figures \p f: once the campaign has started
 * (\p campaign_started), the first pause of bulk for a waiting login code;
 * once it is written (\p campaign_written), how much bulk was read between
 * login codes.
 */
void demo_sched_tell(demo_sched_story_t *s, const demo_sched_t f[DEMO_CLASSES],
                     int campaign_started, int campaign_written);

#endif /* DEMO_SCHED_H */
