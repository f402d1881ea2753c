/*
 * sched_harness.c - the harness of test_mock_scheduler.c (see
 * sched_harness.h): producers and the critical stream, the probes that
 * judge every record a consumer delivers, and the scenario of a run.
 *
 * A probe judges the consumer with its own eyes, through public calls
 * only: its lag on a set of partitions is librdkafka's cached high
 * watermark minus the position (or the partition's start offset before
 * the first record) over the partitions it holds (rd_kafka_assignment()).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "include/bucket_priority.h"
#include "sched_harness.h"

sched_harness_t harness;

int timing_asserted(void) {
        const char *v = getenv("BP_TEST_NO_TIMING");
        return !v || strcmp(v, "1");
}

/* --- producing ------------------------------------------------------------ */


static void on_dr(rd_kafka_t *rk, const rd_kafka_message_t *m,
                  void *opaque) {
        producer_t *p = opaque;
        (void)rk;
        if (m->err) {
                p->failed++;
        } else {
                p->acked++;
                tk_ledger_write(&harness.ledger, (int)(intptr_t)m->_private);
        }
}

/* A producer of the bucket topic; \p batch caps records per batch. */
void producer_start(producer_t *p, const char *batch) {
        rd_kafka_conf_t *conf =
            bp_test_conf(harness.cluster.bootstraps, BUCKET_CONF, "linger.ms",
                         "2", "batch.num.messages", batch, NULL);
        char errstr[512];

        memset(p, 0, sizeof(*p));
        if (!(p->rk = tk_producer(conf, on_dr, p, errstr, sizeof(errstr))))
                fail_msg("producer: %s", errstr);
}

/* The value of every record: when it was produced (monotonic ms). */
static void produce_one(producer_t *p, const char *bucket, int id) {
        char key[32];
        int n     = snprintf(key, sizeof(key), "%s-%d", bucket, id);
        long sent = tk_now_ms();
        while (rd_kafka_producev(p->rk, RD_KAFKA_V_TOPIC(TOPIC),
                                 RD_KAFKA_V_KEY(key, (size_t)n),
                                 RD_KAFKA_V_VALUE(&sent, sizeof(sent)),
                                 RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                 RD_KAFKA_V_OPAQUE((void *)(intptr_t)id),
                                 RD_KAFKA_V_END) ==
               RD_KAFKA_RESP_ERR__QUEUE_FULL)
                rd_kafka_poll(p->rk, 10);
}

void producer_stop(producer_t *p) {
        rd_kafka_flush(p->rk, 60000);
        rd_kafka_destroy(p->rk);
}

void produce_critical_now(producer_t *p) {
        produce_one(p, "critical", harness.next_critical_id++);
        rd_kafka_flush(p->rk, 10000);
}

/* Writes ids [from, to) to \p bucket in batches of at most \p batch. */
void produce_range(const char *bucket, int from, int to,
                   const char *batch) {
        producer_t p;
        int i;
        producer_start(&p, batch);
        for (i = from; i < to; i++)
                produce_one(&p, bucket, i);
        producer_stop(&p);
        assert_int_equal(p.failed, 0);
        assert_int_equal(p.acked, to - from);
}

/* The stream's thread (no cmocka calls in it). */
static void *stream_run(void *arg) {
        stream_t *st = arg;
        int i;
        while (!atomic_load(&st->stop)) {
                for (i = 0; i < st->burst; i++)
                        produce_one(&st->p, "critical", st->next_id++);
                rd_kafka_flush(st->p.rk, 10000);
                tk_sleep_us(st->every_ms * 1000L);
        }
        return NULL;
}

/* What a failed assertion leaves running (cmocka leaves the test function
 * at once): harness_cleanup() stops and closes it, so that the next test
 * and the process end cleanly (a consumer left open kept valgrind from
 * exiting). */
static stream_t *stream_running;
static rd_kafka_t *left_open[4];

static void track(rd_kafka_t *rk, int open) {
        int i;
        for (i = 0; i < 4; i++)
                if (open ? !left_open[i] : left_open[i] == rk) {
                        left_open[i] = open ? rk : NULL;
                        return;
                }
}

