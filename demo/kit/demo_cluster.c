/*
 * demo_cluster.c - the mock cluster (the test kit's, tests/kit/) and the
 * Admin API calls (CreateTopics, CreatePartitions, DeleteTopics) of
 * bp-demo.
 */
#include "demo_cluster.h"

#include <stdio.h>
#include <string.h>

#include "demo_log.h"
#include "demo_time.h"
#include "testkit.h"

#define ADMIN_TIMEOUT_MS 30000

int demo_cluster_start(demo_cluster_t *cl, const char *brokers, char *err,
                       size_t err_size) {
        rd_kafka_conf_t *conf = rd_kafka_conf_new();

        memset(cl, 0, sizeof(*cl));
        rd_kafka_conf_set_log_cb(conf, demo_log_rdkafka);
        if (rd_kafka_conf_set(conf, "client.id", "bp-demo-admin", err,
                              err_size) ||
            (brokers && rd_kafka_conf_set(conf, "bootstrap.servers", brokers,
                                          err, err_size))) {
                rd_kafka_conf_destroy(conf);
                return -1;
        }
        if (!brokers) {
                if (tk_mock_start(&cl->mock, conf, 1, err, err_size))
                        return -1;
                cl->rk = cl->mock.owner;
                snprintf(cl->bootstraps, sizeof(cl->bootstraps), "%s",
                         cl->mock.bootstraps);
                return 0;
        }
        cl->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, err_size);
        if (!cl->rk) {
                rd_kafka_conf_destroy(conf);
                return -1;
        }
        snprintf(cl->bootstraps, sizeof(cl->bootstraps), "%s", brokers);
        return 0;
}

static int wait_partitions(demo_cluster_t *cl, const char *topic, int want,
                           char *err, size_t err_size) {
        int64_t deadline = demo_now_us() + (int64_t)ADMIN_TIMEOUT_MS * 1000;
        int cnt          = -1;

        while (demo_now_us() < deadline) {
                if ((cnt = tk_partition_count(cl->rk, topic, 5000)) == want)
                        return 0;
                demo_sleep_us(200000);
        }
        snprintf(err, err_size,
                 "topic \"%s\" still shows %d partitions, expected %d", topic,
                 cnt, want);
        return -1;
}

/* Waits for the admin result event of type \p type on \p q. */
static rd_kafka_event_t *admin_wait(rd_kafka_queue_t *q,
                                    rd_kafka_event_type_t type, char *err,
                                    size_t err_size) {
        int64_t deadline =
            demo_now_us() + (int64_t)(ADMIN_TIMEOUT_MS + 5000) * 1000;
        rd_kafka_event_t *ev;

        while (demo_now_us() < deadline) {
                ev = rd_kafka_queue_poll(q, 1000);
                if (!ev)
                        continue;
                if (rd_kafka_event_type(ev) == type)
                        return ev;
                rd_kafka_event_destroy(ev);
        }
        snprintf(err, err_size, "no answer from the cluster");
        return NULL;
}

/* The first topic error of an admin result, 0 if none. */
static int topic_results_ok(const rd_kafka_topic_result_t **res, size_t cnt,
                            rd_kafka_resp_err_t tolerated, char *err,
                            size_t err_size) {
        size_t i;
        for (i = 0; i < cnt; i++) {
                rd_kafka_resp_err_t e = rd_kafka_topic_result_error(res[i]);
                if (e && e != tolerated) {
                        const char *s =
                            rd_kafka_topic_result_error_string(res[i]);
                        snprintf(err, err_size, "%s: %s",
                                 rd_kafka_topic_result_name(res[i]),
                                 s ? s : rd_kafka_err2str(e));
                        return -1;
                }
        }
        return 0;
}

/* A request's result queue, and its options in \p o (both freed by
 * admin_finish()). */
static rd_kafka_queue_t *admin_begin(demo_cluster_t *cl,
                                     rd_kafka_admin_op_t op,
                                     rd_kafka_AdminOptions_t **o) {
        char err[256];
        *o = rd_kafka_AdminOptions_new(cl->rk, op);
        rd_kafka_AdminOptions_set_operation_timeout(*o, ADMIN_TIMEOUT_MS, err,
                                                    sizeof(err));
        rd_kafka_AdminOptions_set_request_timeout(*o, ADMIN_TIMEOUT_MS, err,
                                                  sizeof(err));
        return rd_kafka_queue_new(cl->rk);
}

/* The topic results of an admin result event. */
static const rd_kafka_topic_result_t **topic_results(rd_kafka_event_t *ev,
                                                     size_t *cnt) {
        switch (rd_kafka_event_type(ev)) {
        case RD_KAFKA_EVENT_CREATETOPICS_RESULT:
                return rd_kafka_CreateTopics_result_topics(
                    rd_kafka_event_CreateTopics_result(ev), cnt);
        case RD_KAFKA_EVENT_CREATEPARTITIONS_RESULT:
                return rd_kafka_CreatePartitions_result_topics(
                    rd_kafka_event_CreatePartitions_result(ev), cnt);
        default:
                return rd_kafka_DeleteTopics_result_topics(
                    rd_kafka_event_DeleteTopics_result(ev), cnt);
        }
}

