/*
 * bp_consumer.h - the consumer side's hooks into the plugin core
 * (plugin/bp_plugin.c): configuration of the consumer's bucket and group,
 * and the rebalance callbacks and safety net installed on the client.
 */
#ifndef BP_CONSUMER_H
#define BP_CONSUMER_H

#include "../plugin/bp_rdk.h"

#include "../plugin/bp_client.h"

/** topic.metadata.refresh.interval.ms for bucket clients unless the user
 *  sets it: partitions added to the topic are seen within this time. */
#define BP_METADATA_REFRESH_MS 5000
#define BP_METADATA_REFRESH_MS_TEXT "5000"

/** How long the rebalance callback waits for metadata and offsets. */
#define BP_REBALANCE_TIMEOUT_MS 10000

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

/** Called from on_new() for every client. */
rd_kafka_resp_err_t bp_consumer_on_new(bp_client_t *c,
                                       rd_kafka_t *rk,
                                       const rd_kafka_conf_t *conf,
                                       char *errstr,
                                       size_t errstr_size);

/**
 * Decides where each bucket-topic partition of \p assigned starts (the
 * "no record skipped" rules: committed offset; else the highest offset a
 * sibling bucket group committed; else the beginning if the group has
 * committed before; else auto.offset.reset).
 */
void bp_offsets_decide(bp_client_t *c,
                       rd_kafka_t *rk,
                       rd_kafka_topic_partition_list_t *assigned,
                       int32_t partition_cnt);

/** The consumer's safety net: checks every consumed record's partition. */
rd_kafka_resp_err_t bp_safety_on_consume(rd_kafka_t *rk,
                                         rd_kafka_message_t *rkmessage,
                                         void *ic_opaque);

/**
 * The rebalance callback put in front of an application's own (see
 * bp_consumer_on_new()): maps the assignment and hands the application's
 * callback the mapped list, and on revocation the partitions it holds.
 */
void bp_rebalance_chain(rd_kafka_t *rk,
                        rd_kafka_resp_err_t err,
                        rd_kafka_topic_partition_list_t *partitions,
                        void *opaque);

/** Partition count of \p topic from fresh metadata, or -1. */
int32_t bp_topic_partition_count(rd_kafka_t *rk,
                                 const char *topic,
                                 int timeout_ms);

#endif /* BP_CONSUMER_H */