void stream_start(stream_t *st, int burst, int every_ms) {
        memset(st, 0, sizeof(*st));
        st->burst    = burst;
        st->every_ms = every_ms;
        st->first_id = st->next_id = harness.next_critical_id;
        producer_start(&st->p, "100");
        assert_int_equal(pthread_create(&st->thread, NULL, stream_run, st),
                         0);
        stream_running = st;
}

void stream_stop(stream_t *st) {
        atomic_store(&st->stop, 1);
        pthread_join(st->thread, NULL);
        stream_running = NULL;
        producer_stop(&st->p);
        harness.next_critical_id = st->next_id;
        assert_int_equal(st->p.failed, 0);
        assert_int_equal(st->p.acked, st->next_id - st->first_id);
}

/* --- consumers and what the test sees of them ---------------------------- */

static int is_critical(int32_t p) {
        return p >= CRITICAL_FIRST;
}

/* A consumer of the list "critical, bulk" with \p schedule, or with
 * \p schedule NULL a plain consumer of the whole topic (the control). */
/* The consumers' records fetched, from their statistics (by client, as
 * the clients left open are tracked). */
static struct {
        rd_kafka_t *rk;
        atomic_long fetched;
} fetched_by[4];

static int on_stats(rd_kafka_t *rk, char *json, size_t len, void *opaque) {
        /* The client's own counter comes last, after its brokers' and
         * partitions' ones. */
        const char *at = NULL, *next = json;
        int i;
        (void)len, (void)opaque;
        while ((next = strstr(next, "\"rxmsgs\":")))
                at = next++;
        for (i = 0; at && i < 4; i++)
                if (fetched_by[i].rk == rk) {
                        atomic_store(&fetched_by[i].fetched,
                                     strtol(at + 9, NULL, 10));
                        break;
                }
        return 0;
}

long probe_fetched(rd_kafka_t *rk) {
        int i;
        for (i = 0; i < 4; i++)
                if (fetched_by[i].rk == rk)
                        return atomic_load(&fetched_by[i].fetched);
        return -1;
}

/* A slot whose client is closed, or was never used. */
static int slot_free(int i) {
        int j;
        for (j = 0; j < 4; j++)
                if (fetched_by[i].rk && left_open[j] == fetched_by[i].rk)
                        return 0;
        return 1;
}

static void count_fetched(rd_kafka_t *rk) {
        int i;
        for (i = 0; i < 4; i++)
                if (fetched_by[i].rk == rk || slot_free(i)) {
                        fetched_by[i].rk = rk;
                        atomic_store(&fetched_by[i].fetched, -1);
                        return;
                }
}

void probe_start(probe_t *pr, const char *group, const char *schedule,
                 const char *threshold) {
        rd_kafka_topic_partition_list_t *sub;
        rd_kafka_conf_t *conf;
        char errstr[512];

        memset(pr, 0, sizeof(*pr));
        pr->min_share = 100;
        if (schedule) {
                conf = bp_test_conf(harness.cluster.bootstraps,
                                    "bucket.priority.bucket",
                                    "critical, bulk", BUCKET_CONF,
                                    "bucket.priority.schedule", schedule,
                                    "bucket.priority.lag.threshold",
                                    threshold, "group.id", group, FAST_GROUP,
                                    NULL);
                if (harness.queue_min)
                        assert_int_equal(
                            bp_test_set(conf, "queued.min.messages",
                                        harness.queue_min, errstr,
                                        sizeof(errstr)),
                            RD_KAFKA_CONF_OK);
                /* Unset when "default" (the strict schedule then
                 * queues). */
                if (!harness.hold || strcmp(harness.hold, "default"))
                        assert_int_equal(
                            bp_test_set(conf, "bucket.priority.hold",
                                        harness.hold ? harness.hold
                                                     : "pause",
                                        errstr, sizeof(errstr)),
                            RD_KAFKA_CONF_OK);
        } else {
                conf = rd_kafka_conf_new();
                rd_kafka_conf_set(conf, "bootstrap.servers",
                                  harness.cluster.bootstraps, errstr,
                                  sizeof(errstr));
                rd_kafka_conf_set(conf, "group.id", group, errstr,
                                  sizeof(errstr));
                rd_kafka_conf_set(conf, "auto.offset.reset", "earliest",
                                  errstr, sizeof(errstr));
                rd_kafka_conf_set(conf, "fetch.wait.max.ms", "20", errstr,
                                  sizeof(errstr));
        }
        if (getenv("BP_TEST_RDDEBUG"))
                rd_kafka_conf_set(conf, "debug", getenv("BP_TEST_RDDEBUG"),
                                  errstr, sizeof(errstr));
        rd_kafka_conf_set(conf, "statistics.interval.ms", "100", errstr,
                          sizeof(errstr));
        rd_kafka_conf_set_stats_cb(conf, on_stats);
        pr->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
        if (!pr->rk)
                fail_msg("consumer: %s", errstr);
        count_fetched(pr->rk);
        track(pr->rk, 1);
        rd_kafka_poll_set_consumer(pr->rk);
        sub = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(sub, TOPIC, RD_KAFKA_PARTITION_UA);
        assert_int_equal(rd_kafka_subscribe(pr->rk, sub), 0);
        rd_kafka_topic_partition_list_destroy(sub);
}

