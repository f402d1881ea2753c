/*
 * bench_scheduler.c - how long a critical record waits behind a bulk
 * backlog: one consumer serving both buckets with the strict scheduler,
 * dedicated consumers per bucket, and a plain consumer of the whole topic,
 * side by side in one run on librdkafka's embedded mock cluster.
 *
 *   bp-bench-scheduler [--rounds K] [--bulk N] [--rate R] [--seconds S]
 *                      [--work-us W] [--work sleep|busy] [--fetch-wait-ms F]
 *                      [--linger-ms L] [--only dedicated|strict|plain]
 *                      [--prop name=value]...
 *
 * Each round runs the three setups one after the other (the order rotates
 * from round to round), each on a fresh topic of 12 partitions (buckets
 * "critical, bulk" at "30%, 70%": critical 8-11, bulk 0-7) loaded with N
 * bulk records (default 200 000, 100-byte values):
 *
 *   dedicated  a consumer of bucket critical and one of bucket bulk, each
 *              in its own thread and group (the pattern's recommendation);
 *   strict     one consumer, bucket.priority.bucket = "critical, bulk",
 *              bucket.priority.schedule = strict;
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
 * fetch.wait.max.ms is F for every consumer (default 10): the mock cluster
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
 * per second delivered while the critical stream ran; then the medians over the rounds and the
 * p99 ratios strict / dedicated and plain / dedicated. Exits 1 if a
 * critical record was not received.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include "bp_cli_number.h"
#include "testkit.h"

#ifndef BENCH_PLUGIN_PATH
#define BENCH_PLUGIN_PATH "libbucketpriority"
#endif

#define PARTS 12
#define MAX_ROUNDS 16
#define MAX_CONSUMERS 2

enum { SETUP_DEDICATED, SETUP_STRICT, SETUP_PLAIN, SETUP__CNT };
static const char *setup_names[SETUP__CNT] = {"dedicated", "strict", "plain"};

static struct {
        int rounds, rate, seconds, work_us, busy, fetch_wait_ms;
        long bulk;
        const char *plugin, *linger_ms, *only;
        const char *props[16]; /* --prop k=v: for every consumer */
        int prop_cnt;
} opt = {3, 100, 5, 50, 0, 10, 200000, NULL, "1", NULL, {NULL}, 0};

static tk_mock_t cluster;

static void die(const char *what, const char *why) {
        fprintf(stderr, "bench: %s: %s\n", what, why);
        exit(2);
}

/* The test kit's monotonic clock, unsigned as the figures here are. */
static uint64_t now_ns(void) {
        return (uint64_t)tk_now_ns();
}

static void work(void) {
        uint64_t until;
        if (!opt.busy) {
                tk_sleep_us(opt.work_us);
                return;
        }
        until = now_ns() + (uint64_t)opt.work_us * 1000u;
        while (now_ns() < until)
                ;
}

static void set(rd_kafka_conf_t *conf, const char *name, const char *value) {
        char errstr[512];
        if (rd_kafka_conf_set(conf, name, value, errstr, sizeof(errstr)) !=
            RD_KAFKA_CONF_OK)
                die(name, errstr);
}

/* A configuration for the cluster; with \p plugin, the bucket topic. */
static rd_kafka_conf_t *conf_for(const char *topic, int plugin) {
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        set(conf, "bootstrap.servers", cluster.bootstraps);
        set(conf, "log_level", "3");
        if (plugin) {
                set(conf, "plugin.library.paths", opt.plugin);
                set(conf, "bucket.priority.topic", topic);
                set(conf, "bucket.priority.buckets", "critical, bulk");
                set(conf, "bucket.priority.allocation", "30%, 70%");
        }
        return conf;
}

/* --- producing ------------------------------------------------------------ */

/* The acknowledgement time of each critical record (µs after its send,
 * by id): the producer's and the mock broker's share of a latency, not the
 * consumer's. -1 until acknowledged. */
static atomic_long *ack_us;
static long ack_cnt;

static long critical_id(const rd_kafka_message_t *m) {
        char key[32];
        long id;
        if (!m->key || m->key_len <= 9 || m->key_len >= sizeof(key) ||
            memcmp(m->key, "critical-", 9))
                return -1;
        memcpy(key, m->key, m->key_len);
        key[m->key_len] = '\0';
        id              = strtol(key + 9, NULL, 10);
        return id >= 0 && id < ack_cnt ? id : -1;
}

