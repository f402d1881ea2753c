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

#include "bp_config.h"
#include "fuzz_check.h"

#define PREFIX "bucket.priority."
#define MAX_COUNTS 8
#define MAX_LAYOUT_CHECKS 4


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
        CHECK(fuzz_terminated(tiny, small));
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
                CHECK(fuzz_terminated(err, errsz));
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
                        CHECK(fuzz_terminated(err, errsz));
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
                        fuzz_check_layouts(&cfg, all, all_cnt, errsz);
                        last_checked = cfg;
                        checks++;
                }
        }
        return 0;
}
