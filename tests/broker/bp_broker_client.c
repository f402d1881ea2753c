/*
 * bp_broker_client.c - the producer, consumer and admin processes of the
 * real-broker test suite (tests/broker/broker_suite.py drives them).
 *
 * Producers and consumers load the plugin the way an application does, by
 * plugin.library.paths and bucket.priority.* properties, and write one line
 * per record so the orchestrator can account for every record by id:
 *
 *   produce: "<id> <partition> <offset> <ms>"            per delivery report
 *   consume: "<id> <partition> <offset> <key bucket> <ms>" per record read
 *            and, in <out>.assign, "<ms> <p,p,...>" per assignment change
 *
 * <ms> is wall-clock milliseconds (CLOCK_REALTIME), comparable between
 * processes. A consumer writes (and flushes) a record's line before it
 * stores the record's offset for commit, so a consumer killed with SIGKILL
 * never commits a record it has not written down: records can be read twice
 * (at-least-once), never silently dropped by the test itself.
 *
 * Usage:
 *   bp-broker-client produce OPTIONS [-X name=value]...
 *       --out FILE [--start ID] [--count N] [--rate PER_SECOND]
 *       [--key-bucket B]
 *       (without --count: produce until SIGTERM/SIGINT, then flush; record
 *       id N is keyed "<bucket>-N", the buckets taken in turn, or all
 *       "B-N" with --key-bucket)
 *   bp-broker-client consume OPTIONS --bucket B --group G --out FILE
 *       [--reset earliest|latest] [--session-ms MS] [-X name=value]...
 *       (until SIGTERM/SIGINT, then close: commits what was written;
 *       --session-ms 0 leaves session.timeout.ms and heartbeat.interval.ms
 *       unset, as group.protocol=consumer requires)
 *   bp-broker-client version
 *       (prints the librdkafka version it runs on, rd_kafka_version_str())
 *   bp-broker-client admin create --bootstrap B --topic T --partitions N
 *       [--rf R]   (every admin command also takes -X name=value: the
 *       connection and security settings of a secured cluster)
 *   bp-broker-client admin grow   --bootstrap B --topic T --partitions N
 *       (prints the wall-clock ms at which the increase was acknowledged)
 *   bp-broker-client admin leader --bootstrap B --topic T --partition P
 *       (prints the broker id leading partition P)
 *   bp-broker-client admin lag    --bootstrap B --topic T --group G
 *       (prints "<partition> <committed offset> <end offset>" for every
 *       partition the group has committed an offset for)
 * OPTIONS: --bootstrap B --plugin PATH --topic T --buckets "a, b"
 *          --allocation "x%, y%" [--layout contiguous|stable]
 *
 * Exit status: 0 on success, 1 on any error (with a message on stderr).
 */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <librdkafka/rdkafka.h>

#include "include/bucket_priority.h"
#include "broker_client_util.h"

#define MAX_EXTRA   32
#define MAX_BUCKETS 16
#define BATCH_MAX   2000

/* --- options ------------------------------------------------------------- */

typedef struct opts {
        const char *bootstrap, *plugin, *topic, *buckets, *allocation,
            *layout, *out, *bucket, *group, *reset, *key_bucket;
        long start, count, rate, partitions, rf, partition, session_ms;
        const char *extra[MAX_EXTRA]; /* "name=value" */
        int extra_cnt;
} opts_t;

