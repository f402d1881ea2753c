/*
 * bucket_priority.h - the public API of bucket-priority, a librdkafka plugin
 * that gives one topic's records a priority by splitting its partitions into
 * named buckets (the bucket priority pattern).
 *
 * Most applications call nothing here: they load the plugin by
 * configuration,
 *
 *     plugin.library.paths=libbucketpriority
 *     bucket.priority.topic=orders
 *     bucket.priority.buckets=Platinum, Gold
 *     bucket.priority.allocation=70%, 30%
 *
 * (the bucket.priority.* properties set after plugin.library.paths), and
 * producers route every record of the topic to the bucket named by its key
 * prefix ("Platinum-1001"). The calls below are for applications that
 * build their own topic configuration, that want the routing statistics, or
 * that link the library directly instead of loading it as a plugin.
 *
 * Every call is thread-safe. Names are prefixed bp_.
 */
#ifndef BUCKET_PRIORITY_H
#define BUCKET_PRIORITY_H

#include <stddef.h>
#include <stdint.h>

#include <librdkafka/rdkafka.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define BP_API __attribute__((visibility("default")))
#else
#define BP_API
#endif

/**
 * The version of this header. CMakeLists.txt reads the project version
 * from the three numbers below: they are the only place it is written.
 * BP_VERSION is one integer, 0xMMmmpp (major, minor, patch), for
 * compile-time checks such as `#if BP_VERSION >= 0x000100`.
 */
#define BP_VERSION_MAJOR 0
#define BP_VERSION_MINOR 1
#define BP_VERSION_PATCH 0
#define BP_VERSION                                                             \
        ((BP_VERSION_MAJOR << 16) | (BP_VERSION_MINOR << 8) | BP_VERSION_PATCH)
#define BP_VERSION_TEXT_(x) #x
#define BP_VERSION_TEXT(x) BP_VERSION_TEXT_(x)
/** This header's version as text, e.g. "0.1.0". */
#define BP_VERSION_STR                                                         \
        BP_VERSION_TEXT(BP_VERSION_MAJOR)                                      \
        "." BP_VERSION_TEXT(BP_VERSION_MINOR) "." BP_VERSION_TEXT(             \
            BP_VERSION_PATCH)

/**
 * The version of the library running, as text ("0.1.0"): BP_VERSION_STR
 * of the header it was built with, which may be newer than the one the
 * application was compiled against.
 */
BP_API const char *bp_version(void);

/**
 * librdkafka's plugin entry point, called when plugin.library.paths names
 * this library. It registers the interceptors that own the
 * bucket.priority.* properties, and installs the bucket partitioner on the
 * configuration's default topic configuration.
 *
 * Applications that link the library instead of loading it as a plugin call
 * bp_conf_init() on their configuration before setting any
 * bucket.priority.* property; the effect is the same.
 *
 * @returns RD_KAFKA_RESP_ERR_NO_ERROR, or an error with \p errstr filled.
 */
BP_API rd_kafka_resp_err_t conf_init(rd_kafka_conf_t *conf,
                                     void **plug_opaquep,
                                     char *errstr,
                                     size_t errstr_size);

/**
 * Loads bucket-priority into \p conf without plugin.library.paths: same
 * effect as the plugin loading. Call it once per configuration object,
 * before setting bucket.priority.* properties.
 */
BP_API rd_kafka_resp_err_t bp_conf_init(rd_kafka_conf_t *conf,
                                        char *errstr,
                                        size_t errstr_size);

/**
 * The bucket partitioner itself, with librdkafka's partitioner signature.
 * It finds its client's bucket configuration from \p rkt (never from the
 * application's opaque), routes records of the bucket topic to their
 * bucket's partitions, and gives records of any other topic to the
 * partitioner the client would have used without the plugin (the
 * "partitioner" property, consistent_random by default).
 *
 * A record that cannot be routed (unknown bucket with the discard fallback,
 * a bucket with no partition, an incomplete configuration) gets an
 * out-of-range partition, so librdkafka fails it at once with
 * RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION (returned by the produce call, or in
 * the delivery report when the record was queued before the topic's
 * metadata arrived); the reason is logged once and counted in the stats.
 */
