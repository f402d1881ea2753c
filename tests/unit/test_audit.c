/*
 * test_audit.c - bp-audit's judgement without a cluster: the properties
 * file reader, key classification (misrouted, old layout, unknown, NULL,
 * escaped samples), ownership through the consumers' mapping with its
 * flags (healthy, consumer without the plugin, no consumer, idle member,
 * stale commit), lag per bucket, and the verdict: a check that could
 * not be made is "not checked" (exit 3), never healthy.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit_classify.h"
#include "audit/audit_lag.h"
#include "audit/audit_owner.h"
#include "audit/audit_props.h"
#include "audit/audit_report.h"
#include "bp_config.h"
#include "bp_mapping.h"

#include "audit_test_util.h"

static bp_config_t cfg3; /* critical, normal, bulk = 20, 30, 50 */

static int setup_cfg(void **state) {
        (void)state;
        bp_config_init(&cfg3);
        cfg_set(&cfg3, "bucket.priority.topic", "orders");
        cfg_set(&cfg3, "bucket.priority.buckets", "critical, normal, bulk");
        cfg_set(&cfg3, "bucket.priority.allocation", "20%, 30%, 50%");
        return 0;
}

static void audit_12(audit_t *a) {
        char err[256];
        assert_int_equal(audit_init(a, &cfg3, "app", 12, err, sizeof(err)),
                         0);
}

/* --- properties file ----------------------------------------------------- */

static void test_props_parse(void **state) {
        audit_props_t p = {0};
        char err[256];
        (void)state;
        assert_int_equal(
            audit_props_parse("app.properties",
                              "# comment\n\n  ! also a comment\n"
                              "bootstrap.servers = k1:9092,k2:9092\r\n"
                              "bucket.priority.buckets=a, b \n"
                              "empty=\nx=1\nx=2",
                              &p, err, sizeof(err)),
            0);
        assert_int_equal(p.cnt, 5);
        assert_string_equal(audit_props_get(&p, "bootstrap.servers"),
                            "k1:9092,k2:9092");
        assert_int_equal(p.items[0].line, 4);
        assert_string_equal(audit_props_get(&p, "bucket.priority.buckets"),
                            "a, b");
        assert_string_equal(audit_props_get(&p, "empty"), "");
        assert_string_equal(audit_props_get(&p, "x"), "2"); /* last wins */
        assert_null(audit_props_get(&p, "group.id"));
        assert_int_equal(audit_props_set(&p, "x", "3"), 0);
        assert_string_equal(audit_props_get(&p, "x"), "3");
        audit_props_free(&p);
}

static void test_props_malformed(void **state) {
        audit_props_t p = {0};
        char err[256];
        (void)state;
        assert_int_equal(audit_props_parse("app.properties",
                                           "a=1\n\nno equals sign here\n", &p,
                                           err, sizeof(err)),
                         -1);
        assert_string_equal(err, "app.properties:3: expected name=value, got "
                                 "\"no equals sign here\"");
        audit_props_free(&p);
        assert_int_equal(
            audit_props_parse("f", "=value\n", &p, err, sizeof(err)), -1);
        assert_non_null(strstr(err, "f:1: expected name=value"));
        audit_props_free(&p);
        assert_int_equal(audit_props_load("/nonexistent/app.properties", &p,
                                          err, sizeof(err)),
                         -1);
        assert_non_null(strstr(err, "/nonexistent/app.properties: cannot "
                                    "open"));
}

static void test_props_client(void **state) {
        (void)state;
        assert_true(bp_connection_property("bootstrap.servers"));
        assert_true(bp_connection_property("security.protocol"));
        assert_true(bp_connection_property("sasl.mechanism"));
        assert_true(bp_connection_property("ssl.ca.location"));
        assert_true(bp_connection_property("enable.ssl.certificate."
                                           "verification"));
        assert_true(bp_connection_property("https.ca.location"));
        assert_true(bp_connection_property("client.id"));
        assert_false(bp_connection_property("sasl"));
        assert_false(bp_connection_property("bootstrap.servers.x"));
        assert_false(bp_connection_property("plugin.library.paths"));
        assert_false(bp_connection_property("group.id"));
        assert_false(bp_connection_property("bucket.priority.topic"));
        assert_false(bp_connection_property("enable.auto.commit"));
}

/* --- key classification -------------------------------------------------- */

