/*
 * demo_producer.c - the login service and campaign producer threads, and
 * the record format they share with the consumers.
 */
#include "demo_producer.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo_time.h"

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m,
                        void *opaque) {
        demo_producer_t *p = opaque;
        (void)rk;
        demo_stats_delivered(p->st, p->cls, (long)(intptr_t)m->_private,
                             m->err == RD_KAFKA_RESP_ERR_NO_ERROR);
}

/* Hands record \p id to librdkafka, waiting while its queue is full. */
static int send_one(demo_producer_t *p, long id) {
        char key[48], value[160];
        int64_t now = demo_now_us();
        int klen, vlen;
        rd_kafka_resp_err_t err;

        klen = snprintf(key, sizeof(key), "%s-%ld", demo_class_name[p->cls],
                        id);
        if (p->cls == DEMO_CRITICAL)
                vlen = snprintf(value, sizeof(value),
                                "%ld %" PRId64 " your login code is %06ld",
                                id, now, (id * 7919 + 123457) % 1000000);
        else
                /* Short: the mock cluster keeps at most 5 MiB per
                 * partition, and the strict run reads some bulk partitions
                 * only once the window closed; every newsletter must still
                 * be there then. */
                vlen = snprintf(value, sizeof(value),
                                "%ld %" PRId64 " Spring sale: 70%% off",
                                id, now);
        demo_stats_sent(p->st, p->cls, id, now);
        for (;;) {
                err = rd_kafka_producev(
                    p->rk, RD_KAFKA_V_TOPIC(p->topic),
                    RD_KAFKA_V_KEY(key, (size_t)klen),
                    RD_KAFKA_V_VALUE(value, (size_t)vlen),
                    RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                    RD_KAFKA_V_OPAQUE((void *)(intptr_t)id), RD_KAFKA_V_END);
                if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL)
                        break;
                rd_kafka_poll(p->rk, 10);
                if (atomic_load(&p->stop))
                        break;
        }
        if (err) {
                demo_stats_delivered(p->st, p->cls, id, 0);
                return -1;
        }
        return 0;
}

static void *run(void *arg) {
        demo_producer_t *p = arg;
        long id;

        for (id = 0; id < p->total && !atomic_load(&p->stop); id++) {
                int64_t due = p->t0_us + (int64_t)((p->start_s +
                                                    (double)id / p->rate) *
                                                   1e6);
                /* Sleep only for gaps over 2 ms: the campaign sends in small
                 * bursts, the login service one code at a time. */
                if (due - demo_now_us() > 2000)
                        demo_sleep_until_us(due);
                send_one(p, id);
                rd_kafka_poll(p->rk, 0);
        }
        p->done_us = demo_now_us();
        atomic_store(&p->sending_done, 1);
        while (rd_kafka_outq_len(p->rk) > 0 && !atomic_load(&p->abandon))
                rd_kafka_poll(p->rk, 50);
        atomic_store(&p->done, 1);
        return NULL;
}

/* Connects and learns the topic's leaders before the clock starts, so
 * the first login code does not pay for the connection set-up. */
static void warm_up(demo_producer_t *p) {
        const struct rd_kafka_metadata *md = NULL;
        rd_kafka_topic_t *rkt = rd_kafka_topic_new(p->rk, p->topic, NULL);

        if (!rkt)
                return;
        if (rd_kafka_metadata(p->rk, 0, rkt, &md, 10000) ==
                RD_KAFKA_RESP_ERR_NO_ERROR &&
            md)
                rd_kafka_metadata_destroy(md);
        rd_kafka_topic_destroy(rkt);
}

int demo_producer_create(demo_producer_t *p, const demo_setup_t *s,
                         char *err, size_t err_size) {
        char client_id[64];
        rd_kafka_conf_t *conf;

        snprintf(client_id, sizeof(client_id), "bp-demo-%s",
                 p->cls == DEMO_CRITICAL ? "login-service" : "campaign");
        conf = demo_conf_producer(s, client_id, err, err_size);
        if (!conf)
                return -1;
        rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
        rd_kafka_conf_set_opaque(conf, p);
        p->topic = s->topic;
        p->rk    = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, err_size);
        if (!p->rk) {
                rd_kafka_conf_destroy(conf);
                return -1;
        }
        atomic_init(&p->stop, 0);
        atomic_init(&p->sending_done, 0);
        atomic_init(&p->done, 0);
        atomic_init(&p->abandon, 0);
        warm_up(p);
        return 0;
}

int demo_producer_start(demo_producer_t *p, char *err, size_t err_size) {
        return demo_thread_start(&p->thread, run, p, err, err_size);
}

void demo_producer_stop(demo_producer_t *p) {
        atomic_store(&p->stop, 1);
}

void demo_producer_destroy(demo_producer_t *p) {
        /* No waiting for delivery reports once told to stop. */
        atomic_store(&p->abandon, 1);
        demo_thread_stop(&p->thread, &p->stop);
        if (p->rk) {
                rd_kafka_flush(p->rk, 5000);
                rd_kafka_destroy(p->rk);
                p->rk = NULL;
        }
}

int demo_record_parse(const rd_kafka_message_t *m, demo_class_t *cls,
                      long *id, int64_t *sent_us) {
        char buf[64], *end;
        size_t n;
        int c;

        if (!m->key || !m->payload)
                return -1;
        for (c = 0; c < DEMO_CLASSES; c++) {
                size_t len = strlen(demo_class_name[c]);
                if (m->key_len > len &&
                    !memcmp(m->key, demo_class_name[c], len) &&
                    ((const char *)m->key)[len] == '-')
                        break;
        }
        if (c == DEMO_CLASSES)
                return -1;
        n = m->len < sizeof(buf) - 1 ? m->len : sizeof(buf) - 1;
        memcpy(buf, m->payload, n);
        buf[n] = '\0';
        *cls   = (demo_class_t)c;
        *id    = strtol(buf, &end, 10);
        if (end == buf || *end != ' ')
                return -1;
        *sent_us = strtoll(end + 1, &end, 10);
        return *end == ' ' ? 0 : -1;
}
