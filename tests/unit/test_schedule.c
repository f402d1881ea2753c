/*
 * test_schedule.c - the scheduler's decisions (shared/bp_schedule.c)
 * without a cluster or a clock: lag above and below the threshold, unknown
 * and stale lags, the strict order, weighted shares over many windows,
 * buckets holding no partition, and the staggered resume of a bucket.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "shared/bp_schedule.h"

static bp_sched_part_t part(int32_t partition, int rank, int64_t lag) {
        bp_sched_part_t p = {0};
        p.partition       = partition;
        p.rank            = rank;
        p.lag             = lag;
        p.at              = 0;
        return p;
}

/* --- summarise ------------------------------------------------------------ */

static void test_summarise_threshold(void **state) {
        bp_sched_part_t ps[] = {part(0, 0, 101), part(1, 0, 0),
                                part(2, 1, 100), part(3, 2, 0)};
        bp_sched_ranks_t rs;
        (void)state;

        bp_sched_summarise(ps, 4, 100, 1000, 5000, &rs);
        assert_int_equal(rs.held[0], 2);
        assert_int_equal(rs.held[1], 1);
        assert_int_equal(rs.held[2], 1);
        assert_int_equal(rs.held[3], 0);
        assert_int_equal(rs.lagging[0], 1); /* 101 > 100 */
        assert_int_equal(rs.lagging[1], 0); /* 100 is not above */
        assert_int_equal(rs.has_work[1], 1);
        assert_int_equal(rs.has_work[2], 0);
        assert_int_equal(rs.unsure[0] | rs.unsure[1] | rs.unsure[2], 0);
}

static void test_summarise_unsure(void **state) {
        bp_sched_part_t ps[] = {part(0, 0, -1), part(1, 1, 5),
                                part(2, 2, 5)};
        bp_sched_ranks_t rs;
        (void)state;

        ps[0].since_ms = 1000;
        ps[1].stale    = 1;
        ps[2].paused   = 1;
        /* An unknown lag counts as a lag for grace_ms after the
         * assignment, then no longer. */
        bp_sched_summarise(ps, 3, 100, 500, 1499, &rs);
        assert_int_equal(rs.unsure[0], 1);
        bp_sched_summarise(ps, 3, 100, 500, 1500, &rs);
        assert_int_equal(rs.unsure[0], 0);
        assert_int_equal(rs.lagging[0], 0);
        assert_int_equal(rs.unsure[1], 1); /* stale watermark */
        assert_int_equal(rs.unsure[2], 1); /* paused: not refreshed */
}

/* --- strict ---------------------------------------------------------------- */

static void strict(const int *held, const int *lagging, const int *unsure,
                   int n, int *want) {
        bp_sched_ranks_t rs;
        memset(&rs, 0, sizeof(rs));
        memcpy(rs.held, held, sizeof(int) * (size_t)n);
        memcpy(rs.lagging, lagging, sizeof(int) * (size_t)n);
        memcpy(rs.unsure, unsure, sizeof(int) * (size_t)n);
        bp_sched_decide_strict(n, &rs, want);
}

static void test_strict_order(void **state) {
        const int held[] = {2, 2, 2}, none[] = {0, 0, 0};
        const int top[] = {1, 0, 0}, middle[] = {0, 1, 0};
        int want[3];
        (void)state;

        strict(held, top, none, 3, want); /* critical lags: both wait */
        assert_int_equal(want[0], 0);
        assert_int_equal(want[1], 1);
        assert_int_equal(want[2], 1);
        strict(held, middle, none, 3, want); /* only the last waits */
        assert_int_equal(want[0], 0);
        assert_int_equal(want[1], 0);
        assert_int_equal(want[2], 1);
        strict(held, none, top, 3, want); /* may lag: as if it did */
        assert_int_equal(want[1], 1);
        assert_int_equal(want[2], 1);
        /* Drained: every rank resumes in the same decision. */
        strict(held, none, none, 3, want);
        assert_int_equal(want[0] | want[1] | want[2], 0);
}

