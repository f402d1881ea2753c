/*
 * bp_producer_side.h - what the client's state holds for the producer side
 * (c->producer): the user's sticky partitioning choice, whether the bucket
 * partitioner is installed, and the bucket topic's handle the plugin
 * keeps. The entry point makes it with the client's state, copies it with
 * the configuration and frees it with it. (What the partitioner reads for
 * every record stays in the client's state itself: plugin/bp_client.h.)
 */
#ifndef BP_PRODUCER_SIDE_H
#define BP_PRODUCER_SIDE_H

#include <pthread.h>
#include <stdatomic.h>

#include "bp_rdk.h"
#include "bp_limits.h"

/* librdkafka's default (the same from 2.0.2 to 2.15.1): a value read before
 * the plugin loaded that equals it is taken as unset, anything else as the
 * user's choice. */
#define BP_RDK_DEFAULT_STICKY_LINGER_MS "10"

typedef struct bp_producer_side {
        /* Configuration time (copied with the configuration). */
        int sticky_user_value; /**< -1 unless the user set it. */
        int bucket_producer;   /**< A bucket producer's property was set:
                                    on_new() installs the partitioner. */
        /* Run time: the bucket topic's handle, made with the bucket
         * partitioner when the client starts, before the application can
         * make it with a topic configuration of its own (kcat does):
         * librdkafka then hands the application this handle. */
        rd_kafka_topic_t *own_rkt;
        rd_kafka_topic_conf_t *own_tconf; /**< Its configuration until then. */
        /* Records written to a partition the application chose
         * (bp_explicit.c): the topic's partition count, learned by a
         * thread when the partitioner never ran, and the first such record
         * kept for it to judge. */
        pthread_mutex_t explicit_lock;
        pthread_t explicit_thread;
        int explicit_started;        /**< The thread was started. */
        atomic_int explicit_stop;    /**< on_destroy(): end now. */
        _Atomic int32_t explicit_cnt; /**< Its answer (0: none yet). */
        int first_kept;              /**< The first record was kept. */
        int first_bucket;            /**< Its bucket; -1 once judged. */
        int32_t first_partition;
        char first_key[4 * BP_KEY_PREVIEW_LEN + 8];
} bp_producer_side_t;

/** A fresh producer side, or NULL (no memory). */
bp_producer_side_t *bp_producer_side_new(void);

/** A copy of \p src's configuration-time part (for on_conf_dup), or
 *  NULL. */
bp_producer_side_t *bp_producer_side_dup(const bp_producer_side_t *src);

/** Frees it. NULL is ignored. */
void bp_producer_side_destroy(bp_producer_side_t *p);

#endif /* BP_PRODUCER_SIDE_H */
