/*
 * test_mock_kip848_round_trips.c - the requests a bucket consumer's
 * rebalance callback sends on the next generation group protocol (KIP-848),
 * counted with an on_request_sent interceptor on the mock cluster.
 * librdkafka pauses every assigned partition while the callback runs; a
 * request sent then wakes the fetcher to see them paused, and the resume
 * does not wake it again: the partitions the consumer keeps would stop
 * for up to a second (docs/benchmarks-results.md, KIP-848). So an assignment with
 * nothing of the bucket topic - the empty one that follows a revocation
 * when another member joins - must send no Metadata and no OffsetFetch
 * request; one that brings the bucket's partitions sends both (the count
 * can fail). The callback is called as librdkafka calls it. Skipped
 * (cmocka skip) on librdkafka older than 2.12.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "bp_test_util.h"
#include "include/bucket_priority.h"

#define TOPIC "orders"
#define PARTITIONS 12
#define API_METADATA 3
#define API_OFFSET_FETCH 9

static bp_test_cluster_t cluster;
static atomic_int armed, metadata_sent, offset_fetch_sent;

static int setup(void **state) {
        return bp_test_kip848_setup(&cluster, TOPIC, PARTITIONS, state);
}

static rd_kafka_resp_err_t count_request(rd_kafka_t *rk, int sockfd,
                                         const char *brokername,
                                         int32_t brokerid, int16_t api_key,
                                         int16_t api_version, int32_t corr_id,
                                         size_t size, void *ic_opaque) {
        (void)rk, (void)sockfd, (void)brokername, (void)brokerid;
        (void)api_version, (void)corr_id, (void)size, (void)ic_opaque;
        if (!atomic_load(&armed))
                return RD_KAFKA_RESP_ERR_NO_ERROR;
        if (api_key == API_METADATA)
                atomic_fetch_add(&metadata_sent, 1);
        else if (api_key == API_OFFSET_FETCH)
                atomic_fetch_add(&offset_fetch_sent, 1);
        return RD_KAFKA_RESP_ERR_NO_ERROR;
}

static rd_kafka_resp_err_t add_counter(rd_kafka_t *rk,
                                       const rd_kafka_conf_t *conf,
                                       void *ic_opaque, char *errstr,
                                       size_t errstr_size) {
        (void)conf, (void)ic_opaque, (void)errstr, (void)errstr_size;
        return rd_kafka_interceptor_add_on_request_sent(rk, "round-trips",
                                                        count_request, NULL);
}

/* Polls \p rk for \p ms milliseconds (rebalances, fetches, commits). */
static void poll_for(rd_kafka_t *rk, int ms) {
        int64_t end = tk_now_ms() + ms;
        while (tk_now_ms() < end) {
                rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 50);
                if (m)
                        rd_kafka_message_destroy(m);
        }
}

/* The plugin's callback for \p err on \p parts, the requests it sent
 * counted. */
static void counted_callback(rd_kafka_t *rk, rd_kafka_resp_err_t err,
                             rd_kafka_topic_partition_list_t *parts) {
        atomic_store(&metadata_sent, 0);
        atomic_store(&offset_fetch_sent, 0);
        atomic_store(&armed, 1);
        bp_rebalance_cb(rk, err, parts, NULL);
        atomic_store(&armed, 0);
}

static int assigned_cnt(rd_kafka_t *rk) {
        rd_kafka_topic_partition_list_t *a = NULL;
        int cnt = -1;
        if (!rd_kafka_assignment(rk, &a))
                cnt = a->cnt;
        if (a)
                rd_kafka_topic_partition_list_destroy(a);
        return cnt;
}

static void test_empty_assignment_sends_nothing(void **state) {
        rd_kafka_topic_partition_list_t *sub, *all, *one, *none;
        rd_kafka_conf_t *conf;
        rd_kafka_t *rk;
        char errstr[512];
        int64_t deadline;
        int p;
        (void)state;

        if (!bp_test_kip848_host())
                skip();
        conf = bp_test_conf(
            cluster.bootstraps, "bucket.priority.topic", TOPIC,
            "bucket.priority.buckets", "Platinum, Gold",
            "bucket.priority.allocation", "70%, 30%", "bucket.priority.layout",
            "stable", "bucket.priority.bucket", "Gold", "group.id", "trips",
            "group.protocol", "consumer", "auto.offset.reset", "earliest",
            /* no periodic Metadata of librdkafka's own in the counts */
            "topic.metadata.refresh.interval.ms", "-1", NULL);
        rd_kafka_conf_interceptor_add_on_new(conf, "round-trips", add_counter,
                                             NULL);
        rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
        if (!rk)
                fail_msg("rd_kafka_new: %s", errstr);
        rd_kafka_poll_set_consumer(rk);
        sub = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(sub, TOPIC, RD_KAFKA_PARTITION_UA);
        assert_int_equal(rd_kafka_subscribe(rk, sub), 0);
        rd_kafka_topic_partition_list_destroy(sub);
        deadline = tk_now_ms() + 30000;
        while (assigned_cnt(rk) != PARTITIONS && tk_now_ms() < deadline)
                poll_for(rk, 100);
        assert_int_equal(assigned_cnt(rk), PARTITIONS);
        poll_for(rk, 500);

        all = rd_kafka_topic_partition_list_new(PARTITIONS);
        for (p = 0; p < PARTITIONS; p++)
                rd_kafka_topic_partition_list_add(all, TOPIC, p);
        one  = rd_kafka_topic_partition_list_new(1);
        none = rd_kafka_topic_partition_list_new(0);
        rd_kafka_topic_partition_list_add(one, TOPIC, 0);

        /* The control: the whole topic assigned again needs the partition
         * count and the group's commits (the bucket's start offsets). */
        bp_rebalance_cb(rk, RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS, all, NULL);
        assert_int_equal(assigned_cnt(rk), 0);
        counted_callback(rk, RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS, all);
        assert_int_equal(assigned_cnt(rk), PARTITIONS);
        assert_true(atomic_load(&metadata_sent) >= 1);
        assert_true(atomic_load(&offset_fetch_sent) >= 1);
        poll_for(rk, 500);

        /* A member joins: one partition revoked, then the empty
         * assignment. Neither sends a request; the rest stays assigned. */
        counted_callback(rk, RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS, one);
        assert_int_equal(atomic_load(&metadata_sent), 0);
        assert_int_equal(atomic_load(&offset_fetch_sent), 0);
        counted_callback(rk, RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS, none);
        assert_int_equal(atomic_load(&metadata_sent), 0);
        assert_int_equal(atomic_load(&offset_fetch_sent), 0);
        assert_int_equal(assigned_cnt(rk), PARTITIONS - 1);

        rd_kafka_topic_partition_list_destroy(all);
        rd_kafka_topic_partition_list_destroy(one);
        rd_kafka_topic_partition_list_destroy(none);
        rd_kafka_consumer_close(rk);
        rd_kafka_destroy(rk);
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_empty_assignment_sends_nothing),
        };
        return cmocka_run_group_tests(tests, setup, bp_test_kip848_teardown);
}
