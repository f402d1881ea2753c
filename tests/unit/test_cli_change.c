/*
 * test_cli_change.c - bp-layout's plan of a live layout change
 * (--next-buckets, --next-allocation, --next-layout, --group-id), run as a
 * child process (BP_LAYOUT_BIN): the steps of the example for
 * both layouts with their drains, properties and layouts, fingerprints as
 * shared/bp_change.c computes them, the JSON document and a refused
 * plan (exit 1); its bad input (exit 2) is in test_cli.c's table.
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
#include "bp_test_run.h"

static void run(run_t *r, const char *const *args) {
        bp_test_run(r, "BP_LAYOUT_BIN", args);
}

#define CB "--buckets", "critical, bulk", "--allocation", "30%, 70%"

/* The text of step \p step of \p out (up to the next step), into buf. */
static void step_text(const char *out, int step, char *buf, size_t size) {
        char head[32];
        const char *at, *end;
        snprintf(head, sizeof(head), "\nstep %d of ", step);
        at = strstr(out, head);
        if (!at)
                fail_msg("no step %d in:\n%s", step, out);
        end = strstr(at + 1, "\nstep ");
        snprintf(buf, size, "%.*s",
                 (int)(end ? (size_t)(end - at) : strlen(at)), at);
}

/* The fingerprints shared/bp_change.c gives the example's layouts. */
static void fingerprints(const char *layout, char now[9], char next[9],
                         char route1[9]) {
        bp_config_t cfg;
        bp_change_plan_t *pl;
        bp_layout_t *r1;
        char err[256];
        bp_config_init(&cfg);
        assert_int_equal(bp_config_set(&cfg, "bucket.priority.buckets",
                                       "critical, bulk", err, sizeof(err)),
                         BP_SET_OK);
        assert_int_equal(bp_config_set(&cfg, "bucket.priority.allocation",
                                       "30, 70", err, sizeof(err)),
                         BP_SET_OK);
        assert_int_equal(bp_config_set(&cfg, "bucket.priority.layout", layout,
                                       err, sizeof(err)),
                         BP_SET_OK);
        assert_int_equal(bp_config_set(&cfg,
                                       "bucket.priority.next.allocation",
                                       "50, 50", err, sizeof(err)),
                         BP_SET_OK);
        pl = bp_change_plan_new(&cfg, 12, err, sizeof(err));
        assert_non_null(pl);
        r1 = bp_change_route_layout(pl, 1);
        bp_layout_fingerprint(pl->from, &cfg, now);
        bp_layout_fingerprint(pl->to, &pl->next, next);
        bp_layout_fingerprint(r1, &cfg, route1);
        bp_layout_destroy(r1);
        bp_change_plan_destroy(pl);
}

