/*
 * bench_hold_candidates.c - how a consumer serving two classes can hold the
 * lower one back: the candidates of issue 26 (item 1) measured side by side,
 * on the mock cluster or a real broker, without the plugin.
 *
 * One topic of four partitions: 0 carries the critical class, 1-3 a bulk
 * backlog. Critical records are sent at --rate per second, each carrying its
 * send time; every record costs --work-us of busy work in the consumer.
 * Three designs read the same load, each on a topic of its own, in turn:
 *
 *   dedicated  two consumers, one per class (the topic-per-class baseline);
 *   pause      one consumer; a thread pauses the bulk partitions while the
 *              critical partition has lag and resumes them once it has none
 *              (the mechanism of the plugin's strict schedule: librdkafka
 *              drops what it had fetched of a paused partition, and fetches
 *              it again on resume);
 *   splice     one consumer; each partition's fetch queue is forwarded to a
 *              queue per class instead of the consumer queue. The bulk queue
 *              forwards into the consumer queue; the critical queue does
 *              not. When critical records arrive, they are moved to the
 *              front: bulk stops flowing in, the consumer queue's content is
 *              set aside in a holding queue, the critical records are moved
 *              into the emptied consumer queue, the held records follow
 *              them, and bulk flows in again. Nothing fetched is dropped.
 *
 * What it prints per design and round: bulk records processed per second
 * while the critical stream runs, the critical records' latency from send
 * to rd_kafka_consumer_poll() (p50, p99; the first second left out), how
 * many times the holding mechanism acted, the bytes of Fetch responses
 * per byte of records processed (far above dedicated's: records fetched
 * again), and how many records came behind a later record of their
 * partition (Kafka's order broken). Then the
 * medians over rounds, as ratios to dedicated.
 *
 * Not measured here: the splice rearranges the consumer queue from another
 * thread, which would race with an rd_kafka_consumer_close() started
 * meanwhile (close redirects that queue too); docs/benchmarks.md says what a
 * scheduler built on it must do about it.
 *
 * The two mechanisms are in bench_hold_mechanisms.c.
 */
#include <librdkafka/rdkafka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_hold_mechanisms.h"
#include "bp_cli.h"
#include "testkit.h"

#define PARTITIONS BENCH_HOLD_PARTITIONS
#define MAX_ROUNDS 20
#define MAX_SAMPLES 200000
#define DESIGNS 3

static const char *const design_name[DESIGNS] = {"dedicated", "pause",
                                                 "splice"};

static struct {
        const char *brokers; /* NULL: the mock cluster */
        int rounds, rate, seconds, work_us;
        long bulk;
} opt = {NULL, 3, 100, 10, 200, 60000};

static char bootstrap[512];

/* ---- what one design measured ---- */
typedef struct {
        long bulk;          /* bulk records processed while measuring */
        long bytes;         /* record bytes processed (both classes) */
        long crit_n;        /* critical latencies kept */
        int64_t *lat_us;    /* MAX_SAMPLES */
        _Atomic long fetch_bytes; /* Fetch response bytes, every consumer */
        long actions;       /* pauses or splices */
        long out_of_order;  /* records behind a later one of their partition */
        int64_t last_offset[PARTITIONS];
} measure_t;

typedef struct {
        double bulk_per_s, p50_ms, p99_ms, refetch;
        long actions, out_of_order;
} figures_t;

static int64_t measure_from_us; /* critical sent before this: warm-up */

static void busy(int us) {
        int64_t until = tk_now_us() + us;
        while (tk_now_us() < until)
                ;
}

