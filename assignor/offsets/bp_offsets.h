/*
 * bp_offsets.h - where each newly assigned partition of the bucket topic
 * starts (the "no record skipped" rules).
 */
#ifndef BP_OFFSETS_H
#define BP_OFFSETS_H

#include "bp_rdk.h"

#include "bp_client.h"

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

#endif /* BP_OFFSETS_H */