/* argv[0] is the command word ("produce", ...), the options follow. */
static void parse_opts(opts_t *o, int argc, char **argv) {
        enum {
                O_BOOTSTRAP = 256, O_PLUGIN, O_TOPIC, O_BUCKETS, O_ALLOCATION,
                O_LAYOUT, O_OUT, O_BUCKET, O_GROUP, O_RESET, O_KEY_BUCKET,
                O_START, O_COUNT, O_RATE, O_PARTITIONS, O_RF, O_PARTITION,
                O_SESSION_MS
        };
        static const struct option longopts[] = {
            {"bootstrap", required_argument, NULL, O_BOOTSTRAP},
            {"plugin", required_argument, NULL, O_PLUGIN},
            {"topic", required_argument, NULL, O_TOPIC},
            {"buckets", required_argument, NULL, O_BUCKETS},
            {"allocation", required_argument, NULL, O_ALLOCATION},
            {"layout", required_argument, NULL, O_LAYOUT},
            {"out", required_argument, NULL, O_OUT},
            {"bucket", required_argument, NULL, O_BUCKET},
            {"group", required_argument, NULL, O_GROUP},
            {"reset", required_argument, NULL, O_RESET},
            {"key-bucket", required_argument, NULL, O_KEY_BUCKET},
            {"start", required_argument, NULL, O_START},
            {"count", required_argument, NULL, O_COUNT},
            {"rate", required_argument, NULL, O_RATE},
            {"partitions", required_argument, NULL, O_PARTITIONS},
            {"rf", required_argument, NULL, O_RF},
            {"partition", required_argument, NULL, O_PARTITION},
            {"session-ms", required_argument, NULL, O_SESSION_MS},
            {NULL, 0, NULL, 0}};
        int c;

        memset(o, 0, sizeof(*o));
        o->layout     = "contiguous";
        o->reset      = "earliest";
        o->session_ms = 6000;
        o->rf         = 1;
        o->partition  = -1;
        optind        = 1;
        while ((c = getopt_long(argc, argv, "X:", longopts, NULL)) != -1) {
                switch (c) {
                case 'X':
                        if (o->extra_cnt == MAX_EXTRA || !strchr(optarg, '='))
                                bcu_die("-X %s: expected name=value (at most "
                                        "%d)",
                                        optarg, MAX_EXTRA);
                        o->extra[o->extra_cnt++] = optarg;
                        break;
                case O_BOOTSTRAP: o->bootstrap = optarg; break;
                case O_PLUGIN: o->plugin = optarg; break;
                case O_TOPIC: o->topic = optarg; break;
                case O_BUCKETS: o->buckets = optarg; break;
                case O_ALLOCATION: o->allocation = optarg; break;
                case O_LAYOUT: o->layout = optarg; break;
                case O_OUT: o->out = optarg; break;
                case O_BUCKET: o->bucket = optarg; break;
                case O_GROUP: o->group = optarg; break;
                case O_RESET: o->reset = optarg; break;
                case O_KEY_BUCKET: o->key_bucket = optarg; break;
                case O_START:
                        o->start = bcu_num_arg("--start", optarg, 0);
                        break;
                case O_COUNT:
                        o->count = bcu_num_arg("--count", optarg, 0);
                        break;
                case O_RATE:
                        o->rate = bcu_num_arg("--rate", optarg, 0);
                        break;
                case O_PARTITIONS:
                        o->partitions = bcu_num_arg("--partitions", optarg, 1);
                        break;
                case O_RF: o->rf = bcu_num_arg("--rf", optarg, 1); break;
                case O_PARTITION:
                        o->partition = bcu_num_arg("--partition", optarg, -1);
                        break;
                case O_SESSION_MS:
                        o->session_ms = bcu_num_arg("--session-ms", optarg, 0);
                        break;
                default: /* getopt_long said which option */
                        bcu_die("bad options (the comment at the top of "
                                "tests/broker/bp_broker_client.c lists them)");
                }
        }
        if (optind < argc)
                bcu_die("unexpected argument \"%s\"", argv[optind]);
        if (!o->bootstrap)
                bcu_die("--bootstrap is required");
        if (!o->topic)
                bcu_die("--topic is required");
}

/* A configuration that loads the plugin and sets the bucket properties, then
 * the caller's -X settings, in that order (bucket.priority.* only after
 * plugin.library.paths). */
static rd_kafka_conf_t *bucket_conf(const opts_t *o, const char *bucket) {
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        int i;
        if (!o->plugin || !o->buckets || !o->allocation)
                bcu_die("--plugin, --buckets and --allocation are required");
        bcu_conf_set(conf, "bootstrap.servers", o->bootstrap);
        bcu_conf_set(conf, "plugin.library.paths", o->plugin);
        if (bucket)
                bcu_conf_set(conf, "bucket.priority.bucket", bucket);
        bcu_conf_set(conf, "bucket.priority.topic", o->topic);
        bcu_conf_set(conf, "bucket.priority.buckets", o->buckets);
        bcu_conf_set(conf, "bucket.priority.allocation", o->allocation);
        bcu_conf_set(conf, "bucket.priority.layout", o->layout);
        for (i = 0; i < o->extra_cnt; i++)
                bcu_conf_set_pair(conf, o->extra[i]);
        rd_kafka_conf_set_error_cb(conf, bcu_on_error);
        return conf;
}

