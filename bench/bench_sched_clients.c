/*
 * bench_sched_clients.c - what every client of the scheduler benchmark
 * shares: the mock cluster, the configuration (with or without the
 * plugin), the clock, and the exit on a failure.
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
        bsch_set(conf, "bootstrap.servers", bsch_cluster.bootstraps);
        bsch_set(conf, "log_level", "3");
        if (plugin) {
                bsch_set(conf, "plugin.library.paths", bsch_opt.plugin);
                bsch_set(conf, "bucket.priority.topic", topic);
                bsch_set(conf, "bucket.priority.buckets", "critical, bulk");
                bsch_set(conf, "bucket.priority.allocation", "30%, 70%");
        }
        return conf;
}
