/*
 * audit_cluster.c - bp-audit's reads from the cluster (librdkafka >= 2.0).
 */
#include "audit_cluster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit_change.h"
#include "bp_clock.h"
#include "bp_config.h"
#include "audit_classify.h"
#include "audit_report.h"
#include "bp_list.h"


/* librdkafka's own log lines (connection retries...) would bury the report;
 * every failure that matters reaches the user through bp-audit's message. */
static void quiet_log(const rd_kafka_t *rk, int level, const char *fac,
                      const char *buf) {
        (void)rk, (void)level, (void)fac, (void)buf;
}

/* librdkafka's errors, served by rd_kafka_poll() on bp-audit's thread:
 * an authentication or TLS failure is kept, as the cause of the timeouts
 * that follow it. */
static void note_error(rd_kafka_t *rk, int err, const char *reason,
                       void *opaque) {
        audit_cluster_t *c = opaque;
        (void)rk;
        if (err == RD_KAFKA_RESP_ERR__AUTHENTICATION &&
            strstr(reason, "SCRAM") && rd_kafka_version() < 0x020601ff)
                snprintf(c->cause, sizeof(c->cause),
                         "authentication failed: %s; this bp-audit runs on "
                         "librdkafka %s, which cannot authenticate with "
                         "SCRAM to Kafka 4.x even with the right password "
                         "(librdkafka issue #4895, fixed in 2.6.1): run it "
                         "with LD_LIBRARY_PATH naming the directory of a "
                         "librdkafka.so.1 of 2.6.1 or newer",
                         reason, rd_kafka_version_str());
        else if (err == RD_KAFKA_RESP_ERR__AUTHENTICATION)
                snprintf(c->cause, sizeof(c->cause),
                         "authentication failed: %s", reason);
        else if (err == RD_KAFKA_RESP_ERR__SSL)
                snprintf(c->cause, sizeof(c->cause), "TLS failed: %s",
                         reason);
}

/* The authentication or TLS failure \p rk met, or NULL. */
static const char *failure_of(audit_cluster_t *c, rd_kafka_t *rk) {
        rd_kafka_poll(rk, 0);
        return c->cause[0] ? c->cause : NULL;
}

int audit_cluster_open(audit_cluster_t *c, const audit_props_t *props,
                       int timeout_ms, char *err, size_t err_size) {
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        char e[512];
        int i;

        memset(c, 0, sizeof(*c));
        c->timeout_ms = timeout_ms;
        for (i = 0; i < props->cnt; i++) {
                const audit_prop_t *p = &props->items[i];
                if (!bp_connection_property(p->name))
                        continue;
                if (rd_kafka_conf_set(conf, p->name, p->value, e, sizeof(e)) !=
                    RD_KAFKA_CONF_OK) {
                        snprintf(err, err_size, "%s: %s", p->name, e);
                        rd_kafka_conf_destroy(conf);
                        return -1;
                }
        }
        if (!audit_props_get(props, "bootstrap.servers") &&
            !audit_props_get(props, "metadata.broker.list")) {
                snprintf(err, err_size,
                         "bootstrap.servers is not set (in --config or "
                         "--bootstrap)");
                rd_kafka_conf_destroy(conf);
                return -1;
        }
        /* No group.id: the audit joins no group and commits nothing. */
        if (rd_kafka_conf_set(conf, "enable.partition.eof", "true", e,
                              sizeof(e)) ||
            rd_kafka_conf_set(conf, "client.id", "bp-audit", e, sizeof(e))) {
                snprintf(err, err_size, "%s", e);
                rd_kafka_conf_destroy(conf);
                return -1;
        }
        if (!audit_props_get(props, "debug"))
                rd_kafka_conf_set_log_cb(conf, quiet_log);
        rd_kafka_conf_set_error_cb(conf, note_error);
        rd_kafka_conf_set_opaque(conf, c);
        c->conf = rd_kafka_conf_dup(conf);
        c->rk   = rd_kafka_new(RD_KAFKA_CONSUMER, conf, e, sizeof(e));
        if (!c->rk) {
                snprintf(err, err_size, "cannot create a client: %s", e);
                return -1;
        }
        return 0;
}

