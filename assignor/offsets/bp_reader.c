/*
 * bp_reader.c - short-lived helper clients of a bucket consumer (see
 * bp_start_offsets.h).
 */
#include "bp_start_offsets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp_clock.h"
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

int bp_reader_conf_names_brokers(const rd_kafka_conf_t *conf) {
        size_t size = 0;
        /* bootstrap.servers is librdkafka's alias of this one. */
        return rd_kafka_conf_get(conf, "metadata.broker.list", NULL, &size) ==
                   RD_KAFKA_CONF_OK &&
               size > 1;
}

/* "host:port,..." of the brokers \p rk knows, from a metadata request
 * made through it, or NULL. */
static char *brokers_of(rd_kafka_t *rk, int timeout_ms) {
        const rd_kafka_metadata_t *md = NULL;
        size_t size = 1, at = 0;
        char *list  = NULL;
        int i;

        if (rd_kafka_metadata(rk, 0, NULL, &md, timeout_ms) !=
                RD_KAFKA_RESP_ERR_NO_ERROR ||
            !md || md->broker_cnt <= 0) {
                if (md)
                        rd_kafka_metadata_destroy(md);
                return NULL;
        }
        for (i = 0; i < md->broker_cnt; i++)
                size += strlen(md->brokers[i].host) + 16;
        if ((list = malloc(size)))
                for (i = 0; i < md->broker_cnt; i++) {
                        const char *host = md->brokers[i].host;
                        int v6 = strchr(host, ':') != NULL;
                        at += (size_t)snprintf(list + at, size - at,
                                               "%s%s%s%s:%d", i ? "," : "",
                                               v6 ? "[" : "", host,
                                               v6 ? "]" : "",
                                               md->brokers[i].port);
                }
        rd_kafka_metadata_destroy(md);
        return list;
}

int bp_reader_lend_brokers(bp_client_t *c, rd_kafka_t *rk,
                           rd_kafka_conf_t *conf) {
        bp_consumer_run_t *k = &c->consumer->run;
        char errstr[256];

        if (bp_reader_conf_names_brokers(conf))
                return 0;
        if (!k->lent_brokers) {
                k->lent_brokers = brokers_of(rk, BP_READER_BROKERS_TIMEOUT_MS);
                if (!k->lent_brokers) {
                        bp_client_log(c, 4,
                                      "helper clients have no broker to ask: "
                                      "the configuration names none "
                                      "(bootstrap.servers), and the "
                                      "consumer's own metadata request got "
                                      "no answer within %d ms; what they "
                                      "read is asked of the consumer or "
                                      "left out",
                                      BP_READER_BROKERS_TIMEOUT_MS);
                        return -1;
                }
                bp_client_log(c, 6,
                              "helper clients bootstrap from the brokers "
                              "the consumer knows, %s: its configuration "
                              "names none (bootstrap.servers), so the "
                              "application gave them another way "
                              "(rd_kafka_brokers_add())",
                              k->lent_brokers);
        }
        return rd_kafka_conf_set(conf, "metadata.broker.list",
                                 k->lent_brokers, errstr,
                                 sizeof(errstr)) == RD_KAFKA_CONF_OK
                   ? 0
                   : -1;
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
        rd_kafka_conf_t *conf;
        rd_kafka_t *helper;
        char errstr[256];
        int32_t cnt = -1;
        int tried   = !bp_reader_helpers_failing(c) &&
                    !bp_reader_token_from_application(rk);

        if (tried) {
                conf = bp_reader_conf(c, rk, BP_READER_COUNT);
                /* A producer: no group, nothing to close. */
                helper = bp_reader_lend_brokers(c, rk, conf)
                             ? NULL
                             : rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr,
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
        if (cnt >= 0 && tried)
                /* The consumer answers where its helper did not (a
                 * property it cannot lend). */
                bp_reader_helpers_failed(c);
        return cnt;
}

int bp_reader_helpers_failing(const bp_client_t *c) {
        int64_t at = c->consumer->run.helpers_failed_ms;
        return at > 0 && bp_clock_ms() - at < BP_READER_RETRY_MS;
}

void bp_reader_helpers_failed(bp_client_t *c) {
        c->consumer->run.helpers_failed_ms = bp_clock_ms();
        bp_client_log(c, 5,
                      "the partition count of topic \"%s\" is read "
                      "through the consumer's own connection for the next "
                      "%d s, and no sibling group is read meanwhile: a "
                      "helper client made from its connection properties "
                      "got no answer where the consumer did (see the "
                      "\"partition count reader\" lines)",
                      c->cfg.topic, BP_READER_RETRY_MS / 1000);
}
