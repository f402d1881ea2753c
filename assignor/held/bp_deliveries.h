/*
 * bp_deliveries.h - the small per-consumer counter: the buckets a bucket
 * consumer serves, by rank (bucket.priority.bucket = "critical, bulk":
 * critical is rank 0), and the records each bucket delivered to the
 * application. Every bucket consumer keeps one (its statistics); a
 * consumer of several buckets also weighs its schedule with it.
 */
#ifndef BP_DELIVERIES_H
#define BP_DELIVERIES_H

#include <stdatomic.h>
#include <stdint.h>

#include "bp_rdk.h"

#include "bp_config.h"
#include "bp_layout.h"

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

#endif /* BP_DELIVERIES_H */