void probe_debug(probe_t *pr) {
        bp_consumer_bucket_stats_t st;
        int b;
        if (!getenv("BP_TEST_DEBUG"))
                return;
        for (b = 0; b < 2; b++)
                if (!bp_consumer_bucket_stats(pr->rk, b, &st))
                        fprintf(stderr,
                                "  %-8s delivered %llu lag %lld (+%d unknown) "
                                "partitions %d paused %d pauses %llu "
                                "paused_ms %llu\n",
                                st.name, (unsigned long long)st.delivered,
                                (long long)st.lag, st.lag_unknown,
                                st.partitions, st.paused,
                                (unsigned long long)st.pauses,
                                (unsigned long long)st.paused_ms);
}

void probe_close(probe_t *pr) {
        free(pr->delays);
        pr->delays = NULL;
        if (pr->closed)
                return;
        track(pr->rk, 0);
        rd_kafka_consumer_close(pr->rk);
        rd_kafka_destroy(pr->rk);
        pr->closed = 1;
}

/* After every test: what a failed assertion left running. */
int harness_cleanup(void **state) {
        int i;
        (void)state;
        harness.hold        = NULL;
        harness.hold_second = NULL;
        if (stream_running) {
                atomic_store(&stream_running->stop, 1);
                pthread_join(stream_running->thread, NULL);
                rd_kafka_destroy(stream_running->p.rk);
                stream_running = NULL;
        }
        for (i = 0; i < 4; i++)
                if (left_open[i]) {
                        rd_kafka_consumer_close(left_open[i]);
                        rd_kafka_destroy(left_open[i]);
                        left_open[i] = NULL;
                }
        return 0;
}

/* Re-reads the consumer's assignment; partitions without a position yet
 * (newly held, or held again after a rebalance) start at the group's
 * committed offset, else at the beginning (auto.offset.reset). */
void probe_refresh(probe_t *pr) {
        rd_kafka_topic_partition_list_t *a, *fresh;
        int held[PARTS] = {0}, i;

        if (rd_kafka_assignment(pr->rk, &a))
                return;
        rd_kafka_position(pr->rk, a);
        fresh        = rd_kafka_topic_partition_list_new(PARTS);
        pr->assigned = 0;
        for (i = 0; i < a->cnt; i++) {
                int32_t p = a->elems[i].partition;
                if (strcmp(a->elems[i].topic, TOPIC) || p < 0 || p >= PARTS)
                        continue;
                held[p] = 1;
                pr->assigned++;
                /* Held again after a rebalance the test did not see
                 * (no record came meanwhile): its start moved. Asked
                 * again at most every 200 ms while it has no position. */
                if (!pr->held[p] || (a->elems[i].offset < 0 &&
                                     tk_now_ms() >= pr->next_reread_ms))
                        rd_kafka_topic_partition_list_add(fresh, TOPIC, p);
        }
        if (fresh->cnt > 0)
                pr->next_reread_ms = tk_now_ms() + 200;
        /* A short wait: during a rebalance the committed offsets may not
         * be readable; those partitions are then left out of the lag (the
         * test is lenient there) and asked again at the next refresh. */
        if (fresh->cnt > 0 && rd_kafka_committed(pr->rk, fresh, 300) == 0) {
                for (i = 0; i < fresh->cnt; i++)
                        pr->start[fresh->elems[i].partition] =
                            fresh->elems[i].offset >= 0
                                ? fresh->elems[i].offset
                                : 0;
        } else {
                for (i = 0; i < fresh->cnt; i++)
                        held[fresh->elems[i].partition] = 0;
        }
        memcpy(pr->held, held, sizeof(held));
        rd_kafka_topic_partition_list_destroy(fresh);
        rd_kafka_topic_partition_list_destroy(a);
        pr->next_refresh_ms = tk_now_ms() + 20;
}

