/*
 * bp_producer.h - the producer side's hooks, called by the entry point
 * (entry/bp_entry.c): what a producer of the bucket topic needs once the
 * client exists and is known to be a producer (the bucket partitioner,
 * sticky partitioning off, the bucket topic's handle kept on the bucket
 * partitioner whatever topic configuration the application brings).
 */
#ifndef BP_PRODUCER_H
#define BP_PRODUCER_H

#include "bp_client.h"

/** Whether \p rkt is \p c's bucket topic: bp_is_bucket_topic() by its
 *  name, remembering the handle (the partitioner's and on_send()'s test:
 *  one pointer compare once seen). */
static inline int bp_is_bucket_topic_cached(bp_client_t *c,
                                            const rd_kafka_topic_t *rkt) {
        if (rkt == atomic_load_explicit(&c->bucket_rkt, memory_order_relaxed))
                return 1;
        if (!bp_is_bucket_topic(c, rd_kafka_topic_name(rkt)))
                return 0;
        atomic_store_explicit(&c->bucket_rkt, rkt, memory_order_relaxed);
        return 1;
}

/** Called from conf_init(): reads choices made before the plugin loaded
 *  (sticky.partitioning.linger.ms). */
void bp_producer_on_conf_init(bp_client_t *c, const rd_kafka_conf_t *conf);

/**
 * Called for every property set on the configuration, before the consumer
 * side and the bucket.priority.* parser. Returns RD_KAFKA_CONF_UNKNOWN to
 * let the property continue, or INVALID when the producer side refused it.
 */
rd_kafka_conf_res_t bp_producer_on_conf_set(bp_client_t *c,
                                            const char *name,
                                            const char *value,
                                            char *errstr,
                                            size_t errstr_size);

/** Called after bucket.priority.\p name was accepted: notes that the
 *  configuration is a bucket producer's unless it is a consumer's (nothing
 *  is set on \p conf: that waits for on_new()). OK or INVALID. */
rd_kafka_conf_res_t bp_producer_after_conf_set(bp_client_t *c,
                                               rd_kafka_conf_t *conf,
                                               const char *name,
                                               char *errstr,
                                               size_t errstr_size);

/** Called from on_new() for every client: the partitioner of other topics
 *  and the fallback; for a producer, the bucket partitioner and sticky
 *  partitioning off on \p conf (the client's live copy), the on_send
 *  interceptor and the bucket topic's configuration. \p tconf: the
 *  client's default topic configuration, or NULL. */
void bp_producer_on_new(bp_client_t *c,
                        rd_kafka_t *rk,
                        rd_kafka_conf_t *conf,
                        rd_kafka_topic_conf_t *tconf);

/** Called when the client's main thread starts: makes the bucket topic's
 *  handle, before the application can make it with a configuration of its
 *  own. */
void bp_producer_on_thread_start(bp_client_t *c, rd_kafka_t *rk);

/** Called when the client is destroyed: releases that handle. */
void bp_producer_on_destroy(bp_client_t *c);

/*
 * bp_explicit.c: records of the bucket topic written to a partition the
 * application chose itself, which no partitioner sees (why they cannot be
 * moved, and how they are judged: the file's header).
 */

/** Called by on_send() for a record of the bucket topic of an active
 *  client given a partition (not RD_KAFKA_PARTITION_UA): counts it for its
 *  key's bucket, as misplaced when outside the bucket's partitions, and
 *  logs the first misplaced one. Any thread. */
void bp_explicit_seen(bp_client_t *c, const rd_kafka_message_t *m);

/** Called when the client is destroyed: ends the thread that learns the
 *  partition count, if it runs (within one metadata slice, 200 ms). */
void bp_explicit_on_destroy(bp_client_t *c);

#endif /* BP_PRODUCER_H */