int32_t audit_cluster_partitions(audit_cluster_t *c, const char *topic,
                                 int *status, char *err, size_t err_size) {
        rd_kafka_topic_t *rkt = rd_kafka_topic_new(c->rk, topic, NULL);
        const struct rd_kafka_metadata *md = NULL;
        rd_kafka_resp_err_t e;
        int32_t cnt = -1;

        if (!rkt) {
                snprintf(err, err_size, "topic \"%s\": %s", topic,
                         rd_kafka_err2str(rd_kafka_last_error()));
                return -1;
        }
        *status = AUDIT_BAD_INPUT;
        e = rd_kafka_metadata(c->rk, 0, rkt, &md, c->timeout_ms);
        if (e) {
                const char *cause = failure_of(c, c->rk);
                *status           = AUDIT_NOT_CHECKED;
                if (cause)
                        snprintf(err, err_size,
                                 "nothing checked: %s (no answer within "
                                 "--timeout %d ms: %s)",
                                 cause, c->timeout_ms, rd_kafka_err2str(e));
                else
                        snprintf(err, err_size,
                                 "nothing checked: the cluster did not "
                                 "answer within --timeout %d ms: %s",
                                 c->timeout_ms, rd_kafka_err2str(e));
        } else if (md->topic_cnt == 1 &&
                   md->topics[0].err ==
                       RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED) {
                *status = AUDIT_NOT_CHECKED;
                snprintf(err, err_size,
                         "nothing checked: topic \"%s\": %s (Describe on "
                         "the topic is not granted)",
                         topic, rd_kafka_err2str(md->topics[0].err));
        } else if (md->topic_cnt != 1 || md->topics[0].err)
                snprintf(err, err_size,
                         "topic \"%s\" (bucket.priority.topic): %s", topic,
                         md->topic_cnt ? rd_kafka_err2str(md->topics[0].err)
                                       : "not in the metadata");
        else if (md->topics[0].partition_cnt < 1)
                snprintf(err, err_size, "topic \"%s\" has no partitions",
                         topic);
        else
                cnt = md->topics[0].partition_cnt;
        if (md)
                rd_kafka_metadata_destroy(md);
        rd_kafka_topic_destroy(rkt);
        return cnt;
}

void audit_cluster_watermarks(audit_cluster_t *c, audit_t *a) {
        int32_t p;
        for (p = 0; p < a->layout->partition_cnt; p++) {
                int64_t lo, hi;
                rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(
                    c->rk, a->cfg->topic, p, &lo, &hi, c->timeout_ms);
                if (e) {
                        audit_add_finding(a, AUDIT_F_UNCHECKED,
                                          a->layout->bucket_of[p], p, -1, -1,
                                          0,
                                          "partition %d: offsets not read: %s",
                                          (int)p, rd_kafka_err2str(e));
                        continue;
                }
                a->parts[p].low  = lo;
                a->parts[p].high = hi;
        }
}

static void reader_failure(audit_cluster_t *c, rd_kafka_t *rk, char *buf,
                           size_t size) {
        rd_kafka_message_t *m;
        const char *failure;

        buf[0] = '\0';
        while ((m = rd_kafka_consumer_poll(rk, 0))) {
                if (m->err && !buf[0])
                        snprintf(buf, size, "%s", rd_kafka_message_errstr(m));
                rd_kafka_message_destroy(m);
        }
        if (!buf[0] && (failure = failure_of(c, rk)))
                snprintf(buf, size, "%s", failure);
}

/* The group's committed offsets on the topic, read the way its consumers
 * read them: a consumer of the group that joins nothing asks with
 * rd_kafka_committed(), which waits out a coordinator that is still
 * loading. (The Admin API's ListConsumerGroupOffsets crashes librdkafka
 * 2.0.2 when the coordinator answers so, as on a new cluster.) */
void audit_cluster_read_offsets(audit_cluster_t *c, audit_t *a, int g,
                                int64_t *out) {
        rd_kafka_conf_t *conf = rd_kafka_conf_dup(c->conf);
        rd_kafka_topic_partition_list_t *tp = NULL;
        rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR__FAIL;
        rd_kafka_t *rk = NULL;
        char e[512] = "";
        int32_t p;

        if (rd_kafka_conf_set(conf, "group.id", a->groups[g].name, e,
                              sizeof(e)) != RD_KAFKA_CONF_OK ||
            rd_kafka_conf_set(conf, "enable.auto.commit", "false", e,
                              sizeof(e)) != RD_KAFKA_CONF_OK ||
            !(rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, e, sizeof(e)))) {
                rd_kafka_conf_destroy(conf);
                audit_add_finding(a, AUDIT_F_UNCHECKED, -1, -1, g, -1, 0,
                                  "group %s: committed offsets not read: %s",
                                  a->groups[g].name, e);
                return;
        }
        tp = rd_kafka_topic_partition_list_new(a->layout->partition_cnt);
        for (p = 0; p < a->layout->partition_cnt; p++)
                rd_kafka_topic_partition_list_add(tp, a->cfg->topic, p);
        err = rd_kafka_committed(rk, tp, c->timeout_ms);
        if (!err) {
                int i;
                for (i = 0; i < tp->cnt; i++)
                        if (!tp->elems[i].err && tp->elems[i].offset >= 0)
                                out[tp->elems[i].partition] =
                                    tp->elems[i].offset;
                if (out == a->groups[g].committed)
                        a->groups[g].offsets_read = 1;
        } else {
                char cause[sizeof(c->cause)];
                reader_failure(c, rk, cause, sizeof(cause));
                audit_add_finding(a, AUDIT_F_UNCHECKED, -1, -1, g, -1, 0,
                                  "group %s: committed offsets not read: "
                                  "%s%s%s%s",
                                  a->groups[g].name,
                                  cause[0] ? cause : rd_kafka_err2str(err),
                                  cause[0] ? " (" : "",
                                  cause[0] ? rd_kafka_err2str(err) : "",
                                  cause[0] ? ")" : "");
        }
        rd_kafka_topic_partition_list_destroy(tp);
        rd_kafka_destroy(rk);
}

