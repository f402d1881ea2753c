/*
 * bp_sched_client.c - the judged consumer of the broker suite's "scheduler"
 * scenario (tests/broker/broker_sched.py drives it): one consumer serving
 * the bucket list "critical, bulk" (strict: the plugin's scheduler pauses
 * and resumes its partitions, bucket.priority.hold=pause; weighted: as by
 * default, each bucket held in a queue of its own), or, for the control
 * run, a plain consumer of the whole topic without the plugin.
 *
 * The judging happens here, per record, because it needs what librdkafka
 * knows inside this process, through public calls only (the same measure
 * as tests/mock/test_mock_scheduler.c on the mock cluster): the consumer's lag
 * on a set of its partitions is the cached high watermark
 * (rd_kafka_get_watermark_offsets()) minus its position
 * (rd_kafka_position(); before its first record there, the group's
 * committed offset, else 0), summed over the partitions it holds now
 * (rd_kafka_assignment()); partitions not fetched yet are left out.
 *
 *   --judge strict    at every record delivered: the critical lag. A run
 *                     of bulk records delivered while it stays above
 *                     --threshold is an "episode": it ends at the first
 *                     record, of either bucket, delivered with the lag at
 *                     or below the threshold (the critical records that
 *                     caused it were delivered).
 *   --judge weighted  at every record delivered while both buckets have
 *                     records waiting (lag > 0, looked at every 8th
 *                     record): the critical share, per window of --window
 *                     such records.
 *
 * Records are keyed "<bucket>-<id>" (bp-broker-client produce
 * --key-bucket); one keyed "critical-" on a partition outside --critical,
 * or the reverse, counts as "misplaced". With --bulk, the topic may have
 * more buckets than the consumer serves (--bucket, a part of --buckets):
 * only the --bulk partitions count as bulk, and a record of a partition
 * neither critical nor bulk counts as "outside" (and as misplaced unless
 * its key names its own bucket).
 *
 * SIGUSR1 ends the judging (the measured phases are over; the records
 * read afterwards are only counted), SIGTERM or SIGINT the process.
 *
 * Output (the orchestrator tails the files while the process runs):
 *   --out FILE         "<id> <partition> <offset> <key bucket> <ms>" per
 *                      record, as bp-broker-client consume writes it
 *   FILE.assign        "<ms> <p,p,...>" per assignment change, "<ms> closed"
 *   FILE.judge         "E <start ms> <end ms> <bulk records> <max lag>" per
 *                      strict episode, "W <ms> <critical> <records>" per
 *                      weighted window
 *   stderr             a line of figures every second: bucket statistics
 *                      and, per critical partition held, "p=hwm/pos/start"
 *   stdout             at exit, one JSON object with the totals
 * <ms> is wall-clock milliseconds, comparable between processes. The
 * offsets are stored as librdkafka delivers them (auto store): the process
 * is never killed, and it writes every line out before it exits.
 *
 * Usage:
 *   bp-broker-sched --bootstrap B --topic T --group G --out FILE
 *       --critical P,P,... --judge strict|weighted [--threshold N]
 *       [--work-us US] [--window N] [-X name=value]...
 *       [--plugin PATH --buckets "a, b" --allocation "x%, y%"
 *        --schedule strict|weighted        (without --plugin: plain consumer)
 *        [--bucket "a, b"] [--layout L]]   (default: every bucket; stable)
 *       [--bulk P,P,...]                   (default: every other partition)
 *   Runs until SIGTERM or SIGINT, then closes the consumer (commits).
 *   Exit status: 0, or 1 on a usage or client error.
 */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librdkafka/rdkafka.h>

#include "include/bucket_priority.h"
#include "broker_client_util.h"

#define MAX_PARTS 256
#define MAX_EXTRA 32

/* --- options ------------------------------------------------------------- */

typedef enum { JUDGE_STRICT, JUDGE_WEIGHTED } judge_kind_t;

typedef struct opts {
        const char *bootstrap, *topic, *group, *out, *plugin, *buckets,
            *allocation, *schedule, *critical, *bucket, *bulk, *layout;
        judge_kind_t judge;
        long threshold, work_us, window;
        const char *extra[MAX_EXTRA];
        int extra_cnt;
} opts_t;

