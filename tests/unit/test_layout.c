/*
 * test_layout.c - properties of both bucket layouts over partition counts
 * 1..1024 and many allocations.
 *
 * The contiguous layout is checked against an oracle written here from the
 * reference's description (buckets by allocation descending, ties in
 * configuration order; sizes Math.round((float)alloc / 100 * P) in single
 * precision; leftovers round robin from the first bucket; partitions handed
 * out from 0 upward until none are left). The oracle shares no code with
 * shared/: it has its own ordering, rounding and hand-out.
 *
 * The stable layout is checked for prefix stability (growing the topic
 * never moves a partition), quota (every bucket within one partition of its
 * exact share, in exact integer arithmetic) and bp_layout_stable_min().
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp_config.h"
#include "bp_layout.h"

#define MAX_P 1024
#define RANDOM_SETS 20
#define UNITS ((int64_t)BP_ALLOCATION_UNITS)

/* Allocation sets written out; the random ones are generated below. */
static const char *fixed_sets[] = {
    "70, 30",
    "50, 50",
    "33, 33, 34",
    "34, 33, 33",
    "20, 30, 50",
    "1, 99",
    "99, 1",
    "98, 1, 1",
    "10, 10, 10, 10, 10, 10, 10, 10, 10, 10",
    "60, 20, 20",
    "25, 25, 25, 25",
    "40, 40, 20",
    "5, 5, 90",
    "97, 1, 1, 1",
    "33.3333, 33.3333, 33.3334",
    "12.5, 87.5",
    "0.5, 99.5",
    "45.45, 45.45, 9.1",
};

#define FIXED_SETS ((int)(sizeof(fixed_sets) / sizeof(fixed_sets[0])))
#define ALL_SETS (FIXED_SETS + RANDOM_SETS)

/* --- fixtures -------------------------------------------------------------- */

/* xorshift32: a fixed-seed generator, the same sequence on every run. */
static uint32_t next_random(uint32_t *state) {
        uint32_t x = *state;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        return *state = x;
}

static int cmp_u32(const void *a, const void *b) {
        uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
        return x < y ? -1 : x > y;
}

/* Random set \p i: 2..8 buckets in hundredths of a percent summing to 100.
 * Writes the allocation text and the expected units. */
static int random_set(int i, char *text, size_t size, uint32_t *units) {
        uint32_t state = 0x9e3779b9u ^ (uint32_t)(i * 7919 + 1);
        uint32_t cuts[8];
        int n, k, j;
        size_t at = 0;

        n = 2 + (int)(next_random(&state) % 7);
        for (k = 0; k < n - 1;) {
                uint32_t c = 1 + next_random(&state) % 9999;
                for (j = 0; j < k && cuts[j] != c; j++)
                        ;
                if (j == k)
                        cuts[k++] = c;
        }
        qsort(cuts, (size_t)(n - 1), sizeof(cuts[0]), cmp_u32);
        cuts[n - 1] = 10000;
        for (k = 0; k < n; k++) {
                uint32_t h = cuts[k] - (k ? cuts[k - 1] : 0);
                units[k]   = h * 100;
                at += (size_t)snprintf(text + at, size - at, "%s%u.%02u",
                                       k ? ", " : "", h / 100, h % 100);
        }
        return n;
}

/* Configures \p cfg with allocation set \p i (buckets B0, B1, ...) and the
 * given layout; asserts that the parsed units are the expected ones. */
static void load_set(int i, bp_layout_kind_t kind, bp_config_t *cfg) {
        char alloc[256], names[256], err[512];
        uint32_t expect[8];
        size_t at = 0;
        int n, k;

        bp_config_init(cfg);
        if (i < FIXED_SETS) {
                snprintf(alloc, sizeof(alloc), "%s", fixed_sets[i]);
                n = 1;
                for (k = 0; alloc[k]; k++)
                        n += alloc[k] == ',';
        } else {
                n = random_set(i - FIXED_SETS, alloc, sizeof(alloc), expect);
        }
        for (k = 0; k < n; k++)
                at += (size_t)snprintf(names + at, sizeof(names) - at,
                                       "%sB%d", k ? ", " : "", k);
        assert_int_equal(bp_config_set(cfg, "bucket.priority.topic", "t", err,
                                       sizeof(err)),
                         BP_SET_OK);
        assert_int_equal(bp_config_set(cfg, "bucket.priority.buckets", names,
                                       err, sizeof(err)),
                         BP_SET_OK);
        if (bp_config_set(cfg, "bucket.priority.allocation", alloc, err,
                          sizeof(err)) != BP_SET_OK)
                fail_msg("allocation \"%s\" rejected: %s", alloc, err);
        assert_int_equal(cfg->bucket_cnt, n);
        assert_int_equal(cfg->allocation_cnt, n);
        if (i >= FIXED_SETS)
                for (k = 0; k < n; k++)
                        assert_int_equal(cfg->allocation[k], expect[k]);
        cfg->layout = kind;
}