/* The consumer's lag on the critical (or bulk) partitions it holds, as
 * librdkafka knows it; partitions not fetched yet are left out. */
static int64_t probe_lag(probe_t *pr, int critical) {
        rd_kafka_topic_partition_list_t *l =
            rd_kafka_topic_partition_list_new(PARTS);
        int64_t lag = 0, lo, hi, at;
        int i;

        for (i = 0; i < PARTS; i++)
                if (pr->held[i] && is_critical(i) == critical)
                        rd_kafka_topic_partition_list_add(l, TOPIC, i);
        rd_kafka_position(pr->rk, l);
        for (i = 0; i < l->cnt; i++) {
                int32_t p = l->elems[i].partition;
                if (rd_kafka_get_watermark_offsets(pr->rk, TOPIC, p, &lo,
                                                   &hi) ||
                    hi < 0)
                        continue;
                at = l->elems[i].offset >= 0 ? l->elems[i].offset
                                             : pr->start[p];
                if (hi > at)
                        lag += hi - at;
        }
        rd_kafka_topic_partition_list_destroy(l);
        return lag;
}

/* Weighted: both buckets have records waiting for the consumer (looked
 * at every 8th record: backlogs change slowly, the lookups do not). */
static int both_waiting(probe_t *pr) {
        if (pr->both_check++ % 8 == 0)
                pr->both = probe_lag(pr, 1) > 0 && probe_lag(pr, 0) > 0;
        return pr->both;
}

/* The id of a record keyed "critical-123" / "bulk-7" (-1 if none), and
 * whether its key names the critical bucket. */
static long record_id(const rd_kafka_message_t *m, int *critical) {
        *critical = tk_key_is_bucket(m->key, m->key_len, "critical");
        return tk_key_id(m->key, m->key_len, NULL);
}

/* Polls \p pr once; judges a delivered record as \p judge says and spends
 * \p work_us on it (the application's work). Returns 1 if a record came. */
