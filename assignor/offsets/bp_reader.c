/*
 * bp_reader.c - short-lived helper clients of a bucket consumer (see
 * bp_start_offsets.h).
 */
#include "bp_start_offsets.h"

#include <stdio.h>
#include <string.h>

#include "bp_config.h"
#include "bp_consumer_side.h"

/* A helper's log: librdkafka's errors (an authentication that failed, a
 * broker out of reach) reach the consumer's log, named for the helper;
 * the rest is dropped. */
static void log_error(const rd_kafka_t *helper, int level, const char *what,
                      const char *buf) {
        if (level <= 3)
                bp_client_log(rd_kafka_opaque(helper), 4, "%s: %s", what, buf);
}

static void siblings_log(const rd_kafka_t *helper, int level,
                         const char *fac, const char *buf) {
        (void)fac;
        log_error(helper, level, "sibling offsets reader", buf);
}

static void count_log(const rd_kafka_t *helper, int level, const char *fac,
                      const char *buf) {
        (void)fac;
        log_error(helper, level, "partition count reader", buf);
}

rd_kafka_conf_t *bp_reader_conf(bp_client_t *c, rd_kafka_t *rk,
                                bp_reader_kind_t kind) {
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        size_t cnt = 0, i;
        const char **kv =
            rd_kafka_conf_dump((rd_kafka_conf_t *)rd_kafka_conf(rk), &cnt);
        char ignored[256];

        /* A property this build refuses is one the client holds at its
         * default (a Windows-only or OpenSSL-only setting) or a callback
         * pointer: the helper goes without it. */
        for (i = 0; i + 1 < cnt; i += 2)
                if (bp_connection_property(kv[i]) && kv[i + 1][0])
                        rd_kafka_conf_set(conf, kv[i], kv[i + 1], ignored,
                                          sizeof(ignored));
        rd_kafka_conf_dump_free(kv, cnt);
        rd_kafka_conf_set_opaque(conf, c);
        rd_kafka_conf_set_log_cb(conf, kind == BP_READER_SIBLINGS
                                           ? siblings_log
                                           : count_log);
        return conf;
}

int bp_reader_token_from_application(rd_kafka_t *rk) {
        const rd_kafka_conf_t *conf = rd_kafka_conf(rk);
        char v[64];
        size_t size = sizeof(v);
        void *cb    = NULL;

        if (rd_kafka_conf_get(conf, "sasl.mechanisms", v, &size) ||
            strcmp(v, "OAUTHBEARER"))
                return 0;
        /* librdkafka's own callbacks (the built-in unsecured token, OIDC)
         * serve a helper too. */
        size = sizeof(v);
        if (rd_kafka_conf_get(conf, "enable.sasl.oauthbearer.unsecure.jwt",
                              v, &size) == RD_KAFKA_CONF_OK &&
            !strcmp(v, "true"))
                return 0;
        size = sizeof(v);
        if (rd_kafka_conf_get(conf, "sasl.oauthbearer.method", v, &size) ==
                RD_KAFKA_CONF_OK &&
            !strcmp(v, "oidc"))
                return 0;
        size = sizeof(v);
        return rd_kafka_conf_get(conf, "oauthbearer_token_refresh_cb", v,
                                 &size) == RD_KAFKA_CONF_OK &&
               sscanf(v, "%p", &cb) == 1 && cb;
}

int32_t bp_reader_partition_count(bp_client_t *c, rd_kafka_t *rk,
                                  int timeout_ms) {
        bp_consumer_run_t *k = &c->consumer->run;
        rd_kafka_conf_t *conf;
        rd_kafka_t *helper;
        char errstr[256];
        int32_t cnt = -1;
        int tried   = !k->count_helper_failed &&
                    !bp_reader_token_from_application(rk);

        if (tried) {
                conf = bp_reader_conf(c, rk, BP_READER_COUNT);
                /* A producer: no group, nothing to close. */
                helper = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr,
                                      sizeof(errstr));
                if (!helper)
                        rd_kafka_conf_destroy(conf);
                else {
                        cnt = bp_topic_partition_count(
                            helper, c->cfg.topic,
                            timeout_ms < BP_READER_COUNT_TIMEOUT_MS
                                ? timeout_ms
                                : BP_READER_COUNT_TIMEOUT_MS);
                        rd_kafka_destroy(helper);
                }
        }
        if (cnt >= 0)
                return cnt;
        cnt = bp_topic_partition_count(rk, c->cfg.topic, timeout_ms);
        if (cnt >= 0 && tried) {
                /* The consumer answers where its helper did not (a
                 * property it cannot lend): ask the consumer from now on. */
                k->count_helper_failed = 1;
                bp_client_log(c, 5,
                              "the partition count of topic \"%s\" is read "
                              "through the consumer's own connection from "
                              "now on: a helper client made from its "
                              "connection properties got no answer (see "
                              "the \"partition count reader\" lines)",
                              c->cfg.topic);
        }
        return cnt;
}
