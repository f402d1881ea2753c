/*
 * bench_priority_gaps.h - how long the critical partitions went unread:
 * every critical record a worker handles is noted (partition, produce
 * time, handling time), and after the run the notes give
 *
 *   partition gap  for each record r of partition p,
 *                  handled(r) - max(produced(r), the previous record of p
 *                  handled before r); the longest over the run is the
 *                  longest time a critical partition held a waiting record
 *                  and delivered none (a rebalance that stops p shows here
 *                  in full; records queued behind the first one do not
 *                  add to it);
 *   bucket gap     the same over all critical partitions together: the
 *                  longest time critical records were waiting and not one
 *                  critical record was delivered (the whole bucket stopped).
 *
 * Repeats (a record handled twice around a rebalance) count as reads.
 */
#ifndef BENCH_PRIORITY_GAPS_H
#define BENCH_PRIORITY_GAPS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/** A partition gap over this counts as a stalled partition. */
#define BPB_STALL_MS 500.0
/** Stretches of time the figures are split into, at most. */
#define BPB_MAX_STRETCHES 3

typedef struct bpb_read {
        int32_t partition;
        int64_t produced_us, handled_us;
} bpb_read_t;

typedef struct bpb_gaps {
        pthread_mutex_t lock;
        bpb_read_t *v;
        size_t cnt, cap;
        int oom; /**< A note was dropped: the figures are not computed. */
} bpb_gaps_t;

/** What the notes give for the gaps that ended in one stretch of time
 *  (ms; -1 when no record was handled there). */
typedef struct bpb_gap_figures {
        double part_gap_ms;
        int part_gap_partition;
        int64_t part_gap_end_us;
        double bucket_gap_ms;
        int parts_stalled; /**< Partitions with a gap over BPB_STALL_MS. */
        int parts_read;    /**< Partitions with a record handled. */
} bpb_gap_figures_t;

/** @returns 0, or -1 when out of memory. */
int bpb_gaps_init(bpb_gaps_t *g, size_t expected);
void bpb_gaps_free(bpb_gaps_t *g);

/** A worker handled a critical record (any thread). */
void bpb_gaps_note(bpb_gaps_t *g, int32_t partition, int64_t produced_us,
                   int64_t handled_us);

/**
 * Computes the figures of the records handled up to now, one set per
 * stretch: a gap belongs to stretch i when it ended in [\p from_us[i],
 * \p from_us[i + 1]) (the last one has no end; \p from_us ascending).
 * @returns 0, or -1 when a note was lost or out of memory.
 */
int bpb_gaps_figures(bpb_gaps_t *g, const int64_t *from_us, int stretches,
                     bpb_gap_figures_t *f);

#endif /* BENCH_PRIORITY_GAPS_H */