static void parse_opts(opts_t *o, int argc, char **argv) {
        enum {
                O_BOOTSTRAP = 256, O_TOPIC, O_GROUP, O_OUT, O_PLUGIN,
                O_BUCKETS, O_ALLOCATION, O_SCHEDULE, O_CRITICAL, O_JUDGE,
                O_THRESHOLD, O_WORK_US, O_WINDOW, O_BUCKET, O_BULK, O_LAYOUT
        };
        static const struct option longopts[] = {
            {"bootstrap", required_argument, NULL, O_BOOTSTRAP},
            {"topic", required_argument, NULL, O_TOPIC},
            {"group", required_argument, NULL, O_GROUP},
            {"out", required_argument, NULL, O_OUT},
            {"plugin", required_argument, NULL, O_PLUGIN},
            {"buckets", required_argument, NULL, O_BUCKETS},
            {"allocation", required_argument, NULL, O_ALLOCATION},
            {"schedule", required_argument, NULL, O_SCHEDULE},
            {"critical", required_argument, NULL, O_CRITICAL},
            {"judge", required_argument, NULL, O_JUDGE},
            {"threshold", required_argument, NULL, O_THRESHOLD},
            {"work-us", required_argument, NULL, O_WORK_US},
            {"window", required_argument, NULL, O_WINDOW},
            {"bucket", required_argument, NULL, O_BUCKET},
            {"bulk", required_argument, NULL, O_BULK},
            {"layout", required_argument, NULL, O_LAYOUT},
            {NULL, 0, NULL, 0}};
        int c;

        memset(o, 0, sizeof(*o));
        o->window   = 2000;
        o->schedule = "strict";
        o->judge    = (judge_kind_t)-1;
        while ((c = getopt_long(argc, argv, "X:", longopts, NULL)) != -1) {
                switch (c) {
                case 'X':
                        if (o->extra_cnt == MAX_EXTRA || !strchr(optarg, '='))
                                bcu_die("-X %s: expected name=value", optarg);
                        o->extra[o->extra_cnt++] = optarg;
                        break;
                case O_BOOTSTRAP: o->bootstrap = optarg; break;
                case O_TOPIC: o->topic = optarg; break;
                case O_GROUP: o->group = optarg; break;
                case O_OUT: o->out = optarg; break;
                case O_PLUGIN: o->plugin = optarg; break;
                case O_BUCKETS: o->buckets = optarg; break;
                case O_ALLOCATION: o->allocation = optarg; break;
                case O_SCHEDULE: o->schedule = optarg; break;
                case O_CRITICAL: o->critical = optarg; break;
                case O_BUCKET: o->bucket = optarg; break;
                case O_BULK: o->bulk = optarg; break;
                case O_LAYOUT: o->layout = optarg; break;
                case O_JUDGE:
                        if (!strcmp(optarg, "strict"))
                                o->judge = JUDGE_STRICT;
                        else if (!strcmp(optarg, "weighted"))
                                o->judge = JUDGE_WEIGHTED;
                        else
                                bcu_die("--judge: strict or weighted, not %s",
                                        optarg);
                        break;
                case O_THRESHOLD:
                        o->threshold = bcu_num_arg("--threshold", optarg, 0);
                        break;
                case O_WORK_US:
                        o->work_us = bcu_num_arg("--work-us", optarg, 0);
                        break;
                case O_WINDOW:
                        o->window = bcu_num_arg("--window", optarg, 1);
                        break;
                default: /* getopt_long said which option */
                        bcu_die("bad options (the comment at the top of "
                                "tests/broker/bp_sched_client.c lists them)");
                }
        }
        if (optind < argc)
                bcu_die("unexpected argument \"%s\"", argv[optind]);
        if (!o->bootstrap || !o->topic || !o->group || !o->out ||
            !o->critical || o->judge == (judge_kind_t)-1)
                bcu_die("--bootstrap, --topic, --group, --out, --critical and "
                        "--judge are required");
        if (o->plugin && (!o->buckets || !o->allocation))
                bcu_die("--plugin needs --buckets and --allocation");
}

/* The list consumer loads the plugin by properties, as an application
 * does (plugin.library.paths first, bucket.priority.bucket next); the
 * control is a plain consumer. The caller's -X settings come last. */
