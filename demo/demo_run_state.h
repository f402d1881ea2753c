/*
 * demo_run_state.h - the state of one run, shared by the files that make
 * it up: demo_run.c (the phases), demo_run_setup.c (set-up and
 * tear-down), demo_run_frame.c (the live view's frames),
 * demo_run_story.c (the narration) and demo_run_steps.c (the --brokers
 * steps). Not for use outside the run.
 */
#ifndef DEMO_RUN_STATE_H
#define DEMO_RUN_STATE_H

#include <stdatomic.h>
#include <stdint.h>

#include "demo_cluster.h"
#include "demo_consumer.h"
#include "demo_options.h"
#include "demo_plugin.h"
#include "demo_producer.h"
#include "demo_result.h"
#include "demo_sched.h"
#include "demo_stats.h"
#include "demo_view.h"

typedef struct demo_run_state {
        const demo_options_t *o;
        const demo_scenario_t *sc;
        demo_mode_t mode;
        const demo_plugin_t *pl;
        demo_view_t *v;
        demo_result_t *res;
        demo_stats_t *st;
        demo_setup_t setup;
        demo_cluster_t cluster;
        int cluster_up, topic_made;
        demo_producer_t prod[DEMO_CLASSES];
        demo_consumer_t cons[DEMO_MAX_WORKERS];
        int cons_cnt;
        atomic_llong cost_us;
        int64_t t0;
        int run_no, run_cnt;
        int partitions;
        /* story state */
        int told_campaign, told_sent, told_stuck1, told_stuck5, told_flow;
        int grown, killed;
        char shown_parts[DEMO_CLASSES][48];
        char shown_union[48];         /* strict: the worker's partitions */
        demo_sched_story_t sched_story;
} demo_run_state_t;

#endif /* DEMO_RUN_STATE_H */