static void test_strict_empty_bucket(void **state) {
        const int held[] = {0, 2, 2}, top[] = {1, 0, 0}, none[] = {0, 0, 0};
        const int held_last_empty[] = {2, 2, 0}, middle[] = {0, 1, 0};
        int want[3];
        (void)state;

        /* A rank holding no partition blocks nobody... */
        strict(held, top, top, 3, want);
        assert_int_equal(want[0] | want[1] | want[2], 0);
        /* ...and has nothing to pause. */
        strict(held_last_empty, middle, none, 3, want);
        assert_int_equal(want[1], 0);
        assert_int_equal(want[2], 0);
}

/* --- weighted -------------------------------------------------------------- */

/* Two ranks with endless backlogs, 30% and 70%; the consumer hands out
 * 10 records a decision among the running ranks, the second taking 9 of
 * them when both run (a flooding bucket). Rank 0's share must hold 30%
 * in every window of 2 000 records, and no decision pauses both. */
static void test_weighted_shares(void **state) {
        const double allocation[] = {0.3, 0.7};
        bp_sched_share_t share[2] = {{0, 0}, {0, 0}};
        bp_sched_ranks_t rs;
        uint64_t delivered[2] = {0, 0}, total[2] = {0, 0}, window[2] = {0, 0};
        int want[2], tick, windows = 0;
        (void)state;

        memset(&rs, 0, sizeof(rs));
        rs.held[0] = rs.held[1] = 4;
        rs.has_work[0] = rs.has_work[1] = 1;
        for (tick = 0; tick < 20000; tick++) {
                bp_sched_decide_weighted(2, &rs, allocation, delivered, share,
                                         want);
                assert_false(want[0] && want[1]);
                share[0].paused = want[0];
                share[1].paused = want[1];
                if (!want[0] && !want[1]) {
                        delivered[0] = 1;
                        delivered[1] = 9;
                } else {
                        delivered[0] = want[0] ? 0 : 10;
                        delivered[1] = want[1] ? 0 : 10;
                }
                window[0] += delivered[0], window[1] += delivered[1];
                total[0] += delivered[0], total[1] += delivered[1];
                if (window[0] + window[1] >= 2000) {
                        double s = (double)window[0] /
                                   (double)(window[0] + window[1]);
                        assert_true(s > 0.25 && s < 0.35);
                        window[0] = window[1] = 0;
                        windows++;
                }
        }
        assert_true(windows >= 90);
        {
                double s = (double)total[0] / (double)(total[0] + total[1]);
                assert_true(s > 0.29 && s < 0.31);
        }
}

/* A rank with nothing to deliver banks no credit and is never paused; a
 * rank holding no partition is not part of the share. */
static void test_weighted_idle_and_empty(void **state) {
        const double allocation[] = {0.5, 0.3, 0.2};
        bp_sched_share_t share[3] = {{50, 0}, {0, 0}, {0, 0}};
        bp_sched_ranks_t rs;
        uint64_t delivered[3] = {0, 40, 0};
        int want[3];
        (void)state;

        memset(&rs, 0, sizeof(rs));
        rs.held[0] = rs.held[1] = 2; /* rank 2 holds nothing */
        rs.has_work[1] = 1;           /* rank 0 idle */
        bp_sched_decide_weighted(3, &rs, allocation, delivered, share, want);
        assert_true(share[0].credit == 0);
        assert_int_equal(want[0], 0);
        assert_int_equal(want[1], 0); /* nobody else waits */
        assert_int_equal(want[2], 0);
        assert_true(share[1].credit == 0); /* alone: its share is all */
}

/* Holding by queue, the weighted schedule pauses a rank only for a lower
 * rank with records waiting: the lowest rank never, a higher one while a
 * rank below it waits, not for a rank above it (whose records the queue
 * moves ahead anyway). */
