/*
 * test_partitioner_threads.c - eight threads hammering the partitioner of
 * one producer: exact per bucket counts, every partition inside its bucket,
 * round robin balanced within one, hash stable per key, and concurrent
 * layout changes (the topic growing under the threads) never misroute.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bp_test_util.h"
#include "include/bucket_priority.h"

#define TOPIC "orders"
#define THREADS 8
#define PER_THREAD 20000

static bp_test_cluster_t cluster;

typedef struct worker {
        pthread_t tid;
        rd_kafka_topic_t *rkt;
        int id;
        int grow;                   /* alternate 12 and 24 partitions */
        int hash;                   /* check one partition per key */
        int counts[24];             /* per partition, at 12 partitions */
        int wrong;                  /* records outside their bucket */
        int32_t hash_seen[64];      /* hash mode: partition per key */
} worker_t;

static int setup(void **state) {
        bp_test_cluster_start(&cluster, 1);
        bp_test_cluster_topic(&cluster, TOPIC, 12);
        *state = &cluster;
        return 0;
}

/* The most minus the fewest records of partitions [from, to). */
static int spread(const int *total, int from, int to) {
        int min = total[from], max = total[from], p;
        for (p = from + 1; p < to; p++) {
                min = total[p] < min ? total[p] : min;
                max = total[p] > max ? total[p] : max;
        }
        return max - min;
}

/* A producer whose handle for TOPIC is registered with the plugin. */
static rd_kafka_t *producer(bp_test_drs_t *drs, const char *within,
                            rd_kafka_topic_t **rkt) {
        rd_kafka_t *rk = bp_test_producer(
            bp_test_conf(cluster.bootstraps, "bucket.priority.topic", TOPIC,
                         "bucket.priority.buckets", "Platinum, Gold",
                         "bucket.priority.allocation", "70%, 30%",
                         "bucket.priority.within", within, NULL),
            drs);
        assert_int_equal(rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(TOPIC),
                                           RD_KAFKA_V_KEY("Gold-0", 6),
                                           RD_KAFKA_V_END),
                         0);
        bp_test_wait_drs(rk, drs, 1, 10000);
        *rkt = rd_kafka_topic_new(rk, TOPIC, NULL);
        return rk;
}

/* within=hash, as documented: librdkafka's murmur2 of the whole key over
 * the bucket's partitions, from its first (contiguous layout: Platinum
 * 0-7 and Gold 8-11 of 12, Platinum 0-16 and Gold 17-23 of 24). */
static int32_t hash_expected(const rd_kafka_topic_t *rkt, const char *key,
                             int n, int gold, int32_t cnt) {
        int32_t first = gold ? (cnt == 24 ? 17 : 8) : 0;
        int32_t count = gold ? (cnt == 24 ? 7 : 4) : (cnt == 24 ? 17 : 8);

        return first + rd_kafka_msg_partitioner_murmur2(rkt, key, (size_t)n,
                                                        count, NULL, NULL);
}

static void *hammer(void *arg) {
        worker_t *w = arg;
        char key[32];
        int i, n;
        int32_t p, cnt;

        for (i = 0; i < PER_THREAD; i++) {
                int gold = (i % 64 + w->id) % 3 == 0; /* fixed per key */
                n   = snprintf(key, sizeof(key), "%s-%d-%d",
                               gold ? "Gold" : "Platinum", w->id, i % 64);
                cnt = w->grow && i % 2 ? 24 : 12;
                p   = bp_partitioner(w->rkt, key, (size_t)n, cnt, NULL, NULL);
                if (w->hash && p != hash_expected(w->rkt, key, n, gold, cnt))
                        w->wrong++;
                if (cnt == 24) {
                        /* 24 partitions: Platinum 0-16, Gold 17-23. */
                        if (gold ? p < 17 || p > 23 : p < 0 || p > 16)
                                w->wrong++;
                        continue;
                }
                if (gold ? p < 8 || p > 11 : p < 0 || p > 7) {
                        w->wrong++;
                        continue;
                }
                w->counts[p]++;
                if (w->hash_seen[i % 64] == -1)
                        w->hash_seen[i % 64] = p;
                else if (w->hash && w->hash_seen[i % 64] != p)
                        w->wrong++;
        }
        return NULL;
}

