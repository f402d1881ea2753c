/*
 * bench_sched_consumer.c - the scheduler benchmark's consumers: one
 * thread each, spending the per-record work (sleeping or busy), timing
 * each critical record from its send to rd_kafka_consumer_poll() into the
 * setup's result, and counting bulk records while the critical stream
 * runs.
 */
#include "bench_sched_consumer.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bench_sched_clients.h"
#include "bench_sched_options.h"
#include "bench_sched_produce.h"

atomic_int bsch_window_open;

static void work(void) {
        uint64_t until;
        if (!bsch_opt.busy) {
                tk_sleep_us(bsch_opt.work_us);
                return;
        }
        until = bsch_now_ns() + (uint64_t)bsch_opt.work_us * 1000u;
        while (bsch_now_ns() < until)
                ;
}

static void *consume(void *arg) {
        bsch_consumer_t *c = arg;
        uint64_t next_check = 0;

        while (!c->stop) {
                rd_kafka_message_t *m = rd_kafka_consumer_poll(c->rk, 10);
                uint64_t t = bsch_now_ns();
                if (!c->assigned && t >= next_check) {
                        rd_kafka_topic_partition_list_t *a;
                        if (!rd_kafka_assignment(c->rk, &a)) {
                                c->assigned = a->cnt > 0;
                                rd_kafka_topic_partition_list_destroy(a);
                        }
                        next_check = t + 50000000u;
                }
                if (!m)
                        continue;
                if (!m->err && bsch_critical_id(m) >= 0 &&
                    m->len >= sizeof(uint64_t)) {
                        uint64_t sent;
                        long id = bsch_critical_id(m);
                        memcpy(&sent, m->payload, sizeof(sent));
                        pthread_mutex_lock(c->lock);
                        if (c->res->by_id[id] < 0) {
                                c->res->by_id[id] = (double)(t - sent) / 1e6;
                                c->res->received++;
                        }
                        pthread_mutex_unlock(c->lock);
                } else if (!m->err && bsch_window_open) {
                        c->bulk++;
                }
                rd_kafka_message_destroy(m);
                work();
        }
        rd_kafka_consumer_close(c->rk);
        rd_kafka_destroy(c->rk);
        return NULL;
}

void bsch_consumer_start(bsch_consumer_t *c, const char *topic, int setup,
                         const char *bucket, const char *group,
                         bsch_result_t *res, pthread_mutex_t *lock) {
        rd_kafka_conf_t *conf = bsch_conf(topic, setup != BSCH_PLAIN);
        rd_kafka_topic_partition_list_t *sub;
        char errstr[512], fw[16];
        int i;

        memset(c, 0, sizeof(*c));
        c->res  = res;
        c->lock = lock;
        if (setup != BSCH_PLAIN) {
                bsch_set(conf, "bucket.priority.bucket", bucket);
                if (setup == BSCH_STRICT || setup == BSCH_QUEUE)
                        bsch_set(conf, "bucket.priority.schedule", "strict");
                if (setup == BSCH_WEIGHTED || setup == BSCH_WQUEUE)
                        bsch_set(conf, "bucket.priority.schedule",
                                 "weighted");
                /* Each set, so that the setups stay what they are named
                 * whatever the default. */
                if (setup != BSCH_DEDICATED)
                        bsch_set(conf, "bucket.priority.hold",
                                 setup == BSCH_QUEUE || setup == BSCH_WQUEUE
                                     ? "queue"
                                     : "pause");
        }
        snprintf(fw, sizeof(fw), "%d", bsch_opt.fetch_wait_ms);
        if (bsch_opt.fetch_wait_ms > 0)
                bsch_set(conf, "fetch.wait.max.ms", fw);
        bsch_set(conf, "group.id", group);
        for (i = 0; i < bsch_opt.prop_cnt; i++) {
                char kv[256], *eq;
                snprintf(kv, sizeof(kv), "%s", bsch_opt.props[i]);
                if ((eq = strchr(kv, '=')))
                        *eq++ = '\0';
                bsch_set(conf, kv, eq ? eq : "");
        }
        bsch_set(conf, "auto.offset.reset", "earliest");
        bsch_set(conf, "session.timeout.ms", "6000");
        bsch_set(conf, "heartbeat.interval.ms", "500");
        if (!(c->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr,
                                   sizeof(errstr))))
                bsch_die("consumer", errstr);
        rd_kafka_poll_set_consumer(c->rk);
        sub = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(sub, topic, RD_KAFKA_PARTITION_UA);
        if (rd_kafka_subscribe(c->rk, sub))
                bsch_die("subscribe", topic);
        rd_kafka_topic_partition_list_destroy(sub);
        if (pthread_create(&c->thread, NULL, consume, c))
                bsch_die("thread", "cannot start");
}
