/*
 * demo_conf.c - builds the producer and consumer configurations of bp-demo
 * from name=value properties.
 */
#include "demo_conf.h"

#include <stdio.h>
#include <string.h>

#include "demo_log.h"

/* Sets NULL-terminated name/value pairs; -1 with err on the first error. */
static int set_all(rd_kafka_conf_t *conf, const char *const *kv, char *err,
                   size_t err_size) {
        char why[512];
        for (; kv[0]; kv += 2) {
                if (!kv[1])
                        continue;
                if (rd_kafka_conf_set(conf, kv[0], kv[1], why, sizeof(why)) !=
                    RD_KAFKA_CONF_OK) {
                        snprintf(err, err_size, "%s=%s: %s", kv[0], kv[1],
                                 why);
                        return -1;
                }
        }
        return 0;
}

/* Common part: cluster, logs, and the plugin when this is a buckets run.
 * A consumer names its bucket right after loading the plugin: set before
 * the other bucket.priority.* properties, it keeps the plugin from
 * preparing the producer side (whose settings librdkafka would report as
 * "producer property ... ignored" on a consumer). */
static rd_kafka_conf_t *base(const demo_setup_t *s, const char *bucket,
                             const char *client_id, char *err,
                             size_t err_size) {
        const char *common[] = {
            "bootstrap.servers", s->bootstraps,
            "client.id", client_id,
            /* Both runs notice partition growth within seconds (the plugin
             * sets this by itself; the shared run gets it for fairness). */
            "topic.metadata.refresh.interval.ms", "5000",
            NULL};
        const char *plugin[] = {
            "plugin.library.paths", s->plugin,
            "bucket.priority.bucket", bucket,
            "bucket.priority.topic", s->topic,
            "bucket.priority.buckets", "critical, bulk",
            "bucket.priority.allocation", s->allocation,
            "bucket.priority.layout", s->layout,
            /* the default for a list of buckets, spelled out as the demo
             * shows it */
            "bucket.priority.schedule",
            bucket && strchr(bucket, ',') ? "strict" : NULL,
            NULL};
        rd_kafka_conf_t *conf = rd_kafka_conf_new();

        rd_kafka_conf_set_log_cb(conf, demo_log_rdkafka);
        if (set_all(conf, common, err, err_size) ||
            (s->buckets && set_all(conf, plugin, err, err_size))) {
                rd_kafka_conf_destroy(conf);
                return NULL;
        }
        return conf;
}

rd_kafka_conf_t *demo_conf_producer(const demo_setup_t *s,
                                    const char *client_id, char *err,
                                    size_t err_size) {
        const char *producer[] = {"linger.ms", "5", NULL};
        rd_kafka_conf_t *conf  = base(s, NULL, client_id, err, err_size);

        if (conf && set_all(conf, producer, err, err_size)) {
                rd_kafka_conf_destroy(conf);
                return NULL;
        }
        return conf;
}

rd_kafka_conf_t *demo_conf_consumer(const demo_setup_t *s, const char *bucket,
                                    const char *client_id, char *err,
                                    size_t err_size) {
        int kip848 = s->group_protocol &&
                     !strcmp(s->group_protocol, "consumer");
        const char *consumer[] = {
            "group.id", s->group,
            "auto.offset.reset", "earliest",
            "enable.auto.commit", "true",
            "auto.commit.interval.ms", "1000",
            "group.protocol", s->group_protocol,
            "group.remote.assignor", s->remote_assignor,
            "session.timeout.ms", kip848 ? NULL : "6000",
            "heartbeat.interval.ms", kip848 ? NULL : "1000",
            /* The mock cluster answers an empty fetch only when
             * fetch.wait.max.ms has passed, even if records arrive
             * meanwhile (a real broker answers at once): keep the wait
             * short there, or every latency includes up to 500 ms of it.
             * On a real cluster, a consumer of several buckets gets 100 ms
             * from the plugin itself (docs/configuration.md). */
            "fetch.wait.max.ms", s->mock ? "10" : NULL,
            NULL};
        rd_kafka_conf_t *conf =
            base(s, s->buckets ? bucket : NULL, client_id, err, err_size);

        if (conf && set_all(conf, consumer, err, err_size)) {
                rd_kafka_conf_destroy(conf);
                return NULL;
        }
        return conf;
}

rd_kafka_t *demo_conf_open_consumer(const demo_setup_t *s, const char *bucket,
                                    const char *client_id, char *err,
                                    size_t err_size) {
        rd_kafka_conf_t *conf =
            demo_conf_consumer(s, bucket, client_id, err, err_size);
        rd_kafka_topic_partition_list_t *sub;
        rd_kafka_t *rk;

        if (!conf)
                return NULL;
        if (!(rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, err_size))) {
                rd_kafka_conf_destroy(conf);
                return NULL;
        }
        rd_kafka_poll_set_consumer(rk);
        sub = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(sub, s->topic,
                                          RD_KAFKA_PARTITION_UA);
        if (rd_kafka_subscribe(rk, sub)) {
                snprintf(err, err_size, "cannot subscribe to %s", s->topic);
                rd_kafka_topic_partition_list_destroy(sub);
                rd_kafka_destroy(rk);
                return NULL;
        }
        rd_kafka_topic_partition_list_destroy(sub);
        return rk;
}
