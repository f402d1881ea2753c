/*
 * bp_rdk.h - every librdkafka function the plugin calls, reached through a
 * table bound at run time to the librdkafka copy that loaded the plugin.
 *
 * The plugin has no link-time dependency on librdkafka: a client carrying
 * its own copy (the PyPI wheel, Go, Node, .NET) would otherwise have its
 * configuration handled by the system copy's code and crash. conf_init()
 * binds the table to its caller's copy (bp_rdk_bind_caller()); the public
 * API used without the plugin binds to whichever copy the process exports
 * (bp_rdk_bind_default()).
 *
 * Source files of the plugin include this header instead of rdkafka.h: the
 * macros at its end turn each rd_kafka_xxx(...) call into a call through
 * the table, so the code reads as plain librdkafka calls. The library is
 * linked with -z defs: a call that escapes the table fails the build.
 */
#ifndef BP_RDK_H
#define BP_RDK_H

#include <stddef.h>

#include <librdkafka/rdkafka.h>

/* Functions that every supported librdkafka (2.0.2 or newer) has: binding
 * fails without any of them. */
#define BP_RDK_REQUIRED(X)                                                     \
        X(rd_kafka_AdminOptions_destroy)                                      \
        X(rd_kafka_AdminOptions_new)                                          \
        X(rd_kafka_AdminOptions_set_request_timeout)                          \
        X(rd_kafka_ConsumerGroupListing_group_id)                             \
        X(rd_kafka_ListConsumerGroups)                                        \
        X(rd_kafka_ListConsumerGroups_result_errors)                          \
        X(rd_kafka_ListConsumerGroups_result_valid)                           \
        X(rd_kafka_assign)                                                    \
        X(rd_kafka_assignment)                                                \
        X(rd_kafka_assignment_lost)                                           \
        X(rd_kafka_committed)                                                 \
        X(rd_kafka_conf)                                                      \
        X(rd_kafka_conf_destroy)                                              \
        X(rd_kafka_conf_dump)                                                 \
        X(rd_kafka_conf_dump_free)                                            \
        X(rd_kafka_conf_dup)                                                  \
        X(rd_kafka_conf_get)                                                  \
        X(rd_kafka_conf_get_default_topic_conf)                               \
        X(rd_kafka_conf_interceptor_add_on_conf_destroy)                      \
        X(rd_kafka_conf_interceptor_add_on_conf_dup)                          \
        X(rd_kafka_conf_interceptor_add_on_conf_set)                          \
        X(rd_kafka_conf_interceptor_add_on_new)                               \
        X(rd_kafka_conf_new)                                                  \
        X(rd_kafka_conf_set)                                                  \
        X(rd_kafka_conf_set_default_topic_conf)                               \
        X(rd_kafka_conf_set_log_cb)                                           \
        X(rd_kafka_conf_set_opaque)                                           \
        X(rd_kafka_conf_set_rebalance_cb)                                     \
        X(rd_kafka_consumer_closed)                                           \
        X(rd_kafka_consumer_poll)                                             \
        X(rd_kafka_destroy)                                                   \
        X(rd_kafka_err2str)                                                   \
        X(rd_kafka_error_code)                                                \
        X(rd_kafka_error_destroy)                                             \
        X(rd_kafka_error_string)                                              \
        X(rd_kafka_event_ListConsumerGroups_result)                           \
        X(rd_kafka_event_destroy)                                             \
        X(rd_kafka_event_error)                                               \
        X(rd_kafka_event_error_string)                                        \
        X(rd_kafka_get_watermark_offsets)                                     \
        X(rd_kafka_incremental_assign)                                        \
        X(rd_kafka_incremental_unassign)                                      \
        X(rd_kafka_interceptor_add_on_consume)                                \
        X(rd_kafka_interceptor_add_on_destroy)                                \
        X(rd_kafka_interceptor_add_on_request_sent)                           \
        X(rd_kafka_interceptor_add_on_send)                                   \
        X(rd_kafka_interceptor_add_on_thread_start)                           \
        X(rd_kafka_log_print)                                                 \
        X(rd_kafka_mem_free)                                                  \
        X(rd_kafka_memberid)                                                  \
        X(rd_kafka_metadata)                                                  \
        X(rd_kafka_metadata_destroy)                                          \
        X(rd_kafka_msg_partitioner_consistent)                                \
        X(rd_kafka_msg_partitioner_consistent_random)                         \
        X(rd_kafka_msg_partitioner_fnv1a)                                     \
        X(rd_kafka_msg_partitioner_fnv1a_random)                              \
        X(rd_kafka_msg_partitioner_murmur2)                                   \
        X(rd_kafka_msg_partitioner_murmur2_random)                            \
        X(rd_kafka_msg_partitioner_random)                                    \
        X(rd_kafka_name)                                                      \
        X(rd_kafka_new)                                                       \
        X(rd_kafka_offsets_for_times)                                         \
        X(rd_kafka_opaque)                                                    \
        X(rd_kafka_pause_partitions)                                          \
        X(rd_kafka_position)                                                  \
        X(rd_kafka_query_watermark_offsets)                                   \
        X(rd_kafka_queue_cb_event_enable)                                     \
        X(rd_kafka_queue_destroy)                                             \
        X(rd_kafka_queue_forward)                                             \
        X(rd_kafka_queue_get_consumer)                                        \
        X(rd_kafka_queue_get_partition)                                       \
        X(rd_kafka_queue_length)                                              \
        X(rd_kafka_queue_new)                                                 \
        X(rd_kafka_queue_poll)                                                \
        X(rd_kafka_queue_yield)                                               \
        X(rd_kafka_resume_partitions)                                         \
        X(rd_kafka_seek_partitions)                                           \
        X(rd_kafka_topic_conf_destroy)                                        \
        X(rd_kafka_topic_conf_dup)                                            \
        X(rd_kafka_topic_conf_get)                                            \
        X(rd_kafka_topic_conf_new)                                            \
        X(rd_kafka_topic_conf_set_partitioner_cb)                             \
        X(rd_kafka_topic_destroy)                                             \
        X(rd_kafka_topic_name)                                                \
        X(rd_kafka_topic_new)                                                 \
        X(rd_kafka_topic_partition_list_add)                                  \
        X(rd_kafka_topic_partition_list_copy)                                 \
        X(rd_kafka_topic_partition_list_destroy)                              \
        X(rd_kafka_topic_partition_list_new)                                  \
        X(rd_kafka_type)                                                      \
        X(rd_kafka_version)                                                   \
        X(rd_kafka_version_str)                                               \

