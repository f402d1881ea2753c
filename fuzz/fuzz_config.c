/*
 * fuzz_config.c - libFuzzer target for the bucket.priority.* configuration
 * parser and the layout math it feeds.
 *
 * The input is a list of lines, each one operation on one bp_config_t:
 *
 *   name=value   bp_config_set(name, value); name is "bucket.priority."
 *                + name, or a property of the table below when it is one
 *                character ("0" topic, "1" buckets, "2" allocation...), or
 *                the literal rest after "@" (any name);
 *   name         the same with a NULL value (refused, as an empty one);
 *   #N           add partition count N (taken modulo 2048, plus one).
 *
 * After every operation the configuration's invariants are checked (a
 * rejected value leaves it byte for byte unchanged; names, delimiter,
 * allocations and resolved indexes agree with each other). Whenever the
 * configuration is complete, both layouts are computed for a few partition
 * counts and checked: counts add up to P, every partition has a valid
 * bucket, the contiguous layout keeps buckets in priority order, gives
 * every bucket one partition and equals the reference's sizes whenever
 * those give every bucket one; the stable layout is prefix stable, every
 * prefix holds floor or ceil of each exact share, and bp_layout_stable_min()
 * is the first count at which no bucket is empty. Every value also goes
 * through bp_allocation_parse() and the format/parse round trip.
 *
 * Every string handed to the code under test sits in a heap block of
 * exactly its size, so AddressSanitizer sees the smallest over-read.
 * A violated invariant calls __builtin_trap().
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp_change.h"
#include "bp_config.h"
#include "bp_layout.h"

#define PREFIX "bucket.priority."
#define MAX_P 2048
#define MAX_COUNTS 8
#define MAX_LAYOUT_CHECKS 4

#define CHECK(cond)                                                            \
        do {                                                                   \
                if (!(cond)) {                                                 \
                        fprintf(stderr, "fuzz_config: %s:%d: %s\n", __FILE__,  \
                                __LINE__, #cond);                              \
                        __builtin_trap();                                      \
                }                                                              \
        } while (0)

/* The properties, addressed by a one character name (its byte modulo the
 * table size): "0" is the topic, "1" the buckets, "2" the allocation... */
static const char *const property[] = {
    PREFIX "topic",      PREFIX "buckets",
    PREFIX "allocation", PREFIX "delimiter",
    PREFIX "layout",     PREFIX "within",
    PREFIX "fallback.partitioner", PREFIX "bucket",
    PREFIX "group.per.bucket",     PREFIX "fallback.assignor",
    PREFIX "schedule",   PREFIX "lag.threshold",
    PREFIX "next.buckets", PREFIX "next.allocation",
    PREFIX "next.layout",  PREFIX "next.step",
    PREFIX "hold"};
#define PROPERTY_CNT (sizeof(property) / sizeof(property[0]))

/* A heap copy of [s, s+len) with exactly len bytes, not terminated. */
static char *exact_copy(const char *s, size_t len) {
        char *p = malloc(len ? len : 1);
        CHECK(p);
        memcpy(p, s, len);
        return p;
}

/* A heap C string of exactly strlen + 1 bytes. */
static char *exact_string(const char *s, size_t len) {
        char *p = malloc(len + 1);
        CHECK(p);
        memcpy(p, s, len);
        p[len] = '\0';
        return p;
}

static int terminated(const char *buf, size_t size) {
        return memchr(buf, '\0', size) != NULL;
}

static size_t errstr_size_for(uint32_t h) {
        static const size_t sizes[] = {1, 2, 7, 40, 128, 512};
        return sizes[h % (sizeof(sizes) / sizeof(sizes[0]))];
}

/* --- configuration invariants ------------------------------------------- */

static int has_delimiter(const char *name, size_t len, const char *d,
                         size_t dlen) {
        size_t i;
        for (i = 0; i + dlen <= len; i++)
                if (!memcmp(name + i, d, dlen))
                        return 1;
        return 0;
}

