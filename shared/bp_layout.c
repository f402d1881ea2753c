/*
 * bp_layout.c - building a layout object from either layout's assignment
 * (bp_layout_contiguous.c, bp_layout_stable.c).
 */
#include "bp_layout.h"
#include "bp_properties.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Contiguous: bucket ranges in priority order, sizes from the reference,
 * then every empty bucket takes one partition from the largest bucket. */
static void contiguous_assign(const uint32_t *allocation, int n,
                              int32_t partition_cnt, uint8_t *bucket_of) {
        int order[BP_MAX_BUCKETS], k, largest;
        int32_t sizes[BP_MAX_BUCKETS], at = 0, p;

        bp_layout_priority_order(allocation, n, order);
        bp_layout_reference_sizes(allocation, n, partition_cnt, sizes);
        for (k = 0; k < n; k++) {
                if (sizes[order[k]] > 0)
                        continue;
                /* Largest bucket, the lowest priority one on ties, so the
                 * critical bucket keeps its partitions when it can. */
                largest = order[0];
                for (int m = 1; m < n; m++)
                        if (sizes[order[m]] >= sizes[largest])
                                largest = order[m];
                sizes[largest]--;
                sizes[order[k]]++;
        }
        for (k = 0; k < n; k++)
                for (p = 0; p < sizes[order[k]]; p++)
                        bucket_of[at++] = (uint8_t)order[k];
}

bp_layout_t *bp_layout_compute(const bp_config_t *cfg,
                               int32_t partition_cnt,
                               char *errstr,
                               size_t errstr_size) {
        bp_layout_t *l;
        int n = cfg->bucket_cnt, b;
        int32_t p, fill[BP_MAX_BUCKETS];
        uint32_t alloc[BP_MAX_BUCKETS];

        if (n == 0 || cfg->allocation_cnt != n) {
                snprintf(errstr, errstr_size,
                         "no buckets configured (bucket.priority.buckets and "
                         BP_PROP_ALLOCATION ")");
                return NULL;
        }
        if (partition_cnt <= 0 || partition_cnt > BP_MAX_PARTITIONS) {
                snprintf(errstr, errstr_size,
                         "partition count %d is outside 1..%d",
                         (int)partition_cnt, BP_MAX_PARTITIONS);
                return NULL;
        }
        if (cfg->layout == BP_LAYOUT_CONTIGUOUS && partition_cnt < n) {
                snprintf(errstr, errstr_size,
                         "%s%s%s has %d partition%s but %d buckets are "
                         "configured; the contiguous layout needs at least "
                         "one partition per bucket: add partitions to the "
                         "topic",
                         cfg->topic[0] ? "topic \"" : "the topic",
                         cfg->topic, cfg->topic[0] ? "\"" : "",
                         (int)partition_cnt, partition_cnt == 1 ? "" : "s", n);
                return NULL;
        }
        for (b = 0; b < n; b++)
                alloc[b] = cfg->allocation[b];

        l = calloc(1, sizeof(*l) + (size_t)partition_cnt *
                                       (sizeof(int32_t) + sizeof(uint8_t)));
        if (!l) {
                snprintf(errstr, errstr_size, "out of memory");
                return NULL;
        }
        l->partition_cnt = partition_cnt;
        l->bucket_cnt    = n;
        l->partitions    = (int32_t *)(l + 1);
        l->bucket_of     = (uint8_t *)(l->partitions + partition_cnt);

        if (cfg->layout == BP_LAYOUT_CONTIGUOUS)
                contiguous_assign(alloc, n, partition_cnt, l->bucket_of);
        else
                bp_layout_stable_assign(alloc, n, partition_cnt, l->bucket_of);

        for (p = 0; p < partition_cnt; p++)
                l->count[l->bucket_of[p]]++;
        for (b = 1; b < n; b++)
                l->first[b] = l->first[b - 1] + l->count[b - 1];
        memcpy(fill, l->first, sizeof(fill));
        for (p = 0; p < partition_cnt; p++)
                l->partitions[fill[l->bucket_of[p]]++] = p;
        return l;
}

void bp_layout_destroy(bp_layout_t *layout) {
        free(layout);
}