/* Functions newer than 2.0.2: NULL in the table when the host lacks them
 * (callers check). */
#define BP_RDK_OPTIONAL(X)                                                     \
        X(rd_kafka_AdminOptions_set_match_consumer_group_types)               \
        X(rd_kafka_ConsumerGroupListing_type)

#if RD_KAFKA_VERSION < 0x02060000
/* Declared by rdkafka.h from librdkafka 2.6 on (a group's type: 1
 * consumer, 2 classic, 0 unknown); built against older headers, the plugin
 * still finds them in a newer host copy at run time. */
typedef enum {
        RD_KAFKA_CONSUMER_GROUP_TYPE_UNKNOWN  = 0,
        RD_KAFKA_CONSUMER_GROUP_TYPE_CONSUMER = 1,
        RD_KAFKA_CONSUMER_GROUP_TYPE_CLASSIC  = 2
} rd_kafka_consumer_group_type_t;
rd_kafka_consumer_group_type_t rd_kafka_ConsumerGroupListing_type(
    const rd_kafka_ConsumerGroupListing_t *grplist);
rd_kafka_error_t *rd_kafka_AdminOptions_set_match_consumer_group_types(
    rd_kafka_AdminOptions_t *options,
    const rd_kafka_consumer_group_type_t *consumer_group_types,
    size_t consumer_group_types_cnt);
