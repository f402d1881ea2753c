/*
 * test_audit_kip848.c - bp-audit's judgement of bucket groups on the
 * consumer protocol (KIP-848), without a cluster: the broker's range
 * assignor hands each group's members blocks of the whole topic, members
 * keep them and pause the partitions of other buckets. Those are shown as
 * "held, not read" (per member, per group, per partition), never a fault;
 * every bucket partition held by exactly one member (unread_partition or
 * double_read otherwise); a consumer without the plugin in such a group
 * flagged; lag from the bucket's partitions only; the group's type and a
 * member's target assignment in both reports, and the partitions a
 * rebalance leaves unread naming the member they move to. And what a
 * librdkafka before 2.10 reports for such groups (audit_group_hidden()):
 * not checked, or no member when the listing says Empty, never a made-up
 * fault.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit_lag.h"
#include "audit/audit_owner.h"
#include "audit/audit_report.h"
#include "audit_test_util.h"
#include "bp_list.h"

#define PARTS 12

static bp_config_t cfg; /* critical, normal, bulk = 20, 30, 50, stable */

static int setup_cfg(void **state) {
        (void)state;
        bp_config_init(&cfg);
        cfg_set(&cfg, "bucket.priority.topic", "orders");
        cfg_set(&cfg, "bucket.priority.buckets", "critical, normal, bulk");
        cfg_set(&cfg, "bucket.priority.allocation", "20%, 30%, 50%");
        cfg_set(&cfg, "bucket.priority.layout", "stable");
        return 0;
}

static void audit_new(audit_t *a) {
        char err[256];
        assert_int_equal(audit_init(a, &cfg, "app", PARTS, err, sizeof(err)),
                         0);
}

/* Range's block of member k of n over the topic: contiguous, the first
 * PARTS % n members one larger. Returns its size, partitions in \p out. */
static int range_block(int k, int n, int32_t *out) {
        int q = PARTS / n, r = PARTS % n, i, at = 0, size;
        for (i = 0; i < k; i++)
                at += q + (i < r);
        size = q + (k < r);
        for (i = 0; i < size; i++)
                out[i] = at + i;
        return size;
}

/* Adds group app.<bucket b> of the consumer type, described, offsets
 * read, with \p members members holding range's blocks. */
static int add_kip848_group(audit_t *a, int b, int members) {
        char name[80], id[32];
        int32_t block[PARTS];
        int g, k, n;
        snprintf(name, sizeof(name), "app.%.64s", cfg.buckets[b].name);
        g = audit_add_group(a, name, &b, 1);
        assert_true(g >= 0);
        a->groups[g].described    = 1;
        a->groups[g].offsets_read = 1;
        a->groups[g].type         = AUDIT_GROUP_TYPE_CONSUMER;
        snprintf(a->groups[g].state, sizeof(a->groups[g].state), "Stable");
        for (k = 0; k < members; k++) {
                n = range_block(k, members, block);
                snprintf(id, sizeof(id), "m%d-%d", b, k);
                assert_non_null(
                    audit_add_member(a, g, id, "rdkafka", "/h", block, n));
        }
        return g;
}

/* Two members per bucket group, range blocks 0-5 and 6-11: each member
 * reads its block's partitions of its bucket and holds the rest paused;
 * healthy, no finding at all; each partition read once and held paused by
 * one member of each other group; lag from the bucket's commits alone. */
