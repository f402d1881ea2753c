/*
 * bp_producer.c - the producer side of the plugin: sticky partitioning
 * kept off and the bucket partitioner installed once the client is known
 * to be a producer, and the bucket topic's handle kept on it once the
 * client runs (see
 * bp_producer.h). The routing itself is bp_partitioner.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bucket_priority.h"
#include "bp_registry.h"
#include "bp_escape.h"
#include "bp_properties.h"
#include "bp_builtins.h"
#include "bp_producer.h"
#include "bp_producer_side.h"

/* --- configuration time -------------------------------------------------- */

/* librdkafka skips custom partitioners for NULL-key records while
 * sticky.partitioning.linger.ms > 0, which would put them on a sticky
 * partition of any bucket: bucket producers run with it at 0. An empty
 * value would make librdkafka reset it to its default (above 0). */
static rd_kafka_conf_res_t watch_sticky(bp_client_t *c, const char *value,
                                        char *errstr, size_t errstr_size) {
        long v = value ? strtol(value, NULL, 10) : -1;
        char shown[BP_SHOWN_VALUE_SIZE];

        if ((v > 0 || !value) && c->producer->bucket_producer) {
                snprintf(errstr, errstr_size,
                         "sticky.partitioning.linger.ms: invalid value "
                         "\"%s\" on a bucket-priority producer: must be "
                         "0, because librdkafka bypasses the bucket "
                         "partitioner for records without a key while it is "
                         "above 0 (such records would land in any bucket)",
                         bp_shown_value(value, shown));
                return RD_KAFKA_CONF_INVALID;
        }
        c->producer->sticky_user_value = (int)(v < 0 ? -1 : v);
        return RD_KAFKA_CONF_UNKNOWN; /* librdkafka stores it */
}

/* The first producer property of a client whose user chose sticky
 * partitioning (before or after the plugin loaded) is refused: the plugin
 * would have to overwrite that choice. */
static rd_kafka_conf_res_t refuse_for_sticky(const bp_client_t *c,
                                             const char *name,
                                             const char *value,
                                             char *errstr,
                                             size_t errstr_size) {
        char shown[BP_SHOWN_VALUE_SIZE];

        snprintf(errstr, errstr_size,
                 "%s: invalid value \"%s\": sticky.partitioning.linger.ms "
                 "is %d, and librdkafka bypasses the bucket partitioner for "
                 "records without a key while it is above 0; set it to 0 or "
                 "leave it unset",
                 name, bp_shown_value(value, shown),
                 c->producer->sticky_user_value);
        return RD_KAFKA_CONF_INVALID;
}

/* Properties that only a consumer reads: they make no producer set-up. */
static int consumer_only(const char *name) {
        return !strcmp(name, BP_PROP_BUCKET) ||
               !strcmp(name, BP_PROP_GROUP_PER_BUCKET) ||
               !strcmp(name, BP_PROP_EVENTS_MAPPED);
}

rd_kafka_conf_res_t bp_producer_on_conf_set(bp_client_t *c,
                                            const char *name,
                                            const char *value,
                                            char *errstr,
                                            size_t errstr_size) {
        if (!strcmp(name, "sticky.partitioning.linger.ms"))
                return watch_sticky(c, value, errstr, errstr_size);
        if (!strncmp(name, BP_PROP_PREFIX, BP_PROP_PREFIX_LEN) &&
            !consumer_only(name) && c->cfg.consumer_bucket_cnt == 0 &&
            c->producer->sticky_user_value > 0)
                return refuse_for_sticky(c, name, value, errstr, errstr_size);
        return RD_KAFKA_CONF_UNKNOWN;
}

/* Choices made before the plugin loaded, which its own conf_set
 * interceptor never saw: a value other than librdkafka's default is the
 * user's (one equal to the default cannot be told from unset). */