/* Runs the threads on \p rkt (\p grow, \p hash: see worker_t); no record
 * may leave its bucket. Adds the records per partition (at 12 partitions)
 * into \p total. */
static void run(rd_kafka_topic_t *rkt, int grow, int hash, int *total) {
        worker_t w[THREADS];
        int t, p;
        for (t = 0; t < THREADS; t++) {
                memset(&w[t], 0, sizeof(w[t]));
                memset(w[t].hash_seen, 0xff, sizeof(w[t].hash_seen));
                w[t].rkt  = rkt;
                w[t].id   = t;
                w[t].grow = grow;
                w[t].hash = hash;
                assert_int_equal(pthread_create(&w[t].tid, NULL, hammer,
                                                &w[t]),
                                 0);
        }
        for (t = 0; t < THREADS; t++)
                pthread_join(w[t].tid, NULL);
        for (t = 0; t < THREADS; t++) {
                assert_int_equal(w[t].wrong, 0);
                for (p = 0; p < 12; p++)
                        total[p] += w[t].counts[p];
        }
}

static void test_roundrobin_exact_and_balanced(void **state) {
        bp_test_drs_t drs = {0};
        rd_kafka_topic_t *rkt;
        rd_kafka_t *rk = producer(&drs, "roundrobin", &rkt);
        int total[12] = {0}, p, gold = 0, plat = 0;
        bp_bucket_stats_t bs;

        (void)state;
        run(rkt, 0, 0, total);
        for (p = 0; p < 12; p++)
                *(p < 8 ? &plat : &gold) += total[p];
        assert_int_equal(plat + gold, THREADS * PER_THREAD);

        /* The stats count exactly what the threads produced (+1 warm-up). */
        assert_int_equal(bp_bucket_stats(rk, 0, &bs), 0);
        assert_int_equal(bs.routed, (uint64_t)plat);
        assert_int_equal(bp_bucket_stats(rk, 1, &bs), 0);
        assert_int_equal(bs.routed, (uint64_t)gold + 1);

        /* Round robin across all threads: within one per bucket. The
         * warm-up record took Gold's first slot, so count it in. */
        total[8]++;
        assert_true(spread(total, 0, 8) <= 1);
        assert_true(spread(total, 8, 12) <= 1);
        bp_test_producer_close(rk, rkt, &drs);
}

/* within=hash: every record on the partition librdkafka's murmur2 gives
 * its key within its bucket, so one key always lands on one partition. */
static void test_hash_keeps_keys_together(void **state) {
        bp_test_drs_t drs = {0};
        rd_kafka_topic_t *rkt;
        rd_kafka_t *rk = producer(&drs, "hash", &rkt);
        int total[12] = {0}, p;

        (void)state;
        run(rkt, 0, 1, total);
        /* Keys spread over every partition of their bucket. */
        for (p = 0; p < 12; p++)
                assert_true(total[p] > 0);
        bp_test_producer_close(rk, rkt, &drs);
}

/* Threads see 12 and 24 partitions interleaved: the layout cache flips
 * between counts under contention and never misroutes. */
static void test_concurrent_growth(void **state) {
        bp_test_drs_t drs = {0};
        rd_kafka_topic_t *rkt;
        rd_kafka_t *rk = producer(&drs, "roundrobin", &rkt);
        int total[12] = {0};

        (void)state;
        run(rkt, 1, 0, total);
        bp_test_producer_close(rk, rkt, &drs);
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_roundrobin_exact_and_balanced),
            cmocka_unit_test(test_hash_keeps_keys_together),
            cmocka_unit_test(test_concurrent_growth),
        };
        return cmocka_run_group_tests(tests, setup, bp_test_cluster_teardown);
}
