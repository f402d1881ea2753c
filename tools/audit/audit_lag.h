/*
 * audit_lag.h - lag per partition and per bucket from the bucket groups'
 * committed offsets and the partitions' end offsets.
 */
#ifndef AUDIT_LAG_H
#define AUDIT_LAG_H

#include "audit_model.h"

/**
 * The group whose commits count for bucket \p b: the first group serving
 * b that has members or committed offsets on b's partitions, else the
 * first group serving b; -1 if none.
 */
int audit_lag_group(const audit_t *a, int b);

/**
 * Lag of partition \p p for group \p g: end offset minus committed offset,
 * or, when the group committed nothing there, every record in the
 * partition (*uncommitted set to 1). -1 when the offsets are unknown.
 */
int64_t audit_partition_lag(const audit_t *a, int g, int32_t p,
                            int *uncommitted);

/** Sum of audit_partition_lag() over bucket \p b's partitions for its
 *  lag group; -1 when unknown. *uncommitted counts partitions with no
 *  commit. */
int64_t audit_bucket_lag(const audit_t *a, int b, int *uncommitted);

#endif /* AUDIT_LAG_H */