/* Splits "a, b, c" into trimmed names. */
static int split_names(const char *list, char names[][64], int max) {
        int n = 0;
        const char *p = list;
        while (*p && n < max) {
                const char *e = strchr(p, ',');
                size_t len    = e ? (size_t)(e - p) : strlen(p);
                while (len && (*p == ' ' || *p == '\t'))
                        p++, len--;
                while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
                        len--;
                if (len >= 64)
                        bcu_die("bucket name too long in \"%s\"", list);
                memcpy(names[n], p, len);
                names[n++][len] = '\0';
                if (!e)
                        break;
                p = e + 1;
        }
        return n;
}

/* --- producer ------------------------------------------------------------ */

typedef struct producer_state {
        FILE *out;
        long delivered, failed;
} producer_state_t;

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m,
                        void *opaque) {
        producer_state_t *st = opaque;
        long id              = (long)(intptr_t)m->_private;
        (void)rk;
        if (m->err) {
                if (st->failed++ < 20)
                        fprintf(stderr,
                                "%" PRId64 " delivery of id %ld failed: %s\n",
                                tk_wall_ms(), id, rd_kafka_err2str(m->err));
                return;
        }
        st->delivered++;
        fprintf(st->out, "%ld %d %" PRId64 " %" PRId64 "\n", id,
                (int)m->partition, m->offset, tk_wall_ms());
}

static int cmd_produce(const opts_t *o) {
        producer_state_t st = {0};
        char names[MAX_BUCKETS][64], key[128], value[160], errstr[512];
        int nb                = split_names(o->buckets, names, MAX_BUCKETS);
        rd_kafka_conf_t *conf = bucket_conf(o, NULL);
        rd_kafka_t *rk;
        long id, produced = 0, enqueue_failed = 0;
        int64_t t0 = tk_now_ns(), last_flush = 0, deadline;
        char fatal[512];
        rd_kafka_resp_err_t ferr;

        if (!o->out)
                bcu_die("--out is required");
        st.out = bcu_open_out(o->out, "");
        if (!(rk = tk_producer(conf, on_delivery, &st, errstr,
                               sizeof(errstr))))
                bcu_die("rd_kafka_new: %s", errstr);
        bcu_catch_signals(0);

        for (id = o->start; !bcu_stop && (!o->count ||
                                                id < o->start + o->count);
             id++) {
                const char *kb =
                    o->key_bucket ? o->key_bucket : names[id % nb];
                int klen = snprintf(key, sizeof(key), "%s-%ld", kb, id);
                int vlen = snprintf(value, sizeof(value),
                                    "record %ld for bucket %s, padding "
                                    "padding padding padding padding",
                                    id, kb);
                rd_kafka_resp_err_t err;
                if (o->rate > 0) { /* pace: n-th record at n / rate s */
                        int64_t due = t0 + (int64_t)((double)produced * 1e9 /
                                                     (double)o->rate);
                        int64_t wait;
                        while ((wait = (due - tk_now_ns()) / 1000000) > 0 &&
                               !bcu_stop) {
                                rd_kafka_poll(rk, 0);
                                tk_sleep_us(1000L * (wait > 5 ? 5 : (int)wait));
                        }
                }
                for (;;) {
                        err = rd_kafka_producev(
                            rk, RD_KAFKA_V_TOPIC(o->topic),
                            RD_KAFKA_V_KEY(key, (size_t)klen),
                            RD_KAFKA_V_VALUE(value, (size_t)vlen),
                            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                            RD_KAFKA_V_OPAQUE((void *)(intptr_t)id),
                            RD_KAFKA_V_END);
                        if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL)
                                break;
                        rd_kafka_poll(rk, 10);
                }
                if (err) {
                        if (enqueue_failed++ < 20)
                                fprintf(stderr, "produce id %ld failed: %s\n",
                                        id, rd_kafka_err2str(err));
                } else {
                        produced++;
                }
                rd_kafka_poll(rk, 0);
                if (tk_now_ns() - last_flush > 100000000LL) {
                        fflush(st.out);
                        last_flush = tk_now_ns();
                }
        }
        fprintf(stderr, "%" PRId64 " producer stops after id %ld; flushing\n",
                tk_wall_ms(), id - 1);
        deadline = tk_now_ns() + 300000000000LL; /* message.timeout.ms */
        while (rd_kafka_outq_len(rk) > 0 && tk_now_ns() < deadline) {
                rd_kafka_poll(rk, 100);
                fflush(st.out);
        }
        rd_kafka_flush(rk, 1000);
        fflush(st.out);
        ferr = rd_kafka_fatal_error(rk, fatal, sizeof(fatal));
        printf("produced %ld delivered %ld failed %ld enqueue_failed %ld "
               "last_id %ld fatal %s\n",
               produced, st.delivered, st.failed, enqueue_failed, id - 1,
               ferr ? rd_kafka_err2name(ferr) : "none");
        rd_kafka_destroy(rk);
        fclose(st.out);
        return st.failed || enqueue_failed || ferr ||
                       st.delivered != produced
                   ? 1
                   : 0;
}

