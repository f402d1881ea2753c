/*
 * bp_sched_thread.c - the scheduler of one consumer serving several buckets
 * (see bp_scheduler.h): its creation, its thread, and what wakes it.
 *
 * Who runs what:
 *   - the application thread, in on_consume (bp_tracking.c): once a
 *     record is counted, bp_scheduler_on_record() wakes the scheduler when
 *     a decision may change (a partition drained while another bucket
 *     waits, or at most every BP_SCHED_WAKE_MIN_US while records flow);
 *   - the application thread, in the rebalance callback: the new
 *     assignment's partitions get their pause state before they are
 *     assigned (bp_scheduler_assigning());
 *   - the scheduler thread: decides every BP_SCHED_TICK_MS, or when woken
 *     (bp_sched_pause.c).
 * Decisions happen under the held set's lock (bp_held.h), thread control
 * under ctl_lock (bp_sched_ctl.c).
 */
#include "bp_scheduler.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bp_sched_state.h"

static void *run(void *arg) {
        bp_scheduler_t *s = arg;
        struct timespec until;

        pthread_mutex_lock(&s->ctl_lock);
        while (!s->stop) {
                if (!s->wake) {
                        long tick_ms =
                            bp_clock_ms() < atomic_load_explicit(
                                                    &s->quick_until_ms,
                                                    memory_order_relaxed)
                                ? 1
                                : BP_SCHED_TICK_MS;
                        clock_gettime(CLOCK_MONOTONIC, &until);
                        until.tv_nsec += tick_ms * 1000000L;
                        if (until.tv_nsec >= 1000000000L) {
                                until.tv_sec++;
                                until.tv_nsec -= 1000000000L;
                        }
                        pthread_cond_timedwait(&s->ctl_cond, &s->ctl_lock,
                                               &until);
                }
                if (s->stop)
                        break;
                s->wake = 0;
                pthread_mutex_unlock(&s->ctl_lock);

                pthread_mutex_lock(&s->held->lock);
                bp_sched_evaluate(s);
                pthread_mutex_unlock(&s->held->lock);
                bp_sched_kick_report(s);

                pthread_mutex_lock(&s->ctl_lock);
        }
        pthread_mutex_unlock(&s->ctl_lock);
        return NULL;
}

void bp_scheduler_on_record(bp_scheduler_t *s,
                            rd_kafka_t *rk,
                            const rd_kafka_message_t *m,
                            int r) {
        const char *topic = s->held->topic;
        uint64_t others;
        int64_t now, lo, hi, size;

        size = atomic_load_explicit(&s->record_bytes, memory_order_relaxed);
        atomic_store_explicit(&s->record_bytes,
                              size + ((int64_t)(m->len + m->key_len) - size) / 16,
                              memory_order_relaxed);
        if (s->hold_queues) {
                bp_sched_queues_taken(s, r);
                if (s->mode == BP_SCHEDULE_STRICT)
                        return; /* nothing to pause */
        }

        /* This record drained its partition while another bucket waits:
         * decide now, so that the waiting bucket resumes at once. */
        others = atomic_load_explicit(&s->paused_ranks, memory_order_relaxed) &
                 ~(1ull << r);
        if (others && !rd_kafka_get_watermark_offsets(
                          rk, topic, m->partition, &lo, &hi) &&
            hi >= 0 && m->offset + 1 + s->threshold >= hi) {
                bp_sched_wake(s);
                return;
        }
        /* Records flow: a higher bucket may have been fetched meanwhile. */
        now = bp_clock_us();
        if (now >= atomic_load_explicit(&s->next_wake_us,
                                        memory_order_relaxed)) {
                int64_t cost = 4 * atomic_load_explicit(&s->tick_cost_us,
                                                        memory_order_relaxed);
                atomic_store_explicit(
                    &s->next_wake_us,
                    now + (cost > BP_SCHED_WAKE_MIN_US ? cost
                                                       : BP_SCHED_WAKE_MIN_US),
                    memory_order_relaxed);
                bp_sched_wake(s);
        }
}

static void destroy(bp_scheduler_t *s) {
        bp_sched_queues_end(s);
        pthread_mutex_destroy(&s->ctl_lock);
        pthread_cond_destroy(&s->ctl_cond);
        free(s->view);
        free(s->paused_by_us);
        free(s);
}

int bp_scheduler_end(bp_scheduler_t *s) {
        if (bp_sched_stop(s))
                return -1;
        destroy(s);
        return 0;
}

