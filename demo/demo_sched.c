/*
 * demo_sched.c - the strict run's scheduler figures, per-bucket partitions
 * and narration.
 */
#include "demo_sched.h"

#include <stdio.h>
#include <string.h>

#include "demo_log.h"
#include "demo_time.h"
#include "demo_view.h"

int demo_sched_figures(const demo_consumer_t *cons, int cnt,
                       demo_sched_t out[DEMO_CLASSES]) {
        demo_sched_t one[DEMO_CLASSES];
        int k, c, found = 0;

        memset(out, 0, sizeof(demo_sched_t) * DEMO_CLASSES);
        for (k = 0; k < cnt; k++) {
                int live = !atomic_load(&cons[k].dead) &&
                           !atomic_load(&cons[k].kill);
                if (demo_consumer_sched(&cons[k], one))
                        continue;
                found = 1;
                for (c = 0; c < DEMO_CLASSES; c++) {
                        out[c].delivered += one[c].delivered;
                        out[c].pauses += one[c].pauses;
                        out[c].paused_ms += one[c].paused_ms;
                        if (live) {
                                out[c].lag        = one[c].lag;
                                out[c].partitions = one[c].partitions;
                                out[c].paused     = one[c].paused;
                        }
                }
        }
        return found ? 0 : -1;
}

void demo_sched_refresh(const demo_consumer_t *cons, int cnt) {
        long start[DEMO_MAX_WORKERS];
        int64_t deadline = demo_now_us() + 1000000;
        int k, waiting = 1;

        for (k = 0; k < cnt && k < DEMO_MAX_WORKERS; k++)
                start[k] = atomic_load(&cons[k].sched_reads);
        while (waiting && demo_now_us() < deadline) {
                waiting = 0;
                for (k = 0; k < cnt && k < DEMO_MAX_WORKERS; k++)
                        if (atomic_load(&cons[k].sched_valid) &&
                            !atomic_load(&cons[k].dead) &&
                            !atomic_load(&cons[k].kill) &&
                            atomic_load(&cons[k].sched_reads) < start[k] + 2)
                                waiting = 1;
                if (waiting)
                        demo_sleep_us(20000);
        }
}

void demo_sched_partitions(const demo_consumer_t *cons, int cnt, int live,
                           int cls, long held, char *out, size_t size) {
        uint64_t assigned = atomic_load(&cons[live].assigned), seen = 0;
        uint64_t mask;
        char all[48];
        int k;

        for (k = 0; k < cnt; k++)
                seen |= atomic_load(&cons[k].seen[cls]);
        mask = assigned & seen;

        if (__builtin_popcountll(mask) >= held) {
                demo_partitions_text(mask, out, size);
                return;
        }
        demo_partitions_text(assigned, all, sizeof(all));
        snprintf(out, size, "%ld of %s", held, all);
}

void demo_sched_tell(demo_sched_story_t *s, const demo_sched_t f[DEMO_CLASSES],
                     int campaign_started, int campaign_written) {
        const demo_sched_t *b = &f[DEMO_BULK];
        char n[24];

        if (!campaign_started)
                return;
        if (!s->started) {
                s->started       = 1;
                s->pauses_then   = b->pauses;
                s->critical_then = f[DEMO_CRITICAL].delivered;
        }
        /* bucket.priority.hold=pause (or a lag threshold) pauses bulk; the
         * strict schedule's default queues it and pauses nothing. */
        if (!s->told_pause && b->pauses > s->pauses_then) {
                s->told_pause = 1;
                demo_log(DEMO_LOG_STORY,
                         "a login code arrives: bulk paused until critical's "
                         "lag is 0, then resumed");
        } else if (!s->told_pause && b->pauses == 0 && b->lag > 0 &&
                   f[DEMO_CRITICAL].delivered > s->critical_then) {
                s->told_pause = 1;
                demo_log(DEMO_LOG_STORY,
                         "a login code arrives: read ahead of the "
                         "newsletters already fetched, which wait in bulk's "
                         "own queue");
        }
        if (!s->told_written && campaign_written) {
                s->told_written = 1;
                if (b->pauses)
                        demo_log(DEMO_LOG_STORY,
                                 "between login codes it reads newsletters: "
                                 "%s so far, bulk paused %ldx (%.1f s)",
                                 demo_fmt_count(b->delivered, n, sizeof(n)),
                                 b->pauses, (double)b->paused_ms / 1000.0);
                else
                        demo_log(DEMO_LOG_STORY,
                                 "between login codes it reads newsletters: "
                                 "%s so far, bulk never paused",
                                 demo_fmt_count(b->delivered, n, sizeof(n)));
        }
}
