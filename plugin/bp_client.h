/*
 * bp_client.h - the plugin's state for one librdkafka configuration and,
 * once rd_kafka_new() has run, for the client created from it.
 */
#ifndef BP_CLIENT_H
#define BP_CLIENT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "bp_rdk.h"

#include "bp_config.h"
#include "bp_key.h"
#include "bp_layout.h"

/** The name the plugin registers its interceptors under. */
#define BP_NAME "bucket-priority"

/** Messages kept from on_new() until the client has its name. */
#define BP_PENDING_LOGS 4
/** Longest message the plugin logs (longer ones are cut). */
#define BP_LOG_LINE_MAX 1024

/** What the partitioner does for the bucket topic. */
typedef enum {
        BP_MODE_PASSTHROUGH = 0, /**< No bucket.priority.* set: untouched. */
        BP_MODE_ACTIVE,          /**< Complete configuration: routing. */
        BP_MODE_BROKEN           /**< Incomplete: bucket records fail. */
} bp_mode_t;

/** Reasons logged once per client (bit flags). */
enum {
        BP_ONCE_DISCARD      = 1 << 0,
        BP_ONCE_NO_LAYOUT    = 1 << 1,
        BP_ONCE_EMPTY_BUCKET = 1 << 2,
        BP_ONCE_BROKEN       = 1 << 3,
        BP_ONCE_REGISTRY     = 1 << 4,
        BP_ONCE_FOREIGN      = 1 << 5,
        BP_ONCE_UNMAPPED     = 1 << 6,
        BP_ONCE_MISROUTED    = 1 << 7,
        BP_ONCE_TAKEOVER     = 1 << 8,
        BP_ONCE_DISAGREE     = 1 << 9,
        BP_ONCE_EXPLICIT     = 1 << 10
};

/** Per bucket counters, each on its own cache line. */
typedef struct bp_bucket_counters {
        _Atomic uint64_t next;     /**< Records placed: round robin cursor. */
        _Atomic uint64_t fallback; /**< Of which came by the fallback. */
        _Atomic uint64_t failed;   /**< Records for the bucket that failed. */
        _Atomic uint64_t foreign;  /**< Consumer: records outside buckets. */
        /** Producer: records of the bucket, written to a partition the
         *  application chose (bp_explicit.c), and of those, the ones
         *  outside the bucket's partitions. */
        _Atomic uint64_t explicit_partition;
        _Atomic uint64_t misplaced;
        char pad[64 - 6 * sizeof(uint64_t)];
} bp_bucket_counters_t;

/** A layout kept for the client's lifetime (partition counts rarely vary). */
typedef struct bp_layout_node {
        bp_layout_t *layout;
        struct bp_layout_node *next;
} bp_layout_node_t;

typedef void(bp_log_fn_t)(const rd_kafka_t *rk,
                          int level,
                          const char *fac,
                          const char *buf);

/* Each side's own part of the state (partitioner/bp_producer.h,
 * assignor/bp_consumer_side.h), opaque to the core. */
struct bp_producer_side;
struct bp_consumer_side;