/* --- the oracle: the reference's contiguous layout ----------------------- */

/* Priority order by selection: largest allocation first, lowest index on
 * ties. */
static void oracle_order(const uint32_t *units, int n, int *order) {
        int taken[BP_MAX_BUCKETS] = {0}, r, b, best;
        for (r = 0; r < n; r++) {
                best = -1;
                for (b = 0; b < n; b++)
                        if (!taken[b] && (best < 0 || units[b] > units[best]))
                                best = b;
                taken[best] = 1;
                order[r]    = best;
        }
}

/* (float)allocation / 100 as Java computes it; for decimal allocations,
 * which the reference cannot parse, the correctly rounded share. */
static float oracle_share(uint32_t units) {
        if (units % 10000 == 0)
                return (float)(int)(units / 10000) / 100;
        return (float)units / 1000000.0f;
}

/* Java's Math.round(float): nearest integer, halves towards +infinity. */
static int32_t oracle_round(float x) {
        float whole = floorf(x);
        float frac  = x - whole; /* exact for a float */
        return (int32_t)whole + (frac >= 0.5f ? 1 : 0);
}

/* Fills bucket_of[0..P) and sizes[] as the reference would. */
static void oracle_layout(const uint32_t *units, int n, int32_t P,
                          uint8_t *bucket_of, int32_t *sizes) {
        int order[BP_MAX_BUCKETS], k;
        int32_t given = 0, remaining, counter, partition = -1, i;

        oracle_order(units, n, order);
        for (k = 0; k < n; k++) {
                float exact = oracle_share(units[order[k]]) * (float)P;
                sizes[order[k]] = oracle_round(exact);
                given += sizes[order[k]];
        }
        for (remaining = P - given, counter = 0; remaining > 0;
             remaining--, counter++)
                sizes[order[counter % n]]++;
        for (k = 0; k < n && partition < P - 1; k++)
                for (i = 0; i < sizes[order[k]] && partition < P - 1; i++)
                        bucket_of[++partition] = (uint8_t)order[k];
        /* Sizes as actually handed out (the last ranges may be cut). */
        memset(sizes, 0, (size_t)n * sizeof(*sizes));
        for (i = 0; i < P; i++)
                sizes[bucket_of[i]]++;
}

/* --- shared checks ------------------------------------------------------- */

/* first/count/partitions/bucket_of describe the same assignment. Plain
 * comparisons with one failure path: this runs for every layout. */
static void check_consistent(const bp_layout_t *l, int n, int32_t P) {
        int32_t total = 0, i, p, last;
        int b;

        if (l->partition_cnt != P || l->bucket_cnt != n)
                fail_msg("layout for %d partitions, %d buckets says %d, %d",
                         (int)P, n, (int)l->partition_cnt, l->bucket_cnt);
        for (b = 0; b < n; b++) {
                if (l->count[b] < 0 || l->first[b] < 0 ||
                    l->first[b] + l->count[b] > P)
                        fail_msg("P=%d bucket %d: first %d count %d", (int)P,
                                 b, (int)l->first[b], (int)l->count[b]);
                total += l->count[b];
                for (i = 0, last = -1; i < l->count[b]; i++, last = p) {
                        p = l->partitions[l->first[b] + i];
                        if (p <= last || p >= P || l->bucket_of[p] != b)
                                fail_msg("P=%d bucket %d lists partition %d",
                                         (int)P, b, (int)p);
                }
        }
        assert_int_equal(total, P);
        for (i = 0; i < P; i++)
                if (l->bucket_of[i] >= n)
                        fail_msg("P=%d partition %d in bucket %d", (int)P,
                                 (int)i, l->bucket_of[i]);
}