static void test_contiguous_five_steps(void **state) {
        static const char *args[] = {CB, "--partitions", "12",
                                     "--next-allocation", "50%, 50%",
                                     "--group-id", "app", NULL};
        static run_t r;
        static char s[8192];
        char now[9], next[9], route1[9], want[128], line[256];
        (void)state;
        fingerprints("contiguous", now, next, route1);
        run(&r, args);
        assert_int_equal(r.exit_code, 0);
        assert_string_equal(r.err, "");
        expect_contains(r.out, "layout change at 12 partitions: 5 steps");
        snprintf(want, sizeof(want), "now: contiguous layout, fingerprint %s",
                 now);
        expect_contains(r.out, want);
        snprintf(want, sizeof(want), "next: contiguous layout, fingerprint %s",
                 next);
        expect_contains(r.out, want);
        expect_contains(r.out, "partition 0 moves: bulk -> critical");
        expect_contains(r.out, "partition 11 moves: critical -> bulk");
        assert_null(strstr(r.out, "partition 6 moves"));
        expect_contains(r.out, "bucket critical keeps none of its partitions");

        step_text(r.out, 1, s, sizeof(s));
        expect_contains(s, "producers roll");
        expect_contains(s, "    bucket.priority.next.allocation=50%, 50%\n"
                           "    bucket.priority.next.step=1\n");
        snprintf(want, sizeof(want), "producers write (fingerprint %s):",
                 route1);
        expect_contains(s, want);
        line_with(strstr(s, "producers write"), "critical", line,
                  sizeof(line));
        expect_contains(line, "8-11");
        line_with(strstr(s, "producers write"), "bulk", line, sizeof(line));
        expect_contains(line, "6-7");
        line_with(s, "(nobody)", line, sizeof(line));
        expect_contains(line, "0-5");
        assert_null(strstr(s, "drained"));

        step_text(r.out, 2, s, sizeof(s));
        expect_contains(s, "consumers roll");
        expect_contains(s, "    partitions 0-5 by group app.bulk\n");
        expect_contains(s, "check: bp-audit --config app.properties "
                           "--next-allocation '50%, 50%' --next-step 2\n");
        expect_contains(s, "bucket.priority.next.step=2");
        line_with(strstr(s, "consumers read"), "critical", line,
                  sizeof(line));
        expect_contains(line, "0-5,8-11");

        step_text(r.out, 4, s, sizeof(s));
        expect_contains(s, "consumers roll (their last step)");
        expect_contains(s, "    partitions 8-11 by group app.critical\n");
        expect_contains(s, "removing every bucket.priority.next.* line:\n"
                           "    bucket.priority.buckets=critical, bulk\n"
                           "    bucket.priority.allocation=50%, 50%\n"
                           "    bucket.priority.layout=contiguous\n");
        snprintf(want, sizeof(want), "consumers read (fingerprint %s):", next);
        expect_contains(s, want);

        step_text(r.out, 5, s, sizeof(s));
        expect_contains(s, "producers roll (their last step)");
        assert_null(strstr(s, "bucket.priority.next.step"));
        snprintf(want, sizeof(want), "producers write (fingerprint %s):",
                 next);
        expect_contains(s, want);
        assert_null(strstr(r.out, "step 6 of"));
}

static void test_stable_three_steps(void **state) {
        static const char *args[] = {CB, "--layout", "stable", "--partitions",
                                     "12", "--next-allocation", "50, 50",
                                     NULL};
        static run_t r;
        static char s[8192];
        char now[9], next[9], route1[9], want[128];
        (void)state;
        fingerprints("stable", now, next, route1);
        run(&r, args);
        assert_int_equal(r.exit_code, 0);
        expect_contains(r.out, "layout change at 12 partitions: 3 steps");
        assert_null(strstr(r.out, "keeps none"));
        step_text(r.out, 2, s, sizeof(s));
        expect_contains(s, "consumers roll (their last step)");
        /* no --group-id: the groups are named by pattern */
        expect_contains(s, "by group <group>.bulk");
        expect_contains(s, "by group <group>.critical");
        snprintf(want, sizeof(want), "producers write (fingerprint %s, as "
                                     "before this step)",
                 route1);
        expect_contains(s, want);
        step_text(r.out, 3, s, sizeof(s));
        snprintf(want, sizeof(want), "producers write (fingerprint %s):",
                 next);
        expect_contains(s, want);
}

static void test_added_bucket(void **state) {
        static const char *args[] = {CB, "--partitions", "12",
                                     "--next-buckets", "critical, urgent, bulk",
                                     "--next-allocation", "25, 25, 50",
                                     "--layout", "stable", NULL};
        static run_t r;
        (void)state;
        run(&r, args);
        assert_int_equal(r.exit_code, 0);
        expect_contains(r.out, "start the consumers of bucket urgent (the "
                               "change adds it)");
        expect_contains(r.out, "bucket.priority.next.buckets=critical, "
                               "urgent, bulk\n");
        expect_contains(r.out, "--next-buckets 'critical, urgent, bulk' "
                               "--next-allocation '25%, 25%, 50%'");
}

/* A removed bucket: at the last consumer step the consumers keep the
 * next.* lines (they take its partitions over from its group), and its
 * own consumers stop. */
