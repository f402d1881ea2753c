/*
 * audit_classify.h - the routing check's judgement of one record: does its
 * key name the bucket of the partition it was found in?
 */
#ifndef AUDIT_CLASSIFY_H
#define AUDIT_CLASSIFY_H

#include <stddef.h>

#include "audit_model.h"

/** Classifies \p key found in partition \p partition of \p a's topic. */
audit_key_class_t audit_classify_key(const audit_t *a, int32_t partition,
                                     const void *key, size_t keylen);

/** Counts \p key in its partition and keeps the first few misrouted keys'
 *  escaped prefixes (at most BP_KEY_PREVIEW_LEN bytes each). */
void audit_count_key(audit_t *a, int32_t partition, const void *key,
                     size_t keylen);

/** Adds the routing findings (misrouted, unknown keys, partitions not
 *  read to their end) once every partition was read. */
void audit_routing_findings(audit_t *a);

#endif /* AUDIT_CLASSIFY_H */
