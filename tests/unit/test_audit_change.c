/*
 * test_audit_change.c - bp-audit's judgement of a live layout change
 * (tools/audit/audit_change.c) with no cluster: the drain verdict of the
 * next consumer step (commit at the end and the end not moving; exit
 * status 4 while waiting, 0 once drained), records the step's routing
 * does not put there and the layout they fit, records written before the
 * change and already read, groups committing outside what their bucket
 * reads at the step, and the fingerprints given for the step.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "audit/audit_change.h"
#include "audit/audit_owner.h"
#include "audit_test_util.h"

static bp_config_t cfg; /* critical, bulk 30/70 -> 50/50, contiguous */

/* 12 partitions, each with 10 records; groups app.critical, app.bulk
 * with every partition committed at \p commit (-1: none). Now: bulk 0-7,
 * critical 8-11; next: critical 0-5, bulk 6-11. */
static void audit_at(audit_t *a, const char *step, int64_t commit) {
        char err[512];
        int b, g;
        int32_t p;
        bp_config_init(&cfg);
        cfg_set(&cfg, "bucket.priority.topic", "orders");
        cfg_set(&cfg, "bucket.priority.buckets", "critical, bulk");
        cfg_set(&cfg, "bucket.priority.allocation", "30, 70");
        cfg_set(&cfg, "bucket.priority.next.allocation", "50, 50");
        cfg_set(&cfg, "bucket.priority.next.step", step);
        assert_int_equal(audit_init(a, &cfg, "app", 12, err, sizeof(err)), 0);
        for (b = 0; b < 2; b++) {
                char name[16 + BP_MAX_NAME_LEN];
                snprintf(name, sizeof(name), "app.%s", cfg.buckets[b].name);
                g = audit_add_group(a, name, &b, 1);
                assert_int_equal(g, b);
                a->groups[g].offsets_read = 1;
                for (p = 0; p < 12; p++)
                        a->groups[g].committed[p] = commit;
        }
        for (p = 0; p < 12; p++) {
                a->parts[p].low  = 0;
                a->parts[p].high = 10;
        }
        if (audit_change_init(a, err, sizeof(err)))
                fail_msg("%s", err);
        assert_non_null(a->change);
        assert_int_equal(audit_change_alloc_commits(a), 0);
        /* the second read: the same unless a test changes it */
        for (p = 0; p < 12; p++) {
                a->change->parts[p].high_end = 10;
                for (g = 0; g < 2; g++)
                        a->change->committed_end[g * 12 + p] = commit;
        }
}

static const audit_finding_t *first_of(const audit_t *a,
                                       audit_finding_kind_t k) {
        int i;
        for (i = 0; i < a->finding_cnt; i++)
                if (a->findings[i].kind == k)
                        return &a->findings[i];
        fail_msg("no finding %s", audit_finding_name(k));
        return NULL;
}

static void test_drained_when_commit_at_end(void **state) {
        audit_t a;
        (void)state;
        audit_at(&a, "1", 10);
        assert_int_equal(a.change->plan->step_cnt, 5);
        assert_int_equal(a.change->check_step, 2);
        assert_int_equal(a.change->drain_cnt, 6); /* 0-5 */
        audit_change_judge(&a);
        assert_int_equal(a.change->not_drained, 0);
        assert_true(a.change->parts[0].drained);
        assert_int_equal(a.change->parts[0].drain_group, 1); /* app.bulk */
        assert_int_equal(count_kind(&a, AUDIT_F_WAIT), 0);
        assert_int_equal(audit_exit_status(&a), 0);
        audit_change_destroy(&a);
        audit_destroy(&a);
}

static void test_wait_when_behind_or_moving(void **state) {
        audit_t a;
        (void)state;
        audit_at(&a, "1", 10);
        a.groups[1].committed[2]          = 7; /* behind, both reads */
        a.change->committed_end[1 * 12 + 2] = 7;
        a.change->parts[4].high_end       = 11; /* still written */
        a.change->committed_end[1 * 12 + 4] = 11; /* even if read */
        a.groups[1].committed[9]          = 3; /* 9 is not drained at 2 */
        a.change->committed_end[1 * 12 + 9] = 3;
        audit_change_judge(&a);
        assert_int_equal(a.change->not_drained, 2);
        assert_false(a.change->parts[2].drained);
        assert_false(a.change->parts[4].drained);
        assert_true(a.change->parts[3].drained);
        assert_non_null(strstr(first_of(&a, AUDIT_F_WAIT)->text,
                               "step 2 must wait: 2 partitions not drained "
                               "(2,4)"));
        assert_false(audit_finding_is_fault(AUDIT_F_WAIT));
        assert_int_equal(audit_exit_status(&a), 4);
        /* a fault outranks waiting */
        audit_add_finding(&a, AUDIT_F_DOUBLE_READ, 0, 0, -1, -1, 0, "x");
        assert_int_equal(audit_exit_status(&a), 1);
        audit_change_destroy(&a);
        audit_destroy(&a);
}