static void test_weighted_hold_only_for_lower(void **state) {
        bp_sched_ranks_t rs;
        int want[3];
        (void)state;

        memset(&rs, 0, sizeof(rs));
        rs.held[0] = rs.held[1] = rs.held[2] = 2;
        rs.has_work[0] = rs.has_work[1] = rs.has_work[2] = 1;
        want[0] = want[1] = want[2] = 1;
        bp_sched_hold_only_for_lower(3, &rs, want);
        assert_int_equal(want[0], 1); /* ranks 1 and 2 wait below it */
        assert_int_equal(want[1], 1); /* rank 2 waits below it */
        assert_int_equal(want[2], 0); /* the lowest: nothing below */

        rs.has_work[2] = 0; /* only rank 0 and rank 1 wait */
        want[0] = 0, want[1] = 1, want[2] = 0;
        bp_sched_hold_only_for_lower(3, &rs, want);
        assert_int_equal(want[1], 0); /* ahead of rank 0 only: runs */

        rs.has_work[1] = 0;
        rs.has_work[2] = 1;
        rs.held[2]     = 0; /* waiting, but holds nothing */
        want[0] = 1, want[1] = 0, want[2] = 0;
        bp_sched_hold_only_for_lower(3, &rs, want);
        assert_int_equal(want[0], 0);

        rs.held[2] = 2; /* rank 2 holds and waits: rank 0 may be held */
        want[0]    = 1;
        bp_sched_hold_only_for_lower(3, &rs, want);
        assert_int_equal(want[0], 1);
        assert_int_equal(want[1], 0); /* never turns a run into a pause */
}

/* --- stagger --------------------------------------------------------------- */

static void test_stagger_whole_bucket(void **state) {
        bp_sched_part_t ps[] = {part(4, 1, 50), part(5, 1, 50),
                                part(6, 1, 50), part(0, 0, 0)};
        bp_sched_lead_t lead = {0, -1, 0, 0};
        int32_t r;
        (void)state;

        ps[0].paused = ps[1].paused = ps[2].paused = 1;
        ps[0].at = 10, ps[1].at = 20, ps[2].at = 30;
        /* The whole bucket paused: one partition leads, in turn. */
        r = bp_sched_stagger(ps, 4, 1, 100, 1000, &lead);
        assert_int_equal(r, 4);
        assert_int_equal(lead.lead, 4);
        assert_int_equal(lead.lead_at, 10);
        /* Resumed, no record delivered, within settle_ms: the rest wait. */
        ps[0].paused = 0;
        assert_int_equal(bp_sched_stagger(ps, 4, 1, 100, 1099, &lead),
                         BP_SCHED_RESUME_NONE);
        /* The lead delivered: the rest follow. */
        ps[0].at = 11;
        assert_int_equal(bp_sched_stagger(ps, 4, 1, 100, 1050, &lead),
                         BP_SCHED_RESUME_ALL);
        assert_int_equal(lead.lead, -1);
        /* Next whole-bucket resume: the next partition leads. */
        ps[0].paused = 1;
        assert_int_equal(bp_sched_stagger(ps, 4, 1, 100, 2000, &lead), 5);
}

static void test_stagger_ends(void **state) {
        bp_sched_part_t ps[] = {part(4, 1, 50), part(5, 1, 50)};
        bp_sched_lead_t lead = {0, -1, 0, 0};
        (void)state;

        ps[0].paused = ps[1].paused = 1;
        assert_int_equal(bp_sched_stagger(ps, 2, 1, 100, 1000, &lead), 4);
        ps[0].paused = 0;
        /* settle_ms passed without a record: the rest follow. */
        assert_int_equal(bp_sched_stagger(ps, 2, 1, 100, 1100, &lead),
                         BP_SCHED_RESUME_ALL);
        /* The lead has nothing to deliver: the rest follow at once. */
        ps[0].paused = 1;
        assert_int_equal(bp_sched_stagger(ps, 2, 1, 100, 2000, &lead), 5);
        ps[1].paused = 0;
        ps[1].lag    = 0;
        assert_int_equal(bp_sched_stagger(ps, 2, 1, 100, 2001, &lead),
                         BP_SCHED_RESUME_ALL);
}

