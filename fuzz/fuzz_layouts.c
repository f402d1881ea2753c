/*
 * fuzz_layouts.c - the layout checks of the fuzz_config target: both
 * layouts computed for a few partition counts from a complete
 * configuration, and a layout change's plan at each count (see the
 * invariants listed in fuzz_config.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bp_change.h"
#include "fuzz_check.h"

/* Consistency shared by both layouts. */
static void check_layout_common(const bp_layout_t *l, int n, int32_t P) {
        int32_t tally[BP_MAX_BUCKETS] = {0}, p, sum = 0, i;
        int b;

        CHECK(l->partition_cnt == P);
        CHECK(l->bucket_cnt == n);
        for (p = 0; p < P; p++) {
                CHECK(l->bucket_of[p] < n);
                tally[l->bucket_of[p]]++;
        }
        for (b = 0; b < n; b++) {
                CHECK(l->count[b] == tally[b]);
                CHECK(l->first[b] == sum);
                sum += l->count[b];
                for (i = 0; i < l->count[b]; i++) {
                        int32_t part = l->partitions[l->first[b] + i];
                        CHECK(part >= 0 && part < P);
                        CHECK(l->bucket_of[part] == b);
                        if (i > 0)
                                CHECK(part > l->partitions[l->first[b] + i - 1]);
                }
        }
        CHECK(sum == P);
}

static void check_contiguous(const bp_config_t *cfg, const bp_layout_t *l,
                             int32_t P) {
        int n = cfg->bucket_cnt, order[BP_MAX_BUCKETS], rank[BP_MAX_BUCKETS];
        int32_t ref[BP_MAX_BUCKETS], p, ref_sum = 0;
        int b, all_ref = 1;

        check_layout_common(l, n, P);
        bp_layout_priority_order(cfg->allocation, n, order);
        for (b = 0; b < n; b++)
                rank[order[b]] = b;
        for (b = 0; b < n; b++) {
                CHECK(l->count[b] >= 1);
                /* Priority order: allocation descending, ties in order. */
                if (b > 0) {
                        uint32_t hi = cfg->allocation[order[b - 1]],
                                 lo = cfg->allocation[order[b]];
                        CHECK(hi > lo || (hi == lo && order[b - 1] < order[b]));
                }
        }
        for (p = 1; p < P; p++)
                CHECK(rank[l->bucket_of[p - 1]] <= rank[l->bucket_of[p]]);

        bp_layout_reference_sizes(cfg->allocation, n, P, ref);
        for (b = 0; b < n; b++) {
                CHECK(ref[b] >= 0 && ref[b] <= P);
                ref_sum += ref[b];
                if (ref[b] == 0)
                        all_ref = 0;
        }
        CHECK(ref_sum == P);
        if (all_ref)
                for (b = 0; b < n; b++)
                        CHECK(l->count[b] == ref[b]);
}

/* |count * UNITS - share * q| < UNITS for every bucket. */
static void check_quota(const uint32_t *held, const uint32_t *alloc, int n,
                        int64_t q) {
        int b;
        for (b = 0; b < n; b++) {
                int64_t lag = (int64_t)held[b] * BP_ALLOCATION_UNITS -
                              (int64_t)alloc[b] * q;
                CHECK(lag < (int64_t)BP_ALLOCATION_UNITS &&
                      lag > -(int64_t)BP_ALLOCATION_UNITS);
        }
}

/* The largest stable layout: every prefix, and the minimum count. */
static void check_stable_walk(const bp_config_t *cfg, const bp_layout_t *l) {
        int n = cfg->bucket_cnt, b, empty = n;
        uint32_t held[BP_MAX_BUCKETS] = {0}, least = BP_ALLOCATION_UNITS;
        int32_t p, first_full = -1, min;

        for (p = 0; p < l->partition_cnt; p++) {
                if (held[l->bucket_of[p]]++ == 0 && --empty == 0)
                        first_full = p + 1;
                check_quota(held, cfg->allocation, n, p + 1);
        }
        /* bp_layout_stable_min() walks up to ceil(1 / least share)
         * partitions: only when that is short. */
        for (b = 0; b < n; b++)
                if (cfg->allocation[b] < least)
                        least = cfg->allocation[b];
        if ((BP_ALLOCATION_UNITS + least - 1) / least > 4 * MAX_P)
                return;
        min = bp_layout_stable_min(cfg->allocation, n);
        CHECK(min >= n);
        CHECK(min <= (int32_t)((BP_ALLOCATION_UNITS + least - 1) / least));
        if (first_full > 0)
                CHECK(min == first_full);
        else
                CHECK(min > l->partition_cnt);
}

/* Whether partition \p p, written by current bucket \p b at step \p s,
 * is read by b then (\p r, the layout read at s), or by the bucket b's
 * records go to after the change (a bucket removed into its fallback,
 * whose partition the fallback's consumers take over while b still writes
 * to it: bp_change_drain() leaves it undrained). */
