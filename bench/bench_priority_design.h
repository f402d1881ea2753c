/*
 * bench_priority_design.h - the designs bp-bench-priority compares: a
 * kind, (a) one topic and group, (b) bucket priority or (c) a topic per
 * class, on a group protocol, classic or KIP-848 (group.protocol=consumer),
 * with their names; and the stretches of a run with --rebalance.
 */
#ifndef BENCH_PRIORITY_DESIGN_H
#define BENCH_PRIORITY_DESIGN_H

/* A design: its kind (a, b, c) on one group protocol; the first three run
 * on the classic protocol, the last three on KIP-848. */
enum {
        BPB_SHARED = 0,
        BPB_BUCKETS,
        BPB_TOPICS,
        BPB_KINDS,
        BPB_SHARED_848 = BPB_KINDS,
        BPB_BUCKETS_848,
        BPB_TOPICS_848,
        BPB_DESIGNS
};

/** Stretches of a run with --rebalance: before the join, from the join to
 *  the leave, after the leave. */
enum { BPB_STEADY = 0, BPB_AT_JOIN, BPB_AT_LEAVE, BPB_STRETCHES };

/** BPB_SHARED, BPB_BUCKETS or BPB_TOPICS: the kind of design \p d. */
int bpb_kind(int d);
/** 1 when design \p d runs its consumers with group.protocol=consumer. */
int bpb_kip848(int d);

/** "shared", "buckets", "topics", "shared-848", ... */
extern const char *const bpb_design_name[BPB_DESIGNS];
/** "(a) one topic, one group", ... for tables. */
extern const char *const bpb_design_title[BPB_DESIGNS];
/** "before the join", "join to leave", "after the leave". */
extern const char *const bpb_stretch_name[BPB_STRETCHES];

#endif /* BENCH_PRIORITY_DESIGN_H */
