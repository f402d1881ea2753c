/*
 * bp_config.h - the bucket.priority.* configuration: parsing, validation and
 * the cross-field checks, with no knowledge of librdkafka.
 *
 * The plugin feeds every property set on a librdkafka configuration through
 * bp_config_set(); a value is applied only if the whole configuration stays
 * valid, so a failed set leaves the previous state untouched (bp_config.c).
 * Around it: a bucket found by its name (bp_config_lookup.c), the
 * configuration a live layout change moves to (bp_config_next.c), and which
 * client properties say how to reach the cluster, for the helper clients
 * built from a user's configuration (bp_connection.c). The property names
 * are in bp_properties.h, the bounds on every input in bp_limits.h.
 */
#ifndef BP_CONFIG_H
#define BP_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "bp_limits.h"

/** Largest accepted bucket.priority.lag.threshold, in records (10^15). */
#define BP_MAX_LAG_THRESHOLD 1000000000000000LL

/** Result of bp_config_set(), mirroring rd_kafka_conf_res_t's meaning. */
typedef enum {
        BP_SET_OK      = 0, /**< Property is ours and was applied. */
        BP_SET_INVALID = 1, /**< Property is ours, value rejected. */
        BP_SET_UNKNOWN = 2  /**< Not a bucket.priority.* property. */
} bp_set_result_t;

/** How partitions are split into buckets (bucket.priority.layout). */
typedef enum {
        BP_LAYOUT_CONTIGUOUS = 0, /**< The reference's layout (default). */
        BP_LAYOUT_STABLE     = 1  /**< Partitions never change bucket. */
} bp_layout_kind_t;

/** How a record picks a partition inside its bucket. */
typedef enum {
        BP_WITHIN_ROUNDROBIN = 0, /**< Round robin (default). */
        BP_WITHIN_HASH       = 1  /**< murmur2 of the key: keeps key order. */
} bp_within_t;

/** What happens to records whose bucket cannot be read from the key. */
typedef enum {
        BP_FALLBACK_BUCKET  = 0, /**< Route to a named bucket. */
        BP_FALLBACK_DISCARD = 1, /**< Fail the record's delivery. */
        BP_FALLBACK_BUILTIN = 2  /**< A built-in partitioner, whole topic. */
} bp_fallback_kind_t;

/** Built-in partitioners usable as fallback (librdkafka names + ours). */
typedef enum {
        BP_BUILTIN_RANDOM = 0,
        BP_BUILTIN_CONSISTENT,
        BP_BUILTIN_CONSISTENT_RANDOM,
        BP_BUILTIN_MURMUR2,
        BP_BUILTIN_MURMUR2_RANDOM,
        BP_BUILTIN_FNV1A,
        BP_BUILTIN_FNV1A_RANDOM,
        BP_BUILTIN_ROUNDROBIN,
        BP_BUILTIN__CNT
} bp_builtin_t;

/** How a consumer serving several buckets orders them
 *  (bucket.priority.schedule). */
typedef enum {
        BP_SCHEDULE_STRICT   = 0, /**< Lower buckets wait while a higher one
                                   *   lags (default). */
        BP_SCHEDULE_WEIGHTED = 1  /**< Every bucket served, in proportion to
                                   *   its allocation. */
} bp_schedule_t;

/** How a consumer of several buckets holds a bucket back
 *  (bucket.priority.hold). */
typedef enum {
        BP_HOLD_DEFAULT = 0, /**< Not set: queue, but pause for the
                              *   strict schedule when
                              *   bucket.priority.lag.threshold is above 0
                              *   (a threshold is a pause's)
                              *   (bp_config_hold()). */
        BP_HOLD_PAUSE = 1, /**< Pause its partitions: what librdkafka
                            *   fetched of them is dropped and fetched
                            *   again on resume. */
        BP_HOLD_QUEUE = 2  /**< Keep what was fetched: each bucket's
                            *   records wait in a queue of their own, and
                            *   a higher bucket's are moved ahead of the
                            *   lower ones (bp_sched_queues.c). */
} bp_hold_t;

/** One bucket's name (its share is in bp_config_t.allocation). */
typedef struct bp_bucket_def {
        char name[BP_MAX_NAME_LEN + 1];
        size_t name_len;
} bp_bucket_def_t;

/** The layout a change moves to (bucket.priority.next.*): each part is
 *  used only when its property was set, else the current one stands. */
typedef struct bp_next_def {
        int set; /**< Any bucket.priority.next.* property was set. */
        int bucket_cnt; /**< 0: next.buckets not set. */
        bp_bucket_def_t buckets[BP_MAX_BUCKETS];
        int allocation_cnt; /**< 0: next.allocation not set. */
        uint32_t allocation[BP_MAX_BUCKETS];
        int layout_set;
        bp_layout_kind_t layout;
        int step; /**< bucket.priority.next.step, 1 by default. */
} bp_next_def_t;

