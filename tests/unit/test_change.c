/*
 * test_change.c - the steps of a live layout change (shared/bp_change.c),
 * with no cluster.
 *
 * The safety property is checked by simulation over many changes (both
 * layouts, allocation changes, buckets added and removed, 2..48
 * partitions): at every step, with the clients of the step's kind half
 * rolled (some on the step before, some on the step), every partition that
 * receives records of a bucket is read, by every reader it may have, by
 * that bucket, or (a removed bucket) by the bucket its records belong to
 * after the change. Plus the documented examples, the drained partitions,
 * the refusals and the properties' errors.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp_change.h"
#include "bp_config.h"

static void set_ok(bp_config_t *cfg, const char *name, const char *value) {
        char err[512];
        bp_set_result_t r = bp_config_set(cfg, name, value, err, sizeof(err));
        if (r != BP_SET_OK)
                fail_msg("%s=%s: %s", name, value, err);
}

/* A configuration: "topic", buckets, allocation, layout and the change. */
static void make(bp_config_t *cfg, const char *buckets, const char *alloc,
                 const char *layout, const char *next_buckets,
                 const char *next_alloc, const char *next_layout) {
        bp_config_init(cfg);
        set_ok(cfg, "bucket.priority.topic", "t");
        set_ok(cfg, "bucket.priority.buckets", buckets);
        set_ok(cfg, "bucket.priority.allocation", alloc);
        set_ok(cfg, "bucket.priority.layout", layout);
        if (next_buckets)
                set_ok(cfg, "bucket.priority.next.buckets", next_buckets);
        if (next_alloc)
                set_ok(cfg, "bucket.priority.next.allocation", next_alloc);
        if (next_layout)
                set_ok(cfg, "bucket.priority.next.layout", next_layout);
}

static bp_change_plan_t *plan_of(const bp_config_t *cfg, int32_t p) {
        char err[512];
        bp_change_plan_t *pl = bp_change_plan_new(cfg, p, err, sizeof(err));
        if (!pl)
                fail_msg("plan at %d partitions: %s", (int)p, err);
        return pl;
}

/* Whether records of current bucket w (of cfg) may be read by reader r (a
 * current bucket, or BP_LAYOUT_NOBODY with next bucket nb): by w itself,
 * or by the new home of a removed bucket's records. */
static int may_read(const bp_config_t *cfg, const bp_change_plan_t *pl,
                    int w, int r, int nb) {
        int home = pl->target[w];
        int removed = bp_config_find_bucket(&pl->next, cfg->buckets[w].name,
                                            cfg->buckets[w].name_len) < 0;

        if (r != BP_LAYOUT_NOBODY)
                return r == w || (removed && home >= 0 && pl->same[home] == r);
        return removed && home >= 0 && pl->same[home] < 0 && nb == home;
}

/* Every written partition is read right by every reader it may have while
 * step s rolls: writers and readers of steps s-1 and s. Returns the
 * number of (partition, writer, reader) triples checked. */
static int check_step(const bp_config_t *cfg, const bp_change_plan_t *pl,
                      int s) {
        int checked = 0, ws, rs, w, r, nb;
        int32_t p, i;
        bp_layout_t *route;

        for (ws = s - 1; ws <= s; ws++) {
                if (ws < 1)
                        continue;
                route = bp_change_route_layout(pl, ws);
                assert_non_null(route);
                for (w = 0; w < cfg->bucket_cnt; w++)
                        for (i = 0; i < route->count[w]; i++) {
                                p = route->partitions[route->first[w] + i];
                                assert_int_equal(route->bucket_of[p],
                                                 pl->from->bucket_of[p]);
                                for (rs = s - 1; rs <= s; rs++) {
                                        r = bp_change_reader(
                                            pl, rs < 1 ? 1 : rs, p, &nb);
                                        if (!may_read(cfg, pl, w, r, nb))
                                                fail_msg(
                                                    "step %d of %d at %d "
                                                    "partitions: records of "
                                                    "%s written to %d "
                                                    "(writers of step %d) "
                                                    "read by %d (readers of "
                                                    "step %d)",
                                                    s, pl->step_cnt,
                                                    (int)pl->partition_cnt,
                                                    cfg->buckets[w].name,
                                                    (int)p, ws, r, rs);
                                        checked++;
                                }
                        }
                bp_layout_destroy(route);
        }
        return checked;
}

/* The last step: consumers read the next layout itself. */
static void check_last_step(const bp_change_plan_t *pl) {
        int32_t p;
        int nb, r, c;
        for (p = 0; p < pl->partition_cnt; p++) {
                r = bp_change_reader(pl, pl->step_cnt, p, &nb);
                c = pl->to->bucket_of[p];
                if (r == BP_LAYOUT_NOBODY)
                        assert_int_equal(nb, c);
                else
                        assert_int_equal(pl->same[c], r);
        }
}