/* Counts a record the consumer got; spends the per-record work. */
static void process(measure_t *m, pthread_mutex_t *lock,
                    const rd_kafka_message_t *msg) {
        if (msg->err)
                return;
        pthread_mutex_lock(lock);
        m->bytes += (long)msg->len;
        if (msg->partition >= 0 && msg->partition < PARTITIONS) {
                if (m->last_offset[msg->partition] > msg->offset)
                        m->out_of_order++;
                else
                        m->last_offset[msg->partition] = msg->offset;
        }
        if (msg->partition == 0 && msg->len >= sizeof(int64_t)) {
                int64_t sent;
                memcpy(&sent, msg->payload, sizeof(sent));
                if (sent >= measure_from_us && m->crit_n < MAX_SAMPLES)
                        m->lat_us[m->crit_n++] = tk_now_us() - sent;
        } else if (msg->partition != 0) {
                m->bulk++;
        }
        pthread_mutex_unlock(lock);
        busy(opt.work_us);
}

/* ---- clients ---- */
static rd_kafka_resp_err_t on_response(rd_kafka_t *rk, int sockfd,
                                       const char *brokername,
                                       int32_t brokerid, int16_t api_key,
                                       int16_t api_version, int32_t corrid,
                                       size_t size, int64_t rtt,
                                       rd_kafka_resp_err_t err, void *op) {
        (void)rk, (void)sockfd, (void)brokername, (void)brokerid;
        (void)api_version, (void)corrid, (void)rtt, (void)err;
        if (api_key == 1 /* Fetch */)
                atomic_fetch_add(&((measure_t *)op)->fetch_bytes, (long)size);
        return RD_KAFKA_RESP_ERR_NO_ERROR;
}

static rd_kafka_resp_err_t on_new(rd_kafka_t *rk, const rd_kafka_conf_t *conf,
                                  void *op, char *errstr, size_t size) {
        (void)conf, (void)errstr, (void)size;
        return rd_kafka_interceptor_add_on_response_received(
            rk, "hold-bench", on_response, op);
}

static void set(rd_kafka_conf_t *conf, const char *name, const char *value) {
        char err[256];
        if (rd_kafka_conf_set(conf, name, value, err, sizeof(err))) {
                fprintf(stderr, "bp-bench-hold: %s\n", err);
                exit(1);
        }
}

/* A client of \p type; a consumer in group \p group counts its Fetch
 * response bytes into \p m. */
static rd_kafka_t *client(rd_kafka_type_t type, const char *group,
                          measure_t *m) {
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        char err[512];
        rd_kafka_t *rk;

        set(conf, "bootstrap.servers", bootstrap);
        if (type == RD_KAFKA_CONSUMER) {
                set(conf, "group.id", group);
                set(conf, "enable.auto.commit", "false");
                if (!opt.brokers) /* the mock answers a fetch only then */
                        set(conf, "fetch.wait.max.ms", "10");
                rd_kafka_conf_interceptor_add_on_new(conf, "hold-bench",
                                                     on_new, m);
        } else {
                set(conf, "linger.ms", "1");
        }
        if (!(rk = rd_kafka_new(type, conf, err, sizeof(err)))) {
                fprintf(stderr, "bp-bench-hold: %s\n", err);
                exit(1);
        }
        if (type == RD_KAFKA_CONSUMER)
                rd_kafka_poll_set_consumer(rk);
        return rk;
}

static void assign(rd_kafka_t *rk, const char *topic, int from, int to) {
        rd_kafka_topic_partition_list_t *l =
            rd_kafka_topic_partition_list_new(PARTITIONS);
        int p;
        for (p = from; p <= to; p++)
                rd_kafka_topic_partition_list_add(l, topic, p)->offset =
                    RD_KAFKA_OFFSET_BEGINNING;
        rd_kafka_assign(rk, l);
        rd_kafka_topic_partition_list_destroy(l);
}

/* ---- the load ---- */
typedef struct {
        rd_kafka_t *producer;
        const char *topic;
        atomic_int stop;
} critical_sender_t;

static void *send_critical(void *arg) {
        critical_sender_t *s = arg;
        int64_t next = tk_now_us();
        while (!atomic_load(&s->stop)) {
                int64_t t = tk_now_us();
                rd_kafka_producev(s->producer, RD_KAFKA_V_TOPIC(s->topic),
                                  RD_KAFKA_V_PARTITION(0),
                                  RD_KAFKA_V_VALUE(&t, sizeof(t)),
                                  RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                  RD_KAFKA_V_END);
                rd_kafka_poll(s->producer, 0);
                next += 1000000 / opt.rate;
                tk_sleep_until_us(next);
        }
        return NULL;
}

