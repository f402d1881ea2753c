/*
 * bench_scheduler.c - bp-bench-scheduler's main: how long a critical
 * record waits behind a bulk backlog: one consumer serving both buckets
 * with the strict scheduler, dedicated consumers per bucket, and a plain
 * consumer of the whole topic, side by side in one run on librdkafka's
 * embedded mock cluster, or on a real cluster (--brokers).
 *
 *   bp-bench-scheduler [--rounds K] [--bulk N] [--rate R] [--seconds S]
 *                      [--work-us W] [--work sleep|busy] [--fetch-wait-ms F]
 *                      [--linger-ms L]
 *                      [--only dedicated|strict|queue|weighted|wqueue|plain]
 *                      [--prop name=value]... [--brokers B]
 *
 * Each round runs the six setups one after the other (the order rotates
 * from round to round), each on a fresh topic of 12 partitions (buckets
 * "critical, bulk" at "30%, 70%": critical 8-11, bulk 0-7) loaded with N
 * bulk records (default 200 000, 100-byte values):
 *
 *   dedicated  a consumer of bucket critical and one of bucket bulk, each
 *              in its own thread and group (the pattern's recommendation);
 *   strict     one consumer, bucket.priority.bucket = "critical, bulk",
 *              bucket.priority.schedule = strict, bucket.priority.hold =
 *              pause (bulk held back by pausing its partitions);
 *   queue      the same with bucket.priority.hold = queue, strict's
 *              default (bulk held back in a queue of its own, what was
 *              fetched kept);
 *   weighted   the same with bucket.priority.schedule = weighted (each
 *              bucket served in proportion to its allocation while both
 *              have records waiting), bucket.priority.hold = pause;
 *   wqueue     weighted with bucket.priority.hold = queue (a bucket ahead
 *              of its share paused only while a lower one waits);
 *   plain      one consumer of the topic without the plugin.
 *
 * Every consumer spends W µs on each record (default 50, sleeping: work
 * that waits on something, such as a database; "busy" spins instead).
 * Once every consumer of the setup holds its partitions and bulk records
 * flow (plus one second), a producer writes R critical records per second
 * (default 100) for S seconds (default 5), each carrying its send time. A
 * critical record's latency runs from rd_kafka_producev() to the moment
 * rd_kafka_consumer_poll() hands it to the application.
 *
 * fetch.wait.max.ms is F for every consumer (default 10 on the mock
 * cluster, librdkafka's own on a broker): the mock cluster
 * answers a fetch that found nothing only after fetch.wait.max.ms, even if
 * records arrive meanwhile (a broker answers as soon as they do), which
 * would otherwise add up to 500 ms to whichever setup fetches an idle
 * partition. The critical producer uses linger.ms L (default 1). Now and
 * then the producer (or the mock broker) holds a record for up to about a
 * second, in every setup alike: the latency figures leave out the records
 * acknowledged later than 50 ms after their send ("slow ack" counts them,
 * "ack max" shows the slowest), which says nothing about the consumer.
 *
 * --prop sets a librdkafka property on every consumer of every setup (to
 * try a setting; the default run sets none).
 *
 * Printed: per round and setup, the critical latency p50 / p99 / max (ms),
 * the critical records received, those left out for a slow
 * acknowledgement, the slowest acknowledgement (ms), and the bulk records
 * per second delivered while the critical stream ran; then the medians
 * over the rounds, the medians of each round's ratios to dedicated (p50,
 * p99, bulk/s), and the p99 ratios of the medians. Exits 1 if a critical
 * record was not received.
 *
 * This file runs the rounds and prints the table, the medians and the
 * ratios; bench_sched_options.c reads the command line,
 * bench_sched_round.c runs one setup in one round with the consumers of
 * bench_sched_consumer.c and the producing of bench_sched_produce.c, on
 * the cluster and configurations of bench_sched_clients.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librdkafka/rdkafka.h>

#include "bench_sched_clients.h"
#include "bench_sched_options.h"
#include "bench_sched_round.h"
#include "testkit.h"

#ifndef BENCH_PLUGIN_PATH
#define BENCH_PLUGIN_PATH "libbucketpriority"
#endif

/* The median of \p v, left in its order (the rounds stay aligned for the
 * per-round ratios). */
static double median_of(const double *v, int n) {
        double copy[BSCH_MAX_ROUNDS];
        memcpy(copy, v, sizeof(double) * (size_t)n);
        return bsch_median(copy, n);
}

