/*
 * bench_throughput.c - producer throughput to the embedded mock cluster
 * with and without the plugin, side by side in one run.
 *
 *   bp-bench-throughput [ROUNDS [RECORDS]]  (default 5 rounds, 200000)
 *
 * Each round runs both producers one after the other (the order alternates
 * from round to round), each a fresh client with default settings
 * (linger.ms and queue sizes untouched) sending RECORDS keyed records
 * ("Platinum-..." and "Gold-...", two to one, 32-byte values) to topic
 * "orders" of 12 partitions, polling for delivery reports as it goes and
 * waiting on QUEUE_FULL. The clock runs from the first producev() to the
 * end of rd_kafka_flush(), i.e. until every record is acknowledged; client
 * creation and the warm-up record that fetches the metadata are outside
 * it. A first, unreported pair of runs warms up the process.
 *
 * Reported per round: records/s of each producer and their ratio (with
 * plugin / without); and the process CPU time per record of each (all
 * threads, the in-process mock broker included) and their ratio. The
 * summary lines give the medians over the rounds and the range of the
 * per-round ratios. The machine is shared and noisy: read the ratios, not
 * the absolute figures. Exits 1 if any record failed or landed outside its
 * key's bucket.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#define MAX_ROUNDS 64

typedef struct result {
        double rate;    /* records/s, wall clock */
        double cpu_ns;  /* process CPU ns per record */
        uint64_t wrong; /* failed or outside their bucket */
} result_t;

static result_t run_producer(const bench_cluster_t *bc, int plugin,
                             const bench_key_t *keys, uint64_t records) {
        static const char value[32] = "value-of-thirty-two-bytes-000000";
        bench_drs_t drs;
        rd_kafka_t *rk = bench_producer(bc, plugin ? "roundrobin" : NULL,
                                        &drs, NULL);
        rd_kafka_resp_err_t err;
        uint64_t i, t0, t1, c0, c1;
        result_t res;

        bench_warm_up(rk, &drs);
        c0 = bench_cpu_ns();
        t0 = (uint64_t)tk_now_ns();
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
        t1 = (uint64_t)tk_now_ns();
        c1 = bench_cpu_ns();

        res.rate   = (double)records * 1e9 / (double)(t1 - t0);
        res.cpu_ns = (double)(c1 - c0) / (double)records;
        res.wrong  = drs.failed + drs.wrong_bucket + (drs.ok - 1 != records);
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
        int rounds;
        uint64_t records;
        double rate_a[MAX_ROUNDS], rate_b[MAX_ROUNDS], rate_r[MAX_ROUNDS];
        double cpu_a[MAX_ROUNDS], cpu_b[MAX_ROUNDS], cpu_r[MAX_ROUNDS];
        bench_key_t keys[BENCH_KEY_CNT];
        bench_cluster_t bc;
        uint64_t wrong = 0;
        result_t a, b;
        char *buf;
        int r;

        if (argc > 3) {
                fprintf(stderr, "usage: bp-bench-throughput [ROUNDS "
                                "[RECORDS]]\n");
                return 2;
        }
        rounds  = argc > 1 ? (int)parse_n(argv[1], MAX_ROUNDS) : 5;
        records = argc > 2 ? parse_n(argv[2], 100000000) : 200000;
        buf     = bench_keys(keys);
        bench_cluster_start(&bc);
        /* Warm-up pair, not reported: page faults, allocator, caches. */
        wrong += run_producer(&bc, 0, keys, records / 4 + 1).wrong;
        wrong += run_producer(&bc, 1, keys, records / 4 + 1).wrong;

        printf("%-6s | %12s %12s %9s | %12s %12s %9s\n", "round",
               "w.o. rec/s", "with rec/s", "with/w.o.", "w.o. CPU/rec",
               "with CPU/rec", "with/w.o.");
        for (r = 0; r < rounds; r++) {
                if (r % 2 == 0) {
                        a = run_producer(&bc, 0, keys, records);
                        b = run_producer(&bc, 1, keys, records);
                } else {
                        b = run_producer(&bc, 1, keys, records);
                        a = run_producer(&bc, 0, keys, records);
                }
                wrong += a.wrong + b.wrong;
                rate_a[r] = a.rate;
                rate_b[r] = b.rate;
                rate_r[r] = b.rate / a.rate;
                cpu_a[r]  = a.cpu_ns;
                cpu_b[r]  = b.cpu_ns;
                cpu_r[r]  = b.cpu_ns / a.cpu_ns;
                printf("%-6d | %12.0f %12.0f %8.3fx | %10.0fns %10.0fns "
                       "%8.3fx%s\n",
                       r + 1, a.rate, b.rate, rate_r[r], a.cpu_ns, b.cpu_ns,
                       cpu_r[r], r % 2 ? "  (with first)" : "");
        }
        printf("%-6s | %12.0f %12.0f %8.3fx | %10.0fns %10.0fns %8.3fx\n",
               "median", bench_median(rate_a, rounds),
               bench_median(rate_b, rounds), bench_median(rate_r, rounds),
               bench_median(cpu_a, rounds), bench_median(cpu_b, rounds),
               bench_median(cpu_r, rounds));
        /* bench_median() sorted the ratios: show how far they spread. */
        printf("%-6s | %25s %5.3f-%5.3fx | %25s %5.3f-%5.3fx\n", "range",
               "", rate_r[0], rate_r[rounds - 1], "", cpu_r[0],
               cpu_r[rounds - 1]);
        printf("(%d rounds x %llu records per producer; ratios are medians "
               "of the per-round ratios; throughput target >= 0.97x)\n",
               rounds, (unsigned long long)records);
        tk_mock_stop(&bc);
        free(buf);
        if (wrong) {
                fprintf(stderr, "bp-bench-throughput: %llu records failed or "
                                "were misrouted\n",
                        (unsigned long long)wrong);
                return 1;
        }
        return 0;
}