static int read_by_or_for(const bp_change_plan_t *pl, const bp_layout_t *r,
                          int b, int32_t p, int s) {
        int next_bucket, t = pl->target[b];
        int reader = bp_change_reader(pl, s, p, &next_bucket);

        CHECK(reader == r->bucket_of[p]);
        if (reader == b)
                return 1;
        if (t < 0 || pl->to->bucket_of[p] != t)
                return 0;
        return pl->same[t] >= 0 ? reader == pl->same[t]
                                : reader == BP_LAYOUT_NOBODY &&
                                      next_bucket == t;
}

/* A layout change's plan at \p P: every step's routing writes each bucket
 * only to partitions it reads at that step, or that the bucket its records
 * go to after the change reads (in a 5-step plan, from step 3
 * a homeless bucket writes to the partitions it gains, which it reads
 * since step 2: not to its partitions of the current layout; a refused
 * plan stays at step 1), every reader is a bucket or nobody, drains only
 * at consumer steps. */
static void check_change(const bp_config_t *cfg, int32_t P, char *err,
                         size_t errsz) {
        bp_change_plan_t *pl = bp_change_plan_new(cfg, P, err, errsz);
        uint8_t *drain;
        int s, b;
        int32_t i, p;

        if (!pl) {
                CHECK(fuzz_terminated(err, errsz));
                return;
        }
        CHECK(pl->step_cnt == 3 || pl->step_cnt == 5);
        drain = malloc((size_t)P);
        CHECK(drain);
        for (s = 1; s <= pl->step_cnt; s++) {
                /* A refused plan is not followed past step 1: producers
                 * route and consumers read as at step 1 (the plugin's
                 * bp_client_layout.c). */
                bp_layout_t *w = bp_change_route_layout(pl, s);
                bp_layout_t *r =
                    bp_change_read_layout(pl, pl->refused[0] ? 1 : s);
                CHECK(w && r);
                for (b = 0; b < cfg->bucket_cnt; b++)
                        for (i = 0; i < w->count[b]; i++) {
                                p = w->partitions[w->first[b] + i];
                                CHECK(p >= 0 && p < P);
                                CHECK(read_by_or_for(pl, r, b, p,
                                                     pl->refused[0] ? 1 : s));
                        }
                for (p = 0; p < P; p++)
                        CHECK(r->bucket_of[p] < cfg->bucket_cnt ||
                              r->bucket_of[p] == BP_LAYOUT_NOBODY);
                if (bp_change_step_kind(pl, s) == BP_STEP_PRODUCERS)
                        CHECK(bp_change_drain(pl, s, drain) == 0);
                else
                        CHECK(bp_change_drain(pl, s, drain) <= P);
                bp_layout_destroy(w);
                bp_layout_destroy(r);
        }
        free(drain);
        bp_change_plan_destroy(pl);
}

void fuzz_check_layouts(const bp_config_t *base, const int32_t *counts,
                          int count_cnt, size_t errsz) {
        bp_config_t cfg = *base;
        bp_layout_t *l, *big;
        int32_t maxP = 0, P;
        char *err = malloc(errsz);
        int kind, i;

        CHECK(err);
        for (i = 0; i < count_cnt; i++)
                if (counts[i] > maxP)
                        maxP = counts[i];

        for (kind = 0; kind < 2; kind++) {
                cfg.layout = kind ? BP_LAYOUT_STABLE : BP_LAYOUT_CONTIGUOUS;
                big        = NULL;
                if (kind) {
                        big = bp_layout_compute(&cfg, maxP, err, errsz);
                        CHECK(big);
                        check_layout_common(big, cfg.bucket_cnt, maxP);
                        check_stable_walk(&cfg, big);
                }
                for (i = 0; i < count_cnt; i++) {
                        P = counts[i];
                        l = bp_layout_compute(&cfg, P, err, errsz);
                        if (!kind && P < cfg.bucket_cnt) {
                                CHECK(!l);
                                CHECK(fuzz_terminated(err, errsz));
                                continue;
                        }
                        CHECK(l);
                        if (kind) {
                                check_layout_common(l, cfg.bucket_cnt, P);
                                CHECK(!memcmp(l->bucket_of, big->bucket_of,
                                              (size_t)P));
                        } else {
                                check_contiguous(&cfg, l, P);
                        }
                        bp_layout_destroy(l);
                }
                bp_layout_destroy(big);
        }

        if (base->next.set)
                for (i = 0; i < count_cnt; i++)
                        check_change(base, counts[i], err, errsz);

        /* Out of range counts are refused, never computed. */
        CHECK(!bp_layout_compute(&cfg, 0, err, errsz));
        CHECK(!bp_layout_compute(&cfg, -1, err, errsz));
        CHECK(!bp_layout_compute(&cfg, BP_MAX_PARTITIONS + 1, err, errsz));
        CHECK(fuzz_terminated(err, errsz));
        free(err);
}
