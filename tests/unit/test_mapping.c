/*
 * test_mapping.c - the consumer side's index mapping, exhaustively: for
 * partition counts 1..64, member counts 1..P+2 and both layouts, the
 * members of a bucket's group (given indexes the way the roundrobin
 * assignor spreads them) together hold exactly their bucket's partitions,
 * never the same one twice, with shares differing by at most one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "bp_config.h"
#include "bp_layout.h"
#include "bp_mapping.h"

static const char *allocations[][2] = {
    {"Platinum, Gold", "70, 30"},
    {"critical, normal, bulk", "20, 30, 50"},
    {"a, b, c, d", "25, 25, 25, 25"},
    {"big, tiny", "99, 1"},
    {"x, y, z", "33.3333, 33.3333, 33.3334"},
};

static void configure(bp_config_t *cfg, int set, bp_layout_kind_t kind) {
        char err[256];
        bp_config_init(cfg);
        assert_int_equal(bp_config_set(cfg, "bucket.priority.buckets",
                                       allocations[set][0], err, sizeof(err)),
                         BP_SET_OK);
        assert_int_equal(bp_config_set(cfg, "bucket.priority.allocation",
                                       allocations[set][1], err, sizeof(err)),
                         BP_SET_OK);
        cfg->layout = kind;
}

/* Members of one group: member k of m gets indexes k, k+m, k+2m, ...
 * (roundrobin over the sorted partitions of one subscribed topic). */
static void check_group(const bp_layout_t *l, const int *buckets, int n,
                        int members) {
        int32_t b[64], b_cnt, i, q;
        int owner[64], share[66] = {0}, k, min, max;

        b_cnt = bp_mapping_partitions(l, buckets, n, b);
        for (i = 0; i < 64; i++)
                owner[i] = -1;
        for (i = 0; i < l->partition_cnt; i++) {
                k = i % members;
                q = bp_mapping_map(b, b_cnt, i);
                if (q < 0)
                        continue;
                /* Inside the buckets served, never twice. */
                assert_true(q >= 0 && q < l->partition_cnt);
                int in = 0;
                for (int j = 0; j < n; j++)
                        in |= l->bucket_of[q] == buckets[j];
                assert_true(in);
                assert_int_equal(owner[q], -1);
                owner[q] = k;
                share[k]++;
        }
        /* Every partition of the buckets is held. */
        for (i = 0; i < b_cnt; i++)
                assert_int_not_equal(owner[b[i]], -1);
        for (min = max = share[0], k = 1; k < members; k++) {
                min = share[k] < min ? share[k] : min;
                max = share[k] > max ? share[k] : max;
        }
        assert_true(max - min <= 1);
}

static void exhaustive(bp_layout_kind_t kind) {
        bp_config_t cfg;
        char err[256];
        int set, bucket, members, pair[2];
        int32_t p;

        for (set = 0; set < (int)(sizeof(allocations) / sizeof(*allocations));
             set++) {
                configure(&cfg, set, kind);
                for (p = 1; p <= 64; p++) {
                        bp_layout_t *l =
                            bp_layout_compute(&cfg, p, err, sizeof(err));
                        if (!l) {
                                assert_true(p < cfg.bucket_cnt);
                                continue;
                        }
                        for (members = 1; members <= p + 2; members++) {
                                for (bucket = 0; bucket < cfg.bucket_cnt;
                                     bucket++)
                                        check_group(l, &bucket, 1, members);
                                /* A consumer serving the first two. */
                                pair[0] = 0;
                                pair[1] = cfg.bucket_cnt - 1;
                                check_group(l, pair, 2, members);
                        }
                        bp_layout_destroy(l);
                }
        }
}

static void test_contiguous(void **state) {
        (void)state;
        exhaustive(BP_LAYOUT_CONTIGUOUS);
}

static void test_stable(void **state) {
        (void)state;
        exhaustive(BP_LAYOUT_STABLE);
}

/* The brief's example: 12 partitions, Gold = 8..11, two members. */
static void test_example(void **state) {
        bp_config_t cfg;
        char err[256];
        int gold = 1;
        int32_t b[12], n;
        bp_layout_t *l;
        (void)state;

        configure(&cfg, 0, BP_LAYOUT_CONTIGUOUS);
        l = bp_layout_compute(&cfg, 12, err, sizeof(err));
        assert_non_null(l);
        n = bp_mapping_partitions(l, &gold, 1, b);
        assert_int_equal(n, 4);
        /* Member 0 of 2 gets indexes 0,2,4..: partitions 8 and 10. */
        assert_int_equal(bp_mapping_map(b, n, 0), 8);
        assert_int_equal(bp_mapping_map(b, n, 2), 10);
        assert_int_equal(bp_mapping_map(b, n, 4), -1);
        assert_int_equal(bp_mapping_map(b, n, 1), 9);
        assert_int_equal(bp_mapping_map(b, n, 3), 11);
        bp_layout_destroy(l);
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_example),
            cmocka_unit_test(test_contiguous),
            cmocka_unit_test(test_stable),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