static void test_classify(void **state) {
        audit_t a;
        bp_layout_t *l6;
        char err[256];
        int32_t p, crit = -1, bulk = -1, moved = -1;
        (void)state;
        audit_12(&a);
        for (p = 0; p < 12; p++) {
                if (a.layout->bucket_of[p] == 0 && crit < 0)
                        crit = p;
                if (a.layout->bucket_of[p] == 2 && bulk < 0)
                        bulk = p;
        }
        assert_true(crit >= 0 && bulk >= 0);
        assert_int_equal(audit_classify_key(&a, crit, "critical-1", 10),
                         AUDIT_KEY_IN_BUCKET);
        assert_int_equal(audit_classify_key(&a, crit, "critical", 8),
                         AUDIT_KEY_IN_BUCKET);
        assert_int_equal(audit_classify_key(&a, bulk, "critical-1", 10),
                         AUDIT_KEY_MISROUTED);
        assert_int_equal(audit_classify_key(&a, crit, "bulk-1", 6),
                         AUDIT_KEY_MISROUTED);
        assert_int_equal(audit_classify_key(&a, crit, "criticalx-1", 11),
                         AUDIT_KEY_UNKNOWN);
        assert_int_equal(audit_classify_key(&a, crit, NULL, 0),
                         AUDIT_KEY_NULL);
        assert_int_equal(audit_classify_key(&a, crit, "", 0), AUDIT_KEY_NULL);

        /* A key of the bucket that held the partition at 6 partitions: old
         * layout once the audit is told of the growth. */
        l6 = bp_layout_compute(&cfg3, 6, err, sizeof(err));
        assert_non_null(l6);
        for (p = 0; p < 6 && moved < 0; p++)
                if (l6->bucket_of[p] != a.layout->bucket_of[p])
                        moved = p;
        assert_true(moved >= 0);
        {
                const char *name = cfg3.buckets[l6->bucket_of[moved]].name;
                assert_int_equal(
                    audit_classify_key(&a, moved, name, strlen(name)),
                    AUDIT_KEY_MISROUTED);
                assert_int_equal(audit_add_past(&a, 6, err, sizeof(err)), 0);
                assert_int_equal(
                    audit_classify_key(&a, moved, name, strlen(name)),
                    AUDIT_KEY_OLD_LAYOUT);
        }
        assert_int_equal(audit_add_past(&a, 12, err, sizeof(err)), -1);
        assert_non_null(strstr(err, "--grown-from 12"));
        bp_layout_destroy(l6);
        audit_destroy(&a);
}

static void test_count_and_samples(void **state) {
        static const char binary[] = "critical-\x01\x02\"\\abcdefghijklmnop";
        audit_t a;
        int32_t bulk = 0;
        int i;
        (void)state;
        audit_12(&a);
        while (a.layout->bucket_of[bulk] != 2)
                bulk++;
        audit_count_key(&a, bulk, binary, sizeof(binary) - 1);
        for (i = 0; i < 5; i++)
                audit_count_key(&a, bulk, "normal-x", 8);
        audit_count_key(&a, bulk, "bulk-1", 6);
        audit_count_key(&a, bulk, "nobucket", 8);
        audit_count_key(&a, bulk, NULL, 0);
        assert_int_equal(a.parts[bulk].keys[AUDIT_KEY_MISROUTED], 6);
        assert_int_equal(a.parts[bulk].keys[AUDIT_KEY_IN_BUCKET], 1);
        assert_int_equal(a.parts[bulk].keys[AUDIT_KEY_UNKNOWN], 1);
        assert_int_equal(a.parts[bulk].keys[AUDIT_KEY_NULL], 1);
        assert_int_equal(a.parts[bulk].sample_cnt, AUDIT_SAMPLES);
        /* 16 bytes at most, escaped, "..." when longer. */
        assert_string_equal(a.parts[bulk].samples[0],
                            "critical-\\x01\\x02\\\"\\\\abc...");
        assert_string_equal(a.parts[bulk].samples[1], "normal-x");
        audit_routing_findings(&a);
        assert_int_equal(count_kind(&a, AUDIT_F_MISROUTED), 1);
        assert_int_equal(count_kind(&a, AUDIT_F_UNKNOWN_KEYS), 1);
        assert_int_equal(a.findings[0].count, 6);
        assert_int_equal(a.findings[0].partition, bulk);
        audit_destroy(&a);
}

/* --- ownership ----------------------------------------------------------- */

/* Adds group <app>.<bucket b> with \p members members holding the
 * roundrobin indexes of \p partitions numbers (member k: i % members ==
 * k), as the broker assigns them. */