/* Each bucket is one ascending run, runs in priority order, none empty. */
static void check_contiguous_shape(const bp_layout_t *l, const int *order,
                                   int n) {
        int rank[BP_MAX_BUCKETS], k, b;
        int32_t p;

        for (k = 0; k < n; k++)
                rank[order[k]] = k;
        for (b = 0; b < n; b++) {
                if (l->count[b] < 1)
                        fail_msg("P=%d: bucket %d is empty",
                                 (int)l->partition_cnt, b);
                assert_int_equal(
                    l->partitions[l->first[b]] + l->count[b] - 1,
                    l->partitions[l->first[b] + l->count[b] - 1]);
        }
        for (p = 1; p < l->partition_cnt; p++)
                if (rank[l->bucket_of[p - 1]] > rank[l->bucket_of[p]])
                        fail_msg("P=%d: partition %d out of priority order",
                                 (int)l->partition_cnt, (int)p);
}

/* Checks that bucket b holds exactly partitions lo..hi. */
static void expect_range(const bp_layout_t *l, int b, int32_t lo, int32_t hi) {
        int32_t i;
        assert_int_equal(l->count[b], hi - lo + 1);
        for (i = 0; i < l->count[b]; i++)
                assert_int_equal(l->partitions[l->first[b] + i], lo + i);
}

/* --- contiguous ------------------------------------------------------------ */

static void test_contiguous_matches_oracle(void **state) {
        bp_config_t cfg;
        uint8_t expect[MAX_P];
        int32_t sizes[BP_MAX_BUCKETS], lib[BP_MAX_BUCKETS], P;
        int order[BP_MAX_BUCKETS], set, b, all_nonempty;
        long compared = 0, fixed_up = 0;
        char err[512], want[64];
        (void)state;

        for (set = 0; set < ALL_SETS; set++) {
                load_set(set, BP_LAYOUT_CONTIGUOUS, &cfg);
                oracle_order(cfg.allocation, cfg.bucket_cnt, order);
                for (P = 1; P <= MAX_P; P++) {
                        bp_layout_t *l;

                        /* The reference's own sizes, empty buckets and
                         * all, equal the oracle's... */
                        oracle_layout(cfg.allocation, cfg.bucket_cnt, P,
                                      expect, sizes);
                        bp_layout_reference_sizes(cfg.allocation,
                                                  cfg.bucket_cnt, P, lib);
                        assert_memory_equal(
                            sizes, lib,
                            (size_t)cfg.bucket_cnt * sizeof(lib[0]));

                        /* ...and so does the layout wherever the
                         * reference gives every bucket a partition. */
                        l = bp_layout_compute(&cfg, P, err, sizeof(err));
                        if (P < cfg.bucket_cnt) {
                                assert_null(l);
                                snprintf(want, sizeof(want), "%d partition",
                                         (int)P);
                                assert_non_null(strstr(err, want));
                                assert_non_null(strstr(err, "bucket"));
                                continue;
                        }
                        assert_non_null(l);
                        check_consistent(l, cfg.bucket_cnt, P);
                        check_contiguous_shape(l, order, cfg.bucket_cnt);

                        all_nonempty = 1;
                        for (b = 0; b < cfg.bucket_cnt; b++)
                                all_nonempty &= sizes[b] > 0;
                        if (all_nonempty) {
                                if (memcmp(expect, l->bucket_of, (size_t)P))
                                        fail_msg("set %d (%s) P=%d differs "
                                                 "from the reference",
                                                 set,
                                                 set < FIXED_SETS
                                                     ? fixed_sets[set]
                                                     : "random",
                                                 (int)P);
                                compared++;
                        } else {
                                fixed_up++;
                        }
                        bp_layout_destroy(l);
                }
        }
        /* Both branches must really have been exercised. */
        assert_true(compared > ALL_SETS * 500);
        assert_true(fixed_up > 0);
}

static bp_layout_t *platinum_gold(const char *buckets, const char *alloc,
                                  bp_layout_kind_t kind, int32_t P) {
        bp_config_t cfg;
        char err[512];
        bp_layout_t *l;

        bp_config_init(&cfg);
        assert_int_equal(bp_config_set(&cfg, "bucket.priority.buckets",
                                       buckets, err, sizeof(err)),
                         BP_SET_OK);
        assert_int_equal(bp_config_set(&cfg, "bucket.priority.allocation",
                                       alloc, err, sizeof(err)),
                         BP_SET_OK);
        cfg.layout = kind;
        l = bp_layout_compute(&cfg, P, err, sizeof(err));
        assert_non_null(l);
        return l;
}