static void test_healthy(void **state) {
        audit_t a;
        char *text, *json, line[512], ranges[128], want[256];
        int32_t p, block[PARTS], reads[PARTS], held[PARTS];
        int b, g, m, k, n, nr, nh, unc;
        (void)state;
        audit_new(&a);
        for (p = 0; p < PARTS; p++) {
                a.parts[p].low  = 0;
                a.parts[p].high = 40 + p;
        }
        for (b = 0; b < 3; b++) {
                g = add_kip848_group(&a, b, 2);
                /* Commits on its bucket's partitions only, at their end
                 * but one record on the first. */
                for (p = 0; p < PARTS; p++)
                        if (a.layout->bucket_of[p] == b)
                                a.groups[g].committed[p] = a.parts[p].high;
                p = a.layout->partitions[a.layout->first[b]];
                a.groups[g].committed[p]--;
        }
        audit_owner_judge(&a);
        assert_int_equal(a.finding_cnt, 0);
        assert_int_equal(audit_exit_status(&a), AUDIT_HEALTHY);
        for (p = 0; p < PARTS; p++) {
                assert_int_equal(a.parts[p].reader_cnt, 1);
                assert_int_equal(a.parts[p].held_cnt, 2);
        }
        reports(&a, &text, &json);
        for (g = 0; g < 3; g++) {
                b = a.groups[g].buckets[0];
                for (m = 0; m < 2; m++) {
                        const audit_member_t *mem = &a.groups[g].members[m];
                        n = range_block(m, 2, block);
                        for (k = 0, nr = 0, nh = 0; k < n; k++)
                                if (a.layout->bucket_of[block[k]] == b)
                                        reads[nr++] = block[k];
                                else
                                        held[nh++] = block[k];
                        assert_true(nr > 0 && nh > 0);
                        assert_int_equal(mem->read_cnt, nr);
                        assert_int_equal(mem->held_cnt, nh);
                        assert_memory_equal(mem->reads, reads,
                                            (size_t)nr * sizeof(int32_t));
                        assert_memory_equal(mem->held, held,
                                            (size_t)nh * sizeof(int32_t));
                        bp_ranges_format(ranges, sizeof(ranges), held, nh);
                        snprintf(line, sizeof(line),
                                 "      held, not read  %s  (other "
                                 "buckets', paused)\n",
                                 ranges);
                        expect_in(text, line);
                }
                snprintf(want, sizeof(want),
                         "  app.%s: Stable, consumer protocol (KIP-848), 2 "
                         "members, %d partitions held, not read\n",
                         cfg.buckets[b].name,
                         PARTS - a.layout->count[b]);
                expect_in(text, want);
                snprintf(want, sizeof(want),
                         "\"state\":\"Stable\",\"type\":\"consumer\","
                         "\"held_not_read\":%d,",
                         PARTS - a.layout->count[b]);
                expect_in(json, want);
                /* One record behind on one partition of its own; nothing
                 * counted for the partitions it holds paused. */
                assert_int_equal(audit_lag_group(&a, b), g);
                assert_int_equal(audit_bucket_lag(&a, b, &unc), 1);
                assert_int_equal(unc, 0);
        }
        expect_in(text, "\nhealthy: 0 faults, 0 notes\n");
        expect_in(json, "\"readers\":1,\"held_not_read\":2,");
        expect_in(json, "\"target\":null");
        free(text);
        free(json);
        audit_destroy(&a);
}

/* A new audit with two members per bucket group; returns normal's. */
static int two_per_bucket(audit_t *a) {
        int g;
        audit_new(a);
        add_kip848_group(a, 0, 2);
        g = add_kip848_group(a, 1, 2);
        add_kip848_group(a, 2, 2);
        return g;
}

/* Normal's second member is gone and the broker has not moved its block
 * yet: normal's partitions in 6-11 are held by no member (one fault each),
 * those in 0-5 still read; the partitions held paused are no fault. */
static void test_unheld(void **state) {
        audit_t a;
        int32_t p;
        int g, missing = 0;
        (void)state;
        g = two_per_bucket(&a);
        a.groups[g].member_cnt = 1; /* the second member left */
        audit_owner_judge(&a);
        for (p = 6; p < PARTS; p++)
                missing += a.layout->bucket_of[p] == 1;
        assert_true(missing > 0);
        assert_int_equal(count_kind(&a, AUDIT_F_UNREAD), missing);
        assert_int_equal(a.finding_cnt, missing);
        for (p = 0; p < PARTS; p++)
                assert_int_equal(a.parts[p].reader_cnt,
                                 !(a.layout->bucket_of[p] == 1 && p >= 6));
        assert_int_equal(audit_exit_status(&a), AUDIT_FAULTY);
        a.groups[g].member_cnt = 2; /* freed by audit_destroy() */
        audit_destroy(&a);
}