int probe_poll(probe_t *pr, judge_t judge, int64_t threshold,
               long work_us) {
        rd_kafka_message_t *m;
        int critical = 0, first;
        long id;

        if (pr->closed)
                return 0;
        if (!(m = rd_kafka_consumer_poll(pr->rk, 1)))
                return 0;
        if (m->err || (id = record_id(m, &critical)) < 0 || id >= MAX_ID) {
                rd_kafka_message_destroy(m);
                return 0;
        }
        assert_int_equal(is_critical(m->partition), critical);
        if (critical && id >= harness.delay_from_id && m->len == sizeof(long)) {
                long sent;
                memcpy(&sent, m->payload, sizeof(sent));
                if (pr->delay_cnt == pr->delay_cap) {
                        pr->delay_cap = pr->delay_cap ? 2 * pr->delay_cap
                                                      : 256;
                        pr->delays    = realloc(pr->delays,
                                                sizeof(long) *
                                                    (size_t)pr->delay_cap);
                        assert_non_null(pr->delays);
                }
                pr->delays[pr->delay_cnt++] = tk_now_ms() - sent;
                if (getenv("BP_TEST_DEBUG"))
                        fprintf(stderr, "D %ld %ld %ld\n", tk_now_ms() % 100000,
                                id, tk_now_ms() - sent);
        }
        /* Out of order: read for the first time behind a later record of
         * its partition. A record read again after a rebalance (from the
         * group's last commit) is a duplicate, not out of order. */
        first = harness.ledger.reads[id] == 0;
        tk_ledger_read(&harness.ledger, (int)id);
        pr->delivered[critical ? 0 : 1]++;
        if (m->partition >= 0 && m->partition < PARTS) {
                pr->by_partition[m->partition]++;
                if (m->offset < pr->last_offset[m->partition] && first)
                        pr->reordered++;
                pr->last_offset[m->partition] = m->offset;
        }
        rd_kafka_message_destroy(m);

        if (judge != JUDGE_NONE && tk_now_ms() >= pr->next_refresh_ms)
                probe_refresh(pr);
        if (judge == JUDGE_STRICT) {
                int64_t lag = probe_lag(pr, 1);
                if (critical) {
                        if (lag > pr->max_critical_lag)
                                pr->max_critical_lag = lag;
                } else if (lag > threshold) {
                        probe_refresh(pr); /* is it still ours? */
                        lag = probe_lag(pr, 1);
                }
                if (!critical && lag > threshold) {
                        if (pr->episode++ == 0)
                                pr->episodes++;
                        if (pr->episode > pr->max_episode)
                                pr->max_episode = pr->episode;
                        if (getenv("BP_TEST_DEBUG") && pr->episode % 10 == 0) {
                                bp_consumer_bucket_stats_t b0, b1;
                                bp_consumer_bucket_stats(pr->rk, 0, &b0);
                                bp_consumer_bucket_stats(pr->rk, 1, &b1);
                                fprintf(stderr,
                                        "E %ld %p episode %ld lag %lld "
                                        "assigned %d | crit lag %lld unk %d "
                                        "parts %d | bulk paused %d pauses "
                                        "%llu parts %d\n",
                                        tk_now_ms() % 100000, (void *)pr,
                                        pr->episode, (long long)lag,
                                        pr->assigned, (long long)b0.lag,
                                        b0.lag_unknown, b0.partitions,
                                        b1.paused,
                                        (unsigned long long)b1.pauses,
                                        b1.partitions);
                        }
                } else if (!critical) {
                        pr->episode = 0;
                }
        } else if (judge == JUDGE_WEIGHTED && both_waiting(pr)) {
                pr->both_cnt++;
                pr->both_critical += critical;
                pr->window_cnt++;
                pr->window_critical += critical;
                if (pr->window_cnt == WEIGHT_WINDOW) {
                        double share =
                            100.0 * pr->window_critical / pr->window_cnt;
                        if (share < pr->min_share)
                                pr->min_share = share;
                        if (share > pr->max_share)
                                pr->max_share = share;
                        pr->windows++;
                        if (getenv("BP_TEST_DEBUG"))
                                fprintf(stderr, " [%.0f%%]", share);
                        pr->window_cnt = pr->window_critical = 0;
                }
        }
        if (work_us)
                tk_sleep_us(work_us);
        return 1;
}

/* Polls every open probe until every written id was read. */
void drain(probe_t *pr, int cnt, int timeout_ms) {
        long deadline = tk_now_ms() + timeout_ms, missing, next = 0;
        int k;
        while ((missing = tk_ledger_missing(&harness.ledger, 0, MAX_ID)) > 0 &&
               tk_now_ms() < deadline) {
                next = tk_now_ms() + 100;
                while (tk_now_ms() < next)
                        for (k = 0; k < cnt; k++)
                                probe_poll(&pr[k], JUDGE_NONE, 0, 0);
        }
        assert_int_equal(missing, 0);
}

void check_stats(probe_t *pr) {
        bp_consumer_bucket_stats_t st;
        int b;

        assert_int_equal(bp_consumer_bucket_stats(pr->rk, 0, &st), 0);
        assert_string_equal(st.name, "critical");
        assert_int_equal(st.rank, 0);
        assert_int_equal(st.delivered, pr->delivered[0]);
        assert_int_equal(bp_consumer_bucket_stats(pr->rk, 1, &st), 0);
        assert_string_equal(st.name, "bulk");
        assert_int_equal(st.rank, 1);
        assert_int_equal(st.delivered, pr->delivered[1]);
        assert_int_equal(bp_consumer_bucket_stats(pr->rk, 2, &st), -1);
        for (b = 0; b < 2; b++) {
                assert_int_equal(bp_consumer_bucket_stats(pr->rk, b, &st), 0);
                assert_int_equal(st.lag, 0); /* drained */
        }
}

/* --- setup ---------------------------------------------------------------- */

int harness_setup(void **state) {
        (void)state;
        memset(&harness, 0, sizeof(harness));
        harness.next_critical_id = CRITICAL_BASE;
        harness.delay_from_id    = MAX_ID;
        assert_int_equal(tk_ledger_init(&harness.ledger, MAX_ID), 0);
        bp_test_cluster_start(&harness.cluster, 1);
        bp_test_cluster_topic(&harness.cluster, TOPIC, PARTS);
        /* The deep bulk backlog every test starts with. */
        produce_range("bulk", 0, BULK_N, "10000");
        assert_int_equal(harness.ledger.written_cnt, BULK_N);
        return 0;
}