static void test_stagger_partial(void **state) {
        bp_sched_part_t ps[] = {part(4, 1, 50), part(5, 1, 50),
                                part(7, 2, 50)};
        bp_sched_lead_t lead = {0, -1, 0, 0};
        (void)state;

        /* Not the whole bucket paused: resume what is paused at once. */
        ps[0].paused = 1;
        assert_int_equal(bp_sched_stagger(ps, 3, 1, 100, 1000, &lead),
                         BP_SCHED_RESUME_ALL);
        /* A bucket of one partition has nothing to stagger. */
        ps[2].paused = 1;
        assert_int_equal(bp_sched_stagger(ps, 3, 2, 100, 1000, &lead),
                         BP_SCHED_RESUME_ALL);
        assert_int_equal(lead.lead, -1);
}

/* The start gate: a new partition owes until its first answer; strict
 * until the application reached that answer's high watermark, weighted
 * no longer; nothing waiting releases at once; no progress for the grace
 * period releases too. */
static void test_gate_owed(void **state) {
        bp_sched_owed_t o = {.owed_to = -1, .at = -1, .since_ms = 0};
        (void)state;

        /* strict: no answer yet, position known (a commit). */
        assert_int_equal(bp_sched_gate_owed(&o, -1, 100, 1, 5000, 10), 1);
        assert_int_equal(o.owed_to, -1);
        /* Its first answer: 150 records waiting, owed up to 250. */
        assert_int_equal(bp_sched_gate_owed(&o, 250, 100, 1, 5000, 20), 1);
        assert_int_equal(o.owed_to, 250);
        /* New records later do not move the target. */
        assert_int_equal(bp_sched_gate_owed(&o, 400, 249, 1, 5000, 30), 1);
        assert_int_equal(o.owed_to, 250);
        /* Handed out: released, and stays released. */
        assert_int_equal(bp_sched_gate_owed(&o, 400, 250, 1, 5000, 40), 0);
        assert_int_equal(o.owed_to, BP_SCHED_OWES_NOTHING);
        assert_int_equal(bp_sched_gate_owed(&o, -1, -1, 1, 5000, 50), 0);

        /* Nothing waiting at the first answer: released at once. */
        o = (bp_sched_owed_t){.owed_to = -1, .at = -1, .since_ms = 0};
        assert_int_equal(bp_sched_gate_owed(&o, 7, 7, 1, 5000, 5), 0);

        /* weighted: released at the first answer, records waiting. */
        o = (bp_sched_owed_t){.owed_to = -1, .at = -1, .since_ms = 0};
        assert_int_equal(bp_sched_gate_owed(&o, -1, 0, 0, 5000, 5), 1);
        assert_int_equal(bp_sched_gate_owed(&o, 900, 0, 0, 5000, 6), 0);

        /* No answer within the grace period: given up. */
        o = (bp_sched_owed_t){.owed_to = -1, .at = -1, .since_ms = 0};
        assert_int_equal(bp_sched_gate_owed(&o, -1, -1, 1, 5000, 5000), 1);
        assert_int_equal(bp_sched_gate_owed(&o, -1, -1, 1, 5000, 5001), 0);

        /* Progress restarts the grace period; a stall ends it. */
        o = (bp_sched_owed_t){.owed_to = -1, .at = -1, .since_ms = 0};
        assert_int_equal(bp_sched_gate_owed(&o, 1000, 0, 1, 5000, 10), 1);
        assert_int_equal(bp_sched_gate_owed(&o, 1000, 10, 1, 5000, 4000), 1);
        assert_int_equal(bp_sched_gate_owed(&o, 1000, 20, 1, 5000, 8000), 1);
        assert_int_equal(bp_sched_gate_owed(&o, 1000, 20, 1, 5000, 13001),
                         0);
}

