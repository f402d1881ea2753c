/*
 * bp_siblings.h - the offsets the sibling bucket groups committed (start-
 * offset rules 1 and 2 of bp_offsets.c): with one group per bucket, group
 * "G.Gold" must not re-read what "G.Platinum" processed on a partition
 * that moved between the buckets, nor skip what it did not.
 */
#ifndef BP_SIBLINGS_H
#define BP_SIBLINGS_H

#include "../plugin/bp_rdk.h"

#include "../plugin/bp_client.h"

/** At most this many sibling groups are read at once. */
#define BP_SIBLING_READERS_MAX 16

/**
 * Raises best[p] to the highest offset a sibling group of consumer \p rk
 * committed for each partition p of \p wanted, and sets from[p] to that
 * group's bucket (-1: a bucket a layout change adds); best[] and from[]
 * have \p partition_cnt entries. Each sibling group is read the way its
 * own consumers read it (rd_kafka_committed() on a consumer of that group
 * that joins nothing), up to BP_SIBLING_READERS_MAX groups at once, so a
 * rebalance waits for the slowest read rather than their sum. A group that
 * cannot be read is logged and leaves best[] as it was. What every group
 * answered is kept for the current layout, and a partition read before
 * under it is not read again (no reader at all when every wanted
 * partition is known; see bp_siblings.c for why that is the same answer).
 * Nothing is read where no sibling group exists by name (a consumer of a
 * bucket list, or group-per-bucket off). Its poll thread only.
 */
void bp_siblings_read(bp_client_t *c,
                      rd_kafka_t *rk,
                      const rd_kafka_topic_partition_list_t *wanted,
                      int64_t *best,
                      int *from,
                      int32_t partition_cnt);

#endif /* BP_SIBLINGS_H */