static void on_ack(rd_kafka_t *rk, const rd_kafka_message_t *m,
                   void *opaque) {
        uint64_t sent;
        long id = critical_id(m);
        (void)rk, (void)opaque;
        if (m->err || id < 0 || m->len < sizeof(sent))
                return;
        memcpy(&sent, m->payload, sizeof(sent));
        atomic_store(&ack_us[id], (long)((now_ns() - sent) / 1000));
}

static rd_kafka_t *producer(const char *topic) {
        rd_kafka_conf_t *conf = conf_for(topic, 1);
        char errstr[512];
        rd_kafka_t *rk;
        set(conf, "linger.ms", opt.linger_ms);
        rd_kafka_conf_set_dr_msg_cb(conf, on_ack);
        if (!(rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr,
                                sizeof(errstr))))
                die("producer", errstr);
        return rk;
}

static void produce(rd_kafka_t *rk, const char *topic, const char *bucket,
                    long id, const void *value, size_t len) {
        char key[48];
        int n = snprintf(key, sizeof(key), "%s-%ld", bucket, id);
        while (rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic),
                                 RD_KAFKA_V_KEY(key, (size_t)n),
                                 RD_KAFKA_V_VALUE((void *)value, len),
                                 RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                 RD_KAFKA_V_END) ==
               RD_KAFKA_RESP_ERR__QUEUE_FULL)
                rd_kafka_poll(rk, 10);
}

static void load_backlog(const char *topic) {
        rd_kafka_t *rk = producer(topic);
        char value[100];
        long i;
        memset(value, 'b', sizeof(value));
        for (i = 0; i < opt.bulk; i++)
                produce(rk, topic, "bulk", i, value, sizeof(value));
        if (rd_kafka_flush(rk, 120000))
                die("backlog", "not acknowledged in 120 s");
        rd_kafka_destroy(rk);
}

/* --- consuming ------------------------------------------------------------ */

typedef struct result {
        double *by_id;   /* latency of each critical record (ms), -1: none */
        long received;   /* critical records received */
        double *lat_ms;  /* sorted latencies of those acknowledged within
                          * ACK_SLOW_MS (the consumer's figures) */
        long lat_cnt;
        long slow_acks;  /* left out: the producer or broker held them */
        long bulk_in_window;
        double window_s;
        double ack_max_ms; /* slowest produce acknowledgement */
} result_t;

/* A record acknowledged later than this (ms) was held by the producer or
 * the mock broker: its latency says nothing about the consumer. */
#define ACK_SLOW_MS 50

typedef struct consumer {
        pthread_t thread;
        rd_kafka_t *rk;
        atomic_int stop, assigned;
        atomic_long bulk;
        result_t *res;
        pthread_mutex_t *lock;
} consumer_t;

static atomic_int window_open;

static void *consume(void *arg) {
        consumer_t *c = arg;
        uint64_t next_check = 0;

        while (!c->stop) {
                rd_kafka_message_t *m = rd_kafka_consumer_poll(c->rk, 10);
                uint64_t t = now_ns();
                if (!c->assigned && t >= next_check) {
                        rd_kafka_topic_partition_list_t *a;
                        if (!rd_kafka_assignment(c->rk, &a)) {
                                c->assigned = a->cnt > 0;
                                rd_kafka_topic_partition_list_destroy(a);
                        }
                        next_check = t + 50000000u;
                }
                if (!m)
                        continue;
                if (!m->err && critical_id(m) >= 0 &&
                    m->len >= sizeof(uint64_t)) {
                        uint64_t sent;
                        long id = critical_id(m);
                        memcpy(&sent, m->payload, sizeof(sent));
                        pthread_mutex_lock(c->lock);
                        if (c->res->by_id[id] < 0) {
                                c->res->by_id[id] = (double)(t - sent) / 1e6;
                                c->res->received++;
                        }
                        pthread_mutex_unlock(c->lock);
                } else if (!m->err && window_open) {
                        c->bulk++;
                }
                rd_kafka_message_destroy(m);
                work();
        }
        rd_kafka_consumer_close(c->rk);
        rd_kafka_destroy(c->rk);
        return NULL;
}

