/*
 * bp_assignor.h - the consumer side's hooks into the plugin's interceptors
 * (configuration of the consumer's bucket and group, and the assignment
 * callbacks installed on the client).
 */
#ifndef BP_ASSIGNOR_H
#define BP_ASSIGNOR_H

#include <librdkafka/rdkafka.h>

#include "../partitioner/bp_client.h"

/** Called from conf_init(), after the interceptors are registered. */
void bp_assignor_on_conf_init(bp_client_t *c, rd_kafka_conf_t *conf);

/**
 * Called for every property set on the configuration before the
 * bucket.priority.* parser. Returns RD_KAFKA_CONF_UNKNOWN to let the
 * property continue, or OK / INVALID when the consumer side decided.
 */
rd_kafka_conf_res_t bp_assignor_on_conf_set(bp_client_t *c,
                                            rd_kafka_conf_t *conf,
                                            const char *name,
                                            const char *value,
                                            char *errstr,
                                            size_t errstr_size);

/**
 * Called after a bucket.priority.* property was applied; may set consumer
 * properties that follow from it. Returns RD_KAFKA_CONF_OK or INVALID.
 */
rd_kafka_conf_res_t bp_assignor_after_conf_set(bp_client_t *c,
                                               rd_kafka_conf_t *conf,
                                               const char *name,
                                               char *errstr,
                                               size_t errstr_size);

/** Called from on_new() for every client. */
rd_kafka_resp_err_t bp_assignor_on_new(bp_client_t *c,
                                       rd_kafka_t *rk,
                                       const rd_kafka_conf_t *conf,
                                       char *errstr,
                                       size_t errstr_size);

#endif /* BP_ASSIGNOR_H */