static int take(audit_t *a, const rd_kafka_message_t *m) {
        int32_t p = m->partition;
        audit_partition_t *pt;

        if (p < 0 || p >= a->layout->partition_cnt || a->parts[p].routing_read)
                return 0;
        pt = &a->parts[p];
        if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF ||
            (!m->err && m->offset >= pt->high))
                return pt->routing_read = 1;
        if (m->err) {
                /* Refused (no Read on the topic...): the cause, not the
                 * timeout it would end in. */
                audit_add_finding(a, AUDIT_F_UNCHECKED,
                                  a->layout->bucket_of[p], p, -1, -1, 0,
                                  "partition %d: records not read: %s",
                                  (int)p, rd_kafka_message_errstr(m));
                return pt->routing_read = 1;
        }
        audit_count_key(a, p, m->key, m->key_len);
        audit_change_count_key(a, p, m->offset, m->key, m->key_len);
        if (m->offset >= pt->high - 1)
                return pt->routing_read = 1;
        return 0;
}

void audit_cluster_routing(audit_cluster_t *c, audit_t *a, int records) {
        /* The simple consumer API: fetches without any group protocol. */
        rd_kafka_topic_t *rkt = rd_kafka_topic_new(c->rk, a->cfg->topic, NULL);
        rd_kafka_queue_t *q   = rd_kafka_queue_new(c->rk);
        int32_t p, n = a->layout->partition_cnt;
        int pending = 0;
        int64_t deadline = bp_clock_ms() + (int64_t)c->timeout_ms * 3;

        a->routing_records = records;
        for (p = 0; rkt && p < n; p++) {
                audit_partition_t *pt = &a->parts[p];
                int64_t start;
                if (pt->high < 0)
                        continue;
                if (pt->high <= pt->low || records <= 0) {
                        pt->routing_read = 1;
                        continue;
                }
                start = pt->high - records > pt->low ? pt->high - records
                                                     : pt->low;
                if (rd_kafka_consume_start_queue(rkt, p, start, q) == -1) {
                        audit_add_finding(
                            a, AUDIT_F_UNCHECKED, a->layout->bucket_of[p], p,
                            -1, -1, 0, "partition %d: records not read: %s",
                            (int)p, rd_kafka_err2str(rd_kafka_last_error()));
                        continue;
                }
                pt->routing_started = 1;
                pending++;
        }
        while (pending > 0 && bp_clock_ms() < deadline) {
                rd_kafka_message_t *m = rd_kafka_consume_queue(q, 200);
                if (!m)
                        continue;
                pending -= take(a, m);
                rd_kafka_message_destroy(m);
        }
        for (p = 0; p < n; p++) {
                if (a->parts[p].routing_started)
                        rd_kafka_consume_stop(rkt, p);
                if (a->parts[p].routing_started && !a->parts[p].routing_read)
                        a->parts[p].routing_incomplete = 1;
        }
        rd_kafka_queue_destroy(q);
        if (rkt)
                rd_kafka_topic_destroy(rkt);
}

void audit_cluster_change_reread(audit_cluster_t *c, audit_t *a) {
        audit_change_t *ch = a->change;
        int32_t p, n = a->layout->partition_cnt;
        int g;
        int64_t lo, hi;

        if (!ch)
                return;
        for (p = 0; p < n; p++)
                if (!rd_kafka_query_watermark_offsets(c->rk, a->cfg->topic, p,
                                                      &lo, &hi,
                                                      c->timeout_ms))
                        ch->parts[p].high_end = hi;
        if (audit_change_alloc_commits(a))
                return;
        for (g = 0; ch->committed_end && g < a->group_cnt; g++)
                if (a->groups[g].offsets_read)
                        audit_cluster_read_offsets(c, a, g,
                                     ch->committed_end + (size_t)g * (size_t)n);
}

void audit_cluster_close(audit_cluster_t *c) {
        if (c->rk)
                rd_kafka_destroy(c->rk);
        if (c->conf)
                rd_kafka_conf_destroy(c->conf);
        c->rk   = NULL;
        c->conf = NULL;
}
