/*
 * bench_util.c - the benchmark topic on the test kit's mock cluster,
 * producers, key set, CPU time and medians shared by the producer
 * benchmarks.
 */
#include "bench_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#ifndef BENCH_PLUGIN_PATH
#define BENCH_PLUGIN_PATH "libbucketpriority.so"
#endif

void bench_die(const char *fmt, ...) {
        va_list ap;
        fprintf(stderr, "bench: ");
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fprintf(stderr, "\n");
        exit(2);
}

void bench_cluster_start(bench_cluster_t *bc) {
        char err[512];
        if (tk_mock_start(bc, NULL, 1, err, sizeof(err)) ||
            tk_mock_topic(bc, BENCH_TOPIC, BENCH_PARTITIONS, err,
                          sizeof(err)))
                bench_die("%s", err);
}

static void set(rd_kafka_conf_t *conf, const char *name, const char *value) {
        char errstr[512];
        if (rd_kafka_conf_set(conf, name, value, errstr, sizeof(errstr)) !=
            RD_KAFKA_CONF_OK)
                bench_die("%s=%s: %s", name, value, errstr);
}

/* Gold keys: partitions 8-11 of 12; Platinum keys: 0-7 (70/30, contiguous). */
static int in_bucket(const rd_kafka_message_t *m) {
        int gold = m->key_len >= 5 && !memcmp(m->key, "Gold-", 5);
        return gold ? m->partition >= 8 && m->partition <= 11
                    : m->partition >= 0 && m->partition <= 7;
}

static void on_dr(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque) {
        bench_drs_t *drs = opaque;
        (void)rk;
        if (m->err) {
                if (!drs->failed++)
                        drs->first_err = m->err;
                return;
        }
        drs->ok++;
        if (drs->check_buckets && !in_bucket(m))
                drs->wrong_bucket++;
}

rd_kafka_t *bench_producer(const bench_cluster_t *bc, const char *within,
                           bench_drs_t *drs, const char *const *extra) {
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        char errstr[512];
        rd_kafka_t *rk;

        memset(drs, 0, sizeof(*drs));
        set(conf, "bootstrap.servers", bc->bootstraps);
        set(conf, "log_level", "3");
        if (within) {
                set(conf, "plugin.library.paths",
                    tk_plugin_path(BENCH_PLUGIN_PATH));
                set(conf, "bucket.priority.topic", BENCH_TOPIC);
                set(conf, "bucket.priority.buckets", "Platinum, Gold");
                set(conf, "bucket.priority.allocation", "70%, 30%");
                set(conf, "bucket.priority.within", within);
                drs->check_buckets = 1;
        }
        for (; extra && extra[0]; extra += 2)
                set(conf, extra[0], extra[1]);
        if (!(rk = tk_producer(conf, on_dr, drs, errstr, sizeof(errstr))))
                bench_die("rd_kafka_new: %s", errstr);
        return rk;
}

void bench_warm_up(rd_kafka_t *rk, bench_drs_t *drs) {
        uint64_t before = drs->ok + drs->failed;
        rd_kafka_resp_err_t err;

        err = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(BENCH_TOPIC),
                                RD_KAFKA_V_KEY("Gold-0", 6),
                                RD_KAFKA_V_VALUE("warm-up", 7),
                                RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                RD_KAFKA_V_END);
        if (err)
                bench_die("warm-up produce: %s", rd_kafka_err2str(err));
        rd_kafka_flush(rk, 30000);
        if (drs->ok + drs->failed != before + 1 || drs->failed)
                bench_die("warm-up record not delivered: %s",
                          rd_kafka_err2str(drs->first_err));
}

char *bench_keys(bench_key_t *keys) {
        /* "Platinum-" + 9 digits + NUL is the longest: 19 bytes. */
        char *buf = malloc(BENCH_KEY_CNT * 20);
        uint64_t x = 0x9e3779b97f4a7c15ull; /* xorshift64, fixed seed */
        int i, n;

        if (!buf)
                bench_die("out of memory");
        for (i = 0; i < BENCH_KEY_CNT; i++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                keys[i].gold = i % 3 == 2;
                keys[i].ptr  = buf + i * 20;
                n = snprintf(buf + i * 20, 20, "%s-%09u",
                             keys[i].gold ? "Gold" : "Platinum",
                             (unsigned)(x % 1000000000u));
                keys[i].len = (size_t)n;
        }
        return buf;
}

uint64_t bench_cpu_ns(void) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) *
                   1000000000ull +
               ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) *
                   1000ull;
}

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *)a, y = *(const double *)b;
        return (x > y) - (x < y);
}

double bench_median(double *v, int n) {
        qsort(v, (size_t)n, sizeof(*v), cmp_double);
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