/* Every bucket with somewhere to go writes somewhere at every step. */
static void check_routable(const bp_config_t *cfg,
                           const bp_change_plan_t *pl) {
        int s, b;
        for (s = 1; s < pl->step_cnt; s++) {
                bp_layout_t *route = bp_change_route_layout(pl, s);
                for (b = 0; b < cfg->bucket_cnt; b++)
                        if (pl->target[b] >= 0 && pl->from->count[b] > 0 &&
                            !pl->refused[0] && route->count[b] == 0)
                                fail_msg("step %d: bucket %s has nowhere to "
                                         "write at %d partitions",
                                         s, cfg->buckets[b].name,
                                         (int)pl->partition_cnt);
                bp_layout_destroy(route);
        }
}

static const struct change {
        const char *buckets, *alloc, *next_buckets, *next_alloc;
} changes[] = {
    {"critical, bulk", "30, 70", NULL, "50, 50"},
    {"critical, bulk", "70, 30", NULL, "30, 70"},
    {"critical, bulk", "20, 80", NULL, "40, 60"},
    {"critical, bulk", "30, 70", "critical, urgent, bulk", "25, 25, 50"},
    {"critical, bulk", "30, 70", "critical, bulk, batch", "20, 50, 30"},
    {"critical, bulk, batch", "20, 50, 30", "critical, bulk", "20, 80"},
    {"critical, bulk, batch", "20, 50, 30", "critical, batch", "30, 70"},
    {"a, b, c, d", "10, 20, 30, 40", NULL, "40, 30, 20, 10"},
    {"a, b, c", "33, 33, 34", "c, a", "50, 50"},
};

static void test_every_step_reads_right(void **state) {
        const char *layouts[] = {"contiguous", "stable"};
        size_t i, k, m;
        int32_t p;
        int s, checked = 0, plans = 0, five = 0;
        (void)state;

        for (i = 0; i < sizeof(changes) / sizeof(changes[0]); i++)
                for (k = 0; k < 2; k++)
                        for (m = 0; m < 2; m++)
                                for (p = 3; p <= 48; p++) {
                                        bp_config_t cfg;
                                        bp_change_plan_t *pl;
                                        char err[512];
                                        make(&cfg, changes[i].buckets,
                                             changes[i].alloc, layouts[k],
                                             changes[i].next_buckets,
                                             changes[i].next_alloc,
                                             layouts[m]);
                                        pl = bp_change_plan_new(&cfg, p, err,
                                                                sizeof(err));
                                        if (!pl)
                                                continue; /* too few */
                                        plans++;
                                        five += pl->step_cnt == 5;
                                        check_routable(&cfg, pl);
                                        for (s = 1; s < pl->step_cnt &&
                                                    !pl->refused[0];
                                             s++)
                                                checked +=
                                                    check_step(&cfg, pl, s);
                                        check_last_step(pl);
                                        bp_change_plan_destroy(pl);
                                }
        assert_true(plans > 1000);
        assert_true(five > 0); /* homeless buckets were exercised */
        assert_true(checked > 10000);
}

/* The example: 12 partitions, critical, bulk 30/70 to 50/50. The
 * contiguous layout swaps the blocks' ends: critical keeps nothing, so the
 * change takes 5 steps. */
