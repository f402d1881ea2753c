/*
 * bp_classic.h - the classic mapping strategy: a bucket consumer on the
 * classic group protocol maps the group's assignment, read as indexes,
 * onto its buckets' partitions (the algorithm: bp_classic.c).
 */
#ifndef BP_CLASSIC_H
#define BP_CLASSIC_H

#include "bp_rdk.h"

#include "bp_client.h"

/*
 * Each entry takes \p bucket_topic, whether the list holds a partition of
 * the bucket topic, as the decision found it (bp_rebalance.c).
 */

/**
 * bp_assignment_map() on the classic protocol: the list to assign for
 * \p partitions as the group gave them (start offsets decided, the held
 * set updated), a copy when there is nothing to map (no bucket, another
 * topic, a list already mapped in this rebalance), or NULL with
 * \p errstr set. \p c may be NULL (a client without the plugin).
 */
rd_kafka_topic_partition_list_t *
bp_classic_map(bp_client_t *c,
               rd_kafka_t *rk,
               const rd_kafka_topic_partition_list_t *partitions,
               int bucket_topic,
               char *errstr,
               size_t errstr_size);

/**
 * The plugin's own rebalance callback on the classic protocol: assigns
 * the mapped list, or nothing (revocation, error, no layout).
 */
void bp_classic_rebalance(bp_client_t *c,
                          rd_kafka_t *rk,
                          rd_kafka_resp_err_t err,
                          rd_kafka_topic_partition_list_t *partitions,
                          int bucket_topic);

/**
 * In front of the application's rebalance callback on the classic
 * protocol: hands it the mapped list, and on revocation the partitions
 * it holds, which it assigns or unassigns itself.
 */
void bp_classic_chain(bp_client_t *c,
                      rd_kafka_t *rk,
                      rd_kafka_resp_err_t err,
                      rd_kafka_topic_partition_list_t *partitions,
                      int bucket_topic,
                      void *opaque);

#endif /* BP_CLASSIC_H */
