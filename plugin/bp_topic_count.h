/*
 * bp_topic_count.h - a topic's partition count from fresh metadata, which
 * the consumer side's rebalance callbacks (classic mapping, keep-and-pause)
 * and safety net judge partitions by, and the producer side judges the
 * records an application wrote to a partition of its own choosing by
 * (partitioner/bp_explicit.c).
 */
#ifndef BP_TOPIC_COUNT_H
#define BP_TOPIC_COUNT_H

#include "bp_rdk.h"

/** Partition count of \p topic from a metadata request made through \p rk,
 *  waiting at most \p timeout_ms, or -1. */
int32_t bp_topic_partition_count(rd_kafka_t *rk,
                                 const char *topic,
                                 int timeout_ms);

#endif /* BP_TOPIC_COUNT_H */
