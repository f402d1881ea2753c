/*
 * audit_owner.h - ownership as it really is: each bucket group member's
 * assigned indexes passed through the mapping the bucket consumers apply
 * (shared/bp_mapping.h) on the classic protocol, or, on the consumer
 * protocol (KIP-848), the broker's partitions kept as they are, those of
 * other buckets held paused ("held, not read"); and the flags drawn from
 * it.
 */
#ifndef AUDIT_OWNER_H
#define AUDIT_OWNER_H

#include "audit_model.h"

/** Bit b set for each bucket b group \p g serves. */
uint64_t audit_group_mask(const audit_group_t *g);

/**
 * Works out which partitions each member of the described groups reads
 * (and, on the consumer protocol, holds without reading: no finding),
 * and adds the ownership findings: members that are not bucket consumers
 * (their group committed offsets on partitions outside its buckets, at
 * their assigned indexes: they read indexes as partitions), idle members,
 * buckets no member reads, bucket partitions no member reads, partitions
 * read by two members, and commits left outside the groups' buckets.
 */
void audit_owner_judge(audit_t *a);

#endif /* AUDIT_OWNER_H */