/* Two members of bulk both hold partition 0 (a member the broker has not
 * taken it from yet): read twice, a fault. */
static void test_held_twice(void **state) {
        static const int32_t extra[] = {0};
        audit_t a;
        int g;
        (void)state;
        audit_new(&a);
        assert_int_equal(a.layout->bucket_of[0], 2);
        add_kip848_group(&a, 0, 1);
        add_kip848_group(&a, 1, 1);
        g = add_kip848_group(&a, 2, 2);
        assert_non_null(audit_add_member(&a, g, "m-late", "c", "h", extra, 1));
        audit_owner_judge(&a);
        assert_int_equal(a.parts[0].reader_cnt, 2);
        assert_int_equal(count_kind(&a, AUDIT_F_DOUBLE_READ), 1);
        assert_int_equal(a.findings[0].partition, 0);
        assert_int_equal(audit_exit_status(&a), AUDIT_FAULTY);
        audit_destroy(&a);
}

/* A consumer without the plugin in normal's group reads what the broker
 * gave it: its group committed at the end of a partition of another
 * bucket it holds. Flagged, and the other buckets' partitions of its
 * block read twice. */
static void test_plain_member(void **state) {
        audit_t a;
        int32_t p, other = -1;
        int g, twice = 0;
        (void)state;
        g = two_per_bucket(&a);
        for (p = 0; p < 6; p++) {
                a.parts[p].low = 0;
                a.parts[p].high = 10;
                if (a.layout->bucket_of[p] != 1) {
                        twice++;
                        if (other < 0)
                                other = p;
                }
        }
        a.groups[g].committed[other] = 10;
        audit_owner_judge(&a);
        assert_true(a.groups[g].members[0].not_bucket);
        assert_false(a.groups[g].members[1].not_bucket);
        assert_int_equal(a.groups[g].members[0].read_cnt, 6);
        assert_int_equal(a.groups[g].members[0].held_cnt, 0);
        assert_int_equal(count_kind(&a, AUDIT_F_NOT_BUCKET), 1);
        assert_int_equal(count_kind(&a, AUDIT_F_DOUBLE_READ), twice);
        audit_destroy(&a);
}

/* Three members of critical (2 partitions, 3 and 9 on the stable layout):
 * range's middle block 4-7 holds none of them: an idle note saying so. */
static void test_idle_member(void **state) {
        audit_t a;
        int g;
        (void)state;
        audit_new(&a);
        g = add_kip848_group(&a, 0, 3);
        add_kip848_group(&a, 1, 1);
        add_kip848_group(&a, 2, 1);
        audit_owner_judge(&a);
        assert_int_equal(a.groups[g].members[1].read_cnt, 0);
        assert_int_equal(a.groups[g].members[1].held_cnt, 4);
        assert_int_equal(count_kind(&a, AUDIT_F_IDLE_MEMBER), 1);
        assert_non_null(strstr(a.findings[0].text,
                               "none of its buckets' partitions"));
        assert_int_equal(a.finding_cnt, 1);
        assert_int_equal(audit_exit_status(&a), AUDIT_HEALTHY);
        audit_destroy(&a);
}

/* The same assignment judged as a classic group maps the blocks as
 * indexes: the type decides. */