static void test_contiguous_swap_takes_five_steps(void **state) {
        bp_config_t cfg;
        bp_change_plan_t *pl;
        bp_layout_t *r1, *r3, *t;
        uint8_t drain[12];
        (void)state;

        make(&cfg, "critical, bulk", "30, 70", "contiguous", NULL, "50, 50",
             NULL);
        pl = plan_of(&cfg, 12);
        /* now: bulk 0-7, critical 8-11; next: critical 0-5, bulk 6-11 */
        assert_int_equal(pl->from->partitions[pl->from->first[1]], 0);
        assert_int_equal(pl->from->count[1], 8);
        assert_int_equal(pl->to->count[0], 6);
        assert_int_equal(pl->to->partitions[pl->to->first[0]], 0);
        assert_int_equal(pl->step_cnt, 5);
        assert_true(pl->homeless[0]);
        assert_false(pl->homeless[1]);
        assert_string_equal(pl->refused, "");

        r1 = bp_change_route_layout(pl, 1);
        assert_int_equal(r1->count[0], 4); /* critical stays on 8-11 */
        assert_int_equal(r1->partitions[r1->first[0]], 8);
        assert_int_equal(r1->count[1], 2); /* bulk keeps 6-7 only */
        assert_int_equal(r1->partitions[r1->first[1]], 6);
        /* step 2 reads: critical 0-5 and 8-11, bulk 6-7 */
        t = bp_change_read_layout(pl, 2);
        assert_int_equal(t->count[0], 10);
        assert_int_equal(t->count[1], 2);
        /* step 3: critical moves to the partitions bulk handed over */
        r3 = bp_change_route_layout(pl, 3);
        assert_int_equal(r3->count[0], 6);
        assert_int_equal(r3->partitions[r3->first[0]], 0);
        assert_int_equal(bp_change_drain(pl, 2, drain), 6); /* 0-5 */
        assert_int_equal(drain[0], 1);
        assert_int_equal(drain[5], 1);
        assert_int_equal(drain[8], 0);
        assert_int_equal(bp_change_drain(pl, 4, drain), 4); /* 8-11 */
        assert_int_equal(drain[8], 1);
        assert_int_equal(drain[0], 0);
        assert_int_equal(bp_change_drain(pl, 3, drain), 0); /* producers */
        assert_int_equal(bp_change_step_kind(pl, 3), BP_STEP_PRODUCERS);
        assert_int_equal(bp_change_step_kind(pl, 4), BP_STEP_CONSUMERS);
        bp_layout_destroy(r1);
        bp_layout_destroy(r3);
        bp_layout_destroy(t);
        bp_change_plan_destroy(pl);
}

/* The stable layout keeps both buckets housed here: 3 steps, and only the
 * moved partitions are drained. */
static void test_stable_change_takes_three_steps(void **state) {
        bp_config_t cfg;
        bp_change_plan_t *pl;
        uint8_t drain[12];
        int32_t p, moved = 0;
        (void)state;

        make(&cfg, "critical, bulk", "30, 70", "stable", NULL, "50, 50", NULL);
        pl = plan_of(&cfg, 12);
        assert_int_equal(pl->step_cnt, 3);
        for (p = 0; p < 12; p++)
                moved += pl->from->bucket_of[p] != pl->to->bucket_of[p];
        assert_true(moved > 0);
        assert_int_equal(bp_change_drain(pl, 2, drain), moved);
        bp_change_plan_destroy(pl);
}

/* A removed bucket's records go to the partitions it holds now that its
 * fallback gets, so its consumers read them until they stop. */
static void test_removed_bucket_merges_into_fallback(void **state) {
        bp_config_t cfg;
        bp_change_plan_t *pl;
        bp_layout_t *r1;
        int32_t i, p;
        (void)state;

        make(&cfg, "critical, bulk, batch", "20, 50, 30", "contiguous",
             "critical, bulk", "20, 80", NULL);
        pl = plan_of(&cfg, 12);
        assert_int_equal(pl->target[2], 1); /* batch -> bulk, the last */
        r1 = bp_change_route_layout(pl, 1);
        assert_true(r1->count[2] > 0);
        for (i = 0; i < r1->count[2]; i++) {
                p = r1->partitions[r1->first[2] + i];
                assert_int_equal(pl->from->bucket_of[p], 2);
                assert_int_equal(pl->to->bucket_of[p], 1);
        }
        bp_layout_destroy(r1);
        bp_change_plan_destroy(pl);
}

/* An added bucket's partitions are read by no current bucket once
 * consumers read the next layout. */
static void test_added_bucket_read_by_nobody_current(void **state) {
        bp_config_t cfg;
        bp_change_plan_t *pl;
        int32_t p, nobody = 0;
        int nb;
        (void)state;

        make(&cfg, "critical, bulk", "30, 70", "stable",
             "critical, bulk, batch", "20, 50, 30", NULL);
        pl = plan_of(&cfg, 12);
        for (p = 0; p < 12; p++)
                if (bp_change_reader(pl, pl->step_cnt, p, &nb) ==
                    BP_LAYOUT_NOBODY) {
                        assert_int_equal(nb, 2);
                        nobody++;
                }
        assert_int_equal(nobody, pl->to->count[2]);
        assert_true(nobody > 0);
        bp_change_plan_destroy(pl);
}

/* Two buckets that swap ends with nothing kept by either: neither can
 * move first, so the plan is refused past step 1 (whose routing is what
 * producers keep), naming the bucket. */