static void test_documented_6_partitions(void **state) {
        bp_layout_t *l = platinum_gold("Platinum, Gold", "70%, 30%",
                                       BP_LAYOUT_CONTIGUOUS, 6);
        (void)state;
        expect_range(l, 0, 0, 3);
        expect_range(l, 1, 4, 5);
        bp_layout_destroy(l);
}

static void test_documented_12_partitions(void **state) {
        bp_layout_t *l = platinum_gold("Platinum, Gold", "70%, 30%",
                                       BP_LAYOUT_CONTIGUOUS, 12);
        (void)state;
        expect_range(l, 0, 0, 7);
        expect_range(l, 1, 8, 11);
        bp_layout_destroy(l);
}

static void test_documented_order_independent(void **state) {
        bp_layout_t *l = platinum_gold("Gold, Platinum", "30%, 70%",
                                       BP_LAYOUT_CONTIGUOUS, 6);
        (void)state;
        expect_range(l, 1, 0, 3); /* Platinum */
        expect_range(l, 0, 4, 5); /* Gold */
        bp_layout_destroy(l);
}

/* The reference would leave both 1% buckets empty at 98/1/1 with 3
 * partitions (sizes 3, 0, 0); ours gives every bucket one, and with three
 * buckets in priority order one partition each is the only such layout. */
static void test_contiguous_every_bucket_gets_one(void **state) {
        bp_layout_t *l =
            platinum_gold("P, G, S", "98, 1, 1", BP_LAYOUT_CONTIGUOUS, 3);
        (void)state;
        expect_range(l, 0, 0, 0);
        expect_range(l, 1, 1, 1);
        expect_range(l, 2, 2, 2);
        bp_layout_destroy(l);
}

static void test_compute_rejects_bad_counts(void **state) {
        bp_config_t cfg;
        char err[512];
        int32_t bad[] = {0, -1, BP_MAX_PARTITIONS + 1};
        size_t i;
        (void)state;

        bp_config_init(&cfg);
        err[0] = '\0';
        assert_null(bp_layout_compute(&cfg, 6, err, sizeof(err)));
        assert_non_null(strstr(err, "bucket"));
        load_set(0, BP_LAYOUT_STABLE, &cfg);
        for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                err[0] = '\0';
                assert_null(bp_layout_compute(&cfg, bad[i], err, sizeof(err)));
                assert_non_null(strstr(err, "partition count"));
        }
}

/* --- stable ------------------------------------------------------------- */

/* count is floor(alloc*P/UNITS) or ceil(alloc*P/UNITS), exactly. */
static void check_quota(const bp_layout_t *l, const uint32_t *units, int n,
                        int32_t P) {
        int b;
        for (b = 0; b < n; b++) {
                int64_t share = (int64_t)units[b] * P;
                int64_t c     = l->count[b];
                if (!((c + 1) * UNITS > share && (c - 1) * UNITS < share))
                        fail_msg("bucket %d holds %d of %d partitions, share "
                                 "%lld/%lld",
                                 b, (int)c, (int)P, (long long)share,
                                 (long long)UNITS);
        }
}

static void test_stable_prefix_and_quota(void **state) {
        bp_config_t cfg;
        bp_layout_t *prev, *l;
        char err[512];
        int32_t P, min;
        int set, b, empty;
        (void)state;

        for (set = 0; set < ALL_SETS; set++) {
                load_set(set, BP_LAYOUT_STABLE, &cfg);
                min  = bp_layout_stable_min(cfg.allocation, cfg.bucket_cnt);
                prev = NULL;
                for (P = 1; P <= MAX_P; P++) {
                        l = bp_layout_compute(&cfg, P, err, sizeof(err));
                        assert_non_null(l);
                        check_consistent(l, cfg.bucket_cnt, P);
                        check_quota(l, cfg.allocation, cfg.bucket_cnt, P);
                        if (prev) {
                                assert_memory_equal(prev->bucket_of,
                                                    l->bucket_of,
                                                    (size_t)(P - 1));
                                bp_layout_destroy(prev);
                        }
                        empty = 0;
                        for (b = 0; b < cfg.bucket_cnt; b++)
                                empty += l->count[b] == 0;
                        assert_int_equal(empty > 0, P < min);
                        prev = l;
                }
                bp_layout_destroy(prev);
        }
}