static void send_backlog(rd_kafka_t *p, const char *topic) {
        char value[100];
        long i;
        memset(value, 'b', sizeof(value));
        for (i = 0; i < opt.bulk; i++)
                while (rd_kafka_producev(
                           p, RD_KAFKA_V_TOPIC(topic),
                           RD_KAFKA_V_PARTITION(1 + (int)(i % (PARTITIONS - 1))),
                           RD_KAFKA_V_VALUE(value, sizeof(value)),
                           RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                           RD_KAFKA_V_END) == RD_KAFKA_RESP_ERR__QUEUE_FULL)
                        rd_kafka_poll(p, 10);
        rd_kafka_flush(p, 60000);
}

/* ---- running one design ---- */
typedef struct {
        rd_kafka_t *rk;
        measure_t *m;
        pthread_mutex_t *lock;
        int64_t until_us;
} poller_t;

static void *poll_until(void *arg) {
        poller_t *p = arg;
        while (tk_now_us() < p->until_us) {
                rd_kafka_message_t *msg = rd_kafka_consumer_poll(p->rk, 100);
                if (msg) {
                        process(p->m, p->lock, msg);
                        rd_kafka_message_destroy(msg);
                }
        }
        return NULL;
}

static void run_design(int d, const char *topic, measure_t *m) {
        pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
        char group[128];
        int64_t until;

        snprintf(group, sizeof(group), "hold-%s-%s", topic, design_name[d]);
        measure_from_us = tk_now_us() + 1000000;
        until           = tk_now_us() + (int64_t)opt.seconds * 1000000;
        if (d == 0) {
                poller_t pc = {client(RD_KAFKA_CONSUMER, group, m), m, &lock,
                              until};
                poller_t pb = {client(RD_KAFKA_CONSUMER, group, m), m, &lock,
                              until};
                pthread_t tc, tb;
                assign(pc.rk, topic, 0, 0);
                assign(pb.rk, topic, 1, PARTITIONS - 1);
                pthread_create(&tc, NULL, poll_until, &pc);
                pthread_create(&tb, NULL, poll_until, &pb);
                pthread_join(tc, NULL);
                pthread_join(tb, NULL);
                rd_kafka_consumer_close(pc.rk);
                rd_kafka_consumer_close(pb.rk);
                rd_kafka_destroy(pc.rk);
                rd_kafka_destroy(pb.rk);
        } else {
                holder_t h = {.topic = topic};
                poller_t pl;
                pthread_t th;
                h.rk = client(RD_KAFKA_CONSUMER, group, m);
                pthread_mutex_init(&h.lock, NULL);
                pthread_cond_init(&h.cond, NULL);
                assign(h.rk, topic, 0, PARTITIONS - 1);
                if (d == 2)
                        splice_setup(&h);
                pthread_create(&th, NULL, d == 2 ? hold_by_splice
                                                 : hold_by_pause,
                               &h);
                pl = (poller_t){h.rk, m, &lock, until};
                poll_until(&pl);
                atomic_store(&h.stop, 1);
                pthread_join(th, NULL);
                m->actions = h.actions;
                if (d == 2)
                        splice_teardown(&h);
                rd_kafka_consumer_close(h.rk);
                rd_kafka_destroy(h.rk);
                pthread_mutex_destroy(&h.lock);
                pthread_cond_destroy(&h.cond);
        }
}

static int by_value(const void *a, const void *b) {
        double x = *(const double *)a, y = *(const double *)b;
        return x < y ? -1 : x > y;
}
static int by_latency(const void *a, const void *b) {
        int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
        return x < y ? -1 : x > y;
}