static int add_rr_group(audit_t *a, int b, int members) {
        char name[80], id[32];
        int32_t idx[64];
        int g, k, n;
        int32_t i;
        snprintf(name, sizeof(name), "app.%.64s", cfg3.buckets[b].name);
        g = audit_add_group(a, name, &b, 1);
        assert_true(g >= 0);
        a->groups[g].described    = 1;
        a->groups[g].offsets_read = 1;
        snprintf(a->groups[g].state, sizeof(a->groups[g].state), "Stable");
        for (k = 0; k < members; k++) {
                for (i = 0, n = 0; i < a->layout->partition_cnt; i++)
                        if (i % members == k)
                                idx[n++] = i;
                snprintf(id, sizeof(id), "m%d-%d", b, k);
                assert_non_null(
                    audit_add_member(a, g, id, "rdkafka", "/h", idx, n));
        }
        return g;
}

static void test_owner_healthy(void **state) {
        audit_t a;
        int32_t p, b_parts[12], cnt, i;
        int b, g, m;
        (void)state;
        audit_12(&a);
        for (b = 0; b < 3; b++)
                add_rr_group(&a, b, 2);
        audit_owner_judge(&a);
        assert_int_equal(a.finding_cnt, 0);
        for (p = 0; p < 12; p++)
                assert_int_equal(a.parts[p].reader_cnt, 1);
        /* Each member reads B[i] for its indexes i < |B|. */
        for (g = 0; g < 3; g++) {
                cnt = bp_mapping_partitions(a.layout, a.groups[g].buckets, 1,
                                            b_parts);
                for (m = 0; m < 2; m++) {
                        const audit_member_t *mem = &a.groups[g].members[m];
                        int n = 0;
                        for (i = 0; i < mem->index_cnt; i++)
                                if (mem->indexes[i] < cnt)
                                        assert_int_equal(
                                            mem->reads[n++],
                                            b_parts[mem->indexes[i]]);
                        assert_int_equal(mem->read_cnt, n);
                        assert_false(mem->not_bucket);
                }
        }
        audit_destroy(&a);
}

static void test_owner_faults(void **state) {
        audit_t a;
        int g_crit, g_norm, b_bulk = 2;
        int32_t p, foreign = -1;
        (void)state;
        audit_12(&a);
        g_crit = add_rr_group(&a, 0, 3); /* 2 partitions: one idle */
        g_norm = add_rr_group(&a, 1, 2);
        /* bulk: a group that exists with no member */
        {
                int g = audit_add_group(&a, "app.bulk", &b_bulk, 1);
                a.groups[g].described    = 1;
                a.groups[g].offsets_read = 1;
        }
        /* Member 0 of normal commits where it reads without the plugin:
         * at an index of its that never was a normal partition. */
        for (p = 0; p < 12 && foreign < 0; p += 2)
                if (!(a.history[p] & 2))
                        foreign = p;
        assert_true(foreign >= 0);
        a.groups[g_norm].committed[foreign] = 5;
        audit_owner_judge(&a);

        assert_true(a.groups[g_norm].members[0].not_bucket);
        assert_false(a.groups[g_norm].members[1].not_bucket);
        assert_int_equal(count_kind(&a, AUDIT_F_NOT_BUCKET), 1);
        assert_int_equal(count_kind(&a, AUDIT_F_NO_CONSUMER), 1);
        assert_int_equal(count_kind(&a, AUDIT_F_IDLE_MEMBER), 1);
        assert_true(a.groups[g_crit].members[2].read_cnt == 0);
        /* It reads its indexes themselves: the partitions of other buckets
         * among them are read twice. */
        {
                const audit_member_t *m = &a.groups[g_norm].members[0];
                int i, twice = 0;
                assert_int_equal(m->read_cnt, m->index_cnt);
                for (i = 0; i < m->index_cnt; i++) {
                        assert_int_equal(m->reads[i], m->indexes[i]);
                        twice += a.layout->bucket_of[m->indexes[i]] == 0;
                }
                assert_int_equal(count_kind(&a, AUDIT_F_DOUBLE_READ), twice);
                assert_true(twice > 0);
        }
        /* The commit is its own, not a stray one. */
        assert_int_equal(count_kind(&a, AUDIT_F_FOREIGN_COMMIT), 0);
        audit_destroy(&a);
}

/* A commit outside the buckets that fell behind the partition's end was
 * left by a consumer that stopped or left: a note, no member flagged. */
