/*
 * tk_backlog.c - one run of a consumer of several buckets meeting a
 * backlog of every bucket (see tk_backlog.h): the topic, the backlog, the
 * consumers, and what the application was handed, counted record by
 * record.
 */
#include "tk_backlog.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN_TIMEOUT_MS 60000
#define NAME_MAX_LEN 64

typedef struct run {
        const tk_backlog_setup_t *st;
        tk_backlog_result_t *res;
        char *err;
        size_t err_size;
        char name[TK_BACKLOG_MAX_BUCKETS][NAME_MAX_LEN];
        int base[TK_BACKLOG_MAX_BUCKETS]; /* first id of each bucket */
        int total;
        tk_ledger_t ledger;
        long acked, failed;
        /* judging */
        int judging;             /* from the start, or the takeover */
        long judged;             /* deliveries judged */
        long first_critical;     /* of them, highest bucket, first window */
        long lower_seen[TK_BACKLOG_MAX_BUCKETS]; /* below rank r, judged */
        int64_t *last_offset;    /* by partition */
        unsigned char *higher;   /* by partition: a higher bucket's */
} run_t;

static int fail(run_t *r, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err, r->err_size, fmt, ap);
        va_end(ap);
        return -1;
}

/* The bucket names of "a, b, c", trimmed. */
static int parse_names(run_t *r) {
        const char *p = r->st->buckets;
        int b;

        for (b = 0; b < r->st->n; b++) {
                size_t len = 0;
                while (*p == ' ' || *p == ',')
                        p++;
                while (p[len] && p[len] != ',' && p[len] != ' ')
                        len++;
                if (!len || len >= NAME_MAX_LEN)
                        return fail(r, "bucket %d of \"%s\"", b,
                                    r->st->buckets);
                memcpy(r->name[b], p, len);
                r->name[b][len] = '\0';
                p += len;
        }
        return 0;
}

static int set(run_t *r, rd_kafka_conf_t *conf, const char *name,
               const char *value) {
        char e[512];
        if (!value)
                return 0;
        if (rd_kafka_conf_set(conf, name, value, e, sizeof(e)) ==
            RD_KAFKA_CONF_OK)
                return 0;
        return fail(r, "%s=%s: %s", name, value, e);
}

/* The plugin and the bucket topic's properties. */
static int set_buckets(run_t *r, rd_kafka_conf_t *conf) {
        const tk_backlog_setup_t *st = r->st;
        return set(r, conf, "plugin.library.paths", st->plugin) ||
               set(r, conf, "bucket.priority.topic", st->topic) ||
               set(r, conf, "bucket.priority.buckets", st->buckets) ||
               set(r, conf, "bucket.priority.allocation", st->allocation);
}

static void on_dr(rd_kafka_t *rk, const rd_kafka_message_t *m, void *op) {
        run_t *r = op;
        (void)rk;
        if (m->err) {
                r->failed++;
                return;
        }
        r->acked++;
        tk_ledger_write(&r->ledger, (int)(intptr_t)m->_private);
        if (m->partition >= 0 && m->partition < r->st->partitions &&
            (int)(intptr_t)m->_private < r->base[r->st->n - 1])
                r->higher[m->partition] = 1;
}

/* Writes ids [from, to) of bucket \p b, keyed "<bucket>-<id>", and waits
 * for their acknowledgements. */
static int produce(run_t *r, rd_kafka_t *p, int b, int from, int to) {
        long want = r->acked + r->failed + (to - from);
        int64_t t0;
        int id;

        for (id = from; id < to; id++) {
                char key[NAME_MAX_LEN + 24];
                int len = snprintf(key, sizeof(key), "%s-%d", r->name[b], id);
                rd_kafka_resp_err_t e;
                while ((e = rd_kafka_producev(
                            p, RD_KAFKA_V_TOPIC(r->st->topic),
                            RD_KAFKA_V_KEY(key, (size_t)len),
                            RD_KAFKA_V_VALUE("x", 1),
                            RD_KAFKA_V_OPAQUE((void *)(intptr_t)id),
                            RD_KAFKA_V_END)) == RD_KAFKA_RESP_ERR__QUEUE_FULL)
                        rd_kafka_poll(p, 10);
                if (e)
                        return fail(r, "producev: %s", rd_kafka_err2str(e));
        }
        t0 = tk_now_ms();
        while (r->acked + r->failed < want &&
               tk_now_ms() - t0 < RUN_TIMEOUT_MS)
                rd_kafka_poll(p, 10);
        if (r->failed || r->acked + r->failed < want)
                return fail(r, "%ld records failed, %ld not acknowledged",
                            r->failed, want - r->acked - r->failed);
        return 0;
}