static figures_t summarise(measure_t *m) {
        figures_t f = {0};
        qsort(m->lat_us, (size_t)m->crit_n, sizeof(int64_t), by_latency);
        f.bulk_per_s = (double)m->bulk / opt.seconds;
        if (m->crit_n) {
                f.p50_ms = m->lat_us[m->crit_n / 2] / 1000.0;
                f.p99_ms = m->lat_us[(m->crit_n * 99) / 100] / 1000.0;
        }
        f.refetch = m->bytes ? (double)atomic_load(&m->fetch_bytes) / m->bytes
                             : 0;
        f.actions      = m->actions;
        f.out_of_order = m->out_of_order;
        return f;
}

/* Creates \p topic with PARTITIONS partitions on the cluster. */
static void create_topic(tk_mock_t *mock, rd_kafka_t *p, const char *topic) {
        char err[512];
        rd_kafka_NewTopic_t *nt;
        rd_kafka_queue_t *q;
        rd_kafka_event_t *ev;
        const rd_kafka_CreateTopics_result_t *res;
        const rd_kafka_topic_result_t **tr;
        size_t n;

        if (mock) {
                if (tk_mock_topic(mock, topic, PARTITIONS, err, sizeof(err))) {
                        fprintf(stderr, "bp-bench-hold: %s\n", err);
                        exit(1);
                }
                return;
        }
        nt = rd_kafka_NewTopic_new(topic, PARTITIONS, 1, err, sizeof(err));
        q  = rd_kafka_queue_new(p);
        rd_kafka_CreateTopics(p, &nt, 1, NULL, q);
        ev  = rd_kafka_queue_poll(q, 30000);
        res = ev ? rd_kafka_event_CreateTopics_result(ev) : NULL;
        tr  = res ? rd_kafka_CreateTopics_result_topics(res, &n) : NULL;
        if (!tr || n != 1 || rd_kafka_topic_result_error(tr[0])) {
                fprintf(stderr, "bp-bench-hold: cannot create %s: %s\n",
                        topic,
                        tr && n == 1 ? rd_kafka_topic_result_error_string(tr[0])
                                     : "no answer");
                exit(1);
        }
        rd_kafka_event_destroy(ev);
        rd_kafka_queue_destroy(q);
        rd_kafka_NewTopic_destroy(nt);
        tk_sleep_us(500000); /* the leader settles */
}

static void usage(FILE *f) {
        fprintf(f, "usage: bp-bench-hold [--brokers B] [--rounds K] "
                   "[--rate R] [--seconds S] [--work-us W] [--bulk N]\n");
}

/* Takes one option (bp_cli_t.take). */
static int take(void *ctx, int o, char *value) {
        const char *p = "bp-bench-hold";

        (void)ctx;
        switch (o) {
        case 'B': opt.brokers = value; return 0;
        case 'r':
                return bp_cli_int(p, "--rounds", value, 1, MAX_ROUNDS,
                                  &opt.rounds);
        case 'R': return bp_cli_int(p, "--rate", value, 1, 10000, &opt.rate);
        case 's':
                return bp_cli_int(p, "--seconds", value, 2, 600, &opt.seconds);
        case 'w':
                return bp_cli_int(p, "--work-us", value, 0, 100000,
                                  &opt.work_us);
        case 'b':
                return bp_cli_whole(p, "--bulk", value, 1, 10000000, &opt.bulk);
        default: return BP_CLI_USAGE;
        }
}

static void parse(int argc, char **argv) {
        static const struct option longopts[] = {
            {"brokers", required_argument, NULL, 'B'},
            {"rounds", required_argument, NULL, 'r'},
            {"rate", required_argument, NULL, 'R'},
            {"seconds", required_argument, NULL, 's'},
            {"work-us", required_argument, NULL, 'w'},
            {"bulk", required_argument, NULL, 'b'},
            {NULL, 0, NULL, 0}};
        const bp_cli_t cli = {.program = "bp-bench-hold",
                              .options = longopts,
                              .usage   = usage,
                              .take    = take};

        bp_cli_parse_or_exit(&cli, argc, argv);
}

