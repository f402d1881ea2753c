/*
 * bp_consumer_conf.h - the consumer side's configuration hooks, called by
 * the entry point (entry/bp_entry.c): the bucket a consumer serves turns
 * into the group, assignor, protocol, metadata refresh and fetch
 * properties a bucket consumer needs.
 */
#ifndef BP_CONSUMER_CONF_H
#define BP_CONSUMER_CONF_H

#include "bp_rdk.h"

#include "bp_client.h"

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

#endif /* BP_CONSUMER_CONF_H */