BP_API int32_t bp_partitioner(const rd_kafka_topic_t *rkt,
                              const void *key,
                              size_t keylen,
                              int32_t partition_cnt,
                              void *rkt_opaque,
                              void *msg_opaque);

/**
 * Installs bp_partitioner() on an application's own topic configuration.
 *
 * Rarely needed: a producer that loaded the plugin makes the bucket topic's
 * handle with the bucket partitioner when it starts, so an application that
 * later creates that topic with rd_kafka_topic_new(rk, topic, tconf) and a
 * topic configuration of its own (kcat does) is handed the plugin's handle.
 * Call it for a topic configuration you want routed by bucket anyway; the
 * client must have loaded the plugin (plugin.library.paths or
 * bp_conf_init()).
 */
BP_API void bp_topic_conf_set_partitioner(rd_kafka_topic_conf_t *tconf);

/**
 * The plugin's rebalance callback, with librdkafka's rebalance callback
 * signature. The plugin installs it by itself on a consumer configuration
 * that sets bucket.priority.bucket and has no rebalance callback of its
 * own. A consumer with its own callback (confluent-kafka-python, kcat -G,
 * a C++ RebalanceCb) needs nothing: when the client is created the plugin
 * puts its mapping in front of that callback, which then receives the
 * mapped partitions (and, on revocation, the partitions it holds).
 *
 * On assignment it maps the partitions the group gave (see
 * bp_assignment_map()) and assigns the result; on revocation, lost
 * partitions and errors it unassigns, as librdkafka documents for the
 * eager protocol. \p opaque (the application's) is not used.
 *
 * On the next generation group protocol (group.protocol=consumer, librdkafka
 * 2.12 and later) nothing is mapped: it assigns the broker's list with
 * rd_kafka_incremental_assign() (start offsets set on the bucket's
 * partitions), pauses at once the partitions of the bucket topic outside
 * the consumer's bucket, and unassigns revoked lists incrementally. An
 * application's own callback is handed the broker's list the same way and
 * the plugin pauses those partitions when it returns.
 */
BP_API void bp_rebalance_cb(rd_kafka_t *rk,
                            rd_kafka_resp_err_t err,
                            rd_kafka_topic_partition_list_t *partitions,
                            void *opaque);

/**
 * For applications with their own rebalance callback (chaining): returns
 * the list to pass to rd_kafka_assign() instead of \p partitions.
 *
 * Partitions of the bucket topic are read as indexes into the ascending
 * list B of this consumer's bucket partitions (index i becomes B[i] when
 * i < |B|, and is dropped otherwise), with the partition count refreshed
 * from the cluster first; partitions of other topics are copied unchanged.
 * Each returned bucket partition carries its start offset: the committed
 * one (RD_KAFKA_OFFSET_INVALID), else the highest offset a sibling bucket
 * group committed for it, else RD_KAFKA_OFFSET_BEGINNING when this group
 * has committed before, else RD_KAFKA_OFFSET_INVALID (auto.offset.reset).
 *
 * It blocks for up to a few seconds (metadata, committed offsets): call it
 * from the rebalance callback, as librdkafka allows.
 *
 * @returns a new list (free with rd_kafka_topic_partition_list_destroy()),
 *          or NULL with \p errstr filled when the bucket partitions cannot
 *          be computed (assign nothing then: the next rebalance retries).
 *          A client that did not load the plugin, or that serves no bucket,
 *          gets a plain copy.
 *
 * On the next generation group protocol (group.protocol=consumer) it maps
 * nothing: the copy of \p partitions it returns only has the start offsets
 * of the bucket's partitions set; pass it to rd_kafka_incremental_assign().
 * The plugin pauses the others: after the rebalance callback returns when
 * called from the application's callback the plugin chains, else (the
 * application takes rebalances as events) at once, before they are
 * assigned (a pause outlasts the assignment).
 */