static void test_removed_bucket(void **state) {
        static const char *args[] = {"--buckets", "critical, bulk, batch",
                                     "--allocation", "20, 50, 30",
                                     "--partitions", "12", "--next-buckets",
                                     "critical, bulk", "--next-allocation",
                                     "20, 80", "--group-id", "app", NULL};
        static run_t r;
        static char s[8192];
        (void)state;
        run(&r, args);
        assert_int_equal(r.exit_code, 0);
        step_text(r.out, 2, s, sizeof(s));
        expect_contains(s, "consumers roll (their last step)");
        expect_contains(s, "the change removes a bucket");
        expect_contains(s, "    bucket.priority.next.buckets=critical, bulk\n"
                           "    bucket.priority.next.allocation=20%, 80%\n"
                           "    bucket.priority.next.step=2\n");
        assert_null(strstr(s, "removing every bucket.priority.next.* line"));
        expect_contains(s, "stop the consumers of bucket batch (the change "
                           "removes it; its records go to bulk)");
        step_text(r.out, 3, s, sizeof(s));
        expect_contains(s, "removing every bucket.priority.next.* line");
}

static void test_json(void **state) {
        static const char *args[] = {CB, "--partitions", "12",
                                     "--next-allocation", "50%, 50%",
                                     "--group-id", "app", "--json", NULL};
        static run_t r;
        (void)state;
        run(&r, args);
        assert_int_equal(r.exit_code, 0);
        expect_contains(r.out, "{\"partitions\":12,\"step_count\":5,"
                               "\"group_id\":\"app\",\"now\":{\"layout\":"
                               "\"contiguous\",\"fingerprint\":\"");
        expect_contains(r.out, "\"homeless\":[\"critical\"],\"refused\":null,"
                               "\"steps\":[{\"step\":1,\"rolls\":"
                               "\"producers\",\"last\":false,\"properties\":"
                               "{\"bucket.priority.next.allocation\":\"50%, "
                               "50%\",\"bucket.priority.next.step\":\"1\"},"
                               "\"keep_next\":false");
        expect_contains(r.out, "\"drain\":[{\"bucket\":\"bulk\",\"group\":"
                               "\"app.bulk\",\"partitions\":[0,1,2,3,4,5]}],"
                               "\"check\":\"bp-audit --config app.properties "
                               "--next-allocation '50%, 50%' --next-step 2\"");
        expect_contains(r.out, "{\"step\":5,\"rolls\":\"producers\",\"last\":"
                               "true,\"properties\":{\"bucket.priority."
                               "buckets\":\"critical, bulk\"");
        assert_int_equal(r.out[strlen(r.out) - 2], '}');
}

/* Two buckets that swap their only partitions: nothing can be handed
 * over first. */
static void test_refused(void **state) {
        static const char *args[] = {"--buckets", "critical, bulk",
                                     "--allocation", "50, 50", "--partitions",
                                     "2", "--next-buckets", "bulk, critical",
                                     NULL};
        static const char *json[] = {"--buckets", "critical, bulk",
                                     "--allocation", "50, 50", "--partitions",
                                     "2", "--next-buckets", "bulk, critical",
                                     "--json", NULL};
        static run_t r;
        (void)state;
        run(&r, args);
        assert_int_equal(r.exit_code, 1);
        expect_contains(r.out, "refused: bucket \"critical\" keeps none of its "
                               "partitions");
        assert_null(strstr(r.out, "step 1 of"));
        run(&r, json);
        assert_int_equal(r.exit_code, 1);
        expect_contains(r.out, "\"refused\":\"bucket \\\"critical\\\" keeps "
                               "none");
        expect_contains(r.out, "\"steps\":[]}");
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_contiguous_five_steps),
            cmocka_unit_test(test_stable_three_steps),
            cmocka_unit_test(test_added_bucket),
            cmocka_unit_test(test_removed_bucket),
            cmocka_unit_test(test_json),
            cmocka_unit_test(test_refused),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
