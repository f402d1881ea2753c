/*
 * bp_limits.h - the documented bounds on every input the plugin accepts.
 *
 * A plugin lives inside somebody else's process, so every length it reads is
 * bounded here, once, and docs/configuration.md repeats these numbers.
 */
#ifndef BP_LIMITS_H
#define BP_LIMITS_H

/** Longest accepted value of any bucket.priority.* property, in bytes. */
#define BP_MAX_VALUE_LEN 4096

/** Most buckets one configuration may declare. */
#define BP_MAX_BUCKETS 64

/** Longest bucket name, in bytes. */
#define BP_MAX_NAME_LEN 64

/** Longest topic name (Kafka's own limit). */
#define BP_MAX_TOPIC_LEN 249

/** Longest key delimiter, in bytes. */
#define BP_MAX_DELIMITER_LEN 16

/** Longest fallback partitioner value (long enough for Java class names). */
#define BP_MAX_FALLBACK_LEN 200

/** Allocations are fixed point: 100% is this many units (4 decimals). */
#define BP_ALLOCATION_UNITS 1000000u

/** Decimal places accepted in an allocation ("33.3333%"). */
#define BP_ALLOCATION_DECIMALS 4

/** Largest partition count a layout is computed for. */
#define BP_MAX_PARTITIONS 1000000

/** Longest key prefix (escaped) that an error message may show. */
#define BP_KEY_PREVIEW_LEN 16

#endif /* BP_LIMITS_H */
