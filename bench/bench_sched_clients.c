/*
 * bench_sched_clients.c - what every client of the scheduler benchmark
 * shares: the cluster (the mock one, or a broker given by --brokers) and
 * its topics, the configuration (with or without the plugin), the clock,
 * and the exit on a failure.
 */
#include "bench_sched_clients.h"

#include <stdio.h>
#include <stdlib.h>

#include "bench_sched_options.h"

tk_mock_t bsch_cluster;

void bsch_die(const char *what, const char *why) {
        fprintf(stderr, "bench: %s: %s\n", what, why);
        exit(2);
}

uint64_t bsch_now_ns(void) {
        return (uint64_t)tk_now_ns();
}

void bsch_set(rd_kafka_conf_t *conf, const char *name, const char *value) {
        char errstr[512];
        if (rd_kafka_conf_set(conf, name, value, errstr, sizeof(errstr)) !=
            RD_KAFKA_CONF_OK)
                bsch_die(name, errstr);
}

rd_kafka_conf_t *bsch_conf(const char *topic, int plugin) {
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        bsch_set(conf, "bootstrap.servers", bsch_opt.brokers
                                                ? bsch_opt.brokers
                                                : bsch_cluster.bootstraps);
        bsch_set(conf, "log_level", "3");
        if (plugin) {
                bsch_set(conf, "plugin.library.paths", bsch_opt.plugin);
                bsch_set(conf, "bucket.priority.topic", topic);
                bsch_set(conf, "bucket.priority.buckets", "critical, bulk");
                bsch_set(conf, "bucket.priority.allocation", "30%, 70%");
        }
        return conf;
}

void bsch_topic_create(const char *topic, int partitions) {
        char errstr[512];
        rd_kafka_conf_t *conf;
        rd_kafka_t *admin;
        rd_kafka_NewTopic_t *nt;
        rd_kafka_queue_t *q;
        rd_kafka_event_t *ev;
        const rd_kafka_CreateTopics_result_t *res;
        const rd_kafka_topic_result_t **tr = NULL;
        size_t n = 0;

        if (!bsch_opt.brokers) {
                if (rd_kafka_mock_topic_create(bsch_cluster.mcluster, topic,
                                               partitions, 1))
                        bsch_die("topic", topic);
                return;
        }
        conf = bsch_conf(topic, 0);
        if (!(admin = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr,
                                   sizeof(errstr))))
                bsch_die("admin client", errstr);
        nt = rd_kafka_NewTopic_new(topic, partitions, 1, errstr,
                                   sizeof(errstr));
        q  = rd_kafka_queue_new(admin);
        rd_kafka_CreateTopics(admin, &nt, 1, NULL, q);
        ev  = rd_kafka_queue_poll(q, 30000);
        res = ev ? rd_kafka_event_CreateTopics_result(ev) : NULL;
        if (res)
                tr = rd_kafka_CreateTopics_result_topics(res, &n);
        if (!tr || n != 1 || rd_kafka_topic_result_error(tr[0]))
                bsch_die(topic, tr && n == 1 ? rd_kafka_topic_result_error_string(
                                                   tr[0])
                                             : "no answer to CreateTopics");
        rd_kafka_event_destroy(ev);
        rd_kafka_queue_destroy(q);
        rd_kafka_NewTopic_destroy(nt);
        rd_kafka_destroy(admin);
        /* The new partitions' leaders become known within a moment. */
        tk_sleep_us(1000000);
}
