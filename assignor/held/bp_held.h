/*
 * bp_held.h - what a bucket consumer counts while it runs, the bottom of
 * the consumer side: the records each bucket it serves delivered to the
 * application (bp_deliveries.c), and the partitions of the bucket topic it
 * holds, where each starts and their lag (bp_held.c). Every bucket
 * consumer keeps both for its statistics; the scheduler of a consumer of
 * several buckets decides from them. The tracking hooks (bp_tracking.h)
 * feed them; nothing here calls up.
 */
#ifndef BP_HELD_H
#define BP_HELD_H

#include <stdatomic.h>
#include <stdint.h>
#include <pthread.h>

#include "bp_rdk.h"
#include "bp_config.h"
#include "bp_layout.h"
#include "bp_schedule.h"

/*
 * bp_deliveries.c: the small per-consumer counter: the buckets a bucket
 * consumer serves, by rank (bucket.priority.bucket = "critical, bulk":
 * critical is rank 0), and the records each bucket delivered to the
 * application. Every bucket consumer keeps one (its statistics); a
 * consumer of several buckets also weighs its schedule with it.
 */

typedef struct bp_deliveries {
        int n;                         /**< Buckets served. */
        int rank_of[BP_MAX_BUCKETS];   /**< Bucket -> rank, -1: not served. */
        int bucket_at[BP_MAX_BUCKETS]; /**< Rank -> bucket. */
        _Atomic uint64_t delivered[BP_MAX_BUCKETS]; /**< By bucket. */
} bp_deliveries_t;

/** The buckets \p cfg has the consumer serve, nothing delivered yet. */
void bp_deliveries_init(bp_deliveries_t *d, const bp_config_t *cfg);

/**
 * on_consume: counts \p m when it is a record of a served bucket of the
 * bucket topic \p topic under the current layout \p l (NULL: none yet).
 * Returns the rank of its bucket, or -1 when it was not counted.
 */
int bp_deliveries_count(bp_deliveries_t *d,
                        const char *topic,
                        const bp_layout_t *l,
                        const rd_kafka_message_t *m);

/*
 * bp_held.c: measurement: the partitions of the bucket topic that a bucket
 * consumer holds, where each starts before the consumer has a position
 * there, and their lag: the partition's cached high watermark minus the
 * consumer's position, read from librdkafka with no request to the cluster.
 * Every bucket consumer keeps the set (its statistics); the scheduler of a
 * consumer of several buckets decides from it, under its lock.
 */

/** Where a partition starts before the consumer has a position there. */
typedef enum {
        BP_START_UNKNOWN = 0,
        BP_START_OFFSET,   /**< A concrete offset (committed, sibling group). */
        BP_START_EARLIEST, /**< The log start offset. */
        BP_START_LATEST    /**< The high watermark when first seen. */
} bp_start_kind_t;

/** One partition of the bucket topic that the consumer holds. */
typedef struct bp_held_part {
        int32_t partition;
        int bucket, rank;
        bp_start_kind_t start_kind;
        int64_t start;     /**< BP_START_OFFSET; BP_START_LATEST once seen. */
        int64_t since_ms;  /**< Assigned or resumed at. */
        int64_t hwm_since; /**< Its cached high watermark then. */
        int64_t probed;    /**< High watermark asked of the leader, or -1. */
        bp_sched_owed_t owed; /**< The scheduler's start gate. */
        /* Filled by bp_held_measure(): */
        int64_t lag;       /**< -1: unknown. */
        int64_t hwm;
        int64_t at;        /**< Position, or where it starts; -1: unknown. */
        int64_t position;  /**< librdkafka's position alone (-1: none yet,
                            *   nothing taken since its start or a seek). */
        int stale;         /**< Its cached watermark may predate records. */
        bp_sched_stall_t stall; /**< The scheduler's (bp_sched_kick.c). */
} bp_held_part_t;

typedef struct bp_held {
        rd_kafka_t *rk;
        const char *topic;          /**< The bucket topic. */
        bp_start_kind_t reset_kind; /**< auto.offset.reset. */
        int64_t settle_ms;          /**< A fetch answers within this. */

        /** Guards what follows; the scheduler decides under it too. */
        pthread_mutex_t lock;
        bp_held_part_t *part;
        int32_t cnt, cap;
        int64_t *committed; /**< By partition, from bp_offsets_decide(). */
        int32_t committed_cnt;
} bp_held_t;

/** Empty, for the consumer \p rk of bucket topic \p topic created from
 *  \p conf, whose fetches answer within \p settle_ms. */
void bp_held_init(bp_held_t *h, rd_kafka_t *rk, const char *topic,
                  const rd_kafka_conf_t *conf, int64_t settle_ms);

/** Frees what bp_held_init() and later calls made. */
void bp_held_destroy(bp_held_t *h);

/** The group's committed offsets of every partition of the topic
 *  (RD_KAFKA_OFFSET_INVALID when none): where a newly assigned partition
 *  starts, before the consumer has a position. Takes the lock. */
void bp_held_note_committed(bp_held_t *h,
                            const rd_kafka_topic_partition_list_t *all);

/**
 * The lock held: makes \p assigned (mapped with layout \p l, start offsets
 * decided) the held set, keeping the partitions of the buckets \p d
 * serves; the committed offsets noted are used up. A partition held
 * before, of the same bucket, keeps its entry (where it started, since
 * when): it stayed assigned through an incremental rebalance, and
 * librdkafka did not start it again.
 */
void bp_held_assign(bp_held_t *h,
                    const bp_deliveries_t *d,
                    const rd_kafka_topic_partition_list_t *assigned,
                    const bp_layout_t *l,
                    int64_t now_ms);

/**
 * The lock held: adds the partitions of \p added (an incremental
 * assignment, start offsets decided) that the buckets \p d serves have
 * under \p l and that are not held yet; the others keep their entries.
 * The committed offsets noted are used up.
 */
void bp_held_add(bp_held_t *h,
                 const bp_deliveries_t *d,
                 const rd_kafka_topic_partition_list_t *added,
                 const bp_layout_t *l,
                 int64_t now_ms);

/** The lock held: drops the partitions of \p removed (an incremental
 *  revocation) from the held set; the others keep their entries. */
void bp_held_remove(bp_held_t *h,
                    const rd_kafka_topic_partition_list_t *removed);

/** Fills lag, hwm, at and stale of \p p[0..k-1] (the held set or a copy
 *  of part of it) at \p now_ms. */
void bp_held_measure(const bp_held_t *h, bp_held_part_t *p, int k,
                     int64_t now_ms);

#endif /* BP_HELD_H */
