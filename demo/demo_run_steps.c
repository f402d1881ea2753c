/*
 * demo_run_steps.c - the operator's steps of a run on a real cluster
 * (--brokers): the topic grows (CreatePartitions), then a worker crashes
 * without leaving its group; both narrated.
 */
#include "demo_run_steps.h"

#include "demo_log.h"
#include "demo_run_setup.h"

void demo_run_broker_steps(demo_run_state_t *r, double t) {
        const demo_scenario_t *sc = r->sc;
        char err[512];
        int k;

        if (!r->o->brokers)
                return;
        if (!r->grown && t >= sc->grow_at_s) {
                r->grown = 1;
                demo_log(DEMO_LOG_STEP,
                         "operator adds partitions: %d -> %d "
                         "(CreatePartitions)",
                         r->partitions, sc->grow_to);
                if (demo_cluster_add_partitions(&r->cluster, r->setup.topic,
                                                sc->grow_to, err,
                                                sizeof(err)))
                        demo_log(DEMO_LOG_WARN, "adding partitions failed: %s",
                                 err);
                else {
                        r->partitions = sc->grow_to;
                        demo_log(DEMO_LOG_STEP,
                                 "%d partitions; clients see them within "
                                 "5 s%s",
                                 r->partitions,
                                 r->setup.buckets ? ", buckets recomputed"
                                                  : "");
                }
        }
        if (!r->killed && t >= sc->kill_at_s) {
                r->killed = 1;
                /* a bulk worker in the shared and buckets runs; the only
                 * one in the strict run */
                k = r->cons_cnt - 1;
                demo_log(DEMO_LOG_STEP,
                         "worker %d (%s) crashes: no LeaveGroup, no commit",
                         k, r->cons[k].bucket ? r->cons[k].bucket : "shared");
                demo_consumer_kill(&r->cons[k]);
                r->res->crashed = 1;
                if (r->mode != DEMO_MODE_STRICT) {
                        demo_log(DEMO_LOG_STEP, "its partitions wait for "
                                                "session.timeout.ms=6000");
                        return;
                }
                /* Nobody else reads the topic: its supervisor starts a
                 * new one, which waits for the old one's session too. */
                if (demo_run_add_worker(r, err, sizeof(err)))
                        demo_log(DEMO_LOG_WARN, "restarting it failed: %s",
                                 err);
                else
                        demo_log(DEMO_LOG_STEP,
                                 "no other worker: its supervisor starts "
                                 "worker %d; the group waits for the dead "
                                 "one's session.timeout.ms=6000",
                                 r->cons_cnt - 1);
        }
}