static void consumer_start(consumer_t *c, const char *topic, int setup,
                           const char *bucket, const char *group,
                           result_t *res, pthread_mutex_t *lock) {
        rd_kafka_conf_t *conf = conf_for(topic, setup != SETUP_PLAIN);
        rd_kafka_topic_partition_list_t *sub;
        char errstr[512], fw[16];
        int i;

        memset(c, 0, sizeof(*c));
        c->res  = res;
        c->lock = lock;
        if (setup != SETUP_PLAIN) {
                set(conf, "bucket.priority.bucket", bucket);
                if (setup == SETUP_STRICT)
                        set(conf, "bucket.priority.schedule", "strict");
        }
        snprintf(fw, sizeof(fw), "%d", opt.fetch_wait_ms);
        set(conf, "fetch.wait.max.ms", fw);
        set(conf, "group.id", group);
        for (i = 0; i < opt.prop_cnt; i++) {
                char kv[256], *eq;
                snprintf(kv, sizeof(kv), "%s", opt.props[i]);
                if ((eq = strchr(kv, '=')))
                        *eq++ = '\0';
                set(conf, kv, eq ? eq : "");
        }
        set(conf, "auto.offset.reset", "earliest");
        set(conf, "session.timeout.ms", "6000");
        set(conf, "heartbeat.interval.ms", "500");
        if (!(c->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr,
                                   sizeof(errstr))))
                die("consumer", errstr);
        rd_kafka_poll_set_consumer(c->rk);
        sub = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(sub, topic, RD_KAFKA_PARTITION_UA);
        if (rd_kafka_subscribe(c->rk, sub))
                die("subscribe", topic);
        rd_kafka_topic_partition_list_destroy(sub);
        if (pthread_create(&c->thread, NULL, consume, c))
                die("thread", "cannot start");
}

/* --- one setup, one round ------------------------------------------------- */

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *)a, y = *(const double *)b;
        return x < y ? -1 : x > y;
}

static double pct(const result_t *r, double p) {
        long i;
        if (r->lat_cnt == 0)
                return 0;
        i = (long)(p * (double)(r->lat_cnt - 1) + 0.5);
        return r->lat_ms[i];
}

