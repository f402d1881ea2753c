/*
 * bp_siblings.h - the offsets the sibling bucket groups committed (start-
 * offset rules 1 and 2 of bp_offsets.c): with one group per bucket, group
 * "G.Gold" must not re-read what "G.Platinum" processed on a partition
 * that moved between the buckets, nor skip what it did not.
 */
#ifndef BP_SIBLINGS_H
#define BP_SIBLINGS_H

#include <stdatomic.h>

#include "bp_rdk.h"

#include "bp_client.h"

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
 * bucket list, or group-per-bucket off). Its poll thread only. The
 * caller collected the reads begun at creation first (bp_prefetch.h),
 * waiting \p waited µs for them, which the level-7 line reports.
 */
void bp_siblings_read(bp_client_t *c,
                      rd_kafka_t *rk,
                      const rd_kafka_topic_partition_list_t *wanted,
                      int64_t *best,
                      int *from,
                      int32_t partition_cnt,
                      int64_t waited);

/* --- the parts the reads at creation share (bp_prefetch.c) ---------------- */

/** Where a batch of reads logs, and how long each reader waits. */
typedef struct bp_siblings_how {
        /** Takes a finished line at syslog \p level (the readers' own
         *  failures); called from the reader threads. */
        void (*log)(void *opaque, int level, const char *line);
        void *log_opaque;
        /** A group not read is logged as "<unread> \"<group>\" (<why>)
         *  <unread_after>". */
        const char *unread, *unread_after;
        int timeout_ms;           /**< rd_kafka_committed()'s wait. */
        const atomic_int *cancel; /**< Set: no further group is begun
                                   *   (NULL: never). */
} bp_siblings_how_t;

/** The sibling groups of consumer \p c, in the order their answers are
 *  merged (the layout's buckets, then those a layout change adds), each
 *  with a copy of \p base for its reader; nothing else of \p c is kept.
 *  NULL when out of memory. */
typedef struct bp_sibling_groups bp_sibling_groups_t;
bp_sibling_groups_t *bp_sibling_groups_new(bp_client_t *c,
                                           const rd_kafka_conf_t *base);

/** How many groups \p g holds. */
int bp_sibling_groups_cnt(const bp_sibling_groups_t *g);

/**
 * Reads every group of \p g (once: a reader's configuration goes with
 * it) for the partitions of \p wanted, raising best[] and from[] as
 * bp_siblings_read() says, up to BP_SIBLING_READERS_MAX at once. Returns
 * how many groups answered; *peak: the most readers alive at once. Uses
 * nothing of the consumer: safe on a thread of its own.
 */
int bp_sibling_groups_read(bp_sibling_groups_t *g,
                           const bp_siblings_how_t *how,
                           const rd_kafka_topic_partition_list_t *wanted,
                           int64_t *best,
                           int *from,
                           int32_t partition_cnt,
                           int *peak);

/** Frees \p g (NULL is ignored). */
void bp_sibling_groups_destroy(bp_sibling_groups_t *g);

/**
 * Keeps in the consumer's record (bp_consumer_side_t.siblings_seen) what
 * every sibling group answered for the partitions of \p parts under
 * layout \p l of \p partition_cnt partitions: best[p] and from[p] as
 * bp_sibling_groups_read() left them. Nothing is kept during a layout change. Its poll thread only.
 */
void bp_siblings_keep(bp_client_t *c, const bp_layout_t *l,
                      int32_t partition_cnt,
                      const rd_kafka_topic_partition_list_t *parts,
                      const int64_t *best, const int *from);

#endif /* BP_SIBLINGS_H */