/* Writes \p per_bucket[b] records of each bucket from offset \p skip of
 * its ids, the lowest bucket first (b == -1: every bucket). */
static int produce_backlog(run_t *r, int only, const int *from,
                           const int *to) {
        char e[512];
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        rd_kafka_t *p;
        int b, rc = 0;

        if (set(r, conf, "bootstrap.servers", r->st->bootstraps) ||
            set_buckets(r, conf) || set(r, conf, "linger.ms", "5") ||
            set(r, conf, "log_level", "3")) {
                rd_kafka_conf_destroy(conf);
                return -1;
        }
        if (!(p = tk_producer(conf, on_dr, r, e, sizeof(e))))
                return fail(r, "producer: %s", e);
        for (b = r->st->n - 1; b >= 0 && !rc; b--)
                if (only < 0 || only == b)
                        rc = produce(r, p, b, r->base[b] + from[b],
                                     r->base[b] + to[b]);
        rd_kafka_flush(p, 10000);
        rd_kafka_destroy(p);
        return rc;
}

static rd_kafka_t *consumer(run_t *r) {
        const tk_backlog_setup_t *st = r->st;
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        rd_kafka_topic_partition_list_t *sub;
        rd_kafka_t *rk;
        char e[512];

        if (set(r, conf, "bootstrap.servers", st->bootstraps) ||
            (st->schedule &&
             (set_buckets(r, conf) ||
              set(r, conf, "bucket.priority.bucket", st->buckets) ||
              set(r, conf, "bucket.priority.schedule", st->schedule) ||
              set(r, conf, "bucket.priority.hold", st->hold))) ||
            set(r, conf, "group.id", st->group) ||
            set(r, conf, "group.protocol", st->protocol) ||
            set(r, conf, "auto.offset.reset", "earliest") ||
            set(r, conf, "log_level", "3")) {
                rd_kafka_conf_destroy(conf);
                return NULL;
        }
        if (!st->protocol &&
            (set(r, conf, "session.timeout.ms", "6000") ||
             set(r, conf, "heartbeat.interval.ms", "500"))) {
                rd_kafka_conf_destroy(conf);
                return NULL;
        }
        if (!(rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, e, sizeof(e)))) {
                rd_kafka_conf_destroy(conf);
                fail(r, "consumer: %s", e);
                return NULL;
        }
        rd_kafka_poll_set_consumer(rk);
        sub = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(sub, st->topic,
                                          RD_KAFKA_PARTITION_UA);
        rd_kafka_subscribe(rk, sub);
        rd_kafka_topic_partition_list_destroy(sub);
        return rk;
}

static int assigned_cnt(rd_kafka_t *rk) {
        rd_kafka_topic_partition_list_t *a = NULL;
        int n = -1;
        if (!rd_kafka_assignment(rk, &a) && a) {
                n = a->cnt;
                rd_kafka_topic_partition_list_destroy(a);
        }
        return n;
}

/* Whether \p rk holds a partition of a higher bucket. */
static int holds_higher(run_t *r, rd_kafka_t *rk) {
        rd_kafka_topic_partition_list_t *a = NULL;
        int i, any = 0;
        if (rd_kafka_assignment(rk, &a) || !a)
                return 0;
        for (i = 0; i < a->cnt; i++)
                any |= a->elems[i].partition >= 0 &&
                       a->elems[i].partition < r->st->partitions &&
                       r->higher[a->elems[i].partition];
        rd_kafka_topic_partition_list_destroy(a);
        return any;
}

static int rank_of(run_t *r, const rd_kafka_message_t *m) {
        int b;
        for (b = 0; b < r->st->n; b++)
                if (tk_key_is_bucket(m->key, m->key_len, r->name[b]))
                        return b;
        return -1;
}