static void test_type_decides(void **state) {
        audit_t a;
        int g;
        (void)state;
        audit_new(&a);
        g = add_kip848_group(&a, 0, 2);
        a.groups[g].type = AUDIT_GROUP_TYPE_CLASSIC;
        audit_owner_judge(&a);
        /* Indexes 0-5 map to both critical partitions, 6-11 to none. */
        assert_int_equal(a.groups[g].members[0].read_cnt, 2);
        assert_int_equal(a.groups[g].members[0].held_cnt, 0);
        assert_int_equal(a.groups[g].members[1].read_cnt, 0);
        assert_int_equal(count_kind(&a, AUDIT_F_IDLE_MEMBER), 1);
        audit_destroy(&a);
}

/* A member whose target differs from what it holds (a rebalance under
 * way) shows where it is moving; one whose target is what it holds does
 * not. */
static void test_target(void **state) {
        static const int32_t moving[] = {0, 1, 2, 3};
        audit_t a;
        char *text, *json;
        int g;
        (void)state;
        audit_new(&a);
        g = add_kip848_group(&a, 2, 2);
        assert_int_equal(audit_member_set_target(&a.groups[g].members[0],
                                                 moving, 4),
                         0);
        assert_int_equal(audit_member_set_target(
                             &a.groups[g].members[1],
                             a.groups[g].members[1].indexes,
                             a.groups[g].members[1].index_cnt),
                         0);
        audit_owner_judge(&a);
        reports(&a, &text, &json);
        expect_in(text, "      broker says  0-5\n      moving to    0-3  "
                        "(the broker's target: the group is rebalancing)\n");
        assert_null(strstr(strstr(text, "m2-1"), "moving to"));
        expect_in(json, "\"target\":[0,1,2,3]");
        expect_in(json, "\"target\":[6,7,8,9,10,11]");
        free(text);
        free(json);
        audit_destroy(&a);
}

/* A member joins bulk: the broker has taken 8-11 from the others and the
 * new member has not acknowledged them yet. Bulk's partitions there are
 * read by no member (a fault while it lasts) and the findings name the
 * member they move to; that member, holding nothing yet, is not called
 * idle. */
static void test_rebalance_unread(void **state) {
        static const int32_t joining[] = {8, 9, 10, 11};
        audit_t a;
        audit_member_t *m;
        int32_t p, want = 0;
        int g, k, i;
        (void)state;
        audit_new(&a);
        g = add_kip848_group(&a, 2, 3);
        m = &a.groups[g].members[2];
        assert_int_equal(audit_member_set_target(m, joining, 4), 0);
        m->index_cnt = 0; /* acknowledged nothing yet */
        for (k = 0; k < 2; k++) {
                audit_member_t *o = &a.groups[g].members[k];
                assert_int_equal(
                    audit_member_set_target(o, o->indexes, o->index_cnt), 0);
                assert_false(audit_member_moving(o));
        }
        assert_true(audit_member_moving(m));
        audit_owner_judge(&a);
        for (p = 8; p < PARTS; p++)
                want += a.layout->bucket_of[p] == 2;
        assert_true(want > 0);
        assert_int_equal(count_kind(&a, AUDIT_F_UNREAD), want);
        assert_int_equal(count_kind(&a, AUDIT_F_IDLE_MEMBER), 0);
        assert_int_equal(a.finding_cnt, want);
        for (i = 0; i < a.finding_cnt; i++) {
                assert_true(a.findings[i].partition >= 8);
                assert_int_equal(a.findings[i].member, 2);
                assert_non_null(strstr(a.findings[i].text,
                                       "is rebalancing, the broker moves it "
                                       "to m2-2"));
        }
        assert_int_equal(audit_exit_status(&a), AUDIT_FAULTY);
        m->index_cnt = 4;
        audit_destroy(&a);
}

/* A librdkafka before 2.10 describes a consumer protocol group as Dead
 * with no member. Listed Stable: not checked (exit 3), no no_consumer;
 * listed Empty: no member, the fault is real; not listed or listed Dead:
 * a group that does not exist, no_consumer as before. */