/* --- consumer ------------------------------------------------------------ */

/* Writes the assignment to the .assign file when it changed. */
static void track_assignment(rd_kafka_t *rk, FILE *af, char *last,
                             size_t last_size) {
        rd_kafka_topic_partition_list_t *a = NULL;

        if (rd_kafka_assignment(rk, &a) || !a)
                return;
        bcu_assignment_line(af, a, last, last_size);
        rd_kafka_topic_partition_list_destroy(a);
}

/* Writes the batch's lines, flushes them, then stores their offsets. */
static void write_batch(rd_kafka_t *rk, FILE *out, rd_kafka_message_t **batch,
                        int n, long *consumed) {
        rd_kafka_topic_partition_list_t *store;
        int64_t now = tk_wall_ms();
        int i;

        if (!n)
                return;
        store = rd_kafka_topic_partition_list_new(n);
        for (i = 0; i < n; i++) {
                rd_kafka_message_t *m = batch[i];
                bcu_record_line(out, m, now);
                rd_kafka_topic_partition_list_add(
                    store, rd_kafka_topic_name(m->rkt), m->partition)
                    ->offset = m->offset + 1;
        }
        fflush(out);
        (*consumed) += n;
        /* A partition revoked meanwhile refuses the store: harmless, its new
         * owner re-reads from the committed offset. */
        rd_kafka_offsets_store(rk, store);
        rd_kafka_topic_partition_list_destroy(store);
        for (i = 0; i < n; i++)
                rd_kafka_message_destroy(batch[i]);
}

static int cmd_consume(const opts_t *o) {
        static rd_kafka_message_t *batch[BATCH_MAX];
        rd_kafka_conf_t *conf;
        rd_kafka_t *rk;
        char session[32], heartbeat[32], last[4096];
        FILE *out, *af;
        long consumed = 0, errors = 0;
        int n         = 0;
        int64_t last_track = 0;
        bp_stats_t stats;

        if (!o->bucket || !o->group || !o->out)
                bcu_die("--bucket, --group and --out are required");
        out = bcu_open_out(o->out, "");
        af  = bcu_open_out(o->out, ".assign");
        snprintf(session, sizeof(session), "%ld", o->session_ms);
        snprintf(heartbeat, sizeof(heartbeat), "%ld",
                 o->session_ms / 6 > 100 ? o->session_ms / 6 : 100);

        conf = bucket_conf(o, o->bucket);
        bcu_conf_set(conf, "group.id", o->group);
        bcu_conf_set(conf, "auto.offset.reset", o->reset);
        bcu_conf_set(conf, "enable.auto.offset.store", "false");
        bcu_conf_set(conf, "auto.commit.interval.ms", "1000");
        if (o->session_ms > 0) {
                bcu_conf_set(conf, "session.timeout.ms", session);
                bcu_conf_set(conf, "heartbeat.interval.ms", heartbeat);
        }
        rk = bcu_subscribe(conf, o->topic);
        bcu_catch_signals(0);
        last[0] = '\0';

        while (!bcu_stop) {
                rd_kafka_message_t *m =
                    rd_kafka_consumer_poll(rk, n ? 0 : 100);
                if (m && m->err) {
                        bcu_consume_error(m, &errors);
                        rd_kafka_message_destroy(m);
                        m = NULL;
                } else if (m) {
                        batch[n++] = m;
                }
                if (!m || n == BATCH_MAX) {
                        write_batch(rk, out, batch, n, &consumed);
                        n = 0;
                }
                if (tk_now_ns() - last_track > 100000000LL) {
                        track_assignment(rk, af, last, sizeof(last));
                        last_track = tk_now_ns();
                }
        }
        write_batch(rk, out, batch, n, &consumed);
        memset(&stats, 0, sizeof(stats));
        bp_stats(rk, &stats);
        rd_kafka_consumer_close(rk);
        fprintf(af, "%" PRId64 " closed\n", tk_wall_ms());
        printf("consumed %ld errors %ld foreign %" PRIu64 "\n", consumed,
               errors, stats.foreign);
        rd_kafka_destroy(rk);
        fclose(out);
        fclose(af);
        return 0;
}

