/*
 * test_bench_gaps.c - the figures of bp-bench-priority's rebalance
 * measurement (bench/bench_priority_gaps.c) on notes with known answers,
 * and the bucket partitions it assumes a KIP-848 bucket consumer reads
 * (bench/bench_priority_kip848.c) against the plugin's own layout math.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "bench_priority_gaps.h"
#include "bench_priority_kip848.h"
#include "bp_config.h"
#include "bp_layout.h"

#define MS 1000 /* us */

static void note(bpb_gaps_t *g, int p, int64_t sent_ms, int64_t read_ms) {
        bpb_gaps_note(g, p, sent_ms * MS, read_ms * MS);
}

/* Two partitions read every 100 ms; partition 1 is last read at 955 ms,
 * then its records sent at 1050 and 1150 wait until 3000 ms while
 * partition 0 goes on: a partition gap of 1950 ms (from the first waiting
 * record), no bucket gap over the 100 ms rhythm, one partition stalled.
 * The notes come out of order. */
static void one_partition_stops(void **state) {
        bpb_gaps_t g;
        bpb_gap_figures_t f;
        int64_t from = 0;
        int t;

        (void)state;
        assert_int_equal(bpb_gaps_init(&g, 4), 0); /* grows */
        for (t = 2900; t >= 0; t -= 100)
                note(&g, 0, t, t + 5);
        for (t = 0; t < 1000; t += 100)
                note(&g, 1, t + 50, t + 55);
        note(&g, 1, 1150, 3001); /* queued behind 1050: adds nothing */
        note(&g, 1, 1050, 3000);
        assert_int_equal(bpb_gaps_figures(&g, &from, 1, &f), 0);
        assert_true(f.part_gap_ms > 1949.0 && f.part_gap_ms < 1951.0);
        assert_int_equal(f.part_gap_partition, 1);
        assert_true(f.part_gap_end_us == 3000 * MS);
        assert_true(f.bucket_gap_ms <= 100.0);
        assert_int_equal(f.parts_stalled, 1);
        assert_int_equal(f.parts_read, 2);
        bpb_gaps_free(&g);
}

/* The whole bucket stops from 500 to 1700 ms: a bucket gap from the first
 * record waiting (sent at 600) to the first read after it (1700); split
 * into stretches at 1000 ms, the gap belongs to the stretch it ended in. */
static void bucket_stops_stretches(void **state) {
        bpb_gaps_t g;
        bpb_gap_figures_t f[2];
        int64_t from[2] = {0, 1000 * MS};

        (void)state;
        assert_int_equal(bpb_gaps_init(&g, 16), 0);
        note(&g, 0, 100, 110);
        note(&g, 1, 200, 210);
        note(&g, 0, 300, 310);
        note(&g, 1, 600, 1700);
        note(&g, 0, 650, 1750);
        note(&g, 1, 1800, 1810);
        assert_int_equal(bpb_gaps_figures(&g, from, 2, f), 0);
        assert_true(f[0].part_gap_ms < 20.0);
        assert_int_equal(f[0].parts_stalled, 0);
        assert_true(f[1].bucket_gap_ms > 1099.0 && f[1].bucket_gap_ms < 1101.0);
        assert_true(f[1].part_gap_ms > 1099.0 && f[1].part_gap_ms < 1101.0);
        assert_int_equal(f[1].parts_stalled, 2);
        assert_int_equal(f[1].parts_read, 2);
        bpb_gaps_free(&g);
}

/* No notes: -1, not 0. */
static void nothing_read(void **state) {
        bpb_gaps_t g;
        bpb_gap_figures_t f;
        int64_t from = 0;

        (void)state;
        assert_int_equal(bpb_gaps_init(&g, 0), 0);
        assert_int_equal(bpb_gaps_figures(&g, &from, 1, &f), 0);
        assert_true(f.part_gap_ms < 0 && f.bucket_gap_ms < 0);
        assert_int_equal(f.parts_read, 0);
        bpb_gaps_free(&g);
}

/* The benchmark's mask of a bucket equals the plugin's stable layout for
 * "critical, bulk" at every share and partition count it accepts. */
static void stable_mask_matches_layout(void **state) {
        int share, parts, cls;

        (void)state;
        for (share = 1; share <= 99; share++)
                for (parts = 2; parts <= 64; parts++) {
                        char alloc[32], err[256];
                        bp_config_t cfg;
                        bp_layout_t *l;
                        bp_config_init(&cfg);
                        snprintf(alloc, sizeof(alloc), "%d%%, %d%%", share,
                                 100 - share);
                        assert_int_equal(
                            bp_config_set(&cfg, "bucket.priority.buckets",
                                          "critical, bulk", err, sizeof(err)),
                            BP_SET_OK);
                        assert_int_equal(
                            bp_config_set(&cfg, "bucket.priority.allocation",
                                          alloc, err, sizeof(err)),
                            BP_SET_OK);
                        assert_int_equal(
                            bp_config_set(&cfg, "bucket.priority.layout",
                                          "stable", err, sizeof(err)),
                            BP_SET_OK);
                        l = bp_layout_compute(&cfg, parts, err, sizeof(err));
                        assert_non_null(l);
                        for (cls = 0; cls < 2; cls++) {
                                uint64_t want = 0;
                                int p;
                                for (p = 0; p < parts; p++)
                                        if (l->bucket_of[p] == cls)
                                                want |= 1ull << p;
                                assert_true(bpb_stable_bucket_mask(
                                                share, parts, cls) == want);
                        }
                        bp_layout_destroy(l);
                }
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(one_partition_stops),
            cmocka_unit_test(bucket_stops_stretches),
            cmocka_unit_test(nothing_read),
            cmocka_unit_test(stable_mask_matches_layout),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