#endif

/** A partitioner callback's type (rdkafka.h spells it out in each
 *  declaration instead of naming it). */
typedef int32_t(rd_kafka_partitioner_cb)(const rd_kafka_topic_t *rkt,
                                         const void *keydata,
                                         size_t keylen,
                                         int32_t partition_cnt,
                                         void *rkt_opaque,
                                         void *msg_opaque);

#define BP_RDK_FIELD(name) __typeof__(&name) name;
/** The bound functions, one field per function, named after it. */
typedef struct bp_rdk {
        BP_RDK_REQUIRED(BP_RDK_FIELD)
        BP_RDK_OPTIONAL(BP_RDK_FIELD)
} bp_rdk_t;
#undef BP_RDK_FIELD

/** The table every call of the plugin goes through. */
extern bp_rdk_t bp_rdk;

/** Longest text bp_rdk_bind_caller() writes: Go cuts errors near 150. */
#define BP_RDK_ERR_MAX 120

/**
 * Binds the table to the librdkafka copy that contains \p caller (a return
 * address inside librdkafka's plugin loader, or inside a program that links
 * librdkafka statically and exports its symbols).
 * @returns 0, or -1 with a short reason in \p errstr (at most
 *          BP_RDK_ERR_MAX characters) when that copy cannot be reached, is
 *          too old, or another copy is bound already in this process.
 */
int bp_rdk_bind_caller(const void *caller, char *errstr, size_t errstr_size);

/**
 * Binds the table, unless bound already, to the librdkafka the process
 * exports globally (an application that links both librdkafka and this
 * library). @returns 0, or -1 with \p errstr filled.
 */
int bp_rdk_bind_default(char *errstr, size_t errstr_size);

/** 1 once the table is bound. */
int bp_rdk_bound(void);