void bp_producer_on_conf_init(bp_client_t *c, const rd_kafka_conf_t *conf) {
        char val[32];
        size_t size = sizeof(val);

        if (rd_kafka_conf_get(conf, "sticky.partitioning.linger.ms", val,
                              &size) == RD_KAFKA_CONF_OK &&
            strcmp(val, BP_RDK_DEFAULT_STICKY_LINGER_MS))
                c->producer->sticky_user_value = (int)strtol(val, NULL, 10);
}

/* A producer property of the bucket topic was accepted, unless
 * bucket.priority.bucket (consumers only) came first: from then on a
 * sticky.partitioning.linger.ms above 0 is refused (watch_sticky()). What a
 * producer needs is installed only once the client is known to be a
 * producer (install_producer(), from on_new()): a consumer configured with
 * the same properties, in any order, is given no producer property, so
 * librdkafka has no "producer property" warning to log. */
rd_kafka_conf_res_t bp_producer_after_conf_set(bp_client_t *c,
                                               rd_kafka_conf_t *conf,
                                               const char *name,
                                               char *errstr,
                                               size_t errstr_size) {
        (void)conf, (void)errstr, (void)errstr_size;
        if (!consumer_only(name) && c->cfg.consumer_bucket_cnt == 0)
                c->producer->bucket_producer = 1;
        return RD_KAFKA_CONF_OK;
}

/* --- client time --------------------------------------------------------- */

static rd_kafka_resp_err_t on_send(rd_kafka_t *rk,
                                   rd_kafka_message_t *rkmessage,
                                   void *ic_opaque) {
        bp_client_t *c = ic_opaque;
        (void)rk;
        if (__builtin_expect(bp_registry_find(rkmessage->rkt) != c, 0) &&
            bp_registry_add(rkmessage->rkt, c))
                bp_client_log_once(c, BP_ONCE_REGISTRY, 3,
                                   "too many topic handles in this process; "
                                   "records to topic \"%s\" fail",
                                   rd_kafka_topic_name(rkmessage->rkt));
        /* A partition the application chose: no partitioner runs. */
        if (__builtin_expect(rkmessage->partition != RD_KAFKA_PARTITION_UA,
                             0) &&
            c->mode == BP_MODE_ACTIVE && bp_is_bucket_topic_cached(c, rkmessage->rkt))
                bp_explicit_seen(c, rkmessage);
        return RD_KAFKA_RESP_ERR_NO_ERROR;
}

/* A producer of the bucket topic: the partitioner must be the topic's,
 * whatever the application does with topic configurations. */
static void keep_bucket_topic(bp_client_t *c, rd_kafka_topic_conf_t *tconf) {
        void *cb = tconf ? bp_topic_conf_pointer(tconf, "partitioner_cb")
                         : NULL;

        /* The default topic configuration replaced after the plugin loaded
         * (node-rdkafka does): on_new() sees the client's live copy. */
        if (tconf && !cb)
                rd_kafka_topic_conf_set_partitioner_cb(tconf, bp_partitioner);
        c->producer->own_tconf = tconf ? rd_kafka_topic_conf_dup(tconf)
                             : rd_kafka_topic_conf_new();
        if (c->producer->own_tconf)
                rd_kafka_topic_conf_set_partitioner_cb(c->producer->own_tconf,
                                                       bp_partitioner);
}

/* A producer of the bucket topic, in on_new(): the bucket partitioner on
 * the client's default topic configuration and sticky partitioning off
 * (unless the user chose a value, which watch_sticky() let through only
 * as 0), both on the client's live copy of the configuration. */
static void install_producer(bp_client_t *c, rd_kafka_conf_t *conf,
                             rd_kafka_topic_conf_t *tconf) {
        char err[256];

        if (tconf)
                rd_kafka_topic_conf_set_partitioner_cb(tconf, bp_partitioner);
        if (c->producer->sticky_user_value < 0 &&
            bp_conf_set_own(c, conf, "sticky.partitioning.linger.ms", "0", err,
                            sizeof(err)) != RD_KAFKA_CONF_OK)
                bp_client_log(c, 3,
                              "cannot turn sticky partitioning off (%s): "
                              "records without a key may land in any bucket",
                              err);
}

