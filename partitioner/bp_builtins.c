/*
 * bp_builtins.c - maps partitioner names to librdkafka's public partitioner
 * functions, for the fallback and for topics outside the bucket topic.
 */
#include "bp_builtins.h"

#include <string.h>

/* librdkafka's functions are reached through the bound table (bp_rdk.h),
 * so the table of built-ins is read at call time, not at load time. */
static rd_kafka_partitioner_cb *fn_of(bp_builtin_t b) {
        switch (b) {
        case BP_BUILTIN_RANDOM:
                return rd_kafka_msg_partitioner_random;
        case BP_BUILTIN_CONSISTENT:
                return rd_kafka_msg_partitioner_consistent;
        case BP_BUILTIN_CONSISTENT_RANDOM:
                return rd_kafka_msg_partitioner_consistent_random;
        case BP_BUILTIN_MURMUR2:
                return rd_kafka_msg_partitioner_murmur2;
        case BP_BUILTIN_MURMUR2_RANDOM:
                return rd_kafka_msg_partitioner_murmur2_random;
        case BP_BUILTIN_FNV1A:
                return rd_kafka_msg_partitioner_fnv1a;
        case BP_BUILTIN_FNV1A_RANDOM:
                return rd_kafka_msg_partitioner_fnv1a_random;
        default:
                return NULL; /* roundrobin: ours, no librdkafka function */
        }
}

rd_kafka_partitioner_cb *bp_builtin_fn(bp_builtin_t b) {
        return (unsigned)b < BP_BUILTIN__CNT ? fn_of(b) : NULL;
}

rd_kafka_partitioner_cb *bp_builtin_by_name(const char *name) {
        int b;
        for (b = 0; name && b < BP_BUILTIN__CNT; b++)
                if (fn_of((bp_builtin_t)b) &&
                    !strcmp(name, bp_builtin_name((bp_builtin_t)b)))
                        return fn_of((bp_builtin_t)b);
        return rd_kafka_msg_partitioner_consistent_random;
}
