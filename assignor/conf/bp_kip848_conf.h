/*
 * bp_kip848_conf.h - a bucket consumer's configuration on the next
 * generation consumer group protocol (KIP-848, group.protocol=consumer):
 * whether the host librdkafka allows it (for one bucket or a list), the
 * broker-side assignor it asks for, and what it warns about at creation.
 * How it then keeps to its bucket: bp_kip848.h.
 */
#ifndef BP_KIP848_CONF_H
#define BP_KIP848_CONF_H

#include "bp_rdk.h"

#include "bp_client.h"

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
 * partitions, bp_kip848.h). @returns RD_KAFKA_CONF_OK, or
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

#endif /* BP_KIP848_CONF_H */