/* A host that set a partitioner callback of its own on the default topic
 * configuration (before or after the plugin loaded): the bucket
 * partitioner takes its place there, so the host's serves the other
 * topics, and the host is told that the bucket topic is not its. */
static void keep_host_partitioner(bp_client_t *c,
                                  const rd_kafka_topic_conf_t *tconf) {
        void *own = tconf ? bp_topic_conf_pointer(tconf, "partitioner_cb")
                          : NULL;

        if (!own || own == (void *)bp_partitioner)
                return;
        c->other = (rd_kafka_partitioner_cb *)own;
        bp_client_log(c, 4,
                      "the application set a partitioner callback of its "
                      "own: records to topic \"%s\" are routed by the "
                      "bucket partitioner instead (by key, to their "
                      "bucket's partitions), records to other topics by "
                      "the application's callback. To route the bucket "
                      "topic yourself, load no bucket.priority.* producer "
                      "property",
                      c->cfg.topic_set ? c->cfg.topic : "(none)");
}

void bp_producer_on_new(bp_client_t *c,
                        rd_kafka_t *rk,
                        rd_kafka_conf_t *conf,
                        rd_kafka_topic_conf_t *tconf) {
        char name[64];
        size_t size = sizeof(name);

        c->other = bp_builtin_by_name(
            tconf && rd_kafka_topic_conf_get(tconf, "partitioner", name,
                                             &size) == RD_KAFKA_CONF_OK
                ? name
                : NULL);
        c->fallback_fn = bp_builtin_fn(c->cfg.fallback_builtin);
        if (rd_kafka_type(rk) != RD_KAFKA_PRODUCER)
                return;
        if (c->producer->bucket_producer) {
                keep_host_partitioner(c, tconf);
                install_producer(c, conf, tconf);
        }
        rd_kafka_interceptor_add_on_send(rk, BP_NAME, on_send, c);
        if (c->mode == BP_MODE_BROKEN)
                bp_client_log(c, 3, "%s; every record to %s fails",
                              c->broken_reason,
                              c->cfg.topic_set ? c->cfg.topic : "any topic");
        if (c->mode != BP_MODE_PASSTHROUGH && c->cfg.topic_set)
                keep_bucket_topic(c, tconf);
}

/* Made when librdkafka's main thread starts, before rd_kafka_new()
 * returns: the bucket topic's handle with the bucket partitioner. An
 * application that then creates the topic with a topic configuration of its
 * own (kcat) is handed this handle by librdkafka, its configuration
 * dropped, so its records are routed by bucket too. */
void bp_producer_on_thread_start(bp_client_t *c, rd_kafka_t *rk) {
        rd_kafka_topic_conf_t *tconf;

        if (c->producer->own_rkt || !c->producer->own_tconf)
                return;
        tconf        = c->producer->own_tconf;
        c->producer->own_tconf = NULL;
        c->producer->own_rkt   = rd_kafka_topic_new(rk, c->cfg.topic, tconf);
        if (!c->producer->own_rkt)
                bp_client_log(c, 4,
                              "cannot create topic handle \"%s\" early: a "
                              "topic configuration given by the application "
                              "for it would not use the bucket partitioner",
                              c->cfg.topic);
}

void bp_producer_on_destroy(bp_client_t *c) {
        bp_explicit_on_destroy(c);
        if (c->producer->own_rkt)
                rd_kafka_topic_destroy(c->producer->own_rkt);
        c->producer->own_rkt = NULL;
        if (c->producer->own_tconf)
                rd_kafka_topic_conf_destroy(c->producer->own_tconf);
        c->producer->own_tconf = NULL;
}

void bp_topic_conf_set_partitioner(rd_kafka_topic_conf_t *tconf) {
        char errstr[BP_RDK_ERR_MAX + 8];

        if (!tconf || bp_rdk_bind_default(errstr, sizeof(errstr)))
                return;
        rd_kafka_topic_conf_set_partitioner_cb(tconf, bp_partitioner);
}
