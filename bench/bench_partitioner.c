/*
 * bench_partitioner.c - the cost of one partitioner call, for callgrind:
 * the bucket partitioner (round robin or hash within the bucket) against
 * librdkafka's rd_kafka_msg_partitioner_murmur2_random on the same keys.
 *
 *   bp-bench-partitioner bucket-roundrobin|bucket-hash|murmur2_random N
 *       N calls of one partitioner through a function pointer, on a
 *       producer that loaded the plugin by plugin.library.paths (topic
 *       "orders", 12 partitions, "Platinum, Gold" at 70/30). Measure with
 *         valgrind --tool=callgrind --toggle-collect=bp_partitioner ...
 *         valgrind --tool=callgrind \
 *             --toggle-collect=rd_kafka_msg_partitioner_murmur2_random ...
 *       Instructions per record = the collected Ir / N; with N = 10^6 the
 *       one-off costs inside the function (lazy binding, the first layout)
 *       weigh less than 0.01 Ir per call.
 *
 *   bp-bench-partitioner produce-plugin|produce-plain N
 *       N records through rd_kafka_producev() (the topic's metadata known,
 *       so each is partitioned inside the call), by a producer with or
 *       without the plugin; for the plugin's per-record cost on the
 *       producing thread (its on_send interceptor and the partitioner):
 *         valgrind --tool=callgrind --toggle-collect=bench_produce_loop ...
 *
 *   bp-bench-partitioner time [ROUNDS [N]]
 *       The three partitioners timed side by side in one process, rounds
 *       interleaved; prints the ratios to murmur2_random (median). Wall
 *       clock, so it also sees what instruction counts do not (the atomic
 *       increment of round robin), and it is noisy: prefer callgrind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bucket_priority.h"
#include "bench_util.h"

typedef int32_t(partitioner_fn)(const rd_kafka_topic_t *rkt,
                                const void *key,
                                size_t keylen,
                                int32_t partition_cnt,
                                void *rkt_opaque,
                                void *msg_opaque);

/* Read through a volatile pointer: the compiler can neither inline nor
 * specialise the call, so every mode pays the same indirect call. */
static partitioner_fn *volatile measured;

/* Per key kind (Platinum 0, Gold 1): records per partition; index 12
 * counts out-of-range results. */
typedef struct tally {
        uint64_t per_partition[2][BENCH_PARTITIONS + 1];
} tally_t;

/* The measured loops keep their symbols' names for callgrind's
 * --toggle-collect: not static, and not inlined or cloned (gcc's noipa;
 * clang has no such attribute and clones nothing it cannot inline). */
#if defined(__clang__)
#define BENCH_MEASURED __attribute__((noinline))
#else
#define BENCH_MEASURED __attribute__((noipa))
#endif

/* The measured loop: N calls, keys taken in turn from the set. */
BENCH_MEASURED void bench_partition_loop(const rd_kafka_topic_t *rkt,
                                                 const bench_key_t *keys,
                                                 uint64_t n,
                                                 tally_t *t) {
        uint64_t i;
        for (i = 0; i < n; i++) {
                const bench_key_t *k = &keys[i & (BENCH_KEY_CNT - 1)];
                int32_t p = measured(rkt, k->ptr, k->len, BENCH_PARTITIONS,
                                     NULL, NULL);
                if (p < 0 || p >= BENCH_PARTITIONS)
                        p = BENCH_PARTITIONS;
                t->per_partition[k->gold][p]++;
        }
}

/* N records through producev(): no poll inside (the queue is sized for
 * N), so the loop holds only the producing thread's per-record work. */