static void test_stable_min(void **state) {
        bp_config_t cfg;
        bp_layout_t *l;
        char err[512];
        int32_t min;
        int set, b, empty;
        (void)state;

        for (set = 0; set < ALL_SETS; set++) {
                load_set(set, BP_LAYOUT_STABLE, &cfg);
                min = bp_layout_stable_min(cfg.allocation, cfg.bucket_cnt);
                assert_true(min >= cfg.bucket_cnt);
                assert_true(min <= BP_MAX_PARTITIONS);
                l = bp_layout_compute(&cfg, min, err, sizeof(err));
                assert_non_null(l);
                for (b = 0; b < cfg.bucket_cnt; b++)
                        assert_true(l->count[b] >= 1);
                bp_layout_destroy(l);
                if (min <= cfg.bucket_cnt || min == 1)
                        continue;
                l = bp_layout_compute(&cfg, min - 1, err, sizeof(err));
                assert_non_null(l);
                empty = 0;
                for (b = 0; b < cfg.bucket_cnt; b++)
                        empty += l->count[b] == 0;
                assert_true(empty > 0);
                bp_layout_destroy(l);
        }
}

/* The quota forces a bucket of share w to hold one partition once
 * floor(w * P) >= 1, so the minimum is at most ceil(1 / smallest share). */
static void test_stable_min_bound(void **state) {
        uint32_t small[] = {995000, 5000};
        bp_config_t cfg;
        int64_t bound;
        int set, b;
        uint32_t least;
        (void)state;

        assert_in_range(bp_layout_stable_min(small, 2), 2, 200);
        for (set = 0; set < ALL_SETS; set++) {
                load_set(set, BP_LAYOUT_STABLE, &cfg);
                least = cfg.allocation[0];
                for (b = 1; b < cfg.bucket_cnt; b++)
                        if (cfg.allocation[b] < least)
                                least = cfg.allocation[b];
                bound = (UNITS + least - 1) / least;
                assert_true(bp_layout_stable_min(cfg.allocation,
                                                 cfg.bucket_cnt) <= bound);
        }
}

/* --- priority order ------------------------------------------------------ */

static void expect_order(const uint32_t *units, int n, const int *want) {
        int got[BP_MAX_BUCKETS];
        bp_layout_priority_order(units, n, got);
        assert_memory_equal(got, want, (size_t)n * sizeof(int));
}

static void test_priority_order_ties(void **state) {
        uint32_t a[] = {30, 20, 30, 20};
        int wa[]     = {0, 2, 1, 3};
        uint32_t b[] = {10, 10, 10};
        int wb[]     = {0, 1, 2};
        uint32_t c[] = {5, 50, 45};
        int wc[]     = {1, 2, 0};
        uint32_t d[] = {100};
        int wd[]     = {0};
        uint32_t e[] = {1, 2, 2, 3, 1};
        int we[]     = {3, 1, 2, 0, 4};
        uint32_t many[BP_MAX_BUCKETS];
        int wmany[BP_MAX_BUCKETS], i;
        (void)state;

        expect_order(a, 4, wa);
        expect_order(b, 3, wb);
        expect_order(c, 3, wc);
        expect_order(d, 1, wd);
        expect_order(e, 5, we);
        for (i = 0; i < BP_MAX_BUCKETS; i++) {
                many[i]  = 7;
                wmany[i] = i;
        }
        expect_order(many, BP_MAX_BUCKETS, wmany);
}

/* The library's order equals the oracle's on every set. */
static void test_priority_order_matches_oracle(void **state) {
        bp_config_t cfg;
        int set, want[BP_MAX_BUCKETS];
        (void)state;
        for (set = 0; set < ALL_SETS; set++) {
                load_set(set, BP_LAYOUT_CONTIGUOUS, &cfg);
                oracle_order(cfg.allocation, cfg.bucket_cnt, want);
                expect_order(cfg.allocation, cfg.bucket_cnt, want);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_contiguous_matches_oracle),
            cmocka_unit_test(test_documented_6_partitions),
            cmocka_unit_test(test_documented_12_partitions),
            cmocka_unit_test(test_documented_order_independent),
            cmocka_unit_test(test_contiguous_every_bucket_gets_one),
            cmocka_unit_test(test_compute_rejects_bad_counts),
            cmocka_unit_test(test_stable_prefix_and_quota),
            cmocka_unit_test(test_stable_min),
            cmocka_unit_test(test_stable_min_bound),
            cmocka_unit_test(test_priority_order_ties),
            cmocka_unit_test(test_priority_order_matches_oracle),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
