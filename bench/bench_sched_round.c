/*
 * bench_sched_round.c - one setup in one round of the scheduler
 * benchmark: a fresh topic and its bulk backlog, the setup's consumers,
 * the critical stream once they hold their partitions and bulk flows, the
 * wait for every critical record; and the figures drawn from the result.
 */
#include "bench_sched_round.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_sched_clients.h"
#include "bench_sched_options.h"
#include "bench_sched_produce.h"
#include "testkit.h"

#define PARTS 12
#define MAX_CONSUMERS 2

/* A record acknowledged later than this (ms) was held by the producer or
 * the mock broker: its latency says nothing about the consumer. */
#define ACK_SLOW_MS 50

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *)a, y = *(const double *)b;
        return x < y ? -1 : x > y;
}

double bsch_pct(const bsch_result_t *r, double p) {
        long i;
        if (r->lat_cnt == 0)
                return 0;
        i = (long)(p * (double)(r->lat_cnt - 1) + 0.5);
        return r->lat_ms[i];
}

double bsch_median(double *v, int n) {
        qsort(v, (size_t)n, sizeof(double), cmp_double);
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void bsch_run_setup(int setup, int round, bsch_result_t *res) {
        bsch_consumer_t cons[MAX_CONSUMERS];
        pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
        char topic[96], group[96], value[100];
        int n = setup == BSCH_DEDICATED ? 2 : 1, k, ready;
        long sent = 0, total, i;
        uint64_t start, deadline, t0, t1, bulk0 = 0, bulk1 = 0;
        rd_kafka_t *prod;

        /* Unique on a broker that outlives the run. */
        snprintf(topic, sizeof(topic), "bench-%s-%d-%lld",
                 bsch_setup_name[setup], round,
                 (long long)(tk_wall_ms() % 100000000));
        bsch_topic_create(topic, PARTS);
        bsch_load_backlog(topic);

        memset(res, 0, sizeof(*res));
        total      = (long)bsch_opt.rate * bsch_opt.seconds;
        res->by_id = malloc(sizeof(double) * (size_t)total);
        res->lat_ms = malloc(sizeof(double) * (size_t)total);
        if (!res->by_id || !res->lat_ms || bsch_acks_open(total))
                bsch_die("latencies", "out of memory");
        for (i = 0; i < total; i++)
                res->by_id[i] = -1;
        snprintf(group, sizeof(group), "%s", topic);
        if (setup == BSCH_DEDICATED) {
                bsch_consumer_start(&cons[0], topic, setup, "critical",
                                    group, res, &lock);
                bsch_consumer_start(&cons[1], topic, setup, "bulk", group,
                                    res, &lock);
        } else {
                bsch_consumer_start(&cons[0], topic, setup, "critical, bulk",
                                    group, res, &lock);
        }
        deadline = bsch_now_ns() + 60000000000ull;
        do {
                tk_sleep_us(50000);
                for (ready = 1, k = 0; k < n; k++)
                        ready &= cons[k].assigned;
        } while (!ready && bsch_now_ns() < deadline);
        if (!ready)
                bsch_die(bsch_setup_name[setup],
                         "consumers not assigned in 60 s");
        tk_sleep_us(1000000); /* bulk records flow */

        prod = bsch_producer(topic);
        memset(value, 'c', sizeof(value));
        for (k = 0; k < n; k++)
                bulk0 += (uint64_t)cons[k].bulk;
        bsch_window_open = 1;
        t0 = start = bsch_now_ns();
        while (sent < total) {
                uint64_t due = start + (uint64_t)sent * 1000000000u /
                                           (uint64_t)bsch_opt.rate;
                uint64_t now = bsch_now_ns();
                if (now < due) {
                        /* Serves delivery reports as they come, so that
                         * an acknowledgement is timed to the millisecond. */
                        uint64_t ms = (due - now) / 1000000u;
                        rd_kafka_poll(prod, ms > 5 ? 5 : (int)ms);
                        if (ms == 0)
                                tk_sleep_us((long)((due - now) / 1000));
                        continue;
                }
                now = bsch_now_ns();
                memcpy(value, &now, sizeof(now));
                bsch_produce(prod, topic, "critical", sent, value,
                             sizeof(value));
                sent++;
        }
        t1 = bsch_now_ns();
        bsch_window_open = 0;
        for (k = 0; k < n; k++)
                bulk1 += (uint64_t)cons[k].bulk;
        rd_kafka_flush(prod, 10000);
        rd_kafka_destroy(prod);

        /* Every critical record must arrive; the slowest setup needs up to
         * the whole backlog's time. */
        deadline = bsch_now_ns() + 300000000000ull;
        while (bsch_now_ns() < deadline) {
                long got;
                pthread_mutex_lock(&lock);
                got = res->received;
                pthread_mutex_unlock(&lock);
                if (got >= total)
                        break;
                tk_sleep_us(20000);
        }
        for (k = 0; k < n; k++)
                cons[k].stop = 1;
        for (k = 0; k < n; k++)
                pthread_join(cons[k].thread, NULL);
        res->bulk_in_window = (long)(bulk1 - bulk0);
        res->window_s       = (double)(t1 - t0) / 1e9;
        for (i = 0; i < total; i++) {
                long a = bsch_ack_us(i);
                if ((double)a / 1000 > res->ack_max_ms)
                        res->ack_max_ms = (double)a / 1000;
                if (res->by_id[i] < 0)
                        continue;
                if (a < 0 || a > ACK_SLOW_MS * 1000L)
                        res->slow_acks++;
                else
                        res->lat_ms[res->lat_cnt++] = res->by_id[i];
        }
        qsort(res->lat_ms, (size_t)res->lat_cnt, sizeof(double), cmp_double);
        bsch_acks_close();
        if (res->received < total || res->lat_cnt == 0) {
                fprintf(stderr, "bench: %s: %ld of %ld critical records "
                                "received\n",
                        bsch_setup_name[setup], res->received, total);
                exit(1);
        }
}