int main(int argc, char **argv) {
        static bsch_result_t res[BSCH_MAX_ROUNDS][BSCH_SETUPS];
        double p99s[BSCH_SETUPS][BSCH_MAX_ROUNDS],
            p50s[BSCH_SETUPS][BSCH_MAX_ROUNDS],
            rates[BSCH_SETUPS][BSCH_MAX_ROUNDS], med99[BSCH_SETUPS];
        char errstr[512];
        int i, r, s;

        bsch_opt.plugin = tk_plugin_path(BENCH_PLUGIN_PATH);
        bsch_parse_options(argc, argv);

        if (!bsch_opt.brokers &&
            tk_mock_start(&bsch_cluster, NULL, 1, errstr, sizeof(errstr)))
                bsch_die("mock cluster", errstr);

        printf("bp-bench-scheduler: librdkafka %s, %s, %d rounds; "
               "bulk backlog %ld, critical %d/s for %d s, work %d us (%s) "
               "per record, fetch.wait.max.ms %s, linger.ms %s\n",
               rd_kafka_version_str(),
               bsch_opt.brokers ? bsch_opt.brokers : "mock cluster",
               bsch_opt.rounds, bsch_opt.bulk, bsch_opt.rate,
               bsch_opt.seconds, bsch_opt.work_us,
               bsch_opt.busy ? "busy" : "sleep",
               bsch_opt.fetch_wait_ms > 0 ? "as set" : "librdkafka's",
               bsch_opt.linger_ms);
        if (bsch_opt.fetch_wait_ms > 0)
                printf("fetch.wait.max.ms %d\n", bsch_opt.fetch_wait_ms);
        printf("%-6s %-10s %9s %9s %9s %9s %9s %9s %9s\n", "round",
               "setup", "p50 ms", "p99 ms", "max ms", "critical",
               "slow ack", "ack max", "bulk/s");
        for (r = 0; r < bsch_opt.rounds; r++) {
                for (i = 0; i < BSCH_SETUPS; i++) {
                        bsch_result_t *x;
                        s = (i + r) % BSCH_SETUPS;
                        x = &res[r][s];
                        if (bsch_opt.only &&
                            strcmp(bsch_opt.only, bsch_setup_name[s])) {
                                p50s[s][r] = p99s[s][r] = rates[s][r] = 1;
                                continue;
                        }
                        bsch_run_setup(s, r, x);
                        p50s[s][r]  = bsch_pct(x, 0.50);
                        p99s[s][r]  = bsch_pct(x, 0.99);
                        rates[s][r] = (double)x->bulk_in_window / x->window_s;
                        printf("%-6d %-10s %9.2f %9.2f %9.2f %9ld %9ld "
                               "%9.1f %9.0f\n",
                               r + 1, bsch_setup_name[s], p50s[s][r],
                               p99s[s][r],
                               x->lat_ms[x->lat_cnt - 1], x->received,
                               x->slow_acks, x->ack_max_ms, rates[s][r]);
                        fflush(stdout);
                        free(x->lat_ms);
                        free(x->by_id);
                }
        }
        printf("\nmedians over %d rounds:\n", bsch_opt.rounds);
        printf("%-10s %10s %10s %10s\n", "setup", "p50 ms", "p99 ms",
               "bulk/s");
        for (s = 0; s < BSCH_SETUPS; s++) {
                double p50;
                if (bsch_opt.only &&
                    strcmp(bsch_opt.only, bsch_setup_name[s]))
                        continue;
                p50      = median_of(p50s[s], bsch_opt.rounds);
                med99[s] = median_of(p99s[s], bsch_opt.rounds);
                printf("%-10s %10.2f %10.2f %10.0f\n", bsch_setup_name[s],
                       p50, med99[s], median_of(rates[s], bsch_opt.rounds));
        }
        if (!bsch_opt.only) {
                /* Per round against the round's own dedicated run, then
                 * the median: the machine's load moves both alike. */
                printf("\nmedians of the per-round ratios to dedicated:\n");
                printf("%-10s %10s %10s %10s\n", "setup", "p50", "p99",
                       "bulk/s");
                for (s = BSCH_STRICT; s < BSCH_SETUPS; s++) {
                        double q50[BSCH_MAX_ROUNDS], q99[BSCH_MAX_ROUNDS],
                            qb[BSCH_MAX_ROUNDS];
                        for (r = 0; r < bsch_opt.rounds; r++) {
                                q50[r] = p50s[s][r] / p50s[BSCH_DEDICATED][r];
                                q99[r] = p99s[s][r] / p99s[BSCH_DEDICATED][r];
                                qb[r] = rates[s][r] / rates[BSCH_DEDICATED][r];
                        }
                        printf("%-10s %9.2fx %9.2fx %9.2fx\n",
                               bsch_setup_name[s],
                               bsch_median(q50, bsch_opt.rounds),
                               bsch_median(q99, bsch_opt.rounds),
                               bsch_median(qb, bsch_opt.rounds));
                }
                printf("\n");
                for (s = 0; s < BSCH_SETUPS; s++)
                        if (s != BSCH_DEDICATED)
                                printf("p99 ratio %s / dedicated: %.2f\n",
                                       bsch_setup_name[s],
                                       med99[s] / med99[BSCH_DEDICATED]);
        }

        if (!bsch_opt.brokers)
                tk_mock_stop(&bsch_cluster);
        return 0;
}
