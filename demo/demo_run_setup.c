/*
 * demo_run_setup.c - setting a run up and tearing it down: topic and
 * group names, the cluster and the topic, the workers (one group; one
 * group per bucket; or one worker serving both buckets), the producers.
 */
#include "demo_run_setup.h"

#include <stdio.h>
#include <string.h>

static int create_producers(demo_run_state_t *r, char *err,
                            size_t err_size) {
        int c;
        for (c = 0; c < DEMO_CLASSES; c++) {
                r->prod[c].cls = (demo_class_t)c;
                r->prod[c].st  = r->st;
                if (demo_producer_create(&r->prod[c], &r->setup, err,
                                         err_size))
                        return -1;
        }
        return 0;
}

int demo_run_add_worker(demo_run_state_t *r, char *err, size_t err_size) {
        demo_consumer_t *c;
        int k = r->cons_cnt;

        if (k >= DEMO_MAX_WORKERS) {
                snprintf(err, err_size, "too many workers");
                return -1;
        }
        c = &r->cons[k];
        memset(c, 0, sizeof(*c));
        c->index   = k;
        c->st      = r->st;
        c->cost_us = &r->cost_us;
        if (r->mode == DEMO_MODE_STRICT)
                c->bucket = "critical, bulk"; /* priority order */
        else if (r->mode == DEMO_MODE_BUCKETS)
                c->bucket =
                    k < r->sc->critical_consumers ? "critical" : "bulk";
        if (c->bucket)
                c->plugin = r->pl;
        if (demo_consumer_start(c, &r->setup, err, err_size))
                return -1;
        r->cons_cnt++;
        return 0;
}

int demo_run_setup(demo_run_state_t *r, char *err, size_t err_size) {
        const demo_scenario_t *sc = r->sc;
        long planned_critical =
            (long)(sc->window_s * sc->critical_rate + 0.5);
        int k, n;

        r->setup.buckets    = r->mode != DEMO_MODE_SHARED;
        r->setup.mock       = !r->o->brokers;
        r->setup.plugin     = r->o->plugin;
        r->setup.allocation = sc->allocation;
        r->setup.layout     = r->o->layout;
        if (r->o->brokers) {
                snprintf(r->setup.topic, sizeof(r->setup.topic),
                         "bp-demo-%s-%05ld", r->res->mode, r->o->stamp);
                snprintf(r->setup.group, sizeof(r->setup.group),
                         "bp-demo-%05ld", r->o->stamp);
        } else {
                snprintf(r->setup.topic, sizeof(r->setup.topic),
                         "notifications");
                snprintf(r->setup.group, sizeof(r->setup.group),
                         "notifier");
        }
        if (demo_stats_init(r->st, planned_critical, sc->bulk_total)) {
                snprintf(err, err_size, "out of memory");
                return -1;
        }
        if (demo_cluster_start(&r->cluster, r->o->brokers, err, err_size))
                return -1;
        r->cluster_up        = 1;
        r->setup.bootstraps  = r->cluster.bootstraps;
        if (demo_cluster_create_topic(&r->cluster, r->setup.topic,
                                      sc->partitions, err, err_size))
                return -1;
        r->topic_made = 1;
        r->partitions = sc->partitions;

        atomic_init(&r->cost_us, sc->cost_us);
        n = demo_mode_workers(sc, r->mode);
        for (k = 0; k < n && k < DEMO_MAX_WORKERS; k++)
                if (demo_run_add_worker(r, err, err_size))
                        return -1;
        return create_producers(r, err, err_size);
}

int demo_run_start_producers(demo_run_state_t *r, char *err,
                             size_t err_size) {
        const demo_scenario_t *sc = r->sc;
        int c;

        r->prod[DEMO_CRITICAL].start_s = 0;
        r->prod[DEMO_CRITICAL].rate    = sc->critical_rate;
        r->prod[DEMO_CRITICAL].total   = r->st->cls[DEMO_CRITICAL].planned;
        r->prod[DEMO_BULK].start_s     = sc->campaign_start_s;
        r->prod[DEMO_BULK].rate        = sc->bulk_rate;
        r->prod[DEMO_BULK].total       = sc->bulk_total;
        for (c = 0; c < DEMO_CLASSES; c++) {
                r->prod[c].t0_us = r->t0;
                if (demo_producer_start(&r->prod[c], err, err_size))
                        return -1;
        }
        return 0;
}

void demo_run_teardown(demo_run_state_t *r) {
        char err[512];
        int k, c;

        for (k = 0; k < r->cons_cnt; k++)
                demo_consumer_stop(&r->cons[k]);
        for (c = 0; c < DEMO_CLASSES; c++)
                demo_producer_destroy(&r->prod[c]);
        if (r->topic_made && r->o->brokers &&
            demo_cluster_delete_topic(&r->cluster, r->setup.topic, err,
                                      sizeof(err)))
                fprintf(stderr, "bp-demo: could not delete topic %s: %s\n",
                        r->setup.topic, err);
        if (r->cluster_up)
                demo_cluster_stop(&r->cluster);
}
