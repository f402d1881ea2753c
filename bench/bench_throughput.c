/*
 * bench_throughput.c - producer throughput to the embedded mock cluster
 * with and without the plugin, side by side in one run.
 *
 *   bp-bench-throughput [ROUNDS [RECORDS]]      (default 5 rounds, 200000)
 *
 * Each round runs both producers one after the other (the order alternates
 * from round to round), each a fresh client with default settings
 * (linger.ms and queue sizes untouched) sending RECORDS keyed records
 * ("Platinum-..." and "Gold-...", two to one, 32-byte values) to topic
 * "orders" of 12 partitions. The clock runs from the first producev() to
 * the end of rd_kafka_flush(), i.e. until every record is acknowledged;
 * client creation and the warm-up record that fetches the metadata are
 * outside it. A first, unreported round warms up the process.
 *
 * Reported: records/s of each producer per round, the per-round ratio
 * (with plugin / without), and the medians over the rounds. The machine is
 * shared and noisy: read the ratio, not the absolute rates. Exits 1 if any
 * record failed or landed outside its key's bucket.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#define MAX_ROUNDS 64

typedef struct result {
        double rate;    /* records/s */
        uint64_t wrong; /* failed or outside their bucket */
} result_t;

static result_t run_producer(const bench_cluster_t *bc, int plugin,
                             const bench_key_t *keys, uint64_t records) {
        static const char value[32] = "value-of-thirty-two-bytes-000000";
        bench_drs_t drs;
        rd_kafka_t *rk = bench_producer(bc, plugin ? "roundrobin" : NULL,
                                        &drs, NULL);
        rd_kafka_resp_err_t err;
        uint64_t i, t0, t1;
        result_t res;

        bench_warm_up(rk, &drs);
        t0 = bench_now_ns();
        for (i = 0; i < records; i++) {
                const bench_key_t *k = &keys[i & (BENCH_KEY_CNT - 1)];
                while ((err = rd_kafka_producev(
                            rk, RD_KAFKA_V_TOPIC(BENCH_TOPIC),
                            RD_KAFKA_V_KEY(k->ptr, k->len),
                            RD_KAFKA_V_VALUE((void *)value, sizeof(value)),
                            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                            RD_KAFKA_V_END)) == RD_KAFKA_RESP_ERR__QUEUE_FULL)
                        rd_kafka_poll(rk, 10); /* returns on the first DR */
                if (err)
                        bench_die("producev: %s", rd_kafka_err2str(err));
                if ((i & 1023) == 0)
                        rd_kafka_poll(rk, 0);
        }
        if (rd_kafka_flush(rk, 120000))
                bench_die("flush timed out");
        t1 = bench_now_ns();

        res.rate  = (double)records * 1e9 / (double)(t1 - t0);
        res.wrong = drs.failed + drs.wrong_bucket + (drs.ok - 1 != records);
        if (drs.failed)
                fprintf(stderr, "%s producer: %llu records failed: %s\n",
                        plugin ? "plugin" : "plain",
                        (unsigned long long)drs.failed,
                        rd_kafka_err2str(drs.first_err));
        rd_kafka_destroy(rk);
        return res;
}

static uint64_t parse_n(const char *s, uint64_t max) {
        char *end;
        unsigned long long v = strtoull(s, &end, 10);
        if (*end || v == 0 || v > max)
                bench_die("bad count \"%s\" (1 to %llu)", s,
                          (unsigned long long)max);
        return (uint64_t)v;
}

int main(int argc, char **argv) {
        int rounds = argc > 1 ? (int)parse_n(argv[1], MAX_ROUNDS) : 5;
        uint64_t records = argc > 2 ? parse_n(argv[2], 100000000) : 200000;
        double plain[MAX_ROUNDS], plugin[MAX_ROUNDS], ratio[MAX_ROUNDS];
        bench_key_t keys[BENCH_KEY_CNT];
        char *buf = bench_keys(keys);
        bench_cluster_t bc;
        uint64_t wrong = 0;
        result_t a, b;
        int r;

        if (argc > 3) {
                fprintf(stderr, "usage: bp-bench-throughput [ROUNDS "
                                "[RECORDS]]\n");
                return 2;
        }
        bench_cluster_start(&bc);
        /* Warm-up round, not reported: page faults, allocator, caches. */
        wrong += run_producer(&bc, 0, keys, records / 4 + 1).wrong;
        wrong += run_producer(&bc, 1, keys, records / 4 + 1).wrong;

        printf("%-6s %16s %16s %10s\n", "round", "without rec/s",
               "with rec/s", "with/w.o.");
        for (r = 0; r < rounds; r++) {
                if (r % 2 == 0) {
                        a = run_producer(&bc, 0, keys, records);
                        b = run_producer(&bc, 1, keys, records);
                } else {
                        b = run_producer(&bc, 1, keys, records);
                        a = run_producer(&bc, 0, keys, records);
                }
                wrong += a.wrong + b.wrong;
                plain[r]  = a.rate;
                plugin[r] = b.rate;
                ratio[r]  = b.rate / a.rate;
                printf("%-6d %16.0f %16.0f %9.3fx%s\n", r + 1, a.rate, b.rate,
                       ratio[r], r % 2 ? "  (with first)" : "");
        }
        printf("%-6s %16.0f %16.0f %9.3fx\n", "median",
               bench_median(plain, rounds), bench_median(plugin, rounds),
               bench_median(ratio, rounds));
        printf("(%d rounds x %llu records per producer; ratio = median of "
               "the per-round ratios; target >= 0.97x)\n",
               rounds, (unsigned long long)records);
        bench_cluster_stop(&bc);
        free(buf);
        if (wrong) {
                fprintf(stderr, "bp-bench-throughput: %llu records failed or "
                                "were misrouted\n",
                        (unsigned long long)wrong);
                return 1;
        }
        return 0;
}
