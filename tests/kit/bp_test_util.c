/*
 * bp_test_util.c - the test kit's mock cluster and plugin path for cmocka
 * tests, configuration and delivery report helpers.
 */
#include "bp_test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

void bp_test_cluster_start(bp_test_cluster_t *tc, int brokers) {
        char err[512];
        if (tk_mock_start(tc, NULL, brokers, err, sizeof(err)))
                fail_msg("mock cluster: %s", err);
}

void bp_test_cluster_topic(bp_test_cluster_t *tc,
                           const char *topic,
                           int partitions) {
        char err[512];
        if (tk_mock_topic(tc, topic, partitions, err, sizeof(err)))
                fail_msg("%s", err);
}

void bp_test_cluster_stop(bp_test_cluster_t *tc) {
        tk_mock_stop(tc);
}

int bp_test_cluster_teardown(void **state) {
        tk_mock_stop(*state);
        return 0;
}

int bp_test_kip848_host(void) {
        return rd_kafka_version() >= 0x020c0000;
}

int bp_test_kip848_setup(bp_test_cluster_t *tc, const char *topic,
                         int partitions, void **state) {
        if (!bp_test_kip848_host())
                return 0;
        bp_test_cluster_start(tc, 1);
        bp_test_cluster_topic(tc, topic, partitions);
        *state = tc;
        return 0;
}

int bp_test_kip848_teardown(void **state) {
        if (!bp_test_kip848_host())
                return 0;
        return bp_test_cluster_teardown(state);
}

const char *bp_test_plugin_path(void) {
        const char *p = tk_plugin_path(NULL);
        if (!p)
                fail_msg("BP_PLUGIN_PATH is not set (run through ctest)");
        return p;
}

rd_kafka_conf_res_t bp_test_set(rd_kafka_conf_t *conf, const char *name,
                                const char *value, char *errstr,
                                size_t errstr_size) {
        errstr[0] = '\0';
        return rd_kafka_conf_set(conf, name, value, errstr, errstr_size);
}

rd_kafka_conf_t *bp_test_conf(const char *bootstraps, ...) {
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        char errstr[512];
        const char *name, *value;
        va_list ap;

        if (bootstraps)
                assert_int_equal(bp_test_set(conf, "bootstrap.servers",
                                             bootstraps, errstr,
                                             sizeof(errstr)),
                                 RD_KAFKA_CONF_OK);
        if (bp_test_set(conf, "plugin.library.paths", bp_test_plugin_path(),
                        errstr, sizeof(errstr)) != RD_KAFKA_CONF_OK)
                fail_msg("plugin.library.paths: %s", errstr);
        va_start(ap, bootstraps);
        while ((name = va_arg(ap, const char *))) {
                value = va_arg(ap, const char *);
                if (bp_test_set(conf, name, value, errstr, sizeof(errstr)) !=
                    RD_KAFKA_CONF_OK)
                        fail_msg("%s=%s: %s", name, value, errstr);
        }
        va_end(ap);
        return conf;
}

static void on_dr(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque) {
        bp_test_drs_t *drs = opaque;
        bp_test_dr_t *d;
        (void)rk;
        if (drs->cnt == drs->cap) {
                drs->cap = drs->cap ? drs->cap * 2 : 1024;
                drs->v   = realloc(drs->v, drs->cap * sizeof(*drs->v));
                assert_non_null(drs->v);
        }
        d = &drs->v[drs->cnt++];
        memset(d, 0, sizeof(*d));
        d->partition = m->partition;
        d->err       = m->err;
        d->has_key   = m->key != NULL;
        d->keylen    = m->key_len;
        memcpy(d->key, m->key ? m->key : "",
               m->key_len < sizeof(d->key) - 1 ? m->key_len
                                               : sizeof(d->key) - 1);
}

rd_kafka_t *bp_test_producer(rd_kafka_conf_t *conf, bp_test_drs_t *drs) {
        char errstr[512];
        rd_kafka_t *rk;

        if (!(rk = tk_producer(conf, on_dr, drs, errstr, sizeof(errstr))))
                fail_msg("rd_kafka_new: %s", errstr);
        return rk;
}

void bp_test_wait_drs(rd_kafka_t *rk,
                      bp_test_drs_t *drs,
                      size_t expect,
                      int timeout_ms) {
        int waited = 0;
        while (drs->cnt < expect && waited < timeout_ms) {
                rd_kafka_poll(rk, 50);
                waited += 50;
        }
        assert_int_equal(drs->cnt, expect);
}

void bp_test_drs_free(bp_test_drs_t *drs) {
        free(drs->v);
        memset(drs, 0, sizeof(*drs));
}

void bp_test_producer_close(rd_kafka_t *rk,
                            rd_kafka_topic_t *rkt,
                            bp_test_drs_t *drs) {
        if (rkt)
                rd_kafka_topic_destroy(rkt);
        rd_kafka_destroy(rk);
        bp_test_drs_free(drs);
}

void bp_test_produce_ids(rd_kafka_conf_t *conf, const char *topic, int from,
                         int to, bp_test_drs_t *drs) {
        rd_kafka_t *rk = bp_test_producer(conf, drs);
        size_t first   = drs->cnt, i;
        char key[32];
        int id;

        for (id = from; id < to; id++) {
                int n = snprintf(key, sizeof(key), "%s-%d",
                                 id % 3 == 0 ? "Gold" : "Platinum", id);
                while (rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic),
                                         RD_KAFKA_V_KEY(key, (size_t)n),
                                         RD_KAFKA_V_VALUE("v", 1),
                                         RD_KAFKA_V_END) ==
                       RD_KAFKA_RESP_ERR__QUEUE_FULL)
                        rd_kafka_poll(rk, 10);
        }
        bp_test_wait_drs(rk, drs, first + (size_t)(to - from), 60000);
        for (i = first; i < drs->cnt; i++)
                assert_int_equal(drs->v[i].err, 0);
        rd_kafka_destroy(rk);
}

void bp_test_incremental_cb(rd_kafka_t *rk,
                            rd_kafka_resp_err_t err,
                            rd_kafka_topic_partition_list_t *parts,
                            void *opaque) {
        rd_kafka_error_t *e = NULL;
        (void)opaque;
        if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS)
                e = rd_kafka_incremental_assign(rk, parts);
        else if (err == RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS)
                e = rd_kafka_incremental_unassign(rk, parts);
        else
                rd_kafka_assign(rk, NULL);
        if (e)
                fail_msg("incremental (un)assign: %s",
                         rd_kafka_error_string(e));
}
