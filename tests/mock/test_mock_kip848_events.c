/*
 * test_mock_kip848_events.c - a bucket consumer on the next generation
 * group protocol (KIP-848) that takes rebalances as events and maps them
 * itself, as confluent-kafka-go's helper does: it polls the consumer queue
 * with rd_kafka_conf_set_events(RD_KAFKA_EVENT_REBALANCE), sets
 * bucket.priority.rebalance.events.mapped=true, passes each assignment
 * through bp_assignment_map() and assigns the result incrementally. No
 * callback of the plugin runs after that assignment, so the mapping call
 * itself must pause the partitions outside the bucket: every Gold record
 * is read, no other record, the consumer holds the whole topic and never
 * fetched a partition outside Gold (no position). Skipped (cmocka skip) on
 * librdkafka older than 2.12.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bp_test_util.h"
#include "include/bucket_priority.h"

#define TOPIC "orders"
#define PARTITIONS 12
#define RECORDS 1200
#define BUCKET_CONF                                                            \
        "bucket.priority.topic", TOPIC, "bucket.priority.buckets",             \
            "Platinum, Gold", "bucket.priority.allocation", "70%, 30%"

static bp_test_cluster_t cluster;
static int gold[PARTITIONS]; /* from the delivery reports */

static int setup(void **state) {
        return bp_test_kip848_setup(&cluster, TOPIC, PARTITIONS, state);
}

/* An assignment or a revocation event: mapped, then (un)assigned
 * incrementally, as the Go helper does. */
static void on_rebalance(rd_kafka_t *rk, rd_kafka_event_t *ev) {
        rd_kafka_topic_partition_list_t *parts =
            rd_kafka_event_topic_partition_list(ev);
        rd_kafka_topic_partition_list_t *mapped;
        rd_kafka_error_t *error;
        char errstr[512];

        if (rd_kafka_event_error(ev) == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
                mapped = bp_assignment_map(rk, parts, errstr, sizeof(errstr));
                if (!mapped)
                        fail_msg("bp_assignment_map: %s", errstr);
                assert_int_equal(mapped->cnt, parts->cnt); /* kept whole */
                error = rd_kafka_incremental_assign(rk, mapped);
                rd_kafka_topic_partition_list_destroy(mapped);
        } else {
                error = rd_kafka_incremental_unassign(rk, parts);
        }
        if (error)
                fail_msg("incremental (un)assign: %s",
                         rd_kafka_error_string(error));
}

static void test_events_mapped(void **state) {
        rd_kafka_topic_partition_list_t *sub, *a;
        bp_test_drs_t drs = {0};
        rd_kafka_conf_t *conf;
        rd_kafka_queue_t *q;
        rd_kafka_t *rk;
        tk_ledger_t lg;
        bp_stats_t st;
        char errstr[512];
        long gold_cnt = 0, read = 0, foreign = 0;
        int64_t deadline;
        size_t i;
        (void)state;

        if (!bp_test_kip848_host())
                skip();
        assert_int_equal(tk_ledger_init(&lg, RECORDS), 0);
        for (i = 0; i < RECORDS; i++)
                tk_ledger_write(&lg, (int)i);
        bp_test_produce_ids(bp_test_conf(cluster.bootstraps, BUCKET_CONF,
                                         NULL),
                            TOPIC, 0, RECORDS, &drs);
        for (i = 0; i < drs.cnt; i++)
                if (!strncmp(drs.v[i].key, "Gold-", 5)) {
                        gold[drs.v[i].partition] = 1;
                        gold_cnt++;
                }

        conf = bp_test_conf(cluster.bootstraps, BUCKET_CONF,
                            "bucket.priority.bucket", "Gold", "group.id",
                            "events", "auto.offset.reset", "earliest",
                            "bucket.priority.rebalance.events.mapped", "true",
                            "group.protocol", "consumer", NULL);
        rd_kafka_conf_set_events(conf, RD_KAFKA_EVENT_REBALANCE |
                                           RD_KAFKA_EVENT_FETCH);
        rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
        if (!rk)
                fail_msg("rd_kafka_new: %s", errstr);
        rd_kafka_poll_set_consumer(rk);
        q   = rd_kafka_queue_get_consumer(rk);
        sub = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(sub, TOPIC, RD_KAFKA_PARTITION_UA);
        assert_int_equal(rd_kafka_subscribe(rk, sub), 0);
        rd_kafka_topic_partition_list_destroy(sub);

        deadline = tk_now_ms() + 60000;
        while (tk_ledger_missing(&lg, 0, RECORDS) > RECORDS - gold_cnt &&
               tk_now_ms() < deadline) {
                rd_kafka_event_t *ev = rd_kafka_queue_poll(q, 100);
                const rd_kafka_message_t *m;
                if (!ev)
                        continue;
                if (rd_kafka_event_type(ev) == RD_KAFKA_EVENT_REBALANCE)
                        on_rebalance(rk, ev);
                while (rd_kafka_event_type(ev) == RD_KAFKA_EVENT_FETCH &&
                       (m = rd_kafka_event_message_next(ev)))
                        if (!m->err && m->key) {
                                read++;
                                foreign += !gold[m->partition];
                                tk_ledger_read(
                                    &lg, (int)tk_key_id(m->key, m->key_len,
                                                        NULL));
                        }
                rd_kafka_event_destroy(ev);
        }

        /* Every Gold record read, nothing else. */
        assert_int_equal(tk_ledger_missing(&lg, 0, RECORDS),
                         RECORDS - gold_cnt);
        assert_int_equal(foreign, 0);
        assert_true(read >= gold_cnt);
        /* The whole topic held, the partitions outside Gold never fetched. */
        assert_int_equal(rd_kafka_assignment(rk, &a), 0);
        assert_int_equal(a->cnt, PARTITIONS);
        assert_int_equal(rd_kafka_position(rk, a), 0);
        for (i = 0; i < (size_t)a->cnt; i++)
                if (!gold[a->elems[i].partition] &&
                    a->elems[i].offset != RD_KAFKA_OFFSET_INVALID)
                        fail_msg("partition %d of Platinum was fetched "
                                 "(position %lld)",
                                 (int)a->elems[i].partition,
                                 (long long)a->elems[i].offset);
        rd_kafka_topic_partition_list_destroy(a);
        assert_int_equal(bp_stats(rk, &st), 0);
        assert_int_equal(st.foreign, 0);

        rd_kafka_queue_destroy(q);
        rd_kafka_consumer_close(rk);
        rd_kafka_destroy(rk);
        bp_test_drs_free(&drs);
        tk_ledger_free(&lg);
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_events_mapped),
        };
        return cmocka_run_group_tests(tests, setup, bp_test_kip848_teardown);
}
