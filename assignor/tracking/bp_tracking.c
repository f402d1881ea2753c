/*
 * bp_tracking.c - what an active bucket consumer tracks while it runs,
 * kept from on_new() to on_destroy() (see bp_tracking.h).
 */
#include "bp_tracking.h"

#include <stdio.h>

#include "bp_clock.h"
#include "bp_consumer_side.h"
#include "bp_scheduler.h"

#define TRACKING_NAME "bucket-priority-scheduler"

static rd_kafka_resp_err_t on_consume(rd_kafka_t *rk,
                                      rd_kafka_message_t *m,
                                      void *ic_opaque) {
        bp_client_t *c        = ic_opaque;
        bp_consumer_run_t *k = &c->consumer->run;
        int r;

        if (!k->tracking)
                return RD_KAFKA_RESP_ERR_NO_ERROR;
        r = bp_deliveries_count(
            &k->deliveries, c->cfg.topic,
            atomic_load_explicit(&c->current, memory_order_acquire), m);
        if (r >= 0 && k->sched)
                bp_scheduler_on_record(k->sched, rk, m, r);
        return RD_KAFKA_RESP_ERR_NO_ERROR;
}

static rd_kafka_resp_err_t on_destroy(rd_kafka_t *rk, void *ic_opaque) {
        bp_client_t *c         = ic_opaque;
        bp_consumer_run_t *k  = &c->consumer->run;
        struct bp_scheduler *s = k->sched;

        if (!k->tracking || k->held.rk != rk)
                return RD_KAFKA_RESP_ERR_NO_ERROR;
        k->tracking = 0;
        k->sched    = NULL;
        if (s && bp_scheduler_end(s)) {
                bp_client_log(c, 3,
                              "scheduler thread left behind: a pause or "
                              "resume was in flight while the client was "
                              "destroyed");
                return RD_KAFKA_RESP_ERR_NO_ERROR; /* its held set kept */
        }
        bp_held_destroy(&k->held);
        return RD_KAFKA_RESP_ERR_NO_ERROR;
}

void bp_tracking_on_new(bp_client_t *c,
                        rd_kafka_t *rk,
                        const rd_kafka_conf_t *conf) {
        bp_consumer_run_t *k = &c->consumer->run;
        char names[BP_MAX_VALUE_LEN + 1];
        size_t at = 0;
        int r;

        if (rd_kafka_type(rk) != RD_KAFKA_CONSUMER ||
            c->cfg.consumer_bucket_cnt == 0 || c->mode != BP_MODE_ACTIVE ||
            k->tracking)
                return;
        bp_deliveries_init(&k->deliveries, &c->cfg);
        for (r = 0; r < k->deliveries.n; r++) {
                at += (size_t)snprintf(
                    names + at, sizeof(names) - at, "%s%s", r ? ", " : "",
                    c->cfg.buckets[k->deliveries.bucket_at[r]].name);
                if (at >= sizeof(names))
                        at = sizeof(names) - 1;
        }
        if (rd_kafka_interceptor_add_on_consume(rk, TRACKING_NAME, on_consume,
                                                c) ||
            rd_kafka_interceptor_add_on_destroy(rk, TRACKING_NAME, on_destroy,
                                                c)) {
                bp_client_log(c, 3,
                              "cannot register the scheduler's interceptors: "
                              "buckets %s are not scheduled",
                              names);
                return;
        }
        bp_held_init(&k->held, rk, c->cfg.topic, conf,
                     bp_conf_int(conf, "fetch.wait.max.ms", 500) +
                         2 * BP_SCHED_TICK_MS);
        k->tracking = 1;
        if (k->deliveries.n >= 2)
                k->sched = bp_scheduler_start(c, rk, conf, &k->held,
                                              &k->deliveries, names);
}

void bp_tracking_committed(bp_client_t *c,
                           const rd_kafka_topic_partition_list_t *all) {
        if (c->consumer->run.tracking)
                bp_held_note_committed(&c->consumer->run.held, all);
}

void bp_tracking_assigning(bp_client_t *c,
                           rd_kafka_t *rk,
                           const rd_kafka_topic_partition_list_t *assigned,
                           const bp_layout_t *l) {
        bp_consumer_run_t *k = &c->consumer->run;

        if (!k->tracking || k->held.rk != rk)
                return;
        pthread_mutex_lock(&k->held.lock);
        bp_held_assign(&k->held, &k->deliveries, assigned, l,
                       bp_clock_ms());
        if (k->sched)
                bp_scheduler_assigning(k->sched);
        pthread_mutex_unlock(&k->held.lock);
        if (k->sched)
                bp_sched_wake(k->sched);
}

void bp_tracking_adding(bp_client_t *c,
                        rd_kafka_t *rk,
                        const rd_kafka_topic_partition_list_t *added,
                        const bp_layout_t *l) {
        bp_consumer_run_t *k = &c->consumer->run;

        if (!k->tracking || k->held.rk != rk || !l)
                return;
        pthread_mutex_lock(&k->held.lock);
        bp_held_add(&k->held, &k->deliveries, added, l, bp_clock_ms());
        if (k->sched)
                bp_scheduler_assigning(k->sched);
        pthread_mutex_unlock(&k->held.lock);
        if (k->sched)
                bp_sched_wake(k->sched);
}

void bp_tracking_removing(bp_client_t *c,
                          const rd_kafka_topic_partition_list_t *removed) {
        bp_consumer_run_t *k = &c->consumer->run;

        if (!k->tracking)
                return;
        pthread_mutex_lock(&k->held.lock);
        bp_held_remove(&k->held, removed);
        if (k->sched)
                bp_scheduler_revoking(k->sched);
        pthread_mutex_unlock(&k->held.lock);
}

void bp_tracking_revoking(bp_client_t *c) {
        bp_consumer_run_t *k = &c->consumer->run;

        if (!k->tracking)
                return;
        pthread_mutex_lock(&k->held.lock);
        k->held.cnt = 0;
        if (k->sched)
                bp_scheduler_revoking(k->sched);
        pthread_mutex_unlock(&k->held.lock);
}