static rd_kafka_conf_t *make_conf(const opts_t *o) {
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        char threshold[32];
        int i;

        bcu_conf_set(conf, "bootstrap.servers", o->bootstrap);
        if (o->plugin) {
                snprintf(threshold, sizeof(threshold), "%ld", o->threshold);
                bcu_conf_set(conf, "plugin.library.paths", o->plugin);
                bcu_conf_set(conf, "bucket.priority.bucket",
                             o->bucket ? o->bucket : o->buckets);
                bcu_conf_set(conf, "bucket.priority.topic", o->topic);
                bcu_conf_set(conf, "bucket.priority.buckets", o->buckets);
                bcu_conf_set(conf, "bucket.priority.allocation", o->allocation);
                bcu_conf_set(conf, "bucket.priority.schedule", o->schedule);
                bcu_conf_set(conf, "bucket.priority.lag.threshold", threshold);
                /* Strict is judged here as it pauses
                 * (broker_sched_queue.py judges its queue, the default);
                 * weighted as it holds by default, by queue. */
                if (!strcmp(o->schedule, "strict"))
                        bcu_conf_set(conf, "bucket.priority.hold", "pause");
                if (o->layout)
                        bcu_conf_set(conf, "bucket.priority.layout",
                                     o->layout);
        }
        bcu_conf_set(conf, "group.id", o->group);
        bcu_conf_set(conf, "auto.offset.reset", "earliest");
        for (i = 0; i < o->extra_cnt; i++)
                bcu_conf_set_pair(conf, o->extra[i]);
        rd_kafka_conf_set_error_cb(conf, bcu_on_error);
        return conf;
}

/* --- what the consumer holds, and its lag -------------------------------- */

typedef struct judge {
        const opts_t *o;
        rd_kafka_t *rk;
        FILE *out, *af, *jf;
        int critical[MAX_PARTS]; /* partition p is of the critical bucket */
        int bulk[MAX_PARTS];     /* ... of the bulk ones (--bulk, else all
                                  * the others) */
        int assigned[MAX_PARTS]; /* p in the assignment at the last look */
        int held[MAX_PARTS];     /* assigned, and where it started known */
        int64_t start[MAX_PARTS];
        int had_pos[MAX_PARTS];  /* a position was seen since that start */
        int reassigned;          /* a position went back to none */
        int64_t next_refresh_ms;
        char last_assign[4096];
        long delivered[2]; /* critical, bulk */
        long misplaced;    /* key bucket differs from the partition's */
        long outside;      /* of a partition neither critical nor bulk */
        long errors;
        /* strict */
        long episode, episodes, worst;
        int64_t episode_start_ms, episode_lag;
        int64_t max_critical_lag;      /* seen at critical deliveries */
        long critical_with_bulk_waiting;
        /* weighted */
        long both_cnt, both_critical, both_check;
        int both;
        long window_cnt, window_critical;
        int windows;
        double min_share, max_share;
} judge_t;

/* Marks the partitions of \p list (option \p name) in \p set. */
static void parse_parts(int *set, const char *name, const char *list) {
        const char *p = list;
        while (*p) {
                char *end;
                long n = strtol(p, &end, 10);
                if (end == p || n < 0 || n >= MAX_PARTS)
                        bcu_die("%s: bad partition list \"%s\"", name, list);
                set[n] = 1;
                p = *end == ',' ? end + 1 : end;
                if (*end && *end != ',')
                        bcu_die("%s: bad partition list \"%s\"", name, list);
        }
}

static void parse_critical(judge_t *j, const opts_t *o) {
        int i;
        parse_parts(j->critical, "--critical", o->critical);
        if (o->bulk)
                parse_parts(j->bulk, "--bulk", o->bulk);
        else
                for (i = 0; i < MAX_PARTS; i++)
                        j->bulk[i] = !j->critical[i];
}

/* Writes the assignment to FILE.assign when it changed. */
static void log_assignment(judge_t *j,
                           const rd_kafka_topic_partition_list_t *a) {
        bcu_assignment_line(j->af, a, j->last_assign, sizeof(j->last_assign));
}

