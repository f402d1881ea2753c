/*
 * bench_util.h - what both producer benchmarks share: the test kit's mock
 * cluster (tests/kit/testkit.h) with the benchmark topic, producers with and
 * without the plugin, the key set, CPU time and medians.
 *
 * Benchmarks only: they abort on any setup error instead of reporting it.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <librdkafka/rdkafka.h>

#include "testkit.h"

#define BENCH_TOPIC "orders"
#define BENCH_PARTITIONS 12
#define BENCH_KEY_CNT 1024

/** One record key of the pre-built set. */
typedef struct bench_key {
        const char *ptr;
        size_t len;
        int gold; /**< 1 for "Gold-...", 0 for "Platinum-...". */
} bench_key_t;

/** The embedded mock cluster (with BENCH_TOPIC of BENCH_PARTITIONS once
 *  started by bench_cluster_start()). */
typedef tk_mock_t bench_cluster_t;

/** Delivery report counters of one producer (its opaque). */
typedef struct bench_drs {
        uint64_t ok;
        uint64_t failed;
        uint64_t wrong_bucket; /**< Plugin producers: outside the key's
                                *   bucket (12 partitions: 0-7, 8-11). */
        int check_buckets;
        rd_kafka_resp_err_t first_err;
} bench_drs_t;

/** Prints "bench: <message>" to stderr and exits with status 2. */
void bench_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)))
__attribute__((noreturn));

void bench_cluster_start(bench_cluster_t *bc);

/**
 * A producer to the cluster whose delivery reports count into \p drs.
 * With \p within (roundrobin or hash) it loads the plugin by
 * plugin.library.paths and configures buckets "Platinum, Gold" at
 * "70%, 30%" on BENCH_TOPIC; with NULL it is a plain producer.
 * \p extra is a NULL-terminated list of name, value pairs (or NULL).
 */
rd_kafka_t *bench_producer(const bench_cluster_t *bc, const char *within,
                           bench_drs_t *drs, const char *const *extra);

/**
 * Produces one record and waits for its delivery, so that the producer has
 * the topic's metadata (later records are partitioned inside producev())
 * and, with the plugin, the topic handle is registered.
 */
void bench_warm_up(rd_kafka_t *rk, bench_drs_t *drs);

/**
 * Fills \p keys with BENCH_KEY_CNT keys "Platinum-000123456" and
 * "Gold-000123456" (two Platinum for one Gold, numbers from a fixed
 * pseudo-random sequence): the same set in every run and every mode.
 * Returns the buffer holding the key bytes (free it).
 */
char *bench_keys(bench_key_t *keys);

/** CPU time of the whole process (all threads, user + system), in ns. */
uint64_t bench_cpu_ns(void);

/** Median of \p n doubles (sorts \p v in place). */
double bench_median(double *v, int n);

#endif /* BENCH_UTIL_H */