BP_API rd_kafka_topic_partition_list_t *
bp_assignment_map(rd_kafka_t *rk,
                  const rd_kafka_topic_partition_list_t *partitions,
                  char *errstr,
                  size_t errstr_size);

/**
 * bp_assignment_map() for bindings that cannot reach the rd_kafka_t handle
 * and take rebalances as events (confluent-kafka-go): the consumer is found
 * by its client name, rd_kafka_name() (Go: Consumer.String()), and the
 * lists are plain arrays.
 *
 * \p topics[i] and \p partitions[i], for i < \p cnt, are the assignment as
 * the group gave it. On return, entry j < the returned count of the mapped
 * assignment is topic \p topics[\p out_index[j]], partition
 * \p out_partitions[j], start offset \p out_offsets[j] (as in
 * bp_assignment_map(): RD_KAFKA_OFFSET_INVALID for the committed offset,
 * RD_KAFKA_OFFSET_BEGINNING, or an absolute offset). The three output
 * arrays need room for \p cnt entries.
 *
 * On the next generation group protocol the entries are the group's list
 * unchanged with the start offsets set, and the partitions outside the
 * bucket are paused: assign them incrementally (Go: IncrementalAssign).
 *
 * A client taking rebalances as events must also set
 * bucket.priority.rebalance.events.mapped=true, which tells the plugin that
 * the application maps them; without it rd_kafka_new() fails for a bucket
 * consumer (it would otherwise read every bucket). See docs/clients.md.
 *
 * @returns the number of entries written, or -1 with \p errstr filled (no
 *          such client, bad arguments, or the bucket partitions cannot be
 *          computed: assign nothing then, the next rebalance retries).
 */
BP_API int bp_assignment_map_by_name(const char *client_name,
                                     const char *const *topics,
                                     const int32_t *partitions,
                                     int cnt,
                                     int32_t *out_index,
                                     int32_t *out_partitions,
                                     int64_t *out_offsets,
                                     char *errstr,
                                     size_t errstr_size);

/** Routing counters of one bucket, from bp_bucket_stats(). */
typedef struct bp_bucket_stats {
        const char *name;    /**< Bucket name (valid while the client is). */
        uint64_t routed;     /**< Records routed here by their key. */
        uint64_t fallback;   /**< Records without a bucket sent here. */
        uint64_t failed;     /**< Records for this bucket that failed. */
        int32_t partitions;  /**< Partitions in the current layout. */
        uint64_t foreign;    /**< Consumer: records seen from partitions
                              *   outside the buckets it serves. */
} bp_bucket_stats_t;

/** Client-wide routing counters, from bp_stats(). */
typedef struct bp_stats {
        int bucket_cnt;          /**< Buckets configured. */
        int32_t partition_cnt;   /**< Partitions of the current layout. */
        uint64_t discarded;      /**< Records failed by the discard rule. */
        uint64_t fallback_other; /**< Records sent to a built-in fallback
                                  *   partitioner over the whole topic. */
        uint64_t unroutable;     /**< Records failed for any other reason
                                  *   (no partition for their bucket,
                                  *   incomplete configuration). */
        uint64_t foreign;        /**< Consumer: records received from
                                  *   partitions outside its buckets. */
} bp_stats_t;

/**
 * Fills \p stats with client \p rk's counters.
 * @returns 0, or -1 if \p rk did not load the plugin.
 */
BP_API int bp_stats(const rd_kafka_t *rk, bp_stats_t *stats);

/**
 * Fills \p stats with the counters of bucket \p idx (configuration order,
 * 0 .. bucket_cnt-1) of client \p rk.
 * @returns 0, or -1 if \p rk did not load the plugin or \p idx is out of
 *          range.
 */
BP_API int bp_bucket_stats(const rd_kafka_t *rk,
                           int idx,
                           bp_bucket_stats_t *stats);

