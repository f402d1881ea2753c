/*
 * audit_cluster.h - everything bp-audit reads from the cluster, without
 * joining any group: metadata, watermarks and the last records of every
 * partition (simple consumer API, nothing committed) on one client; the
 * bucket groups (listed, described, their committed offsets) through an
 * admin client per round.
 */
#ifndef AUDIT_CLUSTER_H
#define AUDIT_CLUSTER_H

#include <librdkafka/rdkafka.h>

#include "audit_model.h"
#include "audit_props.h"

typedef struct audit_cluster {
        rd_kafka_t *rk;         /**< Metadata, offsets, records. */
        rd_kafka_conf_t *conf;  /**< Its configuration, for admin. */
        rd_kafka_t *admin;      /**< Group requests (one per round). */
        int timeout_ms;
        int abandoned; /**< A group request got no answer in time. */
        int no_groups_api; /**< The cluster cannot list groups. */
        char cause[1024];  /**< The last authentication or TLS error
                            *   librdkafka reported ("" if none): what a
                            *   timeout hides. */
} audit_cluster_t;

/** Creates the client from the connection and security properties of
 *  \p props. Returns 0, or -1 with \p err naming the property. */
int audit_cluster_open(audit_cluster_t *c, const audit_props_t *props,
                       int timeout_ms, char *err, size_t err_size);

/** The partition count of \p topic, or -1 with \p err saying why and
 *  \p *status AUDIT_BAD_INPUT (the topic does not exist) or
 *  AUDIT_NOT_CHECKED (authentication failed, no Describe on the topic,
 *  the cluster not answering within the timeout). */
int32_t audit_cluster_partitions(audit_cluster_t *c, const char *topic,
                                 int *status, char *err, size_t err_size);

/** Low and high watermark of every partition. */
void audit_cluster_watermarks(audit_cluster_t *c, audit_t *a);

/** Reads the last \p records records of every partition and counts their
 *  keys (audit_count_key()). */
void audit_cluster_routing(audit_cluster_t *c, audit_t *a, int records);

/** During a layout change (a->change): the end offsets and the groups'
 *  committed offsets read again, at the end of the audit, so that ends
 *  that move and commits that advance are seen. */
void audit_cluster_change_reread(audit_cluster_t *c, audit_t *a);

/** Reads group \p g's committed offsets into \p out (one per
 *  partition); what could not be read becomes an "unchecked" finding
 *  naming the cause (audit_groups.c reads them for every group). */
void audit_cluster_read_offsets(audit_cluster_t *c, audit_t *a, int g,
                                int64_t *out);

void audit_cluster_close(audit_cluster_t *c);

#endif /* AUDIT_CLUSTER_H */
