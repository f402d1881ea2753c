/*
 * bp_test_util.c - mock cluster, configuration and delivery report helpers
 * for the integration tests.
 */
#include "bp_test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

void bp_test_cluster_start(bp_test_cluster_t *tc, int brokers) {
        char errstr[512];
        rd_kafka_conf_t *conf = rd_kafka_conf_new();

        memset(tc, 0, sizeof(*tc));
        rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof(errstr));
        tc->owner = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr,
                                 sizeof(errstr));
        assert_non_null(tc->owner);
        tc->mcluster = rd_kafka_mock_cluster_new(tc->owner, brokers);
        assert_non_null(tc->mcluster);
        snprintf(tc->bootstraps, sizeof(tc->bootstraps), "%s",
                 rd_kafka_mock_cluster_bootstraps(tc->mcluster));
}

void bp_test_cluster_topic(bp_test_cluster_t *tc,
                           const char *topic,
                           int partitions) {
        assert_int_equal(rd_kafka_mock_topic_create(tc->mcluster, topic,
                                                    partitions, 1),
                         RD_KAFKA_RESP_ERR_NO_ERROR);
}

void bp_test_cluster_stop(bp_test_cluster_t *tc) {
        rd_kafka_mock_cluster_destroy(tc->mcluster);
        rd_kafka_destroy(tc->owner);
        memset(tc, 0, sizeof(*tc));
}

const char *bp_test_plugin_path(void) {
        const char *p = getenv("BP_PLUGIN_PATH");
        assert_non_null(p);
        return p;
}

rd_kafka_conf_res_t bp_test_set(rd_kafka_conf_t *conf,
                                const char *name,
                                const char *value,
                                char *errstr,
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

        rd_kafka_conf_set_dr_msg_cb(conf, on_dr);
        rd_kafka_conf_set_opaque(conf, drs);
        rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
        if (!rk)
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
