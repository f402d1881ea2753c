/*
 * demo_consumer.h - the notification workers: each one a thread with its
 * own consumer, configured by properties only, paying the same processing
 * cost per record in every run (sending an SMS or an e-mail takes time).
 * A worker serves everything (shared run), one bucket, or a list of
 * buckets (strict run: it then publishes the plugin scheduler's figures).
 * A worker can be stopped cleanly or killed (closed abruptly, no leave
 * group, no final commit) to show a crash.
 */
#ifndef DEMO_CONSUMER_H
#define DEMO_CONSUMER_H

#include <stdatomic.h>
#include <stdint.h>

#include <librdkafka/rdkafka.h>

#include "demo_conf.h"
#include "demo_plugin.h"
#include "demo_stats.h"
#include "demo_thread.h"

/** Most workers one run starts (a crashed one replaced included). */
#define DEMO_MAX_WORKERS 16

/** The scheduler's figures of one bucket, as the worker last read them. */
typedef struct demo_consumer_sched {
        atomic_long delivered, lag, partitions, pauses, paused_ms;
        atomic_int paused;
} demo_consumer_sched_t;

typedef struct demo_consumer {
        const char *bucket;        /**< bucket.priority.bucket: one bucket,
                                    *   or a list "critical, bulk" (strict
                                    *   run); NULL: shared run. */
        int index;                 /**< Worker number, for its client.id. */
        demo_stats_t *st;
        atomic_llong *cost_us;     /**< Processing cost, set by the run. */
        const demo_plugin_t *plugin; /**< For its stats; NULL: shared. */
        rd_kafka_t *rk;
        demo_thread_t thread;
        atomic_int stop;           /**< Close cleanly and exit. */
        atomic_int kill;           /**< Die abruptly and exit. */
        atomic_int dead;           /**< The thread has exited. */
        atomic_ullong assigned;    /**< Bit p: partition p assigned. */
        atomic_long consumed;      /**< Records handled (with repeats). */
        atomic_long foreign;       /**< Plugin: records from partitions
                                    *   outside the bucket (must stay 0). */
        atomic_ullong seen[DEMO_CLASSES]; /**< Bit p: partition p delivered
                                    *   a record of the class. */
        atomic_int sched_valid;    /**< sched[] holds figures. */
        atomic_long sched_reads;   /**< Times sched[] was refreshed. */
        demo_consumer_sched_t sched[DEMO_CLASSES];
} demo_consumer_t;

/**
 * Creates the consumer, subscribes it to the topic of \p s and starts its
 * thread. @returns 0, or -1 with \p err filled.
 */
int demo_consumer_start(demo_consumer_t *c, const demo_setup_t *s, char *err,
                        size_t err_size);

/** 1 if the worker serves class \p cls (its bucket, one of its list of
 *  buckets, or everything in the shared run). */
int demo_consumer_serves(const demo_consumer_t *c, demo_class_t cls);

/** Copies the scheduler's figures the worker last read (every 200 ms, and
 *  once more before it closes) into \p out. @returns 0, or -1 when there
 *  are none (not a consumer of several buckets). */
int demo_consumer_sched(const demo_consumer_t *c,
                        demo_sched_t out[DEMO_CLASSES]);

/** Asks the worker to die abruptly (returns at once). */
void demo_consumer_kill(demo_consumer_t *c);

/** Closes the consumer cleanly (if alive) and waits for its thread. */
void demo_consumer_stop(demo_consumer_t *c);

/** Writes the partitions in \p mask as "0-2,4,7" (or "-" when none). */
void demo_partitions_text(uint64_t mask, char *out, size_t size);

#endif /* DEMO_CONSUMER_H */