int main(int argc, char **argv) {
        figures_t fig[MAX_ROUNDS][DESIGNS];
        tk_mock_t mock = {0};
        char err[512];
        int r, d;

        parse(argc, argv);
        if (opt.brokers) {
                snprintf(bootstrap, sizeof(bootstrap), "%s", opt.brokers);
        } else {
                if (tk_mock_start(&mock, NULL, 1, err, sizeof(err))) {
                        fprintf(stderr, "bp-bench-hold: %s\n", err);
                        return 1;
                }
                snprintf(bootstrap, sizeof(bootstrap), "%s", mock.bootstraps);
        }
        printf("# %s, librdkafka %s, critical %d/s, %d us of work a record, "
               "%d s a design, bulk backlog %ld\n",
               opt.brokers ? opt.brokers : "mock cluster",
               rd_kafka_version_str(), opt.rate, opt.work_us, opt.seconds,
               opt.bulk);
        printf("%-6s %-10s %10s %9s %9s %8s %8s %9s\n", "round", "design",
               "bulk/s", "p50 ms", "p99 ms", "fetched", "actions",
               "reordered");
        for (r = 0; r < opt.rounds; r++)
                for (d = 0; d < DESIGNS; d++) {
                        char topic[96];
                        critical_sender_t cs = {0};
                        measure_t m = {0};
                        pthread_t sender;
                        rd_kafka_t *p = client(RD_KAFKA_PRODUCER, NULL, NULL);

                        snprintf(topic, sizeof(topic), "hold-%lld-%d-%d",
                                 (long long)tk_wall_ms(), r, d);
                        create_topic(opt.brokers ? NULL : &mock, p, topic);
                        send_backlog(p, topic);
                        m.lat_us = calloc(MAX_SAMPLES, sizeof(int64_t));
                        cs.producer = p;
                        cs.topic    = topic;
                        pthread_create(&sender, NULL, send_critical, &cs);
                        run_design(d, topic, &m);
                        atomic_store(&cs.stop, 1);
                        pthread_join(sender, NULL);
                        rd_kafka_flush(p, 10000);
                        rd_kafka_destroy(p);
                        fig[r][d] = summarise(&m);
                        free(m.lat_us);
                        printf("%-6d %-10s %10.0f %9.2f %9.2f %7.2fx %8ld "
                               "%9ld\n",
                               r + 1, design_name[d], fig[r][d].bulk_per_s,
                               fig[r][d].p50_ms, fig[r][d].p99_ms,
                               fig[r][d].refetch, fig[r][d].actions,
                               fig[r][d].out_of_order);
                        fflush(stdout);
                }
        printf("# medians over %d rounds, each design against dedicated in "
               "its round\n",
               opt.rounds);
        printf("%-10s %12s %12s %12s %9s\n", "design", "bulk ratio",
               "p50 ratio", "p99 ratio", "fetched");
        for (d = 1; d < DESIGNS; d++) {
                double bulk[MAX_ROUNDS], p50[MAX_ROUNDS], p99[MAX_ROUNDS],
                    fetched[MAX_ROUNDS];
                for (r = 0; r < opt.rounds; r++) {
                        bulk[r] = fig[r][d].bulk_per_s / fig[r][0].bulk_per_s;
                        p50[r]  = fig[r][d].p50_ms / fig[r][0].p50_ms;
                        p99[r]  = fig[r][d].p99_ms / fig[r][0].p99_ms;
                        fetched[r] = fig[r][d].refetch;
                }
                qsort(bulk, (size_t)opt.rounds, sizeof(double), by_value);
                qsort(p50, (size_t)opt.rounds, sizeof(double), by_value);
                qsort(p99, (size_t)opt.rounds, sizeof(double), by_value);
                qsort(fetched, (size_t)opt.rounds, sizeof(double), by_value);
                printf("%-10s %11.2fx %11.2fx %11.2fx %8.2fx\n",
                       design_name[d], bulk[opt.rounds / 2],
                       p50[opt.rounds / 2], p99[opt.rounds / 2],
                       fetched[opt.rounds / 2]);
        }
        if (!opt.brokers)
                tk_mock_stop(&mock);
        return 0;
}