static void test_swap_of_two_homeless_buckets_refused(void **state) {
        bp_config_t cfg;
        bp_change_plan_t *pl;
        bp_layout_t *r1, *r3;
        (void)state;

        make(&cfg, "a, b", "50, 50", "contiguous", "b, a", NULL, NULL);
        pl = plan_of(&cfg, 12);
        assert_true(pl->homeless[0] && pl->homeless[1]);
        assert_non_null(strstr(pl->refused, "bucket \"a\" keeps none of its "
                                            "partitions"));
        r1 = bp_change_route_layout(pl, 1);
        r3 = bp_change_route_layout(pl, 3);
        assert_int_equal(r3->count[0], r1->count[0]);
        assert_memory_equal(r3->partitions, r1->partitions,
                            sizeof(int32_t) * 12);
        assert_int_equal(r1->count[0], 6); /* a stays on 0-5 */
        bp_layout_destroy(r1);
        bp_layout_destroy(r3);
        bp_change_plan_destroy(pl);
}

static void test_fingerprint(void **state) {
        bp_config_t a, b;
        bp_layout_t *la, *lb, *lc;
        char fa[9], fb[9], fc[9];
        char err[256];
        (void)state;

        make(&a, "critical, bulk", "30, 70", "contiguous", NULL, NULL, NULL);
        make(&b, "critical, bulk", "30.1, 69.9", "contiguous", NULL, NULL,
             NULL);
        la = bp_layout_compute(&a, 12, err, sizeof(err));
        lb = bp_layout_compute(&b, 12, err, sizeof(err));
        lc = bp_layout_compute(&a, 13, err, sizeof(err));
        bp_layout_fingerprint(la, &a, fa);
        bp_layout_fingerprint(lb, &b, fb);
        bp_layout_fingerprint(lc, &a, fc);
        assert_int_equal(strlen(fa), 8);
        assert_string_equal(fa, fb); /* same partitions, same fingerprint */
        assert_string_not_equal(fa, fc);
        bp_layout_destroy(la);
        bp_layout_destroy(lb);
        bp_layout_destroy(lc);
}

static void test_property_errors(void **state) {
        bp_config_t cfg;
        char err[512];
        (void)state;

        make(&cfg, "critical, bulk", "30, 70", "contiguous", NULL, NULL, NULL);
        assert_int_equal(bp_config_set(&cfg, "bucket.priority.next.step", "0",
                                       err, sizeof(err)),
                         BP_SET_INVALID);
        assert_non_null(strstr(err, "bucket.priority.next.step: invalid "
                                    "value \"0\""));
        assert_int_equal(bp_config_set(&cfg, "bucket.priority.next.allocation",
                                       "50, 40", err, sizeof(err)),
                         BP_SET_INVALID);
        assert_non_null(strstr(err, "100%"));
        /* a fallback bucket that the change removes */
        set_ok(&cfg, "bucket.priority.fallback.partitioner", "bulk");
        assert_int_equal(bp_config_set(&cfg, "bucket.priority.next.buckets",
                                       "critical, batch", err, sizeof(err)),
                         BP_SET_INVALID);
        assert_non_null(strstr(err, "\"bulk\""));
        /* a built-in fallback spreads records onto moving partitions */
        make(&cfg, "critical, bulk", "30, 70", "contiguous", NULL, "50, 50",
             NULL);
        assert_int_equal(bp_config_set(&cfg,
                                       "bucket.priority.fallback.partitioner",
                                       "murmur2", err, sizeof(err)),
                         BP_SET_INVALID);
        assert_non_null(strstr(err, "fallback must be a bucket"));
        /* one list set with another count waits for the other list */
        make(&cfg, "critical, bulk", "30, 70", "contiguous", NULL, NULL, NULL);
        set_ok(&cfg, "bucket.priority.next.allocation", "20, 30, 50");
        assert_int_equal(bp_config_check_complete(&cfg, err, sizeof(err)), -1);
        assert_non_null(strstr(err, "bucket.priority.next.allocation"));
        set_ok(&cfg, "bucket.priority.next.buckets", "critical, urgent, bulk");
        assert_int_equal(bp_config_check_complete(&cfg, err, sizeof(err)), 0);
        assert_int_equal(bp_config_set(&cfg, "bucket.priority.next.buckets",
                                       "critical, bulk", err, sizeof(err)),
                         BP_SET_INVALID);
        assert_non_null(strstr(err, "one allocation per bucket"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_every_step_reads_right),
            cmocka_unit_test(test_contiguous_swap_takes_five_steps),
            cmocka_unit_test(test_stable_change_takes_three_steps),
            cmocka_unit_test(test_removed_bucket_merges_into_fallback),
            cmocka_unit_test(test_added_bucket_read_by_nobody_current),
            cmocka_unit_test(test_swap_of_two_homeless_buckets_refused),
            cmocka_unit_test(test_fingerprint),
            cmocka_unit_test(test_property_errors),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
