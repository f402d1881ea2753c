/*
 * demo_consumer.h - the notification workers: each one a thread with its
 * own consumer, configured by properties only, paying the same processing
 * cost per record in both runs (sending an SMS or an e-mail takes time).
 * A worker can be stopped cleanly or killed (closed abruptly, no leave
 * group, no final commit) to show a crash.
 */
#ifndef DEMO_CONSUMER_H
#define DEMO_CONSUMER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <librdkafka/rdkafka.h>

#include "demo_conf.h"
#include "demo_plugin.h"
#include "demo_stats.h"

typedef struct demo_consumer {
        const char *bucket;        /**< Bucket served, NULL: shared run. */
        int index;                 /**< Worker number, for its client.id. */
        demo_stats_t *st;
        atomic_llong *cost_us;     /**< Processing cost, set by the run. */
        const demo_plugin_t *plugin; /**< For its stats; NULL: shared. */
        rd_kafka_t *rk;
        pthread_t thread;
        int started;
        atomic_int stop;           /**< Close cleanly and exit. */
        atomic_int kill;           /**< Die abruptly and exit. */
        atomic_int dead;           /**< The thread has exited. */
        atomic_ullong assigned;    /**< Bit p: partition p assigned. */
        atomic_long consumed;      /**< Records handled (with repeats). */
        atomic_long foreign;       /**< Plugin: records from partitions
                                    *   outside the bucket (must stay 0). */
} demo_consumer_t;

/**
 * Creates the consumer, subscribes it to the topic of \p s and starts its
 * thread. @returns 0, or -1 with \p err filled.
 */
int demo_consumer_start(demo_consumer_t *c, const demo_setup_t *s, char *err,
                        size_t err_size);

/** Asks the worker to die abruptly (returns at once). */
void demo_consumer_kill(demo_consumer_t *c);

/** Closes the consumer cleanly (if alive) and waits for its thread. */
void demo_consumer_stop(demo_consumer_t *c);

/** Writes the partitions in \p mask as "0-2,4,7" (or "-" when none). */
void demo_partitions_text(uint64_t mask, char *out, size_t size);

#endif /* DEMO_CONSUMER_H */
