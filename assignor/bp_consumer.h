/*
 * bp_consumer.h - the consumer side at client creation, called by the
 * entry point (entry/bp_entry.c): checks what the configuration became,
 * puts the mapping in front of the application's own rebalance callback,
 * installs the safety net and starts tracking the consumer's buckets.
 */
#ifndef BP_CONSUMER_H
#define BP_CONSUMER_H

#include "bp_rdk.h"

#include "bp_client.h"

/** Called from on_new() for every client. */
rd_kafka_resp_err_t bp_consumer_on_new(bp_client_t *c,
                                       rd_kafka_t *rk,
                                       const rd_kafka_conf_t *conf,
                                       char *errstr,
                                       size_t errstr_size);

#endif /* BP_CONSUMER_H */
