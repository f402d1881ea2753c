/*
 * bp_builtins.h - librdkafka's built-in partitioners by name.
 */
#ifndef BP_BUILTINS_H
#define BP_BUILTINS_H

#include "bp_rdk.h"

#include "bp_config.h"
#include "bp_fallback.h"

/**
 * The librdkafka partitioner called \p name ("murmur2_random", ...), or
 * consistent_random (librdkafka's default) for NULL, "" or an unknown name.
 */
rd_kafka_partitioner_cb *bp_builtin_by_name(const char *name);

/** The librdkafka function for \p b (roundrobin has none: NULL). */
rd_kafka_partitioner_cb *bp_builtin_fn(bp_builtin_t b);

#endif /* BP_BUILTINS_H */
