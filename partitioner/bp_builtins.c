/*
 * bp_builtins.c - maps partitioner names to librdkafka's public partitioner
 * functions, for the fallback and for topics outside the bucket topic.
 */
#include "bp_builtins.h"

#include <string.h>

static rd_kafka_partitioner_cb *const fns[BP_BUILTIN__CNT] = {
    [BP_BUILTIN_RANDOM]            = rd_kafka_msg_partitioner_random,
    [BP_BUILTIN_CONSISTENT]        = rd_kafka_msg_partitioner_consistent,
    [BP_BUILTIN_CONSISTENT_RANDOM] = rd_kafka_msg_partitioner_consistent_random,
    [BP_BUILTIN_MURMUR2]           = rd_kafka_msg_partitioner_murmur2,
    [BP_BUILTIN_MURMUR2_RANDOM]    = rd_kafka_msg_partitioner_murmur2_random,
    [BP_BUILTIN_FNV1A]             = rd_kafka_msg_partitioner_fnv1a,
    [BP_BUILTIN_FNV1A_RANDOM]      = rd_kafka_msg_partitioner_fnv1a_random,
    [BP_BUILTIN_ROUNDROBIN]        = NULL,
};

rd_kafka_partitioner_cb *bp_builtin_fn(bp_builtin_t b) {
        return (unsigned)b < BP_BUILTIN__CNT ? fns[b] : NULL;
}

rd_kafka_partitioner_cb *bp_builtin_by_name(const char *name) {
        int b;
        for (b = 0; name && b < BP_BUILTIN__CNT; b++)
                if (fns[b] && !strcmp(name, bp_builtin_name((bp_builtin_t)b)))
                        return fns[b];
        return rd_kafka_msg_partitioner_consistent_random;
}