/* Waits for the request's result of type \p type and checks it, every
 * topic's error but \p tolerated included; frees the queue and options of
 * admin_begin(). @returns 0, or -1 with \p err filled. */
static int admin_finish(rd_kafka_queue_t *q, rd_kafka_AdminOptions_t *o,
                        rd_kafka_event_type_t type,
                        rd_kafka_resp_err_t tolerated, char *err,
                        size_t err_size) {
        rd_kafka_event_t *ev = admin_wait(q, type, err, err_size);
        const rd_kafka_topic_result_t **res;
        size_t cnt = 0;
        int rc     = -1;

        if (ev && rd_kafka_event_error(ev)) {
                snprintf(err, err_size, "%s", rd_kafka_event_error_string(ev));
        } else if (ev) {
                res = topic_results(ev, &cnt);
                rc  = topic_results_ok(res, cnt, tolerated, err, err_size);
        }
        if (ev)
                rd_kafka_event_destroy(ev);
        rd_kafka_AdminOptions_destroy(o);
        rd_kafka_queue_destroy(q);
        return rc;
}

/* Creates \p topic with \p partitions partitions, or with \p grow grows it
 * to that many (CreateTopics or CreatePartitions), then waits until the
 * metadata shows them. */
static int create_or_grow(demo_cluster_t *cl, const char *topic,
                          int partitions, int grow, char *err,
                          size_t err_size) {
        rd_kafka_NewPartitions_t *np = NULL;
        rd_kafka_NewTopic_t *nt      = NULL;
        rd_kafka_AdminOptions_t *o;
        rd_kafka_queue_t *q;
        int rc;

        if (grow)
                np = rd_kafka_NewPartitions_new(topic, (size_t)partitions, err,
                                                err_size);
        else
                nt = rd_kafka_NewTopic_new(topic, partitions, -1, err,
                                           err_size);
        if (!np && !nt)
                return -1;
        q = admin_begin(cl,
                        grow ? RD_KAFKA_ADMIN_OP_CREATEPARTITIONS
                             : RD_KAFKA_ADMIN_OP_CREATETOPICS,
                        &o);
        if (grow)
                rd_kafka_CreatePartitions(cl->rk, &np, 1, o, q);
        else
                rd_kafka_CreateTopics(cl->rk, &nt, 1, o, q);
        rc = admin_finish(q, o,
                          grow ? RD_KAFKA_EVENT_CREATEPARTITIONS_RESULT
                               : RD_KAFKA_EVENT_CREATETOPICS_RESULT,
                          0, err, err_size);
        if (np)
                rd_kafka_NewPartitions_destroy(np);
        if (nt)
                rd_kafka_NewTopic_destroy(nt);
        return rc ? rc : wait_partitions(cl, topic, partitions, err, err_size);
}

int demo_cluster_create_topic(demo_cluster_t *cl, const char *topic,
                              int partitions, char *err, size_t err_size) {
        if (cl->mock.mcluster) /* synchronous on the mock cluster */
                return tk_mock_topic(&cl->mock, topic, partitions, err,
                                     err_size);
        return create_or_grow(cl, topic, partitions, 0, err, err_size);
}

int demo_cluster_add_partitions(demo_cluster_t *cl, const char *topic,
                                int total, char *err, size_t err_size) {
        if (cl->mock.mcluster) {
                snprintf(err, err_size,
                         "the mock cluster cannot add partitions");
                return -1;
        }
        return create_or_grow(cl, topic, total, 1, err, err_size);
}

int demo_cluster_delete_topic(demo_cluster_t *cl, const char *topic,
                              char *err, size_t err_size) {
        rd_kafka_AdminOptions_t *o;
        rd_kafka_queue_t *q;
        rd_kafka_DeleteTopic_t *dt;
        int rc;

        if (cl->mock.mcluster)
                return 0;
        dt = rd_kafka_DeleteTopic_new(topic);
        q  = admin_begin(cl, RD_KAFKA_ADMIN_OP_DELETETOPICS, &o);
        rd_kafka_DeleteTopics(cl->rk, &dt, 1, o, q);
        rc = admin_finish(q, o, RD_KAFKA_EVENT_DELETETOPICS_RESULT,
                          RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, err,
                          err_size);
        rd_kafka_DeleteTopic_destroy(dt);
        return rc;
}

void demo_cluster_stop(demo_cluster_t *cl) {
        if (cl->mock.mcluster)
                tk_mock_stop(&cl->mock); /* its owner is cl->rk */
        else if (cl->rk)
                rd_kafka_destroy(cl->rk);
        memset(cl, 0, sizeof(*cl));
}