/* Re-reads the assignment. A partition starts, until the consumer's first
 * record there, at the group's committed offset, else at 0
 * (auto.offset.reset=earliest on a topic whose log starts at 0); read for
 * the partitions newly assigned and, after a rebalance, for all of them:
 * a rebalance (eager protocol) revokes and assigns every partition again,
 * and librdkafka forgets their positions. A rebalance shows as a changed
 * assignment, or, when the same partitions come back within one poll, as
 * a position gone back to none (lag_of()). A partition whose committed
 * offset cannot be read now is left out of the lag until the next
 * refresh: the judge is lenient there, never strict by mistake. */
static void refresh(judge_t *j) {
        rd_kafka_topic_partition_list_t *a = NULL, *fresh;
        int now[MAX_PARTS] = {0}, all, i;

        j->next_refresh_ms = tk_now_ms() + 20;
        if (rd_kafka_assignment(j->rk, &a) || !a)
                return;
        log_assignment(j, a);
        for (i = 0; i < a->cnt; i++) {
                int32_t p = a->elems[i].partition;
                if (!strcmp(a->elems[i].topic, j->o->topic) && p >= 0 &&
                    p < MAX_PARTS)
                        now[p] = 1;
        }
        all = j->reassigned || memcmp(now, j->assigned, sizeof(now));
        fresh = rd_kafka_topic_partition_list_new(a->cnt > 0 ? a->cnt : 1);
        for (i = 0; i < MAX_PARTS; i++) {
                if (now[i] && (all || !j->held[i]))
                        rd_kafka_topic_partition_list_add(fresh, j->o->topic,
                                                          i);
                if (!now[i] || all)
                        j->held[i] = 0;
        }
        memcpy(j->assigned, now, sizeof(now));
        j->reassigned = 0;
        if (fresh->cnt > 0 && rd_kafka_committed(j->rk, fresh, 300) == 0) {
                for (i = 0; i < fresh->cnt; i++) {
                        int32_t p  = fresh->elems[i].partition;
                        j->start[p]   = fresh->elems[i].offset >= 0
                                            ? fresh->elems[i].offset
                                            : 0;
                        j->held[p]    = 1;
                        j->had_pos[p] = 0;
                }
        }
        rd_kafka_topic_partition_list_destroy(fresh);
        rd_kafka_topic_partition_list_destroy(a);
}

/* The consumer's lag on the critical (or bulk) partitions it holds. */
static int64_t lag_of(judge_t *j, int critical) {
        rd_kafka_topic_partition_list_t *l =
            rd_kafka_topic_partition_list_new(16);
        int64_t lag = 0, lo, hi, at;
        int i;

        for (i = 0; i < MAX_PARTS; i++)
                if (j->held[i] &&
                    (critical ? j->critical[i] : j->bulk[i]))
                        rd_kafka_topic_partition_list_add(l, j->o->topic, i);
        if (l->cnt > 0)
                rd_kafka_position(j->rk, l);
        for (i = 0; i < l->cnt; i++) {
                int32_t p = l->elems[i].partition;
                if (rd_kafka_get_watermark_offsets(j->rk, j->o->topic, p, &lo,
                                                   &hi) ||
                    hi < 0)
                        continue;
                if (l->elems[i].offset >= 0) {
                        at            = l->elems[i].offset;
                        j->had_pos[p] = 1;
                } else if (j->had_pos[p]) {
                        /* assigned again: its start is read anew */
                        j->reassigned      = 1;
                        j->next_refresh_ms = 0;
                        continue;
                } else {
                        at = j->start[p];
                }
                if (hi > at)
                        lag += hi - at;
        }
        rd_kafka_topic_partition_list_destroy(l);
        return lag;
}

/* --- judging ------------------------------------------------------------- */

static void episode_end(judge_t *j) {
        if (!j->episode)
                return;
        fprintf(j->jf, "E %" PRId64 " %" PRId64 " %ld %" PRId64 "\n",
                j->episode_start_ms, tk_wall_ms(), j->episode, j->episode_lag);
        j->episode = 0;
}

