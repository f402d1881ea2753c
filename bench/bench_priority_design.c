/*
 * bench_priority_design.c - the names of the designs and stretches, and
 * what a design number says (kind, protocol).
 */
#include "bench_priority_design.h"

int bpb_kind(int d) { return d % BPB_KINDS; }

int bpb_kip848(int d) { return d >= BPB_KINDS; }

const char *const bpb_design_name[BPB_DESIGNS] = {
    "shared", "buckets", "topics", "shared-848", "buckets-848", "topics-848"};
const char *const bpb_stretch_name[BPB_STRETCHES] = {
    "before the join", "join to leave", "after the leave"};
const char *const bpb_design_title[BPB_DESIGNS] = {
    "(a) one topic, one group",         "(b) bucket priority",
    "(c) topic per class",              "(a) one topic, one group, KIP-848",
    "(b) bucket priority, KIP-848",     "(c) topic per class, KIP-848"};