static void test_hidden(void **state) {
        audit_t a;
        char *text, *json;
        int b;
        (void)state;
        audit_new(&a);
        for (b = 0; b < 3; b++) {
                int g = audit_add_group(&a, cfg.buckets[b].name, &b, 1);
                a.groups[g].described = 1;
                snprintf(a.groups[g].state, sizeof(a.groups[g].state),
                         "Dead");
        }
        assert_int_equal(audit_group_hidden(&a, 0, "Stable", "2.0.2"), 1);
        assert_int_equal(audit_group_hidden(&a, 1, "Empty", "2.0.2"), 1);
        assert_int_equal(audit_group_hidden(&a, 2, NULL, "2.0.2"), 0);
        assert_int_equal(audit_group_hidden(&a, 2, "Dead", "2.0.2"), 0);
        assert_false(a.groups[0].described);
        assert_int_equal(a.groups[0].type, AUDIT_GROUP_TYPE_CONSUMER);
        assert_true(a.groups[1].described);
        assert_string_equal(a.groups[1].state, "Empty");
        assert_int_equal(a.groups[1].type, AUDIT_GROUP_TYPE_CONSUMER);
        assert_true(a.groups[2].described);
        assert_int_equal(a.groups[2].type, AUDIT_GROUP_TYPE_UNKNOWN);
        /* Once judged, a group is not judged again. */
        assert_int_equal(audit_group_hidden(&a, 0, "Stable", "2.0.2"), 0);
        assert_int_equal(count_kind(&a, AUDIT_F_UNCHECKED), 1);
        assert_non_null(strstr(a.findings[0].text, "librdkafka 2.0.2 "
                                                   "cannot describe"));
        assert_non_null(strstr(a.findings[0].text, "2.10 or later"));
        audit_owner_judge(&a);
        assert_int_equal(count_kind(&a, AUDIT_F_NO_CONSUMER), 2);
        assert_int_equal(a.findings[1].bucket, 1);
        assert_int_equal(a.findings[2].bucket, 2);
        assert_int_equal(audit_exit_status(&a), AUDIT_FAULTY);
        reports(&a, &text, &json);
        expect_in(text, "  critical: not described (listed as Stable), "
                        "consumer protocol (KIP-848)\n");
        expect_in(text, "  normal: Empty, consumer protocol (KIP-848), 0 "
                        "members, 0 partitions held, not read\n");
        expect_in(text, "  bulk: Dead, 0 members\n");
        expect_in(json, "{\"name\":\"critical\",\"buckets\":[\"critical\"],"
                        "\"described\":false,\"state\":null,\"type\":"
                        "\"consumer\",");
        free(text);
        free(json);
        audit_destroy(&a);

        /* Only the hidden group: not checked, never healthy. */
        audit_new(&a);
        for (b = 0; b < 3; b++) {
                int g = audit_add_group(&a, cfg.buckets[b].name, &b, 1);
                a.groups[g].described = 1;
                snprintf(a.groups[g].state, sizeof(a.groups[g].state),
                         "Dead");
                audit_group_hidden(&a, g, "Stable", "2.0.2");
        }
        audit_owner_judge(&a);
        assert_int_equal(count_kind(&a, AUDIT_F_UNCHECKED), 3);
        assert_int_equal(a.finding_cnt, 3);
        assert_int_equal(audit_exit_status(&a), AUDIT_NOT_CHECKED);
        audit_destroy(&a);
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_healthy),
            cmocka_unit_test(test_unheld),
            cmocka_unit_test(test_held_twice),
            cmocka_unit_test(test_plain_member),
            cmocka_unit_test(test_idle_member),
            cmocka_unit_test(test_type_decides),
            cmocka_unit_test(test_target),
            cmocka_unit_test(test_rebalance_unread),
            cmocka_unit_test(test_hidden),
        };
        return cmocka_run_group_tests(tests, setup_cfg, NULL);
}
