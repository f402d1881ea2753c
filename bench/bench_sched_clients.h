/*
 * bench_sched_clients.h - what every client of the scheduler benchmark
 * shares: the cluster (the mock one, or a broker given by --brokers) and
 * its topics, the configuration (with or without the plugin), the clock,
 * and the exit on a failure.
 */
#ifndef BENCH_SCHED_CLIENTS_H
#define BENCH_SCHED_CLIENTS_H

#include <stdint.h>

#include <librdkafka/rdkafka.h>

#include "testkit.h"

/** The embedded mock cluster every setup runs on, unless --brokers. */
extern tk_mock_t bsch_cluster;

/** Creates \p topic with \p partitions partitions on the cluster, or
 *  exits 2. */
void bsch_topic_create(const char *topic, int partitions);

/** Prints "bench: WHAT: WHY" and exits 2. */
void bsch_die(const char *what, const char *why);

/** The test kit's monotonic clock, unsigned as the figures here are. */
uint64_t bsch_now_ns(void);

/** Sets a property, or exits 2 naming it. */
void bsch_set(rd_kafka_conf_t *conf, const char *name, const char *value);

/** A configuration for the cluster; with \p plugin, the bucket topic
 *  \p topic (buckets "critical, bulk" at "30%, 70%"). */
rd_kafka_conf_t *bsch_conf(const char *topic, int plugin);

#endif /* BENCH_SCHED_CLIENTS_H */
