/*
 * demo_run_story.c - the story told while a run measures: the intro, the
 * campaign, login codes waiting behind it and flowing again (each told
 * once), and the strict run's scheduler story.
 */
#include "demo_run_story.h"

#include <string.h>

#include "demo_log.h"
#include "demo_run_frame.h"
#include "demo_time.h"

void demo_run_tell_intro(demo_run_state_t *r) {
        if (r->mode == DEMO_MODE_STRICT) {
                demo_log(DEMO_LOG_STORY,
                         "same load, %d worker instead of %d: one consumer "
                         "serves both buckets",
                         r->cons_cnt, demo_scenario_consumers(r->sc));
                demo_log(DEMO_LOG_STORY,
                         "strict: bulk is served only while no login code "
                         "waits");
        } else if (r->setup.buckets)
                demo_log(DEMO_LOG_STORY,
                         "same load, same %d workers; every client loads "
                         "the plugin",
                         r->cons_cnt);
        else
                demo_log(DEMO_LOG_STORY,
                         "the notification service as it was: one topic, "
                         "one group");
        demo_log(DEMO_LOG_STORY,
                 "09:00 users log in: %.0f one-time passcodes a second "
                 "(critical-<id>)",
                 r->sc->critical_rate);
}

void demo_run_tell_timeline(demo_run_state_t *r, double t) {
        const demo_scenario_t *sc = r->sc;
        double oldest = demo_stats_oldest_ms(r->st, DEMO_CRITICAL,
                                             demo_now_us());
        char n[24];

        if (!r->told_campaign && t >= sc->campaign_start_s) {
                r->told_campaign = 1;
                demo_log(DEMO_LOG_STORY,
                         "campaign starts: %s newsletters (bulk-<id>), "
                         "%.0f/s",
                         demo_fmt_count(sc->bulk_total, n, sizeof(n)),
                         sc->bulk_rate);
        }
        if (!r->told_sent && atomic_load(&r->prod[DEMO_BULK].sending_done)) {
                r->told_sent = 1;
                demo_log(DEMO_LOG_STORY,
                         "campaign written in %.1f s; %d worker%s handle%s "
                         "at most %.0f records/s",
                         (double)(r->prod[DEMO_BULK].done_us - r->t0) / 1e6 -
                             sc->campaign_start_s,
                         r->cons_cnt, r->cons_cnt == 1 ? "" : "s",
                         r->cons_cnt == 1 ? "s" : "",
                         1e6 / (double)sc->cost_us * r->cons_cnt);
        }
        if (r->mode == DEMO_MODE_STRICT) {
                demo_sched_t f[DEMO_CLASSES];
                if (!demo_sched_figures(r->cons, r->cons_cnt, f))
                        demo_sched_tell(&r->sched_story, f,
                                        r->told_campaign, r->told_sent);
        }
        if (t < sc->campaign_start_s)
                return;
        if (!r->told_stuck1 && oldest > 1000) {
                char parts[48];
                int live;
                r->told_stuck1 = 1;
                demo_run_class_assignment(r, DEMO_CRITICAL, parts,
                                          sizeof(parts), &live);
                if (!strcmp(parts, "-"))
                        demo_log(DEMO_LOG_STORY,
                                 "login codes wait: no worker holds their "
                                 "partitions; oldest 1 s");
                else
                        demo_log(DEMO_LOG_STORY,
                                 "login codes wait behind newsletters: "
                                 "oldest 1 s");
        }
        if (!r->told_stuck5 && oldest > 5000) {
                r->told_stuck5 = 1;
                demo_log(DEMO_LOG_STORY,
                         "5 s: users ask for a new code; it queues too");
        }
        if (r->told_stuck1 && !r->told_flow && oldest < 200) {
                r->told_flow = 1;
                demo_log(DEMO_LOG_STORY,
                         "the backlog is gone: login codes flow again");
        }
}