/* The stall watch of weighted holding by queue: started again only after
 * standing still with records to read while the application consumes;
 * each start doubles the wait; progress, a pause, records waiting or no
 * lag reset it. */
static void test_stalled(void **state) {
        bp_sched_stall_t st = {.at = -1};
        (void)state;

        /* First look: watch from here. */
        assert_int_equal(bp_sched_stalled(&st, 100, 500, 1, 0, 0, 0), 0);
        /* Standing still, but not long enough, or too few records taken. */
        assert_int_equal(bp_sched_stalled(&st, 100, 500, 1, 0, 1000, 49), 0);
        assert_int_equal(bp_sched_stalled(&st, 100, 500, 1, 0, 99, 60), 0);
        /* Both: started again, the wait doubles. */
        assert_int_equal(bp_sched_stalled(&st, 100, 500, 1, 0, 100, 50), 1);
        assert_int_equal(st.wait_ms, 2 * BP_SCHED_STALL_MS);
        assert_int_equal(bp_sched_stalled(&st, 100, 500, 1, 0, 300, 140), 0);
        assert_int_equal(bp_sched_stalled(&st, 100, 500, 1, 0, 300, 150), 1);
        assert_int_equal(st.wait_ms, 4 * BP_SCHED_STALL_MS);
        /* Up to the ceiling, not beyond. */
        st.wait_ms = BP_SCHED_STALL_MAX_MS;
        assert_int_equal(bp_sched_stalled(&st, 100, 500, 1, 0, 10000, 10000),
                         1);
        assert_int_equal(st.wait_ms, BP_SCHED_STALL_MAX_MS);
        /* Progress resets the watch and its wait. */
        assert_int_equal(bp_sched_stalled(&st, 101, 499, 1, 0, 20000, 20000),
                         0);
        assert_int_equal(st.wait_ms, BP_SCHED_STALL_MS);
        assert_int_equal(bp_sched_stalled(&st, 101, 499, 1, 0, 20099, 20100),
                         0);
        /* Paused by the scheduler, records waiting in its bucket's queue,
         * nothing to read, or no position: never started, and watched from
         * the moment they end. */
        st = (bp_sched_stall_t){.at = -1};
        assert_int_equal(bp_sched_stalled(&st, 7, 10, 0, 0, 0, 0), 0);
        assert_int_equal(bp_sched_stalled(&st, 7, 10, 0, 0, 1000, 1000), 0);
        assert_int_equal(bp_sched_stalled(&st, 7, 10, 1, 1, 2000, 2000), 0);
        assert_int_equal(bp_sched_stalled(&st, 7, 0, 1, 0, 3000, 3000), 0);
        assert_int_equal(bp_sched_stalled(&st, -1, 10, 1, 0, 4000, 4000), 0);
        assert_int_equal(bp_sched_stalled(&st, 7, 10, 1, 0, 4050, 4049), 0);
        assert_int_equal(bp_sched_stalled(&st, 7, 10, 1, 0, 4149, 4099), 0);
        assert_int_equal(bp_sched_stalled(&st, 7, 10, 1, 0, 4150, 4099), 1);
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_summarise_threshold),
            cmocka_unit_test(test_summarise_unsure),
            cmocka_unit_test(test_strict_order),
            cmocka_unit_test(test_strict_empty_bucket),
            cmocka_unit_test(test_weighted_shares),
            cmocka_unit_test(test_weighted_idle_and_empty),
            cmocka_unit_test(test_weighted_hold_only_for_lower),
            cmocka_unit_test(test_stagger_whole_bucket),
            cmocka_unit_test(test_stagger_ends),
            cmocka_unit_test(test_stagger_partial),
            cmocka_unit_test(test_gate_owed),
            cmocka_unit_test(test_stalled),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