/* Counts one record the application was handed. */
static void judge(run_t *r, const rd_kafka_message_t *m) {
        tk_backlog_result_t *res = r->res;
        long id                  = tk_key_id(m->key, m->key_len, NULL);
        int rank                 = rank_of(r, m);
        int first, h;

        if (rank < 0 || id < 0 || m->partition < 0 ||
            m->partition >= r->st->partitions)
                return;
        first = tk_ledger_read(&r->ledger, (int)id) == 1;
        if (first && m->offset < r->last_offset[m->partition])
                res->reordered++;
        if (m->offset > r->last_offset[m->partition])
                r->last_offset[m->partition] = m->offset;
        if (r->judging) {
                if (r->judged < TK_BACKLOG_SHARE_WINDOW && rank == 0)
                        r->first_critical++;
                r->judged++;
                for (h = 0; h < rank; h++)
                        r->lower_seen[h]++;
        }
        if (!first)
                return;
        if (r->judging && rank < r->st->n - 1)
                res->taken_over++;
        if (++res->read[rank] == r->st->records[rank] && r->judging)
                res->ahead_of[rank] = r->lower_seen[rank];
}

/* Polls \p rk once; 1 if a record was handed out. */
static int poll_one(run_t *r, rd_kafka_t *rk, int timeout_ms) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, timeout_ms);
        int got               = 0;
        if (!m)
                return 0;
        if (!m->err) {
                judge(r, m);
                got = 1;
                if (r->st->work_us > 0)
                        tk_sleep_us(r->st->work_us);
        }
        rd_kafka_message_destroy(m);
        return got;
}

static long read_cnt(const run_t *r) {
        long n = 0;
        int b;
        for (b = 0; b < r->st->n; b++)
                n += r->res->read[b];
        return n;
}

/* Polls \p rk until every record written was read. */
static int read_all(run_t *r, rd_kafka_t *rk) {
        int64_t t0 = tk_now_ms();
        while (read_cnt(r) < r->ledger.written_cnt) {
                if (tk_now_ms() - t0 > RUN_TIMEOUT_MS)
                        return fail(r, "%ld of %ld records read in %d s",
                                    read_cnt(r), r->ledger.written_cnt,
                                    RUN_TIMEOUT_MS / 1000);
                poll_one(r, rk, 100);
        }
        return 0;
}

static void close_consumer(rd_kafka_t *rk) {
        if (!rk)
                return;
        rd_kafka_consumer_close(rk);
        rd_kafka_destroy(rk);
}

/* TK_BACKLOG_RESTART: the group reads a first backlog, commits and
 * closes; the ledger and counts start again after. */
static int read_before(run_t *r, const int *to) {
        static const int none[TK_BACKLOG_MAX_BUCKETS];
        rd_kafka_t *rk;
        int b, rc;

        if (produce_backlog(r, -1, none, to) || !(rk = consumer(r)))
                return -1;
        rc = read_all(r, rk);
        if (!rc && rd_kafka_commit(rk, NULL, 0) &&
            rd_kafka_commit(rk, NULL, 0) != RD_KAFKA_RESP_ERR__NO_OFFSET)
                rc = fail(r, "commit failed");
        close_consumer(rk);
        for (b = 0; b < r->st->n; b++)
                r->res->read[b] = 0;
        return rc;
}

/* TK_BACKLOG_LEAVE: two members share the lowest bucket's backlog; once
 * both hold partitions the higher buckets' backlog is written, a member
 * holding partitions of a higher bucket leaves without reading further,
 * and the survivor is judged from the moment it holds every partition
 * (ids of the higher buckets it reads from then on: taken_over). */