static void judge_strict(judge_t *j, int critical) {
        int64_t lag = lag_of(j, 1);
        if (critical) {
                if (lag > j->max_critical_lag)
                        j->max_critical_lag = lag;
                /* the critical record came while the bulk backlog waited */
                if (lag_of(j, 0) > 0)
                        j->critical_with_bulk_waiting++;
                if (lag <= j->o->threshold)
                        episode_end(j); /* the critical lag is gone */
                return;
        }
        if (lag > j->o->threshold && !j->episode) {
                /* Are those partitions still ours? (once per episode: the
                 * lookup waits for librdkafka's main thread, and slowing
                 * the application would flatter the scheduler) */
                refresh(j);
                lag = lag_of(j, 1);
        }
        if (lag <= j->o->threshold) {
                episode_end(j);
                return;
        }
        if (j->episode++ == 0) {
                j->episodes++;
                j->episode_start_ms = tk_wall_ms();
                j->episode_lag      = 0;
        }
        if (lag > j->episode_lag)
                j->episode_lag = lag;
        if (j->episode > j->worst)
                j->worst = j->episode;
}

static void judge_weighted(judge_t *j, int critical) {
        double share;
        if (j->both_check++ % 8 == 0)
                j->both = lag_of(j, 1) > 0 && lag_of(j, 0) > 0;
        if (!j->both)
                return;
        j->both_cnt++;
        j->both_critical += critical;
        j->window_cnt++;
        j->window_critical += critical;
        if (j->window_cnt < j->o->window)
                return;
        share = 100.0 * (double)j->window_critical / (double)j->window_cnt;
        if (share < j->min_share)
                j->min_share = share;
        if (share > j->max_share)
                j->max_share = share;
        j->windows++;
        fprintf(j->jf, "W %" PRId64 " %ld %ld\n", tk_wall_ms(),
                j->window_critical, j->window_cnt);
        j->window_cnt = j->window_critical = 0;
}

/* Writes the record's line and judges it. */
static void on_record(judge_t *j, const rd_kafka_message_t *m) {
        int critical =
            m->partition >= 0 && m->partition < MAX_PARTS &&
            j->critical[m->partition];

        bcu_record_line(j->out, m, tk_wall_ms());
        if (m->partition < 0 || m->partition >= MAX_PARTS ||
            (!critical && !j->bulk[m->partition])) {
                j->outside++; /* never a bucket of this consumer's */
                return;
        }
        if (tk_key_is_bucket(m->key, m->key_len, "critical") != critical)
                j->misplaced++;
        j->delivered[critical ? 0 : 1]++;
        if (bcu_usr1) {
                episode_end(j);
                return;
        }
        if (tk_now_ms() >= j->next_refresh_ms)
                refresh(j);
        if (j->o->judge == JUDGE_STRICT)
                judge_strict(j, critical);
        else
                judge_weighted(j, critical);
}

/* --- the consumer -------------------------------------------------------- */

/* The figures of the last second, for diagnosis: what the judge counted,
 * what the plugin's statistics say, and the judge's view of each critical
 * partition held. */
static void print_stats(judge_t *j) {
        rd_kafka_topic_partition_list_t *l =
            rd_kafka_topic_partition_list_new(16);
        bp_consumer_bucket_stats_t st;
        int64_t lo, hi;
        int b, i;

        fprintf(stderr, "%" PRId64 " delivered critical %ld bulk %ld, "
                        "episodes %ld worst %ld, windows %d%s",
                tk_wall_ms(), j->delivered[0], j->delivered[1], j->episodes,
                j->worst, j->windows, bcu_usr1 ? " (judging ended)" : "");
        for (b = 0; bp_consumer_bucket_stats(j->rk, b, &st) == 0; b++)
                fprintf(stderr, " | %s lag %" PRId64 " (+%d unknown) parts %d "
                                "paused %d pauses %" PRIu64,
                        st.name, st.lag, st.lag_unknown, st.partitions,
                        st.paused, st.pauses);
        for (i = 0; i < MAX_PARTS; i++)
                if (j->held[i] && j->critical[i])
                        rd_kafka_topic_partition_list_add(l, j->o->topic, i);
        if (l->cnt > 0)
                rd_kafka_position(j->rk, l);
        fprintf(stderr, " | critical");
        for (i = 0; i < l->cnt; i++) {
                int32_t p = l->elems[i].partition;
                if (rd_kafka_get_watermark_offsets(j->rk, j->o->topic, p, &lo,
                                                   &hi))
                        hi = -1;
                fprintf(stderr, " %d=%" PRId64 "/%" PRId64 "/%" PRId64, p, hi,
                        l->elems[i].offset, j->start[p]);
        }
        fputc('\n', stderr);
        rd_kafka_topic_partition_list_destroy(l);
}