/* Commits read at the end count: a group that caught up during the audit
 * has drained. */
static void test_later_commit_counts(void **state) {
        audit_t a;
        int32_t p;
        (void)state;
        audit_at(&a, "1", 5);
        for (p = 0; p < 12; p++)
                a.change->committed_end[1 * 12 + p] = 10;
        audit_change_judge(&a);
        assert_int_equal(a.change->not_drained, 0);
        assert_int_equal(a.change->parts[0].commit, 10);
        audit_change_destroy(&a);
        audit_destroy(&a);
}

static void test_misplaced_records_and_their_layout(void **state) {
        audit_t a;
        const audit_finding_t *f;
        int i;
        (void)state;
        audit_at(&a, "1", 10);
        /* step 1: critical writes 8-11, bulk 6-7; 0-5 nobody */
        audit_change_count_key(&a, 7, 3, "bulk-1", 6);      /* fine */
        audit_change_count_key(&a, 0, 3, "bulk-1", 6);      /* before */
        audit_change_count_key(&a, 9, 3, "critical-1", 10); /* fine */
        audit_change_count_key(&a, 0, 9, "critical-1", 10); /* early */
        audit_change_count_key(&a, 1, 9, "critical-2", 10); /* early */
        audit_change_count_key(&a, 9, 9, "bulk-2", 6);      /* early */
        audit_change_count_key(&a, 0, 9, "nobody-1", 8);    /* not judged */
        assert_int_equal(a.change->parts[0].misplaced[AUDIT_FIT_NEXT], 1);
        assert_int_equal(a.change->parts[9].misplaced[AUDIT_FIT_NEXT], 1);
        assert_int_equal(a.change->parts[7].misplaced[AUDIT_FIT_NEXT] +
                             a.change->parts[7].misplaced[AUDIT_FIT_CURRENT] +
                             a.change->parts[7].misplaced[AUDIT_FIT_NONE],
                         0);
        audit_change_judge(&a);
        assert_int_equal(count_kind(&a, AUDIT_F_STEP_MISPLACED), 3);
        f = first_of(&a, AUDIT_F_STEP_MISPLACED);
        assert_int_equal(f->partition, 0);
        assert_non_null(strstr(f->text, "\"critical-1\""));
        assert_non_null(strstr(f->text, "fit the next layout"));
        assert_true(audit_finding_is_fault(f->kind));
        for (i = 0; i < a.finding_cnt; i++)
                if (a.findings[i].partition == 9)
                        assert_non_null(
                            strstr(a.findings[i].text, "\"bulk-2\""));
        assert_int_equal(audit_exit_status(&a), 1);
        audit_change_destroy(&a);
        audit_destroy(&a);
}

/* Step 3 of 5: critical consumers read 0-5 (since step 2). A bulk record
 * there that app.bulk had read is history; one it had not is read by
 * critical: it fits the current layout. */
static void test_old_records_past_the_commit(void **state) {
        audit_t a;
        (void)state;
        audit_at(&a, "3", 6);
        assert_int_equal(a.change->check_step, 4);
        audit_change_count_key(&a, 0, 5, "bulk-1", 6); /* below 6: read */
        audit_change_count_key(&a, 0, 8, "bulk-9", 6); /* not read */
        audit_change_count_key(&a, 0, 8, "critical-9", 10); /* step 3 */
        audit_change_count_key(&a, 3, 8, "unknown-1", 9);
        audit_change_count_key(&a, 3, 8, NULL, 0);
        assert_int_equal(a.change->parts[0].misplaced[AUDIT_FIT_CURRENT], 1);
        assert_int_equal(a.change->parts[0].misplaced[AUDIT_FIT_NEXT], 0);
        assert_string_equal(a.change->parts[0].sample, "bulk-9");
        audit_change_judge(&a);
        assert_non_null(strstr(first_of(&a, AUDIT_F_STEP_MISPLACED)->text,
                               "fit the current layout"));
        audit_change_destroy(&a);
        audit_destroy(&a);
}