/**
 * Records of the bucket topic that the application wrote to a partition of
 * its own choosing (a partition other than RD_KAFKA_PARTITION_UA given to
 * rd_kafka_produce() or rd_kafka_producev()), from bp_explicit_stats().
 * librdkafka calls no partitioner for them, so the plugin cannot route
 * them; it counts them, and logs the first misplaced one with the fix.
 */
typedef struct bp_explicit_stats {
        uint64_t written;   /**< Such records whose key names the bucket
                             *   (for \p idx -1: whose key names none). */
        uint64_t misplaced; /**< Of those, written outside the bucket's
                             *   partitions. Judged once the plugin knows
                             *   the topic's partition count (from the
                             *   partitioner, or a metadata request it
                             *   makes at the first such record): the
                             *   records written before are in \p written
                             *   only, but the first of them is judged. */
} bp_explicit_stats_t;

/**
 * Fills \p stats with producer \p rk's records of bucket \p idx
 * (configuration order, 0 .. bucket_cnt-1 of bp_stats()) written to a
 * partition the application chose; \p idx -1 counts those whose key names
 * no bucket (their \p misplaced is 0).
 * @returns 0, or -1 if \p rk did not load the plugin or \p idx is out of
 *          range.
 */
BP_API int bp_explicit_stats(const rd_kafka_t *rk,
                             int idx,
                             bp_explicit_stats_t *stats);

/**
 * What a bucket consumer did with one bucket, from
 * bp_consumer_bucket_stats().
 */
typedef struct bp_consumer_bucket_stats {
        const char *name;     /**< Bucket name (valid while the client is). */
        int rank;             /**< Position of the bucket in this consumer's
                               *   bucket.priority.bucket list (0: served
                               *   first), or -1 when it does not serve it. */
        uint64_t delivered;   /**< Records of the bucket handed to the
                               *   application (rd_kafka_consumer_poll() and
                               *   the other consume calls). */
        int64_t lag;          /**< Records of the bucket not yet delivered,
                               *   now: librdkafka's cached high watermark
                               *   minus the consumer's position (where the
                               *   partition starts, before any record),
                               *   summed over the partitions of the bucket
                               *   this consumer holds. No request is made. */
        int32_t lag_unknown;  /**< Of those partitions, how many have no lag
                               *   yet (no fetch answered so far); they are
                               *   not counted in \p lag. */
        int32_t partitions;   /**< Partitions of the bucket held now. */
        int paused;           /**< 1 while the scheduler holds the bucket's
                               *   partitions paused. */
        uint64_t pauses;      /**< Times the scheduler paused the bucket. */
        uint64_t paused_ms;   /**< Total time the bucket was paused, in
                               *   milliseconds, the current pause included. */
} bp_consumer_bucket_stats_t;

/**
 * Fills \p stats with what consumer \p rk did with bucket \p idx
 * (configuration order, 0 .. bucket_cnt-1 of bp_stats()): records
 * delivered, current lag, and the time the bucket scheduler kept it paused
 * (a consumer serving several buckets, see bucket.priority.schedule).
 *
 * Cheap enough to call from the poll loop: it reads librdkafka's cached
 * watermarks and positions under locks and makes no request.
 *
 * @returns 0, or -1 if \p rk did not load the plugin, is not a consumer with
 *          a complete bucket configuration (bucket.priority.bucket set), or
 *          \p idx is out of range.
 */
BP_API int bp_consumer_bucket_stats(const rd_kafka_t *rk,
                                    int idx,
                                    bp_consumer_bucket_stats_t *stats);

/**
 * Writes client \p rk's counters as one JSON object into \p buf, like
 * snprintf: at most \p size bytes, always NUL terminated when \p size > 0.
 * @returns the length the full JSON text needs (excluding the NUL), or -1
 *          if \p rk did not load the plugin.
 */
BP_API int bp_stats_json(const rd_kafka_t *rk, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* BUCKET_PRIORITY_H */