/** The whole parsed configuration. A flat struct: copy it by assignment. */
typedef struct bp_config {
        char topic[BP_MAX_TOPIC_LEN + 1];
        int topic_set;

        int bucket_cnt; /**< 0 until bucket.priority.buckets is set. */
        bp_bucket_def_t buckets[BP_MAX_BUCKETS];
        size_t max_name_len; /**< Longest bucket name, for key parsing. */

        int allocation_cnt; /**< 0 until bucket.priority.allocation. */
        uint32_t allocation[BP_MAX_BUCKETS]; /**< 1/BP_ALLOCATION_UNITS */

        char delimiter[BP_MAX_DELIMITER_LEN + 1];
        size_t delimiter_len;

        bp_layout_kind_t layout;
        bp_within_t within;

        char fallback_text[BP_MAX_FALLBACK_LEN + 1]; /**< "" = default. */
        bp_fallback_kind_t fallback_kind;
        bp_builtin_t fallback_builtin;
        int fallback_bucket; /**< Index once resolved, else -1. */

        /* Consumer side. */
        int consumer_bucket_cnt; /**< Buckets served, priority order. */
        int consumer_buckets[BP_MAX_BUCKETS];
        char consumer_bucket_text[BP_MAX_VALUE_LEN + 1];
        int group_per_bucket; /**< bucket.priority.group.per.bucket */
        int events_mapped;    /**< bucket.priority.rebalance.events.mapped:
                               *   the application passes rebalance events
                               *   through bp_assignment_map_by_name(). */
        bp_schedule_t schedule; /**< bucket.priority.schedule */
        int64_t lag_threshold;  /**< bucket.priority.lag.threshold */
        bp_hold_t hold;         /**< bucket.priority.hold */

        bp_next_def_t next; /**< A layout change in progress. */

        int touched; /**< Any bucket.priority.* property was set. */
} bp_config_t;

/** Initialises \p cfg with every default (delimiter "-", contiguous...). */
void bp_config_init(bp_config_t *cfg);

/**
 * Applies property \p name = \p value. An empty value, "" or NULL (what
 * librdkafka hands an interceptor for ""), is refused for every property
 * but the ignored bucket.priority.fallback.assignor: it is never a reset.
 * Returns BP_SET_UNKNOWN for names outside bucket.priority.*; on
 * BP_SET_INVALID \p errstr names the property, the value and what is
 * expected, and \p cfg is unchanged.
 */
bp_set_result_t bp_config_set(bp_config_t *cfg,
                              const char *name,
                              const char *value,
                              char *errstr,
                              size_t errstr_size);

/** Returns 1 if any bucket.priority.* property was set at all. */
int bp_config_is_touched(const bp_config_t *cfg);

/**
 * Parses one allocation item ("70%", " 33.5 ") into units of
 * 1/BP_ALLOCATION_UNITS. Returns 0 on success, else -1 with \p why set to
 * a short reason.
 */
int bp_allocation_parse(const char *s,
                        size_t len,
                        uint32_t *units,
                        const char **why);

/** Writes allocation \p units as a percentage without trailing zeros. */
void bp_allocation_format(uint32_t units, char *buf, size_t size);

/*
 * bp_config_lookup.c: answers read from a configuration.
 */

/** Index of the bucket named [name, name+len) in \p cfg, or -1. */
int bp_config_find_bucket(const bp_config_t *cfg,
                          const char *name,
                          size_t len);

/**
 * How a consumer of several buckets configured by \p cfg holds a bucket
 * back: BP_HOLD_PAUSE or BP_HOLD_QUEUE, never BP_HOLD_DEFAULT. As
 * bucket.priority.hold says; when it is not set, queue, unless the
 * schedule is strict and bucket.priority.lag.threshold is above 0 (letting
 * a higher bucket lag is what pausing does; with the queue its records
 * always go first; the weighted schedule ignores the threshold).
 */
bp_hold_t bp_config_hold(const bp_config_t *cfg);

/*
 * bp_config_next.c: the configuration a live layout change moves to, and
 * whether a configuration is complete.
 */

/**
 * Fills \p next with the configuration the change of \p cfg moves to: cfg
 * with next.buckets, next.allocation and next.layout where set, and its
 * fallback resolved against the next buckets. Returns 0, or -1 with
 * \p errstr naming the property and why (counts that differ, a fallback
 * bucket the change removes, a built-in fallback partitioner).
 */
int bp_config_next(const bp_config_t *cfg,
                   bp_config_t *next,
                   char *errstr,
                   size_t errstr_size);

/**
 * Checks that the properties a bucket topic needs are all present (topic,
 * buckets, allocation). Returns 0 if so, else -1 with \p errstr naming
 * what is missing.
 */
int bp_config_check_complete(const bp_config_t *cfg,
                             char *errstr,
                             size_t errstr_size);

/*
 * bp_connection.c: which client properties say how to reach and
 * authenticate to the cluster. The side clients the project builds from a
 * user's configuration (bp-audit, and the plugin's reader of sibling
 * groups' offsets) take these and nothing else: no plugin, no group
 * settings, no application callbacks.
 */

/**
 * 1 when \p name is a connection, security or identity property: the
 * bootstrap list (bootstrap.servers, metadata.broker.list),
 * security.protocol, sasl.*, ssl.*, enable.ssl.certificate.verification,
 * enable.sasl.oauthbearer.unsecure.jwt, https.* (OIDC), socket.*,
 * api.version.*, broker.version.fallback, broker.address.family,
 * client.dns.lookup, client.id and debug. 0 for anything else.
 */
int bp_connection_property(const char *name);

#endif /* BP_CONFIG_H */
