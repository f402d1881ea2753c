/*
 * demo_conf.c - builds the producer and consumer configurations of bp-demo
 * from name=value properties.
 */
#include "demo_conf.h"

#include <stdio.h>

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

/* Common part: cluster, logs, and the plugin when this is a buckets run. */
static rd_kafka_conf_t *base(const demo_setup_t *s, const char *client_id,
                             char *err, size_t err_size) {
        const char *common[] = {
            "bootstrap.servers", s->bootstraps,
            "client.id", client_id,
            /* Both runs notice partition growth within seconds (the plugin
             * sets this by itself; the shared run gets it for fairness). */
            "topic.metadata.refresh.interval.ms", "5000",
            NULL};
        const char *plugin[] = {
            "plugin.library.paths", s->plugin,
            "bucket.priority.topic", s->topic,
            "bucket.priority.buckets", "critical, bulk",
            "bucket.priority.allocation", s->allocation,
            "bucket.priority.layout", s->layout,
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
        rd_kafka_conf_t *conf  = base(s, client_id, err, err_size);

        if (conf && set_all(conf, producer, err, err_size)) {
                rd_kafka_conf_destroy(conf);
                return NULL;
        }
        return conf;
}

rd_kafka_conf_t *demo_conf_consumer(const demo_setup_t *s, const char *bucket,
                                    const char *client_id, char *err,
                                    size_t err_size) {
        const char *consumer[] = {
            "group.id", s->group,
            "bucket.priority.bucket", s->buckets ? bucket : NULL,
            "auto.offset.reset", "earliest",
            "enable.auto.commit", "true",
            "auto.commit.interval.ms", "1000",
            "session.timeout.ms", "6000",
            "heartbeat.interval.ms", "1000",
            NULL};
        rd_kafka_conf_t *conf = base(s, client_id, err, err_size);

        if (conf && set_all(conf, consumer, err, err_size)) {
                rd_kafka_conf_destroy(conf);
                return NULL;
        }
        return conf;
}

void demo_conf_describe(const demo_setup_t *s, char *out, size_t size) {
        snprintf(out, size,
                 "plugin.library.paths=libbucketpriority  "
                 "bucket.priority.topic=%s  "
                 "bucket.priority.buckets=critical, bulk  "
                 "bucket.priority.allocation=%s",
                 s->topic, s->allocation);
}