static void test_owner_left_commit(void **state) {
        audit_t a;
        int g;
        int32_t p, foreign = -1;
        (void)state;
        audit_12(&a);
        add_rr_group(&a, 0, 1);
        g = add_rr_group(&a, 1, 1);
        add_rr_group(&a, 2, 1);
        for (p = 0; p < 12 && foreign < 0; p++)
                if (!(a.history[p] & 2))
                        foreign = p;
        a.groups[g].committed[foreign] = 5;
        a.parts[foreign].low           = 0;
        a.parts[foreign].high          = 8;
        audit_owner_judge(&a);
        assert_false(a.groups[g].members[0].not_bucket);
        assert_int_equal(count_kind(&a, AUDIT_F_NOT_BUCKET), 0);
        assert_int_equal(count_kind(&a, AUDIT_F_FOREIGN_COMMIT), 1);
        assert_int_equal(a.findings[0].count, 3);
        assert_int_equal(a.finding_cnt, 1);
        audit_destroy(&a);
}

/* A member that holds only some of the indexes (a group assigned by another
 * strategy): the bucket partitions the others stood for are read by none. */
static void test_owner_unread(void **state) {
        static const int32_t only0[] = {0};
        audit_t a;
        int b = 0, g;
        int32_t first = -1, p;
        (void)state;
        audit_12(&a);
        g = audit_add_group(&a, "app.critical", &b, 1);
        a.groups[g].described = 1;
        assert_non_null(audit_add_member(&a, g, "m", "c", "h", only0, 1));
        audit_owner_judge(&a);
        for (p = 0; p < 12; p++)
                if (a.layout->bucket_of[p] == 0) {
                        if (first < 0)
                                first = p;
                        assert_int_equal(a.parts[p].reader_cnt, p == first);
                }
        assert_int_equal(count_kind(&a, AUDIT_F_UNREAD),
                         a.layout->count[0] - 1);
        /* Buckets with no group at all are not described: not flagged. */
        assert_int_equal(count_kind(&a, AUDIT_F_NO_CONSUMER), 0);
        audit_destroy(&a);
}

/* A group never described (no DescribeGroups, no permission) gives no
 * ownership flags: what cannot be seen is not called a fault. */
static void test_owner_undescribed(void **state) {
        audit_t a;
        int b;
        (void)state;
        audit_12(&a);
        for (b = 0; b < 3; b++)
                audit_add_group(&a, cfg3.buckets[b].name, &b, 1);
        audit_owner_judge(&a);
        assert_int_equal(a.finding_cnt, 0);
        audit_destroy(&a);
}

static void test_stale_commit_and_lag(void **state) {
        audit_t a;
        int g, unc, b;
        int32_t p, stale = -1;
        int64_t want;
        (void)state;
        audit_12(&a);
        for (p = 0; p < 12; p++) {
                a.parts[p].low  = 10;
                a.parts[p].high = 100 + p;
        }
        g = add_rr_group(&a, 0, 1); /* critical */
        add_rr_group(&a, 1, 1);
        add_rr_group(&a, 2, 1);
        /* critical committed 90 on its own partitions but one: never. */
        for (p = 0; p < 12; p++)
                if (a.layout->bucket_of[p] == 0)
                        a.groups[g].committed[p] = 90;
        a.groups[g].committed[a.layout->partitions[a.layout->first[0]]] = -1;
        /* A commit on a partition critical held at a smaller count. */
        for (p = 0; p < 12 && stale < 0; p++)
                if (a.layout->bucket_of[p] != 0 && (a.history[p] & 1))
                        stale = p;
        assert_true(stale >= 0);
        a.groups[g].committed[stale] = 3;
        audit_owner_judge(&a);
        assert_int_equal(count_kind(&a, AUDIT_F_STALE_COMMIT), 1);
        assert_int_equal(count_kind(&a, AUDIT_F_NOT_BUCKET), 0);
        assert_int_equal(a.finding_cnt, 1);

        want = 0;
        for (p = 0; p < 12; p++)
                if (a.layout->bucket_of[p] == 0)
                        want += a.groups[g].committed[p] >= 0
                                    ? a.parts[p].high - 90
                                    : a.parts[p].high - a.parts[p].low;
        assert_int_equal(audit_lag_group(&a, 0), g);
        assert_int_equal(audit_bucket_lag(&a, 0, &unc), want);
        assert_int_equal(unc, 1);
        /* The other groups committed nothing: all their records. */
        for (b = 1; b < 3; b++) {
                want = 0;
                for (p = 0; p < 12; p++)
                        if (a.layout->bucket_of[p] == b)
                                want += a.parts[p].high - a.parts[p].low;
                assert_int_equal(audit_bucket_lag(&a, b, &unc), want);
                assert_int_equal(unc, a.layout->count[b]);
        }
        audit_destroy(&a);
}

