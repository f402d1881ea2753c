/*
 * bench_priority_kip848.c - the version check of the KIP-848 designs and
 * the bucket partitions of the stable layout (the layout math of shared/,
 * the same the plugin computes).
 */
#include "bench_priority_kip848.h"

#include <stdio.h>

#include <librdkafka/rdkafka.h>

#include "bp_layout.h"

int bpb_kip848_available(char *why, size_t why_size) {
        if (rd_kafka_version() >= BPB_KIP848_MIN_VERSION)
                return 1;
        snprintf(why, why_size,
                 "librdkafka %s has no KIP-848 consumer "
                 "(group.protocol=consumer needs librdkafka 2.12 or later)",
                 rd_kafka_version_str());
        return 0;
}

uint64_t bpb_stable_bucket_mask(int critical_share, int partitions, int cls) {
        uint32_t allocation[2];
        uint8_t bucket_of[64];
        uint64_t mask = 0;
        int p;

        if (partitions > 64)
                partitions = 64;
        allocation[0] = (uint32_t)critical_share * (BP_ALLOCATION_UNITS / 100);
        allocation[1] = BP_ALLOCATION_UNITS - allocation[0];
        bp_layout_stable_assign(allocation, 2, partitions, bucket_of);
        for (p = 0; p < partitions; p++)
                if (bucket_of[p] == cls)
                        mask |= 1ull << p;
        return mask;
}
