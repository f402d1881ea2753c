/*
 * bp_fallback.h - what a bucket.priority.fallback.partitioner value names:
 * "discard", a built-in partitioner (librdkafka's names, or the Java
 * reference's class names mapped to them), or else a bucket.
 */
#ifndef BP_FALLBACK_H
#define BP_FALLBACK_H

#include "bp_config.h"

/**
 * Sets \p kind (and \p builtin for BP_FALLBACK_BUILTIN) for fallback value
 * \p v. A value that is neither "discard" nor a partitioner is taken for a
 * bucket name (BP_FALLBACK_BUCKET), checked against the buckets by the
 * caller.
 */
void bp_fallback_classify(const char *v,
                          bp_fallback_kind_t *kind,
                          bp_builtin_t *builtin);

/** Name of a built-in partitioner as librdkafka spells it, "?" if none. */
const char *bp_builtin_name(bp_builtin_t b);

#endif /* BP_FALLBACK_H */
