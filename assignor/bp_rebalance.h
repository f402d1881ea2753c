/*
 * bp_rebalance.h - the rebalance callback put in front of an
 * application's own, and the partition count the mapping is computed for
 * (bp_assignment_map() and bp_rebalance_cb() are public:
 * include/bucket_priority.h).
 */
#ifndef BP_REBALANCE_H
#define BP_REBALANCE_H

#include "../plugin/bp_rdk.h"

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

#endif /* BP_REBALANCE_H */
