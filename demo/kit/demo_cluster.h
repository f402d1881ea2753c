/*
 * demo_cluster.h - where the demo's records live: librdkafka's embedded
 * mock cluster (the default, no broker needed) or a real cluster given by
 * --brokers, where topics are created, grown and deleted with the Admin
 * API.
 */
#ifndef DEMO_CLUSTER_H
#define DEMO_CLUSTER_H

#include <stddef.h>

#include <librdkafka/rdkafka.h>

#include "testkit.h"

typedef struct demo_cluster {
        rd_kafka_t *rk; /**< Mock owner or admin client. */
        tk_mock_t mock; /**< The test kit's; mock.mcluster NULL on a real
                         *   cluster. */
        char bootstraps[1024];
} demo_cluster_t;

/**
 * Starts a one-broker mock cluster (\p brokers NULL) or connects an admin
 * client to \p brokers. @returns 0, or -1 with \p err filled.
 */
int demo_cluster_start(demo_cluster_t *cl, const char *brokers, char *err,
                       size_t err_size);

/** Creates \p topic with \p partitions partitions and waits until the
 *  cluster's metadata shows them. @returns 0, or -1 with \p err filled. */
int demo_cluster_create_topic(demo_cluster_t *cl, const char *topic,
                              int partitions, char *err, size_t err_size);

/** Real cluster only: grows \p topic to \p total partitions
 *  (CreatePartitions) and waits until the metadata shows them. */
int demo_cluster_add_partitions(demo_cluster_t *cl, const char *topic,
                                int total, char *err, size_t err_size);

/** Real cluster only: deletes \p topic (nothing to do on the mock). */
int demo_cluster_delete_topic(demo_cluster_t *cl, const char *topic,
                              char *err, size_t err_size);

/** Stops the mock cluster or closes the admin client. */
void demo_cluster_stop(demo_cluster_t *cl);

#endif /* DEMO_CLUSTER_H */