#ifndef BP_RDK_NO_MACROS
#define rd_kafka_AdminOptions_destroy (bp_rdk.rd_kafka_AdminOptions_destroy)
#define rd_kafka_AdminOptions_new (bp_rdk.rd_kafka_AdminOptions_new)
#define rd_kafka_AdminOptions_set_match_consumer_group_types (bp_rdk.rd_kafka_AdminOptions_set_match_consumer_group_types)
#define rd_kafka_AdminOptions_set_request_timeout (bp_rdk.rd_kafka_AdminOptions_set_request_timeout)
#define rd_kafka_ConsumerGroupListing_group_id (bp_rdk.rd_kafka_ConsumerGroupListing_group_id)
#define rd_kafka_ConsumerGroupListing_type (bp_rdk.rd_kafka_ConsumerGroupListing_type)
#define rd_kafka_ListConsumerGroups (bp_rdk.rd_kafka_ListConsumerGroups)
#define rd_kafka_ListConsumerGroups_result_errors (bp_rdk.rd_kafka_ListConsumerGroups_result_errors)
#define rd_kafka_ListConsumerGroups_result_valid (bp_rdk.rd_kafka_ListConsumerGroups_result_valid)
#define rd_kafka_assign (bp_rdk.rd_kafka_assign)
#define rd_kafka_assignment (bp_rdk.rd_kafka_assignment)
#define rd_kafka_assignment_lost (bp_rdk.rd_kafka_assignment_lost)
#define rd_kafka_committed (bp_rdk.rd_kafka_committed)
#define rd_kafka_conf (bp_rdk.rd_kafka_conf)
#define rd_kafka_conf_destroy (bp_rdk.rd_kafka_conf_destroy)
#define rd_kafka_conf_dump (bp_rdk.rd_kafka_conf_dump)
#define rd_kafka_conf_dump_free (bp_rdk.rd_kafka_conf_dump_free)
#define rd_kafka_conf_dup (bp_rdk.rd_kafka_conf_dup)
#define rd_kafka_conf_get (bp_rdk.rd_kafka_conf_get)
#define rd_kafka_conf_get_default_topic_conf (bp_rdk.rd_kafka_conf_get_default_topic_conf)
#define rd_kafka_conf_interceptor_add_on_conf_destroy (bp_rdk.rd_kafka_conf_interceptor_add_on_conf_destroy)
#define rd_kafka_conf_interceptor_add_on_conf_dup (bp_rdk.rd_kafka_conf_interceptor_add_on_conf_dup)
#define rd_kafka_conf_interceptor_add_on_conf_set (bp_rdk.rd_kafka_conf_interceptor_add_on_conf_set)
#define rd_kafka_conf_interceptor_add_on_new (bp_rdk.rd_kafka_conf_interceptor_add_on_new)
#define rd_kafka_conf_new (bp_rdk.rd_kafka_conf_new)
#define rd_kafka_conf_set (bp_rdk.rd_kafka_conf_set)
#define rd_kafka_conf_set_default_topic_conf (bp_rdk.rd_kafka_conf_set_default_topic_conf)
#define rd_kafka_conf_set_log_cb (bp_rdk.rd_kafka_conf_set_log_cb)
#define rd_kafka_conf_set_opaque (bp_rdk.rd_kafka_conf_set_opaque)
#define rd_kafka_conf_set_rebalance_cb (bp_rdk.rd_kafka_conf_set_rebalance_cb)
#define rd_kafka_consumer_closed (bp_rdk.rd_kafka_consumer_closed)
#define rd_kafka_consumer_poll (bp_rdk.rd_kafka_consumer_poll)
#define rd_kafka_destroy (bp_rdk.rd_kafka_destroy)
#define rd_kafka_err2str (bp_rdk.rd_kafka_err2str)
#define rd_kafka_error_code (bp_rdk.rd_kafka_error_code)
#define rd_kafka_error_destroy (bp_rdk.rd_kafka_error_destroy)
#define rd_kafka_error_string (bp_rdk.rd_kafka_error_string)
#define rd_kafka_event_ListConsumerGroups_result (bp_rdk.rd_kafka_event_ListConsumerGroups_result)
#define rd_kafka_event_destroy (bp_rdk.rd_kafka_event_destroy)
#define rd_kafka_event_error (bp_rdk.rd_kafka_event_error)
#define rd_kafka_event_error_string (bp_rdk.rd_kafka_event_error_string)
#define rd_kafka_get_watermark_offsets (bp_rdk.rd_kafka_get_watermark_offsets)
#define rd_kafka_incremental_assign (bp_rdk.rd_kafka_incremental_assign)
#define rd_kafka_incremental_unassign (bp_rdk.rd_kafka_incremental_unassign)
#define rd_kafka_interceptor_add_on_consume (bp_rdk.rd_kafka_interceptor_add_on_consume)
#define rd_kafka_interceptor_add_on_destroy (bp_rdk.rd_kafka_interceptor_add_on_destroy)
#define rd_kafka_interceptor_add_on_request_sent (bp_rdk.rd_kafka_interceptor_add_on_request_sent)
#define rd_kafka_interceptor_add_on_send (bp_rdk.rd_kafka_interceptor_add_on_send)
#define rd_kafka_interceptor_add_on_thread_start (bp_rdk.rd_kafka_interceptor_add_on_thread_start)
#define rd_kafka_log_print (bp_rdk.rd_kafka_log_print)
#define rd_kafka_mem_free (bp_rdk.rd_kafka_mem_free)
#define rd_kafka_memberid (bp_rdk.rd_kafka_memberid)
#define rd_kafka_metadata (bp_rdk.rd_kafka_metadata)
#define rd_kafka_metadata_destroy (bp_rdk.rd_kafka_metadata_destroy)
#define rd_kafka_msg_partitioner_consistent (bp_rdk.rd_kafka_msg_partitioner_consistent)
#define rd_kafka_msg_partitioner_consistent_random (bp_rdk.rd_kafka_msg_partitioner_consistent_random)
#define rd_kafka_msg_partitioner_fnv1a (bp_rdk.rd_kafka_msg_partitioner_fnv1a)
#define rd_kafka_msg_partitioner_fnv1a_random (bp_rdk.rd_kafka_msg_partitioner_fnv1a_random)
#define rd_kafka_msg_partitioner_murmur2 (bp_rdk.rd_kafka_msg_partitioner_murmur2)
#define rd_kafka_msg_partitioner_murmur2_random (bp_rdk.rd_kafka_msg_partitioner_murmur2_random)
#define rd_kafka_msg_partitioner_random (bp_rdk.rd_kafka_msg_partitioner_random)
#define rd_kafka_name (bp_rdk.rd_kafka_name)
#define rd_kafka_new (bp_rdk.rd_kafka_new)
#define rd_kafka_offsets_for_times (bp_rdk.rd_kafka_offsets_for_times)
#define rd_kafka_opaque (bp_rdk.rd_kafka_opaque)
#define rd_kafka_pause_partitions (bp_rdk.rd_kafka_pause_partitions)
#define rd_kafka_position (bp_rdk.rd_kafka_position)
#define rd_kafka_query_watermark_offsets (bp_rdk.rd_kafka_query_watermark_offsets)
#define rd_kafka_queue_cb_event_enable (bp_rdk.rd_kafka_queue_cb_event_enable)
#define rd_kafka_queue_destroy (bp_rdk.rd_kafka_queue_destroy)
#define rd_kafka_queue_forward (bp_rdk.rd_kafka_queue_forward)
#define rd_kafka_queue_get_consumer (bp_rdk.rd_kafka_queue_get_consumer)
#define rd_kafka_queue_get_partition (bp_rdk.rd_kafka_queue_get_partition)
#define rd_kafka_queue_length (bp_rdk.rd_kafka_queue_length)
#define rd_kafka_queue_new (bp_rdk.rd_kafka_queue_new)
#define rd_kafka_queue_poll (bp_rdk.rd_kafka_queue_poll)
#define rd_kafka_queue_yield (bp_rdk.rd_kafka_queue_yield)
#define rd_kafka_resume_partitions (bp_rdk.rd_kafka_resume_partitions)
#define rd_kafka_seek_partitions (bp_rdk.rd_kafka_seek_partitions)
#define rd_kafka_topic_conf_destroy (bp_rdk.rd_kafka_topic_conf_destroy)
#define rd_kafka_topic_conf_dup (bp_rdk.rd_kafka_topic_conf_dup)
#define rd_kafka_topic_conf_get (bp_rdk.rd_kafka_topic_conf_get)
#define rd_kafka_topic_conf_new (bp_rdk.rd_kafka_topic_conf_new)
#define rd_kafka_topic_conf_set_partitioner_cb (bp_rdk.rd_kafka_topic_conf_set_partitioner_cb)
#define rd_kafka_topic_destroy (bp_rdk.rd_kafka_topic_destroy)
#define rd_kafka_topic_name (bp_rdk.rd_kafka_topic_name)
#define rd_kafka_topic_new (bp_rdk.rd_kafka_topic_new)
#define rd_kafka_topic_partition_list_add (bp_rdk.rd_kafka_topic_partition_list_add)
#define rd_kafka_topic_partition_list_copy (bp_rdk.rd_kafka_topic_partition_list_copy)
#define rd_kafka_topic_partition_list_destroy (bp_rdk.rd_kafka_topic_partition_list_destroy)
#define rd_kafka_topic_partition_list_new (bp_rdk.rd_kafka_topic_partition_list_new)
#define rd_kafka_type (bp_rdk.rd_kafka_type)
#define rd_kafka_version (bp_rdk.rd_kafka_version)
#define rd_kafka_version_str (bp_rdk.rd_kafka_version_str)
#endif

#endif /* BP_RDK_H */
