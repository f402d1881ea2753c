/*
 * bench_priority_kip848.h - what the designs on the next generation group
 * protocol (KIP-848, group.protocol=consumer) need beyond the classic
 * ones: whether the librdkafka in use has the protocol, and which
 * partitions a bucket consumer reads when the broker assigns it the whole
 * topic (keep-and-pause, docs/consumer.md).
 */
#ifndef BENCH_PRIORITY_KIP848_H
#define BENCH_PRIORITY_KIP848_H

#include <stddef.h>
#include <stdint.h>

/** librdkafka's first version with the KIP-848 consumer (2.12.0). */
#define BPB_KIP848_MIN_VERSION 0x020c0000

/** 1 when the librdkafka loaded has the KIP-848 consumer; 0 with \p why
 *  saying which version is loaded and which one is needed. */
int bpb_kip848_available(char *why, size_t why_size);

/**
 * The partitions of bucket \p cls (0 critical, 1 bulk) under the stable
 * layout with allocation \p critical_share %, 100 - \p critical_share %
 * over \p partitions partitions, as a mask (bit p: partition p).
 */
uint64_t bpb_stable_bucket_mask(int critical_share, int partitions, int cls);

#endif /* BENCH_PRIORITY_KIP848_H */