typedef struct bp_client {
        bp_config_t cfg;
        size_t topic_len;

        /* The two sides' own parts, made, copied and freed with this state
         * by the entry point (entry/bp_entry.c). */
        struct bp_producer_side *producer;
        struct bp_consumer_side *consumer;

        /* Configuration time. */
        int in_conf_set;        /**< Re-entry guard for our own sets. */

        /* Run time, from on_new() on. */
        rd_kafka_t *rk;
        bp_mode_t mode;
        char broken_reason[512];
        /** Messages logged by on_new(), before librdkafka names the client:
         *  logged by bp_client_log_pending() once it has its name, so that
         *  they say which client they are about. */
        struct {
                int level;
                char text[BP_LOG_LINE_MAX];
        } pending[BP_PENDING_LOGS];
        int pending_cnt;
        int log_unnamed; /**< Log at once: nothing would log what is kept. */
        bp_log_fn_t *log;

        /* Routing, read by the partitioner for every record: kept here, not
         * behind the producer side's pointer, so that the hot path follows
         * no pointer more (docs/benchmarks-history.md). Set by the producer
         * side at on_new(). */
        rd_kafka_partitioner_cb *other; /**< Partitioner of other topics. */
        rd_kafka_partitioner_cb *fallback_fn;
        /** The bucket topic's handle once seen. librdkafka keeps a topic
         *  handle until its client is destroyed (the topic's unassigned
         *  partition holds a reference, dropped in rd_kafka_destroy()), so
         *  while this client lives the address names no other topic. */
        _Atomic(const rd_kafka_topic_t *) bucket_rkt;
        bp_key_matcher_t matcher; /**< Built by on_new(). */

        /** During a layout change: for each bucket the change removes, the
         *  bucket that reads its records after it (else -1). */
        int change_home[BP_MAX_BUCKETS];

        /* Layouts: current one read lock-free, the rest kept for reuse. */
        _Atomic(bp_layout_t *) current;
        _Atomic int32_t failed_cnt; /**< Partition count known to fail. */
        pthread_mutex_t layout_lock;
        bp_layout_node_t *layouts;

        /* Statistics (bp_stats.c), counted by both sides. */
        _Atomic unsigned logged_once;
        _Atomic uint64_t discarded;
        _Atomic uint64_t fallback_other;
        _Atomic uint64_t unroutable;
        _Atomic uint64_t fallback_rr;
        _Atomic uint64_t explicit_other; /**< Written to a partition the
                                          *   application chose, key of
                                          *   no bucket. */
        bp_bucket_counters_t counters[BP_MAX_BUCKETS]
            __attribute__((aligned(64)));
} bp_client_t;

/** Decides the mode from the configuration, once the client is created:
 *  passthrough, active, or broken (with broken_reason). */
void bp_client_decide_mode(bp_client_t *c);

/** A fresh client state with default configuration, or NULL (no memory). */
bp_client_t *bp_client_new(void);

/** A copy of \p src's configuration-time state (for on_conf_dup), without
 *  the sides' parts (the caller copies them). */
bp_client_t *bp_client_dup(const bp_client_t *src);

/** Frees the state, its layouts and its registry entries (not the sides'
 *  parts: the caller frees them after this). */
void bp_client_destroy(bp_client_t *c);

/** A callback address that librdkafka prints with "%p" for property \p name
 *  of \p conf (rebalance_cb, log_cb, ...), or NULL when unset. */
void *bp_conf_pointer(const rd_kafka_conf_t *conf, const char *name);

/** Sets a librdkafka property on behalf of the user, without re-entering
 *  the plugin's own conf_set interceptor (entry/bp_entry.c), which lets
 *  every property through while this runs. */
rd_kafka_conf_res_t bp_conf_set_own(bp_client_t *c, rd_kafka_conf_t *conf,
                                    const char *name, const char *value,
                                    char *errstr, size_t errstr_size);

/** 1 if \p topic is the client's bucket topic (bucket.priority.topic). */
int bp_is_bucket_topic(const bp_client_t *c, const char *topic);

/** The client's log_level property (librdkafka's default 6 when it cannot
 *  be read). Not bp_conf_int(): 0 is a level of its own, not "unset". */
int bp_conf_log_level(const rd_kafka_conf_t *conf);

/** The positive integer value of property \p name of \p conf, or \p dflt
 *  when it is unset, not a number or not above 0. */
int64_t bp_conf_int(const rd_kafka_conf_t *conf, const char *name,
                    int64_t dflt);

/** The same for a topic configuration (partitioner_cb). */
void *bp_topic_conf_pointer(const rd_kafka_topic_conf_t *tconf,
                            const char *name);

/**
 * Logs \p fmt through the application's log callback (or stderr when it
 * kept librdkafka's default), at syslog \p level, facility "BUCKETPRIO".
 */
void bp_client_log(bp_client_t *c, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** Logs the messages kept while the client had no name yet (from on_new()
 *  until librdkafka names it, before its main thread starts). */
void bp_client_log_pending(bp_client_t *c);

/** Like bp_client_log(), but only the first time for \p once_flag. */
void bp_client_log_once(bp_client_t *c,
                        unsigned once_flag,
                        int level,
                        const char *fmt,
                        ...) __attribute__((format(printf, 4, 5)));

#endif /* BP_CLIENT_H */