/* A group whose commit advanced during the audit on a partition its
 * bucket does not read at the step. */
static void test_group_reading_with_another_layout(void **state) {
        audit_t a;
        const audit_finding_t *f;
        (void)state;
        audit_at(&a, "3", 10); /* consumers at step 2: critical 0-5,8-11 */
        a.change->committed_end[1 * 12 + 0]  = 12; /* app.bulk on 0 */
        a.change->committed_end[0 * 12 + 0]  = 12; /* app.critical: fine */
        a.change->committed_end[1 * 12 + 6]  = 12; /* app.bulk on 6: fine */
        a.change->committed_end[0 * 12 + 11] = 9;  /* went back: ignored */
        a.change->parts[0].high_end = a.change->parts[6].high_end = 12;
        audit_change_judge(&a);
        assert_int_equal(count_kind(&a, AUDIT_F_STEP_READER), 1);
        f = first_of(&a, AUDIT_F_STEP_READER);
        assert_int_equal(f->group, 1);
        assert_int_equal(f->partition, 0);
        assert_int_equal(f->count, 2);
        assert_non_null(strstr(f->text, "a member of app.bulk reads with "
                                        "another layout"));
        assert_non_null(strstr(f->text, a.change->reads.fingerprint));
        audit_change_destroy(&a);
        audit_destroy(&a);
}

/* The fingerprints given are those the plugin logs at the step; the
 * consumers' mapping layout is the step's. */
static void test_fingerprints_and_mapping(void **state) {
        audit_t a;
        bp_layout_t *r;
        char fp[9];
        (void)state;
        audit_at(&a, "2", 10);
        r = bp_change_route_layout(a.change->plan, 2);
        bp_layout_fingerprint(r, &cfg, fp);
        assert_string_equal(a.change->writes.fingerprint, fp);
        bp_layout_destroy(r);
        r = bp_change_read_layout(a.change->plan, 2);
        bp_layout_fingerprint(r, &cfg, fp);
        assert_string_equal(a.change->reads.fingerprint, fp);
        bp_layout_destroy(r);
        assert_ptr_equal(a.read_layout, a.change->read_layout);
        assert_int_equal(a.read_layout->count[0], 10); /* critical */
        audit_change_destroy(&a);
        audit_destroy(&a);
        /* step 4 is the consumers' last: the next layout itself */
        audit_at(&a, "4", 10);
        bp_layout_fingerprint(a.change->plan->to, &a.change->plan->next, fp);
        assert_string_equal(a.change->reads.fingerprint, fp);
        assert_int_equal(a.change->check_step, 4);
        audit_change_destroy(&a);
        audit_destroy(&a);
        audit_at(&a, "5", 10);
        assert_int_equal(a.change->check_step, 0);
        assert_string_equal(a.change->writes.fingerprint, fp);
        audit_change_destroy(&a);
        audit_destroy(&a);
}

static void test_step_beyond_the_plan(void **state) {
        audit_t a;
        char err[512];
        (void)state;
        bp_config_init(&cfg);
        cfg_set(&cfg, "bucket.priority.topic", "orders");
        cfg_set(&cfg, "bucket.priority.buckets", "critical, bulk");
        cfg_set(&cfg, "bucket.priority.allocation", "30, 70");
        cfg_set(&cfg, "bucket.priority.layout", "stable");
        cfg_set(&cfg, "bucket.priority.next.allocation", "50, 50");
        cfg_set(&cfg, "bucket.priority.next.step", "4");
        assert_int_equal(audit_init(&a, &cfg, "app", 12, err, sizeof(err)),
                         0);
        assert_int_equal(audit_change_init(&a, err, sizeof(err)), -1);
        assert_non_null(strstr(err, "bucket.priority.next.step=4: at 12 "
                                    "partitions this change has 3 steps"));
        audit_change_destroy(&a);
        audit_destroy(&a);
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_drained_when_commit_at_end),
            cmocka_unit_test(test_wait_when_behind_or_moving),
            cmocka_unit_test(test_later_commit_counts),
            cmocka_unit_test(test_misplaced_records_and_their_layout),
            cmocka_unit_test(test_old_records_past_the_commit),
            cmocka_unit_test(test_group_reading_with_another_layout),
            cmocka_unit_test(test_fingerprints_and_mapping),
            cmocka_unit_test(test_step_beyond_the_plan),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