BENCH_MEASURED void bench_produce_loop(rd_kafka_t *rk,
                                               const bench_key_t *keys,
                                               uint64_t n) {
        static const char value[32] = "value-of-thirty-two-bytes-000000";
        rd_kafka_resp_err_t err;
        uint64_t i;

        for (i = 0; i < n; i++) {
                const bench_key_t *k = &keys[i & (BENCH_KEY_CNT - 1)];
                err = rd_kafka_producev(
                    rk, RD_KAFKA_V_TOPIC(BENCH_TOPIC),
                    RD_KAFKA_V_KEY(k->ptr, k->len),
                    RD_KAFKA_V_VALUE((void *)value, sizeof(value)),
                    RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
                if (err)
                        bench_die("producev record %llu: %s",
                                  (unsigned long long)i, rd_kafka_err2str(err));
        }
}

/* Checks every result: Platinum keys in 0-7, Gold keys in 8-11 (bucket
 * modes), any valid partition (murmur2_random). Returns the number wrong. */
static uint64_t check_tally(const tally_t *t, int bucket_mode) {
        uint64_t wrong = 0;
        int g, p;
        for (g = 0; g < 2; g++)
                for (p = 0; p <= BENCH_PARTITIONS; p++) {
                        int ok = p < BENCH_PARTITIONS &&
                                 (!bucket_mode || (g ? p >= 8 : p < 8));
                        if (!ok)
                                wrong += t->per_partition[g][p];
                }
        return wrong;
}

static void print_tally(const char *mode, uint64_t n, const tally_t *t) {
        int p;
        printf("%s: %llu calls; records per partition:", mode,
               (unsigned long long)n);
        for (p = 0; p < BENCH_PARTITIONS; p++)
                printf(" %llu", (unsigned long long)(t->per_partition[0][p] +
                                                     t->per_partition[1][p]));
        printf("\n");
}

typedef struct mode {
        const char *name;
        const char *within; /* the producer's bucket.priority.within */
        partitioner_fn *fn;
        int bucket_mode;
} bench_mode_t;

static const bench_mode_t modes[] = {
    {"bucket-roundrobin", "roundrobin", bp_partitioner, 1},
    {"bucket-hash", "hash", bp_partitioner, 1},
    {"murmur2_random", "roundrobin", rd_kafka_msg_partitioner_murmur2_random,
     0},
};
#define MODE_CNT ((int)(sizeof(modes) / sizeof(modes[0])))

static const bench_mode_t *find_mode(const char *name) {
        int i;
        for (i = 0; i < MODE_CNT; i++)
                if (!strcmp(name, modes[i].name))
                        return &modes[i];
        return NULL;
}

/* A producer with the plugin whose handle of the topic is registered. */
static rd_kafka_t *ready_producer(const bench_cluster_t *bc,
                                  const char *within, bench_drs_t *drs,
                                  rd_kafka_topic_t **rkt) {
        rd_kafka_t *rk = bench_producer(bc, within, drs, NULL);
        bench_warm_up(rk, drs);
        *rkt = rd_kafka_topic_new(rk, BENCH_TOPIC, NULL);
        if (!*rkt)
                bench_die("rd_kafka_topic_new: %s",
                          rd_kafka_err2str(rd_kafka_last_error()));
        return rk;
}

static int run_one(const bench_mode_t *m, uint64_t n) {
        bench_cluster_t bc;
        bench_drs_t drs;
        rd_kafka_topic_t *rkt;
        rd_kafka_t *rk;
        bench_key_t keys[BENCH_KEY_CNT];
        char *buf = bench_keys(keys);
        tally_t t;
        uint64_t wrong;

        memset(&t, 0, sizeof(t));
        bench_cluster_start(&bc);
        rk       = ready_producer(&bc, m->within, &drs, &rkt);
        measured = m->fn;
        bench_partition_loop(rkt, keys, n, &t);
        wrong = check_tally(&t, m->bucket_mode);
        print_tally(m->name, n, &t);
        rd_kafka_topic_destroy(rkt);
        rd_kafka_destroy(rk);
        tk_mock_stop(&bc);
        free(buf);
        if (wrong) {
                fprintf(stderr, "%s: %llu results outside the key's bucket\n",
                        m->name, (unsigned long long)wrong);
                return 1;
        }
        return 0;
}

static int run_produce(int plugin, uint64_t n) {
        /* Room for all N records: producev never returns QUEUE_FULL, so
         * the measured loop never polls. */
        static const char *const big_queue[] = {
            "queue.buffering.max.messages", "10000000",
            "queue.buffering.max.kbytes", "2097151", NULL};
        bench_cluster_t bc;
        bench_drs_t drs;
        rd_kafka_t *rk;
        bench_key_t keys[BENCH_KEY_CNT];
        char *buf = bench_keys(keys);
        int rc = 0;

        bench_cluster_start(&bc);
        rk = bench_producer(&bc, plugin ? "roundrobin" : NULL, &drs,
                            big_queue);
        bench_warm_up(rk, &drs);
        bench_produce_loop(rk, keys, n);
        if (rd_kafka_flush(rk, 120000))
                bench_die("flush timed out");
        printf("produce-%s: %llu records; delivered %llu, failed %llu, "
               "outside their bucket %llu\n",
               plugin ? "plugin" : "plain", (unsigned long long)n,
               (unsigned long long)drs.ok - 1, (unsigned long long)drs.failed,
               (unsigned long long)drs.wrong_bucket);
        if (drs.failed || drs.wrong_bucket || drs.ok != n + 1)
                rc = 1;
        rd_kafka_destroy(rk);
        tk_mock_stop(&bc);
        free(buf);
        return rc;
}

/* Wall clock of the three partitioners, interleaved round by round. */
static int run_time(int rounds, uint64_t n) {
        bench_cluster_t bc;
        bench_drs_t drs_rr, drs_hash;
        rd_kafka_topic_t *rkt_rr, *rkt_hash;
        rd_kafka_t *rk_rr, *rk_hash;
        bench_key_t keys[BENCH_KEY_CNT];
        char *buf = bench_keys(keys);
        double ns[MODE_CNT][64], ratio[MODE_CNT][64], med[MODE_CNT];
        tally_t t;
        int r, i, rc = 0;

        if (rounds < 1 || rounds > 64)
                bench_die("rounds: 1 to 64");
        bench_cluster_start(&bc);
        rk_rr   = ready_producer(&bc, "roundrobin", &drs_rr, &rkt_rr);
        rk_hash = ready_producer(&bc, "hash", &drs_hash, &rkt_hash);
        for (r = 0; r < rounds; r++) {
                for (i = 0; i < MODE_CNT; i++) {
                        /* Rotate the order so no mode always runs first. */
                        int m = (i + r) % MODE_CNT;
                        int64_t t0;
                        memset(&t, 0, sizeof(t));
                        measured = modes[m].fn;
                        t0       = tk_now_ns();
                        bench_partition_loop(m == 1 ? rkt_hash : rkt_rr, keys,
                                             n, &t);
                        ns[m][r] = (double)(tk_now_ns() - t0) / (double)n;
                        if (check_tally(&t, modes[m].bucket_mode))
                                rc = 1;
                }
                for (i = 0; i < MODE_CNT; i++)
                        ratio[i][r] = ns[i][r] / ns[2][r];
        }
        printf("%-18s %14s %22s\n", "partitioner", "ns/call (med)",
               "ratio to murmur2_random");
        for (i = 0; i < MODE_CNT; i++) {
                med[i] = bench_median(ratio[i], rounds);
                printf("%-18s %14.2f %21.3fx\n", modes[i].name,
                       bench_median(ns[i], rounds), med[i]);
        }
        printf("(%d rounds of %llu calls, each mode once per round in "
               "rotating order; ratio = median of the per-round ratios)\n",
               rounds, (unsigned long long)n);
        rd_kafka_topic_destroy(rkt_rr);
        rd_kafka_topic_destroy(rkt_hash);
        rd_kafka_destroy(rk_rr);
        rd_kafka_destroy(rk_hash);
        tk_mock_stop(&bc);
        free(buf);
        return rc;
}

static uint64_t parse_n(const char *s) {
        char *end;
        unsigned long long v = strtoull(s, &end, 10);
        if (*end || v == 0)
                bench_die("bad count \"%s\"", s);
        return (uint64_t)v;
}

static void usage(void) {
        fprintf(stderr,
                "usage: bp-bench-partitioner MODE N\n"
                "  MODE: bucket-roundrobin | bucket-hash | murmur2_random |\n"
                "        produce-plugin | produce-plain\n"
                "       bp-bench-partitioner time [ROUNDS [N]]\n");
        exit(2);
}

int main(int argc, char **argv) {
        const bench_mode_t *m;

        if (argc >= 2 && !strcmp(argv[1], "time"))
                return run_time(argc > 2 ? (int)parse_n(argv[2]) : 9,
                                argc > 3 ? parse_n(argv[3]) : 2000000);
        if (argc != 3)
                usage();
        if (!strcmp(argv[1], "produce-plugin"))
                return run_produce(1, parse_n(argv[2]));
        if (!strcmp(argv[1], "produce-plain"))
                return run_produce(0, parse_n(argv[2]));
        if (!(m = find_mode(argv[1])))
                usage();
        return run_one(m, parse_n(argv[2]));
}
