/*
 * bp_rebalance.h - the rebalance callback put in front of an
 * application's own (bp_assignment_map() and bp_rebalance_cb() are public:
 * include/bucket_priority.h).
 */
#ifndef BP_REBALANCE_H
#define BP_REBALANCE_H

#include "bp_rdk.h"

/**
 * The rebalance callback put in front of an application's own (see
 * bp_consumer_on_new()): maps the assignment and hands the application's
 * callback the mapped list, and on revocation the partitions it holds.
 */
void bp_rebalance_chain(rd_kafka_t *rk,
                        rd_kafka_resp_err_t err,
                        rd_kafka_topic_partition_list_t *partitions,
                        void *opaque);

#endif /* BP_REBALANCE_H */