static void run_setup(rd_kafka_mock_cluster_t *mc, int setup, int round,
                      result_t *res) {
        consumer_t cons[MAX_CONSUMERS];
        pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
        char topic[64], group[64], value[100];
        int n = setup == SETUP_DEDICATED ? 2 : 1, k, ready;
        long sent = 0, total, i;
        uint64_t start, deadline, t0, t1, bulk0 = 0, bulk1 = 0;
        rd_kafka_t *prod;

        snprintf(topic, sizeof(topic), "bench-%s-%d", setup_names[setup],
                 round);
        if (rd_kafka_mock_topic_create(mc, topic, PARTS, 1))
                die("topic", topic);
        load_backlog(topic);

        memset(res, 0, sizeof(*res));
        total      = (long)opt.rate * opt.seconds;
        res->by_id = malloc(sizeof(double) * (size_t)total);
        res->lat_ms = malloc(sizeof(double) * (size_t)total);
        ack_us      = malloc(sizeof(*ack_us) * (size_t)total);
        if (!res->by_id || !res->lat_ms || !ack_us)
                die("latencies", "out of memory");
        for (i = 0; i < total; i++) {
                res->by_id[i] = -1;
                atomic_init(&ack_us[i], -1);
        }
        ack_cnt = total;
        snprintf(group, sizeof(group), "%s-%d", setup_names[setup], round);
        if (setup == SETUP_DEDICATED) {
                consumer_start(&cons[0], topic, setup, "critical", group, res,
                               &lock);
                consumer_start(&cons[1], topic, setup, "bulk", group, res,
                               &lock);
        } else {
                consumer_start(&cons[0], topic, setup, "critical, bulk",
                               group, res, &lock);
        }
        deadline = now_ns() + 60000000000ull;
        do {
                tk_sleep_us(50000);
                for (ready = 1, k = 0; k < n; k++)
                        ready &= cons[k].assigned;
        } while (!ready && now_ns() < deadline);
        if (!ready)
                die(setup_names[setup], "consumers not assigned in 60 s");
        tk_sleep_us(1000000); /* bulk records flow */

        prod = producer(topic);
        memset(value, 'c', sizeof(value));
        for (k = 0; k < n; k++)
                bulk0 += (uint64_t)cons[k].bulk;
        window_open = 1;
        t0 = start = now_ns();
        while (sent < total) {
                uint64_t due = start + (uint64_t)sent * 1000000000u /
                                           (uint64_t)opt.rate;
                uint64_t now = now_ns();
                if (now < due) {
                        /* Serves delivery reports as they come, so that
                         * an acknowledgement is timed to the millisecond. */
                        uint64_t ms = (due - now) / 1000000u;
                        rd_kafka_poll(prod, ms > 5 ? 5 : (int)ms);
                        if (ms == 0)
                                tk_sleep_us((long)((due - now) / 1000));
                        continue;
                }
                now = now_ns();
                memcpy(value, &now, sizeof(now));
                produce(prod, topic, "critical", sent, value, sizeof(value));
                sent++;
        }
        t1 = now_ns();
        window_open = 0;
        for (k = 0; k < n; k++)
                bulk1 += (uint64_t)cons[k].bulk;
        rd_kafka_flush(prod, 10000);
        rd_kafka_destroy(prod);

        /* Every critical record must arrive; the slowest setup needs up to
         * the whole backlog's time. */
        deadline = now_ns() + 300000000000ull;
        while (now_ns() < deadline) {
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
                long a = atomic_load(&ack_us[i]);
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
        free(ack_us);
        ack_us  = NULL;
        ack_cnt = 0;
        if (res->received < total || res->lat_cnt == 0) {
                fprintf(stderr, "bench: %s: %ld of %ld critical records "
                                "received\n",
                        setup_names[setup], res->received, total);
                exit(1);
        }
}

/* --- main ------------------------------------------------------------------ */

static double median(double *v, int n) {
        qsort(v, (size_t)n, sizeof(double), cmp_double);
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void usage(void) {
        fprintf(stderr,
                "usage: bp-bench-scheduler [--rounds K] [--bulk N] [--rate R] "
                "[--seconds S]\n"
                "                          [--work-us W] [--work sleep|busy] "
                "[--fetch-wait-ms F]\n"
                "                          [--linger-ms L] "
                "[--only dedicated|strict|plain] [--prop name=value]...\n");
        exit(2);
}

/* A whole decimal number in [lo, hi] for option \p name, or exit 2. */
static long number(const char *name, const char *v, long lo, long hi) {
        long n;

        if (bp_cli_whole("bp-bench-scheduler", name, v, lo, hi, &n))
                exit(2);
        return n;
}

static void parse_options(int argc, char **argv) {
        static const struct option longopts[] = {
            {"rounds", required_argument, NULL, 'r'},
            {"bulk", required_argument, NULL, 'b'},
            {"rate", required_argument, NULL, 'R'},
            {"seconds", required_argument, NULL, 's'},
            {"work-us", required_argument, NULL, 'w'},
            {"work", required_argument, NULL, 'W'},
            {"fetch-wait-ms", required_argument, NULL, 'f'},
            {"linger-ms", required_argument, NULL, 'l'},
            {"only", required_argument, NULL, 'o'},
            {"prop", required_argument, NULL, 'p'},
            {NULL, 0, NULL, 0}};
        int c;

        while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
                switch (c) {
                case 'r':
                        opt.rounds =
                            (int)number("--rounds", optarg, 1, MAX_ROUNDS);
                        break;
                case 'b':
                        opt.bulk = number("--bulk", optarg, 1, 100000000);
                        break;
                case 'R':
                        opt.rate = (int)number("--rate", optarg, 1, 100000);
                        break;
                case 's':
                        opt.seconds =
                            (int)number("--seconds", optarg, 1, 3600);
                        break;
                case 'w':
                        opt.work_us =
                            (int)number("--work-us", optarg, 0, 1000000);
                        break;
                case 'W':
                        if (strcmp(optarg, "busy") && strcmp(optarg, "sleep"))
                                usage();
                        opt.busy = !strcmp(optarg, "busy");
                        break;
                case 'f':
                        opt.fetch_wait_ms =
                            (int)number("--fetch-wait-ms", optarg, 1, 60000);
                        break;
                case 'l':
                        number("--linger-ms", optarg, 0, 900000);
                        opt.linger_ms = optarg;
                        break;
                case 'o':
                        if (strcmp(optarg, "dedicated") &&
                            strcmp(optarg, "strict") && strcmp(optarg, "plain"))
                                usage();
                        opt.only = optarg;
                        break;
                case 'p':
                        if (opt.prop_cnt == 16 || !strchr(optarg, '='))
                                usage();
                        opt.props[opt.prop_cnt++] = optarg;
                        break;
                default:
                        usage();
                }
        }
        if (optind < argc)
                usage();
}

int main(int argc, char **argv) {
        static result_t res[MAX_ROUNDS][SETUP__CNT];
        double p99s[SETUP__CNT][MAX_ROUNDS], p50s[SETUP__CNT][MAX_ROUNDS],
            rates[SETUP__CNT][MAX_ROUNDS], med99[SETUP__CNT];
        char errstr[512];
        int i, r, s;

        opt.plugin = tk_plugin_path(BENCH_PLUGIN_PATH);
        parse_options(argc, argv);
        if (opt.rounds < 1 || opt.rounds > MAX_ROUNDS || opt.bulk < 1 ||
            opt.rate < 1 || opt.seconds < 1 || opt.work_us < 0 ||
            opt.fetch_wait_ms < 1)
                usage();

        if (tk_mock_start(&cluster, NULL, 1, errstr, sizeof(errstr)))
                die("mock cluster", errstr);

        printf("bp-bench-scheduler: librdkafka %s mock cluster, %d rounds; "
               "bulk backlog %ld, critical %d/s for %d s, work %d us (%s) "
               "per record, fetch.wait.max.ms %d, linger.ms %s\n",
               rd_kafka_version_str(), opt.rounds, opt.bulk, opt.rate,
               opt.seconds, opt.work_us, opt.busy ? "busy" : "sleep",
               opt.fetch_wait_ms, opt.linger_ms);
        printf("%-6s %-10s %9s %9s %9s %9s %9s %9s %9s\n", "round",
               "setup", "p50 ms", "p99 ms", "max ms", "critical",
               "slow ack", "ack max", "bulk/s");
        for (r = 0; r < opt.rounds; r++) {
                for (i = 0; i < SETUP__CNT; i++) {
                        result_t *x;
                        s = (i + r) % SETUP__CNT;
                        x = &res[r][s];
                        if (opt.only && strcmp(opt.only, setup_names[s])) {
                                p50s[s][r] = p99s[s][r] = rates[s][r] = 1;
                                continue;
                        }
                        run_setup(cluster.mcluster, s, r, x);
                        p50s[s][r]  = pct(x, 0.50);
                        p99s[s][r]  = pct(x, 0.99);
                        rates[s][r] = (double)x->bulk_in_window / x->window_s;
                        printf("%-6d %-10s %9.2f %9.2f %9.2f %9ld %9ld "
                               "%9.1f %9.0f\n",
                               r + 1, setup_names[s], p50s[s][r], p99s[s][r],
                               x->lat_ms[x->lat_cnt - 1], x->received,
                               x->slow_acks, x->ack_max_ms, rates[s][r]);
                        fflush(stdout);
                        free(x->lat_ms);
                        free(x->by_id);
                }
        }
        printf("\nmedians over %d rounds:\n", opt.rounds);
        printf("%-10s %10s %10s %10s\n", "setup", "p50 ms", "p99 ms",
               "bulk/s");
        for (s = 0; s < SETUP__CNT; s++) {
                double p50;
                if (opt.only && strcmp(opt.only, setup_names[s]))
                        continue;
                p50      = median(p50s[s], opt.rounds);
                med99[s]   = median(p99s[s], opt.rounds);
                printf("%-10s %10.2f %10.2f %10.0f\n", setup_names[s], p50,
                       med99[s], median(rates[s], opt.rounds));
        }
        if (!opt.only) {
                printf("\np99 ratio strict / dedicated: %.2f\n",
                       med99[SETUP_STRICT] / med99[SETUP_DEDICATED]);
                printf("p99 ratio plain / dedicated:  %.2f\n",
                       med99[SETUP_PLAIN] / med99[SETUP_DEDICATED]);
        }

        tk_mock_stop(&cluster);
        return 0;
}