/* --- admin --------------------------------------------------------------- */

static rd_kafka_t *admin_client(const opts_t *o) {
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        char errstr[512];
        rd_kafka_t *rk;
        int i;
        bcu_conf_set(conf, "bootstrap.servers", o->bootstrap);
        for (i = 0; i < o->extra_cnt; i++)
                bcu_conf_set_pair(conf, o->extra[i]);
        rd_kafka_conf_set_error_cb(conf, bcu_on_error);
        if (!(rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr,
                                sizeof(errstr))))
                bcu_die("rd_kafka_new: %s", errstr);
        return rk;
}

static rd_kafka_event_t *admin_wait(rd_kafka_queue_t *q,
                                    rd_kafka_event_type_t type) {
        rd_kafka_event_t *ev = rd_kafka_queue_poll(q, 60000);
        if (!ev)
                bcu_die("admin request timed out");
        if (rd_kafka_event_type(ev) != type)
                bcu_die("unexpected admin event %s: %s", rd_kafka_event_name(ev),
                        rd_kafka_event_error_string(ev));
        if (rd_kafka_event_error(ev))
                bcu_die("admin request failed: %s",
                        rd_kafka_event_error_string(ev));
        return ev;
}

static void check_topic_results(const rd_kafka_topic_result_t **res,
                                size_t cnt) {
        size_t i;
        for (i = 0; i < cnt; i++)
                if (rd_kafka_topic_result_error(res[i]))
                        bcu_die("topic %s: %s", rd_kafka_topic_result_name(res[i]),
                                rd_kafka_topic_result_error_string(res[i]));
}

/* Until the topic has \p partitions partitions, each with a leader. */
static void wait_partitions(rd_kafka_t *rk, const char *topic,
                            long partitions) {
        int64_t deadline = tk_now_ns() + 60000000000LL;
        while (tk_now_ns() < deadline) {
                const struct rd_kafka_metadata *md;
                const rd_kafka_metadata_topic_t *t =
                    tk_topic_metadata(rk, topic, 5000, &md);
                int ok = t && t->partition_cnt == partitions, i;
                for (i = 0; ok && i < t->partition_cnt; i++)
                        ok = t->partitions[i].leader >= 0 &&
                             !t->partitions[i].err;
                if (md)
                        rd_kafka_metadata_destroy(md);
                if (ok)
                        return;
                tk_sleep_us(1000L * (200));
        }
        bcu_die("topic %s did not reach %ld partitions with leaders", topic,
                partitions);
}