static int conf_has(const rd_kafka_conf_t *conf, const char *name) {
        char v[32];
        size_t size = sizeof(v);
        return rd_kafka_conf_get(conf, name, v, &size) == RD_KAFKA_CONF_OK;
}

bp_scheduler_t *bp_scheduler_start(bp_client_t *c,
                                   rd_kafka_t *rk,
                                   const rd_kafka_conf_t *conf,
                                   bp_held_t *h,
                                   bp_deliveries_t *d,
                                   const char *names) {
        bp_scheduler_t *s;
        pthread_condattr_t ca;
        int b;

        if (!(s = calloc(1, sizeof(*s)))) {
                bp_client_log(c, 3,
                              "out of memory: buckets %s are served "
                              "without priority",
                              names);
                return NULL;
        }
        s->c         = c;
        s->rk        = rk;
        s->held      = h;
        s->served    = d;
        s->n         = d->n;
        s->mode      = c->cfg.schedule;
        s->threshold = c->cfg.lag_threshold;
        for (b = 0; b < BP_MAX_BUCKETS; b++)
                s->b[b].lead.lead = -1;
        s->queue_min_msgs  = bp_conf_int(conf, "queued.min.messages", 100000);
        s->queue_max_bytes =
            bp_conf_int(conf, "queued.max.messages.kbytes", 65536) * 1024;
        s->wake_fetcher = !conf_has(conf, "fetch.queue.backoff.ms");
        s->grace_ms =
            2 * bp_conf_int(conf, "fetch.wait.max.ms", 500) + 1000;
        pthread_mutex_init(&s->ctl_lock, NULL);
        pthread_condattr_init(&ca); /* timed waits on CLOCK_MONOTONIC */
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&s->ctl_cond, &ca);
        pthread_condattr_destroy(&ca);
        s->want_queues = bp_config_hold(&c->cfg) == BP_HOLD_QUEUE;
        if (s->want_queues && s->mode == BP_SCHEDULE_STRICT &&
            s->threshold > 0)
                bp_client_log(c, 5,
                              "bucket.priority.lag.threshold=%lld has no "
                              "effect with bucket.priority.hold=queue: a "
                              "higher bucket's fetched records always go "
                              "first (buckets %s); set hold=pause to let "
                              "it lag",
                              (long long)s->threshold, names);

        if (pthread_create(&s->thread, NULL, run, s)) {
                bp_client_log(c, 3,
                              "cannot start the scheduler thread: buckets %s "
                              "are served without priority",
                              names);
                destroy(s);
                return NULL;
        }
        s->thread_started = 1;
        if (rd_kafka_version() < 0x020100ff)
                bp_client_log(
                    c, 5,
                    "librdkafka %s: consume with rd_kafka_consumer_poll(); "
                    "before librdkafka 2.1.0, rd_kafka_consume_batch*() can "
                    "skip records of partitions paused or resumed from "
                    "another thread (librdkafka #4208), which the bucket "
                    "scheduler does",
                    rd_kafka_version_str());
        return s;
}

void bp_scheduler_assigning(bp_scheduler_t *s) {
        int r;

        /* The weighted credits were earned on partitions held before. */
        for (r = 0; r < s->n; r++) {
                int bucket           = s->served->bucket_at[r];
                bp_sched_bucket_t *b = &s->b[bucket];
                b->credit            = 0;
                b->lead.lead         = -1;
                b->delivered_seen    = atomic_load_explicit(
                    &s->served->delivered[bucket], memory_order_relaxed);
        }
        if (s->want_queues && !s->hold_queues) {
                if (bp_sched_queues_start(s)) {
                        s->want_queues = 0;
                        bp_client_log(s->c, 4,
                                      "cannot set up the bucket queues "
                                      "(bucket.priority.hold=queue): lower "
                                      "buckets are held back by pause");
                } else if (s->mode == BP_SCHEDULE_STRICT) {
                        bp_client_log(s->c, 6,
                                      "strict schedule: lower buckets wait "
                                      "in queues of their own, nothing is "
                                      "paused (bucket.priority.hold=queue)");
                } else {
                        bp_client_log(s->c, 6,
                                      "weighted schedule: each bucket's "
                                      "records wait in a queue of their own; "
                                      "a bucket ahead of its share is paused "
                                      "only while a lower one has records "
                                      "(bucket.priority.hold=queue)");
                }
        }
        bp_sched_queues_route(s, 1); /* before the partitions are assigned */
        bp_sched_evaluate(s);
}

void bp_scheduler_revoking(bp_scheduler_t *s) {
        /* With no partition every bucket counts as running; after an
         * incremental revocation, the rest is decided again. */
        bp_sched_evaluate(s);
}
