/*
 * bp_conf.h - the configuration part of the consumer side, called
 * by the entry point (entry/bp_entry.c) while the application sets
 * properties and when the client is created: the bucket a consumer serves
 * turns into the properties a bucket consumer needs, whatever order they
 * are set in: its group (one group per bucket), the roundrobin assignor,
 * the group protocol, a short metadata refresh and the fetch properties
 * of a consumer of several buckets (bp_consumer_conf.c); on the next
 * generation consumer group protocol (KIP-848), whether the host
 * librdkafka allows it and the broker-side assignor it asks for
 * (bp_kip848_conf.c). What the properties said is kept in
 * bp_consumer_props_t (bp_consumer_side.h).
 */
#ifndef BP_CONF_H
#define BP_CONF_H

#include "bp_rdk.h"
#include "bp_client.h"

/*
 * bp_consumer_conf.c: the consumer side's configuration hooks, called by
 * the entry point (entry/bp_entry.c): the bucket a consumer serves turns
 * into the group, assignor, protocol, metadata refresh and fetch
 * properties a bucket consumer needs.
 */

/** topic.metadata.refresh.interval.ms for bucket clients unless the user
 *  sets it: partitions added to the topic are seen within this time. */
#define BP_METADATA_REFRESH_MS 5000
#define BP_METADATA_REFRESH_MS_TEXT "5000"

/** Called from conf_init(), after the interceptors are registered. */
void bp_consumer_on_conf_init(bp_client_t *c, rd_kafka_conf_t *conf);

/**
 * Called for every property set on the configuration before the
 * bucket.priority.* parser. Returns RD_KAFKA_CONF_UNKNOWN to let the
 * property continue, or OK / INVALID when the consumer side decided.
 */
rd_kafka_conf_res_t bp_consumer_on_conf_set(bp_client_t *c,
                                            rd_kafka_conf_t *conf,
                                            const char *name,
                                            const char *value,
                                            char *errstr,
                                            size_t errstr_size);

/**
 * Called after a bucket.priority.* property was applied; may set consumer
 * properties that follow from it. Returns RD_KAFKA_CONF_OK or INVALID.
 */
rd_kafka_conf_res_t bp_consumer_after_conf_set(bp_client_t *c,
                                               rd_kafka_conf_t *conf,
                                               const char *name,
                                               char *errstr,
                                               size_t errstr_size);

/*
 * bp_kip848_conf.c: a bucket consumer's configuration on the next
 * generation consumer group protocol (KIP-848, group.protocol=consumer):
 * whether the host librdkafka allows it (for one bucket or a list), the
 * broker-side assignor it asks for, and what it warns about at creation.
 * How it then keeps to its bucket: bp_kip848.c.
 */

/** The first librdkafka with the consumer group protocol generally
 *  available (2.12.0), as rd_kafka_version() reports it. */
#define BP_KIP848_MIN_VERSION 0x020c0000

/** The first librdkafka that knows the group.protocol property (2.4.0). */
#define BP_GROUP_PROTOCOL_VERSION 0x02040000

/** The broker-side assignor a bucket consumer asks for unless the user
 *  chose one: it keeps a bucket's partitions within one of each other
 *  between the members of the bucket's group (docs/consumer.md). */
#define BP_KIP848_ASSIGNOR "range"

/**
 * Whether a consumer of \p bucket_value (the bucket or bucket list being
 * set, or NULL for the configured one) may use group.protocol=consumer in
 * this process: with librdkafka 2.12 or later, a single bucket and a list
 * alike (a list's scheduler pauses and resumes only its buckets'
 * partitions, bp_kip848.c). @returns RD_KAFKA_CONF_OK, or
 * RD_KAFKA_CONF_INVALID with \p errstr naming property \p name, its
 * \p value, the version found and needed, and the fix.
 */
rd_kafka_conf_res_t bp_kip848_check(const bp_client_t *c,
                                    const char *bucket_value,
                                    const char *name,
                                    const char *value,
                                    char *errstr,
                                    size_t errstr_size);

/**
 * The properties a bucket consumer on the consumer protocol gets:
 * group.remote.assignor=range unless the user set it.
 */
rd_kafka_conf_res_t bp_kip848_conf_apply(bp_client_t *c,
                                         rd_kafka_conf_t *conf,
                                         char *errstr,
                                         size_t errstr_size);

/**
 * At creation of a bucket consumer that chose the consumer protocol
 * (\p conf is the client's live copy): the protocol set on it where the
 * plugin held the value back (bp_consumer_conf.c), the warnings about the
 * assignor and the layout, and the consumer marked for keep-and-pause.
 */
void bp_kip848_on_new(bp_client_t *c, const rd_kafka_conf_t *conf);

#endif /* BP_CONF_H */