static int leave(run_t *r) {
        const tk_backlog_setup_t *st = r->st;
        static const int none[TK_BACKLOG_MAX_BUCKETS];
        rd_kafka_t *a = NULL, *b = NULL;
        int64_t t0;
        int rc = -1, low = st->n - 1, first;

        if (produce_backlog(r, low, none, st->records) ||
            !(a = consumer(r)) || !(b = consumer(r)))
                goto out;
        t0 = tk_now_ms();
        while (assigned_cnt(a) <= 0 || assigned_cnt(b) <= 0 ||
               r->res->read[low] < 200) {
                if (tk_now_ms() - t0 > RUN_TIMEOUT_MS) {
                        fail(r, "two members not assigned within %d s",
                             RUN_TIMEOUT_MS / 1000);
                        goto out;
                }
                poll_one(r, a, 10);
                poll_one(r, b, 10);
        }
        for (first = 0; first < low; first++)
                if (produce_backlog(r, first, none, st->records))
                        goto out;
        if (!holds_higher(r, b)) { /* the other one leaves */
                rd_kafka_t *t = a;
                a             = b;
                b             = t;
        }
        close_consumer(b);
        b = NULL;
        t0 = tk_now_ms();
        while (assigned_cnt(a) < st->partitions) {
                if (tk_now_ms() - t0 > RUN_TIMEOUT_MS) {
                        fail(r, "the survivor took no partitions over");
                        goto out;
                }
                poll_one(r, a, 10);
        }
        r->judging = 1;
        rc         = read_all(r, a);
out:
        close_consumer(b);
        close_consumer(a);
        return rc;
}

static int run(run_t *r) {
        const tk_backlog_setup_t *st = r->st;
        static const int none[TK_BACKLOG_MAX_BUCKETS];
        int small[TK_BACKLOG_MAX_BUCKETS];
        rd_kafka_t *rk;
        int b, rc;

        if (st->moment == TK_BACKLOG_LEAVE)
                return leave(r);
        if (st->moment == TK_BACKLOG_RESTART) {
                for (b = 0; b < st->n; b++)
                        small[b] = st->records[b] < 100 ? st->records[b] : 100;
                if (read_before(r, small))
                        return -1;
                tk_ledger_reset_reads(&r->ledger);
                r->ledger.written_cnt = 0;
        } else {
                for (b = 0; b < st->n; b++)
                        small[b] = 0;
        }
        (void)none;
        for (b = 0; b < st->n; b++)
                small[b] = small[b] + st->records[b];
        if (st->moment == TK_BACKLOG_RESTART) {
                int from[TK_BACKLOG_MAX_BUCKETS];
                for (b = 0; b < st->n; b++)
                        from[b] = small[b] - st->records[b];
                rc = produce_backlog(r, -1, from, small);
        } else {
                rc = produce_backlog(r, -1, none, small);
        }
        if (rc || !(rk = consumer(r)))
                return -1;
        r->judging = 1;
        rc         = read_all(r, rk);
        close_consumer(rk);
        return rc;
}

int tk_backlog_run(const tk_backlog_setup_t *st, tk_backlog_result_t *res,
                   char *err, size_t err_size) {
        run_t r = {.st = st, .res = res, .err = err, .err_size = err_size};
        int b, h, rc;

        memset(res, 0, sizeof(*res));
        err[0] = '\0';
        if (st->n < 2 || st->n > TK_BACKLOG_MAX_BUCKETS)
                return fail(&r, "%d buckets", st->n);
        if (parse_names(&r))
                return -1;
        for (b = 0; b < st->n; b++) {
                r.base[b] = r.total;
                r.total += st->records[b] + 100; /* + a restart's first */
        }
        if (tk_ledger_init(&r.ledger, r.total) ||
            !(r.last_offset = calloc((size_t)st->partitions,
                                     sizeof(*r.last_offset))) ||
            !(r.higher = calloc((size_t)st->partitions, 1))) {
                free(r.last_offset);
                tk_ledger_free(&r.ledger);
                return fail(&r, "out of memory");
        }
        for (b = 0; b < st->partitions; b++)
                r.last_offset[b] = -1;
        rc = run(&r);
        if (!rc) {
                for (h = 0; h < st->n - 1; h++)
                        if (res->ahead_of[h] > res->ahead)
                                res->ahead = res->ahead_of[h];
                res->first_share =
                    r.judged ? (double)r.first_critical /
                                   (double)(r.judged < TK_BACKLOG_SHARE_WINDOW
                                                ? r.judged
                                                : TK_BACKLOG_SHARE_WINDOW)
                             : 0;
                res->missing    = r.ledger.written_cnt - read_cnt(&r);
                res->duplicates = r.ledger.duplicates;
        }
        free(r.last_offset);
        free(r.higher);
        tk_ledger_free(&r.ledger);
        return rc;
}
