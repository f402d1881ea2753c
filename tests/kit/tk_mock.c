/*
 * tk_mock.c - librdkafka's embedded mock cluster for the tests, the
 * benchmarks and the demo: start it with its owning client, create topics,
 * stop it; and the producers that write to it (or to a real cluster).
 */
#include "testkit.h"

#include <stdio.h>
#include <string.h>

int tk_mock_start(tk_mock_t *m, rd_kafka_conf_t *conf, int brokers,
                  char *err, size_t err_size) {
        memset(m, 0, sizeof(*m));
        if (!conf) {
                conf = rd_kafka_conf_new();
                if (rd_kafka_conf_set(conf, "log_level", "3", err,
                                      err_size) != RD_KAFKA_CONF_OK) {
                        rd_kafka_conf_destroy(conf);
                        return -1;
                }
        }
        m->owner = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, err_size);
        if (!m->owner) {
                rd_kafka_conf_destroy(conf);
                return -1;
        }
        m->mcluster = rd_kafka_mock_cluster_new(m->owner, brokers);
        if (!m->mcluster) {
                snprintf(err, err_size,
                         "cannot start a mock cluster of %d brokers", brokers);
                rd_kafka_destroy(m->owner);
                m->owner = NULL;
                return -1;
        }
        snprintf(m->bootstraps, sizeof(m->bootstraps), "%s",
                 rd_kafka_mock_cluster_bootstraps(m->mcluster));
        return 0;
}

int tk_mock_topic(tk_mock_t *m, const char *topic, int partitions, char *err,
                  size_t err_size) {
        rd_kafka_resp_err_t e =
            rd_kafka_mock_topic_create(m->mcluster, topic, partitions, 1);
        if (!e)
                return 0;
        snprintf(err, err_size, "mock topic \"%s\" (%d partitions): %s",
                 topic, partitions, rd_kafka_err2str(e));
        return -1;
}

void tk_mock_stop(tk_mock_t *m) {
        if (m->mcluster)
                rd_kafka_mock_cluster_destroy(m->mcluster);
        if (m->owner)
                rd_kafka_destroy(m->owner);
        memset(m, 0, sizeof(*m));
}

rd_kafka_t *tk_producer(rd_kafka_conf_t *conf,
                        void (*on_dr)(rd_kafka_t *rk,
                                      const rd_kafka_message_t *m,
                                      void *opaque),
                        void *opaque, char *err, size_t err_size) {
        rd_kafka_t *rk;
        rd_kafka_conf_set_dr_msg_cb(conf, on_dr);
        rd_kafka_conf_set_opaque(conf, opaque);
        if (!(rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, err_size)))
                rd_kafka_conf_destroy(conf);
        return rk;
}
