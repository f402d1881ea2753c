/*
 * bp_topic_count.h - a topic's partition count from fresh metadata, which
 * the rebalance callbacks (classic mapping, keep-and-pause) and the safety
 * net judge partitions by.
 */
#ifndef BP_TOPIC_COUNT_H
#define BP_TOPIC_COUNT_H

#include "bp_rdk.h"

/** Partition count of \p topic from fresh metadata, or -1. */
int32_t bp_topic_partition_count(rd_kafka_t *rk,
                                 const char *topic,
                                 int timeout_ms);

#endif /* BP_TOPIC_COUNT_H */