/* The totals, as one JSON object; the bucket statistics (list consumers
 * only) are read before the consumer closes. */
static void print_summary(judge_t *j) {
        bp_consumer_bucket_stats_t st[8];
        bp_stats_t bs;
        int n = 0, have, b;

        while (n < 8 && bp_consumer_bucket_stats(j->rk, n, &st[n]) == 0)
                n++;
        have = n >= 2;

        memset(&bs, 0, sizeof(bs));
        bp_stats(j->rk, &bs);
        printf("{\"delivered_critical\": %ld, \"delivered_bulk\": %ld, "
               "\"misplaced\": %ld, \"outside\": %ld, \"errors\": %ld, "
               "\"foreign\": %" PRIu64
               ", \"episodes\": %ld, \"worst_episode\": %ld, "
               "\"max_critical_lag\": %" PRId64
               ", \"critical_with_bulk_waiting\": %ld, \"both\": %ld, "
               "\"both_critical\": %ld, \"windows\": %d, "
               "\"min_share\": %.2f, \"max_share\": %.2f, "
               "\"bucket_stats\": %s",
               j->delivered[0], j->delivered[1], j->misplaced, j->outside,
               j->errors,
               bs.foreign, j->episodes, j->worst, j->max_critical_lag,
               j->critical_with_bulk_waiting, j->both_cnt, j->both_critical,
               j->windows, j->windows ? j->min_share : -1.0,
               j->windows ? j->max_share : -1.0, have ? "[" : "null");
        for (b = 0; have && b < n; b++)
                printf("%s{\"name\": \"%s\", \"delivered\": %" PRIu64
                       ", \"lag\": %" PRId64 ", \"pauses\": %" PRIu64
                       ", \"paused_ms\": %" PRIu64 ", \"partitions\": %d}",
                       b ? ", " : "", st[b].name, st[b].delivered, st[b].lag,
                       st[b].pauses, st[b].paused_ms, st[b].partitions);
        printf("%s}\n", have ? "]" : "");
}

int main(int argc, char **argv) {
        static judge_t j;
        opts_t o;
        int64_t next_flush = 0, next_stats = 0;

        bcu_program = "bp-broker-sched";
        setvbuf(stdout, NULL, _IOLBF, 0);
        parse_opts(&o, argc, argv);
        j.o         = &o;
        j.min_share = 100.0;
        parse_critical(&j, &o);
        j.out = bcu_open_out(o.out, "");
        j.af  = bcu_open_out(o.out, ".assign");
        j.jf  = bcu_open_out(o.out, ".judge");
        j.rk  = bcu_subscribe(make_conf(&o), o.topic);
        bcu_catch_signals(1);

        while (!bcu_stop) {
                rd_kafka_message_t *m = rd_kafka_consumer_poll(j.rk, 100);
                int64_t now           = tk_now_ms();
                int record            = m && !m->err;
                if (m && m->err) {
                        bcu_consume_error(m, &j.errors);
                } else if (m) {
                        on_record(&j, m);
                } else if (now >= j.next_refresh_ms) {
                        refresh(&j); /* idle: keep FILE.assign current */
                }
                if (m)
                        rd_kafka_message_destroy(m);
                if (now >= next_flush) {
                        fflush(j.out);
                        fflush(j.jf);
                        next_flush = now + 100;
                }
                if (now >= next_stats) {
                        print_stats(&j);
                        next_stats = now + 1000;
                }
                if (record && o.work_us)
                        tk_sleep_us(o.work_us); /* the application's work */
        }
        episode_end(&j);
        print_stats(&j);
        print_summary(&j);
        fflush(j.out);
        fflush(j.jf);
        rd_kafka_consumer_close(j.rk);
        fprintf(j.af, "%" PRId64 " closed\n", tk_wall_ms());
        rd_kafka_destroy(j.rk);
        fclose(j.out);
        fclose(j.af);
        fclose(j.jf);
        return 0;
}
