/*
 * demo_conf.h - the client configurations of a run, by properties only:
 * the shared run is plain librdkafka; the buckets and strict runs add the
 * plugin (plugin.library.paths first, then the bucket.priority.*
 * properties), exactly what an application would put in its properties
 * file.
 */
#ifndef DEMO_CONF_H
#define DEMO_CONF_H

#include <stddef.h>

#include <librdkafka/rdkafka.h>

/** What the clients of one run share. */
typedef struct demo_setup {
        int buckets;            /**< 0: shared run (no plugin), 1: buckets
                                 *   or strict run (plugin loaded). */
        int mock;               /**< On the embedded mock cluster. */
        const char *bootstraps;
        const char *plugin;     /**< Path of libbucketpriority.so. */
        const char *allocation; /**< "25%, 75%" for critical, bulk. */
        const char *layout;     /**< bucket.priority.layout. */
        const char *group_protocol;  /**< group.protocol of the consumers:
                                      *   NULL (classic, the default) or
                                      *   "consumer" (KIP-848: then no
                                      *   session or heartbeat settings,
                                      *   the broker owns them). */
        const char *remote_assignor; /**< group.remote.assignor, or NULL
                                      *   (a bucket consumer's plugin
                                      *   picks range by itself). */
        char topic[128];
        char group[128];        /**< group.id before the plugin derives. */
} demo_setup_t;

/** A producer configuration named \p client_id. NULL with \p err filled. */
rd_kafka_conf_t *demo_conf_producer(const demo_setup_t *s,
                                    const char *client_id, char *err,
                                    size_t err_size);

/** A consumer configuration; \p bucket is bucket.priority.bucket: the
 *  bucket it serves (buckets run), the list "critical, bulk" (strict run),
 *  or NULL (shared run). NULL with \p err filled. */
rd_kafka_conf_t *demo_conf_consumer(const demo_setup_t *s, const char *bucket,
                                    const char *client_id, char *err,
                                    size_t err_size);

/** A consumer of \p bucket (as demo_conf_consumer()) created and
 *  subscribed to the topic, polled through rd_kafka_consumer_poll(). NULL
 *  with \p err filled. */
rd_kafka_t *demo_conf_open_consumer(const demo_setup_t *s, const char *bucket,
                                    const char *client_id, char *err,
                                    size_t err_size);

#endif /* DEMO_CONF_H */
