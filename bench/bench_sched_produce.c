/*
 * bench_sched_produce.c - the scheduler benchmark's producing: the bulk
 * backlog, the critical records (key critical-<id>, the send time in the
 * value) and the acknowledgement time of each.
 */
#include "bench_sched_produce.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_sched_clients.h"
#include "bench_sched_options.h"

/* The acknowledgement time of each critical record (µs after its send,
 * by id): the producer's and the mock broker's share of a latency, not the
 * consumer's. -1 until acknowledged. */
static atomic_long *ack_us;
static long ack_cnt;

int bsch_acks_open(long total) {
        long i;
        ack_us = malloc(sizeof(*ack_us) * (size_t)total);
        if (!ack_us)
                return -1;
        for (i = 0; i < total; i++)
                atomic_init(&ack_us[i], -1);
        ack_cnt = total;
        return 0;
}

long bsch_ack_us(long id) {
        return atomic_load(&ack_us[id]);
}

void bsch_acks_close(void) {
        free(ack_us);
        ack_us  = NULL;
        ack_cnt = 0;
}

long bsch_critical_id(const rd_kafka_message_t *m) {
        char key[32];
        long id;
        if (!m->key || m->key_len <= 9 || m->key_len >= sizeof(key) ||
            memcmp(m->key, "critical-", 9))
                return -1;
        memcpy(key, m->key, m->key_len);
        key[m->key_len] = '\0';
        id              = strtol(key + 9, NULL, 10);
        return id >= 0 && id < ack_cnt ? id : -1;
}

static void on_ack(rd_kafka_t *rk, const rd_kafka_message_t *m,
                   void *opaque) {
        uint64_t sent;
        long id = bsch_critical_id(m);
        (void)rk, (void)opaque;
        if (m->err || id < 0 || m->len < sizeof(sent))
                return;
        memcpy(&sent, m->payload, sizeof(sent));
        atomic_store(&ack_us[id], (long)((bsch_now_ns() - sent) / 1000));
}

rd_kafka_t *bsch_producer(const char *topic) {
        rd_kafka_conf_t *conf = bsch_conf(topic, 1);
        char errstr[512];
        rd_kafka_t *rk;
        bsch_set(conf, "linger.ms", bsch_opt.linger_ms);
        rd_kafka_conf_set_dr_msg_cb(conf, on_ack);
        if (!(rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr,
                                sizeof(errstr))))
                bsch_die("producer", errstr);
        return rk;
}

void bsch_produce(rd_kafka_t *rk, const char *topic, const char *bucket,
                  long id, const void *value, size_t len) {
        char key[48];
        int n = snprintf(key, sizeof(key), "%s-%ld", bucket, id);
        while (rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic),
                                 RD_KAFKA_V_KEY(key, (size_t)n),
                                 RD_KAFKA_V_VALUE((void *)value, len),
                                 RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                 RD_KAFKA_V_END) ==
               RD_KAFKA_RESP_ERR__QUEUE_FULL)
                rd_kafka_poll(rk, 10);
}

void bsch_load_backlog(const char *topic) {
        rd_kafka_t *rk = bsch_producer(topic);
        char value[100];
        long i;
        memset(value, 'b', sizeof(value));
        for (i = 0; i < bsch_opt.bulk; i++)
                bsch_produce(rk, topic, "bulk", i, value, sizeof(value));
        if (rd_kafka_flush(rk, 120000))
                bsch_die("backlog", "not acknowledged in 120 s");
        rd_kafka_destroy(rk);
}