int harness_teardown(void **state) {
        (void)state;
        bp_test_cluster_stop(&harness.cluster);
        tk_ledger_free(&harness.ledger);
        return 0;
}

/* --- the scenario --------------------------------------------------------- */

static long delivered(const scenario_t *sc, int bucket) {
        return sc->pr[0].delivered[bucket] + sc->pr[1].delivered[bucket];
}

/* Polls the open probes for at least \p ms and until \p records more
 * records of bucket \p bucket (0 critical, 1 bulk) were delivered: a
 * phase means the same work whatever the speed (valgrind). */
static void run_phase(scenario_t *sc, long ms, long records, int bucket) {
        long until = tk_now_ms() + ms, deadline = tk_now_ms() + 180000;
        long goal  = delivered(sc, bucket) + records;
        int k;
        while ((tk_now_ms() < until || delivered(sc, bucket) < goal) &&
               tk_now_ms() < deadline) {
                for (k = 0; k < sc->open; k++)
                        probe_poll(&sc->pr[k], sc->judge, 0, sc->work_us);
                if (tk_now_ms() >= sc->next_debug) {
                        sc->next_debug = tk_now_ms() + 500;
                        probe_debug(&sc->pr[0]);
                }
        }
}

static void run_for(scenario_t *sc, long ms) {
        run_phase(sc, ms, 0, 0);
}

/* Runs until probe \p k was assigned \p want partitions (every open probe
 * at least one when \p want is 0). */
static void run_until_assigned(scenario_t *sc, int k, int want) {
        long deadline = tk_now_ms() + 60000;
        int j, ok = 0;
        while (!ok && tk_now_ms() < deadline) {
                run_for(sc, 50);
                ok = 1;
                for (j = 0; j < sc->open; j++) {
                        probe_refresh(&sc->pr[j]);
                        if (want ? j == k && sc->pr[j].assigned != want
                                 : sc->pr[j].assigned == 0)
                                ok = 0;
                }
        }
        assert_true(ok);
}

/* Runs until every critical record written so far was read. */
static void run_until_critical_read(scenario_t *sc) {
        long deadline = tk_now_ms() + 120000;
        long missing = 1;
        while (missing && tk_now_ms() < deadline) {
                run_for(sc, 20);
                missing = tk_ledger_missing(&harness.ledger, CRITICAL_BASE,
                                    harness.next_critical_id);
        }
        assert_int_equal(missing, 0);
}

void scenario_run(scenario_t *sc, const char *group,
                  const char *schedule, int rebalance, long phase_ms,
                  long phase_records, int phase_bucket) {
        probe_start(&sc->pr[0], group, schedule, "0");
        sc->pr[1].closed = 1;
        sc->open         = 1;
        run_until_assigned(sc, 0, PARTS);
        if (sc->stream) {
                /* Scheduled consumers first read the critical records the
                 * earlier tests wrote (the stream's delays are the new
                 * records' own); the control never would, behind bulk. */
                if (schedule)
                        run_until_critical_read(sc);
                stream_start(sc->stream, 10, 100);
        }
        run_phase(sc, phase_ms, phase_records, phase_bucket);
        if (!rebalance)
                return;
        {
                const char *first = harness.hold;
                if (harness.hold_second)
                        harness.hold = harness.hold_second;
                probe_start(&sc->pr[1], group, schedule, "0");
                harness.hold = first;
        }
        sc->open = 2;
        run_until_assigned(sc, 0, 0);
        assert_int_equal(sc->pr[0].assigned + sc->pr[1].assigned, PARTS);
        run_phase(sc, phase_ms, phase_records, phase_bucket);
        probe_close(&sc->pr[1]);
        sc->open = 1;
        run_until_assigned(sc, 0, PARTS);
        run_phase(sc, phase_ms, phase_records, phase_bucket);
        /* The second consumer took part: it read both buckets. */
        assert_true(sc->pr[1].delivered[0] > 0);
        assert_true(sc->pr[1].delivered[1] > 0);
}