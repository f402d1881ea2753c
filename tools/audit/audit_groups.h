/*
 * audit_groups.h - bp-audit's look at the bucket groups on the cluster.
 */
#ifndef AUDIT_GROUPS_H
#define AUDIT_GROUPS_H

#include "audit_cluster.h"

/** Adds the bucket groups (per bucket, and multi-bucket groups found by
 *  listing), describes them and reads their committed offsets. What could
 *  not be read becomes an "unchecked" finding. */
void audit_cluster_groups(audit_cluster_t *c, audit_t *a);

#endif /* AUDIT_GROUPS_H */
