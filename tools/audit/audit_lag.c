/*
 * audit_lag.c - lag per partition and per bucket.
 */
#include "audit_lag.h"

#include "audit_owner.h"

int audit_lag_group(const audit_t *a, int b) {
        int g, first = -1, k;
        int32_t p;

        for (g = 0; g < a->group_cnt; g++) {
                const audit_group_t *grp = &a->groups[g];
                if (!(audit_group_mask(grp) & (1ull << b)))
                        continue;
                if (first < 0)
                        first = g;
                if (grp->member_cnt > 0)
                        return g;
                for (k = 0; k < a->layout->count[b]; k++) {
                        p = a->layout->partitions[a->layout->first[b] + k];
                        if (grp->committed[p] >= 0)
                                return g;
                }
        }
        return first;
}

int64_t audit_partition_lag(const audit_t *a, int g, int32_t p,
                            int *uncommitted) {
        const audit_partition_t *pt = &a->parts[p];
        int64_t c;

        *uncommitted = 0;
        if (g < 0 || !a->groups[g].offsets_read || pt->high < 0)
                return -1;
        c = a->groups[g].committed[p];
        if (c < 0) {
                *uncommitted = 1;
                return pt->high - pt->low;
        }
        return c < pt->high ? pt->high - c : 0;
}

int64_t audit_bucket_lag(const audit_t *a, int b, int *uncommitted) {
        int g = audit_lag_group(a, b), k, unc;
        int64_t sum = 0, lag;

        *uncommitted = 0;
        for (k = 0; k < a->layout->count[b]; k++) {
                lag = audit_partition_lag(
                    a, g, a->layout->partitions[a->layout->first[b] + k], &unc);
                if (lag < 0)
                        return -1;
                sum += lag;
                *uncommitted += unc;
        }
        return sum;
}