static int is_blank(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static void check_config(const bp_config_t *c) {
        size_t max = 0;
        uint64_t sum = 0;
        int i, j;

        CHECK(c->bucket_cnt >= 0 && c->bucket_cnt <= BP_MAX_BUCKETS);
        CHECK(c->allocation_cnt >= 0 && c->allocation_cnt <= BP_MAX_BUCKETS);
        CHECK(c->delimiter_len >= 1 &&
              c->delimiter_len <= BP_MAX_DELIMITER_LEN);
        CHECK(strlen(c->delimiter) == c->delimiter_len);
        CHECK(!c->topic_set ||
              (c->topic[0] && strlen(c->topic) <= BP_MAX_TOPIC_LEN));
        CHECK(c->layout == BP_LAYOUT_CONTIGUOUS ||
              c->layout == BP_LAYOUT_STABLE);
        CHECK(c->within == BP_WITHIN_ROUNDROBIN || c->within == BP_WITHIN_HASH);
        CHECK(strlen(c->fallback_text) <= BP_MAX_FALLBACK_LEN);
        CHECK(strlen(c->consumer_bucket_text) <= BP_MAX_VALUE_LEN);
        CHECK(c->group_per_bucket == 0 || c->group_per_bucket == 1);

        for (i = 0; i < c->bucket_cnt; i++) {
                const bp_bucket_def_t *b = &c->buckets[i];
                CHECK(b->name_len >= 1 && b->name_len <= BP_MAX_NAME_LEN);
                CHECK(strlen(b->name) == b->name_len);
                CHECK(!has_delimiter(b->name, b->name_len, c->delimiter,
                                     c->delimiter_len));
                CHECK(!is_blank(b->name[0]) &&
                      !is_blank(b->name[b->name_len - 1]));
                for (j = 0; j < i; j++)
                        CHECK(strcmp(c->buckets[j].name, b->name));
                CHECK(bp_config_find_bucket(c, b->name, b->name_len) == i);
                if (b->name_len > max)
                        max = b->name_len;
        }
        if (c->bucket_cnt > 0)
                CHECK(c->max_name_len == max);

        if (c->allocation_cnt > 0) {
                for (i = 0; i < c->allocation_cnt; i++) {
                        CHECK(c->allocation[i] >= 1 &&
                              c->allocation[i] <= BP_ALLOCATION_UNITS);
                        sum += c->allocation[i];
                }
                CHECK(sum == BP_ALLOCATION_UNITS);
        }
        if (c->bucket_cnt > 0 && c->allocation_cnt > 0)
                CHECK(c->bucket_cnt == c->allocation_cnt);

        if (c->bucket_cnt > 0 && c->fallback_kind == BP_FALLBACK_BUCKET) {
                CHECK(c->fallback_bucket >= 0 &&
                      c->fallback_bucket < c->bucket_cnt);
                if (!c->fallback_text[0])
                        CHECK(c->fallback_bucket == c->bucket_cnt - 1);
                else
                        CHECK(!strcmp(c->buckets[c->fallback_bucket].name,
                                      c->fallback_text));
        } else {
                CHECK(c->fallback_bucket == -1);
        }
        if (c->fallback_kind == BP_FALLBACK_BUILTIN)
                CHECK((unsigned)c->fallback_builtin < BP_BUILTIN__CNT);

        CHECK(c->consumer_bucket_cnt >= 0 &&
              c->consumer_bucket_cnt <= BP_MAX_BUCKETS);
        if (c->consumer_bucket_cnt > 0 && c->bucket_cnt > 0)
                for (i = 0; i < c->consumer_bucket_cnt; i++) {
                        CHECK(c->consumer_buckets[i] >= 0 &&
                              c->consumer_buckets[i] < c->bucket_cnt);
                        for (j = 0; j < i; j++)
                                CHECK(c->consumer_buckets[j] !=
                                      c->consumer_buckets[i]);
                }
}

/* --- allocations ---------------------------------------------------------- */

/* format -> parse gives the same units; a small buffer stays terminated
 * and holds a prefix of the full text. */
static void check_allocation_round_trip(uint32_t units, size_t small) {
        char full[32], *tiny, *copy;
        uint32_t back = 0;
        const char *why = NULL;
        size_t len;

        bp_allocation_format(units, full, sizeof(full));
        len = strlen(full);
        CHECK(len > 0 && len < sizeof(full));
        copy = exact_copy(full, len);
        CHECK(bp_allocation_parse(copy, len, &back, &why) == 0);
        CHECK(back == units);
        free(copy);

        small = 1 + small % 12;
        tiny  = malloc(small);
        CHECK(tiny);
        bp_allocation_format(units, tiny, small);
        CHECK(terminated(tiny, small));
        CHECK(!strncmp(tiny, full, strlen(tiny)));
        free(tiny);
}

/* Any bytes through bp_allocation_parse (not NUL terminated). */
static void check_allocation_parse(const char *s, size_t len, size_t small) {
        char *copy = exact_copy(s, len);
        uint32_t units = 0;
        const char *why = NULL;

        if (bp_allocation_parse(copy, len, &units, &why) == 0) {
                CHECK(units >= 1 && units <= BP_ALLOCATION_UNITS);
                check_allocation_round_trip(units, small);
        } else {
                CHECK(why && why[0]);
        }
        free(copy);
}

/* --- layouts ------------------------------------------------------------- */

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
                CHECK(terminated(err, errsz));
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

static void check_layouts(const bp_config_t *base, const int32_t *counts,
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
                                CHECK(terminated(err, errsz));
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
        CHECK(terminated(err, errsz));
        free(err);
}

/* --- the driver ------------------------------------------------------------ */

static uint32_t fnv1a(const uint8_t *d, size_t n, uint32_t h) {
        while (n--)
                h = (h ^ *d++) * 16777619u;
        return h;
}

/* Parses "#N" into a partition count in 1..MAX_P. */
static int32_t partition_count(const char *s, size_t len) {
        uint32_t v = 0;
        size_t i;
        for (i = 0; i < len && i < 9; i++)
                v = v * 10 + (uint32_t)(s[i] >= '0' && s[i] <= '9'
                                            ? s[i] - '0'
                                            : (unsigned char)s[i] % 10);
        return (int32_t)(v % MAX_P) + 1;
}

static void add_count(int32_t *counts, int *cnt, int cap, int32_t P) {
        int i;
        if (P < 1 || P > MAX_P || *cnt == cap)
                return;
        for (i = 0; i < *cnt; i++)
                if (counts[i] == P)
                        return;
        counts[(*cnt)++] = P;
}

/* One "name[=value]" line through bp_config_set(). */
static void apply(bp_config_t *cfg, const char *s, size_t len, size_t errsz) {
        const char *eq = memchr(s, '=', len);
        size_t nlen = eq ? (size_t)(eq - s) : len;
        char *name, *value = NULL, *err;
        bp_config_t before = *cfg;
        bp_set_result_t r;

        if (nlen == 1) {
                const char *p =
                    property[(unsigned char)(s[0] - '0') % PROPERTY_CNT];
                name = exact_string(p, strlen(p));
        } else if (nlen >= 1 && s[0] == '@')
                name = exact_string(s + 1, nlen - 1);
        else {
                name = malloc(sizeof(PREFIX) + nlen);
                CHECK(name);
                memcpy(name, PREFIX, sizeof(PREFIX) - 1);
                memcpy(name + sizeof(PREFIX) - 1, s, nlen);
                name[sizeof(PREFIX) - 1 + nlen] = '\0';
        }
        if (eq)
                value = exact_string(eq + 1, len - nlen - 1);
        err = malloc(errsz);
        CHECK(err);
        memset(err, 0x5a, errsz);

        r = bp_config_set(cfg, name, value, err, errsz);
        CHECK(r == BP_SET_OK || r == BP_SET_INVALID || r == BP_SET_UNKNOWN);
        CHECK((r == BP_SET_UNKNOWN) ==
              (strncmp(name, PREFIX, sizeof(PREFIX) - 1) != 0));
        /* An empty value is never a reset (only the ignored property
         * accepts it). */
        if ((!value || !value[0]) && r != BP_SET_UNKNOWN &&
            strcmp(name, PREFIX "fallback.assignor"))
                CHECK(r == BP_SET_INVALID);
        if (r != BP_SET_OK)
                CHECK(!memcmp(&before, cfg, sizeof(before)));
        else
                CHECK(cfg->touched);
        if (r == BP_SET_INVALID)
                CHECK(terminated(err, errsz));
        check_config(cfg);

        if (value) {
                check_allocation_parse(value, strlen(value), errsz);
                if (cfg->bucket_cnt > 0) {
                        int b = bp_config_find_bucket(cfg, value,
                                                      strlen(value));
                        CHECK(b == -1 ||
                              !strcmp(cfg->buckets[b].name, value));
                }
        }
        free(err);
        free(value);
        free(name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        bp_config_t cfg, last_checked;
        const char *s = (const char *)data, *end = s + size, *nl;
        int32_t counts[MAX_COUNTS];
        int count_cnt = 0, checks = 0, i;
        uint32_t h = fnv1a(data, size, 2166136261u);
        size_t len, errsz;
        char *err;

        /* Partition counts: the "#N" lines first, then some derived ones. */
        for (s = (const char *)data; s < end; s = nl ? nl + 1 : end) {
                nl  = memchr(s, '\n', (size_t)(end - s));
                len = nl ? (size_t)(nl - s) : (size_t)(end - s);
                if (len > 1 && s[0] == '#')
                        add_count(counts, &count_cnt, MAX_COUNTS,
                                  partition_count(s + 1, len - 1));
        }
        add_count(counts, &count_cnt, MAX_COUNTS, (int32_t)(h % MAX_P) + 1);
        add_count(counts, &count_cnt, MAX_COUNTS, (int32_t)((h >> 11) % 64) + 1);
        add_count(counts, &count_cnt, MAX_COUNTS, 1);

        bp_config_init(&cfg);
        check_config(&cfg);
        memset(&last_checked, 0, sizeof(last_checked));
        err = malloc(1);
        CHECK(err);
        CHECK(!bp_layout_compute(&cfg, counts[0], err, 1)); /* no buckets */
        CHECK(err[0] == '\0');
        free(err);

        for (s = (const char *)data; s < end; s = nl ? nl + 1 : end) {
                nl  = memchr(s, '\n', (size_t)(end - s));
                len = nl ? (size_t)(nl - s) : (size_t)(end - s);
                errsz = errstr_size_for(fnv1a((const uint8_t *)s, len, h));
                if (len > 0 && s[0] == '#')
                        continue;
                apply(&cfg, s, len, errsz);

                err = malloc(errsz);
                CHECK(err);
                if (bp_config_check_complete(&cfg, err, errsz) != 0) {
                        CHECK(terminated(err, errsz));
                        CHECK(!cfg.topic_set || cfg.bucket_cnt == 0 ||
                              cfg.allocation_cnt == 0 || cfg.next.set);
                        free(err);
                        continue;
                }
                free(err);
                CHECK(cfg.topic_set && cfg.bucket_cnt > 0 &&
                      cfg.bucket_cnt == cfg.allocation_cnt);
                for (i = 0; i < cfg.allocation_cnt; i++)
                        check_allocation_round_trip(cfg.allocation[i],
                                                    h >> (i % 24));
                /* Layouts depend only on the buckets, allocations and a
                 * change's next.* values: recompute when those changed, a
                 * few times per input. */
                if (checks < MAX_LAYOUT_CHECKS &&
                    (last_checked.bucket_cnt != cfg.bucket_cnt ||
                     memcmp(last_checked.allocation, cfg.allocation,
                            sizeof(cfg.allocation)) ||
                     memcmp(&last_checked.next, &cfg.next,
                            sizeof(cfg.next)))) {
                        int32_t all[MAX_COUNTS + 2];
                        int all_cnt = count_cnt;
                        memcpy(all, counts, sizeof(counts));
                        add_count(all, &all_cnt, MAX_COUNTS + 2, (int32_t)cfg.bucket_cnt);
                        add_count(all, &all_cnt, MAX_COUNTS + 2, (int32_t)cfg.bucket_cnt - 1);
                        check_layouts(&cfg, all, all_cnt, errsz);
                        last_checked = cfg;
                        checks++;
                }
        }
        return 0;
}