static int cmd_admin(const char *what, const opts_t *o) {
        rd_kafka_t *rk        = admin_client(o);
        rd_kafka_queue_t *q   = rd_kafka_queue_new(rk);
        rd_kafka_event_t *ev  = NULL;
        const rd_kafka_topic_result_t **tres;
        char errstr[512];
        size_t cnt = 0;

        if (!strcmp(what, "create")) {
                rd_kafka_NewTopic_t *nt = rd_kafka_NewTopic_new(
                    o->topic, (int)o->partitions, (int)o->rf, errstr,
                    sizeof(errstr));
                if (!nt)
                        bcu_die("NewTopic: %s", errstr);
                rd_kafka_CreateTopics(rk, &nt, 1, NULL, q);
                ev = admin_wait(q, RD_KAFKA_EVENT_CREATETOPICS_RESULT);
                tres = rd_kafka_CreateTopics_result_topics(
                    rd_kafka_event_CreateTopics_result(ev), &cnt);
                check_topic_results(tres, cnt);
                rd_kafka_NewTopic_destroy(nt);
                wait_partitions(rk, o->topic, o->partitions);
        } else if (!strcmp(what, "grow")) {
                rd_kafka_NewPartitions_t *np = rd_kafka_NewPartitions_new(
                    o->topic, (size_t)o->partitions, errstr, sizeof(errstr));
                int64_t acked;
                if (!np)
                        bcu_die("NewPartitions: %s", errstr);
                rd_kafka_CreatePartitions(rk, &np, 1, NULL, q);
                ev = admin_wait(q, RD_KAFKA_EVENT_CREATEPARTITIONS_RESULT);
                acked = tk_wall_ms();
                tres = rd_kafka_CreatePartitions_result_topics(
                    rd_kafka_event_CreatePartitions_result(ev), &cnt);
                check_topic_results(tres, cnt);
                rd_kafka_NewPartitions_destroy(np);
                printf("%" PRId64 "\n", acked);
        } else if (!strcmp(what, "leader")) {
                const struct rd_kafka_metadata *md;
                const rd_kafka_metadata_topic_t *t =
                    tk_topic_metadata(rk, o->topic, 5000, &md);
                if (!t || o->partition < 0 ||
                    o->partition >= t->partition_cnt)
                        bcu_die("no metadata for %s [%ld]", o->topic,
                                o->partition);
                printf("%d\n", (int)t->partitions[o->partition].leader);
                rd_kafka_metadata_destroy(md);
        } else if (!strcmp(what, "lag")) {
                const struct rd_kafka_metadata *md;
                const rd_kafka_metadata_topic_t *t =
                    tk_topic_metadata(rk, o->topic, 5000, &md);
                rd_kafka_topic_partition_list_t *parts;
                rd_kafka_ListConsumerGroupOffsets_t *req;
                const rd_kafka_group_result_t **groups;
                const rd_kafka_topic_partition_list_t *got;
                int64_t lo, hi;
                int i;
                if (!t || !o->group)
                        bcu_die("lag: no metadata for %s, or no --group",
                                o->topic);
                parts = rd_kafka_topic_partition_list_new(t->partition_cnt);
                for (i = 0; i < t->partition_cnt; i++)
                        rd_kafka_topic_partition_list_add(parts, o->topic, i);
                req = rd_kafka_ListConsumerGroupOffsets_new(o->group, parts);
                rd_kafka_ListConsumerGroupOffsets(rk, &req, 1, NULL, q);
                ev = admin_wait(q,
                                RD_KAFKA_EVENT_LISTCONSUMERGROUPOFFSETS_RESULT);
                groups = rd_kafka_ListConsumerGroupOffsets_result_groups(
                    rd_kafka_event_ListConsumerGroupOffsets_result(ev), &cnt);
                if (cnt != 1 || rd_kafka_group_result_error(groups[0]))
                        bcu_die("lag: cannot read offsets of group %s", o->group);
                got = rd_kafka_group_result_partitions(groups[0]);
                for (i = 0; got && i < got->cnt; i++) {
                        if (got->elems[i].offset < 0)
                                continue; /* never committed */
                        if (rd_kafka_query_watermark_offsets(
                                rk, o->topic, got->elems[i].partition, &lo,
                                &hi, 5000))
                                bcu_die("lag: watermarks of %s [%d]", o->topic,
                                        got->elems[i].partition);
                        printf("%d %" PRId64 " %" PRId64 "\n",
                               got->elems[i].partition, got->elems[i].offset,
                               hi);
                }
                rd_kafka_ListConsumerGroupOffsets_destroy(req);
                rd_kafka_topic_partition_list_destroy(parts);
                rd_kafka_metadata_destroy(md);
        } else {
                bcu_die("unknown admin command \"%s\"", what);
        }
        if (ev)
                rd_kafka_event_destroy(ev);
        rd_kafka_queue_destroy(q);
        rd_kafka_destroy(rk);
        return 0;
}

int main(int argc, char **argv) {
        opts_t o;
        bcu_program = "bp-broker-client";
        setvbuf(stdout, NULL, _IOLBF, 0);
        if (argc >= 2 && !strcmp(argv[1], "produce")) {
                parse_opts(&o, argc - 1, argv + 1);
                return cmd_produce(&o);
        }
        if (argc >= 2 && !strcmp(argv[1], "consume")) {
                parse_opts(&o, argc - 1, argv + 1);
                return cmd_consume(&o);
        }
        if (argc == 2 && !strcmp(argv[1], "version")) {
                printf("%s\n", rd_kafka_version_str());
                return 0;
        }
        if (argc >= 3 && !strcmp(argv[1], "admin")) {
                parse_opts(&o, argc - 2, argv + 2);
                return cmd_admin(argv[2], &o);
        }
        fprintf(stderr, "usage: bp-broker-client produce|consume|admin ... "
                        "(see the comment at the top of "
                        "tests/broker/bp_broker_client.c)\n");
        return 2;
}