/* Healthy only when every check was made; a check that could not be made
 * (here: no permission to describe a group) makes the verdict "not
 * checked", exit status 3, with the broker's cause; a layout change that
 * must wait outranks it (4), a fault found outranks both (exit 1), the
 * unchecked count still shown. */
static void test_verdict(void **state) {
        audit_t a;
        char *text, *json;
        int b;
        (void)state;
        audit_12(&a);
        for (b = 0; b < 3; b++)
                add_rr_group(&a, b, 1);
        for (b = 0; b < 3; b++)
                a.groups[b].described = 1;
        audit_owner_judge(&a);
        assert_int_equal(audit_exit_status(&a), AUDIT_HEALTHY);
        assert_int_equal(audit_exit_status(&a), 0);
        reports(&a, &text, &json);
        expect_in(text, "\nhealthy: 0 faults, 0 notes\n");
        expect_in(json, "\"healthy\":true,\"faults\":0,\"notes\":0,");
        expect_in(json, "\"verdict\":\"healthy\",\"unchecked\":0,");
        free(text);
        free(json);

        audit_add_finding(&a, AUDIT_F_UNCHECKED, -1, -1, 0, -1, 0,
                          "group app.critical not described: Broker: Group "
                          "authorization failed");
        audit_add_finding(&a, AUDIT_F_UNKNOWN_KEYS, 0, 10, -1, -1, 2,
                          "partition 10: 2 keys naming no bucket");
        assert_int_equal(audit_unchecked_count(&a), 1);
        assert_int_equal(audit_fault_count(&a), 0);
        assert_int_equal(audit_exit_status(&a), AUDIT_NOT_CHECKED);
        assert_int_equal(audit_exit_status(&a), 3);
        reports(&a, &text, &json);
        expect_in(text, "\nUNCHECKED unchecked: group app.critical not "
                        "described: Broker: Group authorization failed\n");
        expect_in(text, "\nnote  unknown_keys: partition 10");
        expect_in(text, "\nNOT CHECKED: 0 faults, 1 check not made, 1 "
                        "note\n");
        assert_null(strstr(text, "healthy"));
        expect_in(json, "\"healthy\":false,\"faults\":0,\"notes\":2,");
        expect_in(json, "\"verdict\":\"not checked\",\"unchecked\":1,");
        expect_in(json, "{\"kind\":\"unchecked\",\"fault\":false,"
                        "\"bucket\":null,\"partition\":null,\"group\":"
                        "\"app.critical\",");
        free(text);
        free(json);

        /* A layout change that must wait outranks a check not made. */
        audit_add_finding(&a, AUDIT_F_WAIT, -1, -1, -1, -1, 0,
                          "step 2 must wait: 1 partition not drained (5)");
        assert_int_equal(audit_exit_status(&a), AUDIT_WAIT);
        reports(&a, &text, &json);
        expect_in(text, "\nWAIT  wait: step 2 must wait");
        expect_in(text, "\nNOT CHECKED, and WAIT: 0 faults, 1 check not "
                        "made, 2 notes\n");
        expect_in(json, "\"healthy\":false,");
        expect_in(json, "\"verdict\":\"wait\",\"unchecked\":1,");
        free(text);
        free(json);

        audit_add_finding(&a, AUDIT_F_MISROUTED, 2, 0, -1, -1, 1,
                          "partition 0: misrouted");
        assert_int_equal(audit_exit_status(&a), AUDIT_FAULTY);
        reports(&a, &text, &json);
        expect_in(text, "\nNOT HEALTHY: 1 fault, 1 check not made, 2 "
                        "notes\n");
        expect_in(json, "\"verdict\":\"not healthy\",\"unchecked\":1,");
        free(text);
        free(json);
        audit_destroy(&a);
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_props_parse),
            cmocka_unit_test(test_props_malformed),
            cmocka_unit_test(test_props_client),
            cmocka_unit_test(test_classify),
            cmocka_unit_test(test_count_and_samples),
            cmocka_unit_test(test_owner_healthy),
            cmocka_unit_test(test_owner_faults),
            cmocka_unit_test(test_owner_left_commit),
            cmocka_unit_test(test_owner_unread),
            cmocka_unit_test(test_owner_undescribed),
            cmocka_unit_test(test_stale_commit_and_lag),
            cmocka_unit_test(test_verdict),
        };
        return cmocka_run_group_tests(tests, setup_cfg, NULL);
}
