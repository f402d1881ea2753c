/*
 * bp_mapping.c - the ascending partition set of a consumer's buckets.
 */
#include "bp_mapping.h"

int32_t bp_mapping_partitions(const bp_layout_t *l,
                              const int *buckets,
                              int n,
                              int32_t *out) {
        int32_t p, cnt = 0;
        int k;

        /* Walk the partitions in order so B comes out ascending even when
         * several buckets are served (the stable layout interleaves). */
        for (p = 0; p < l->partition_cnt; p++)
                for (k = 0; k < n; k++)
                        if (l->bucket_of[p] == buckets[k]) {
                                out[cnt++] = p;
                                break;
                        }
        return cnt;
}
