/*
 * bp_config.c - applies and validates bucket.priority.* properties.
 *
 * Each property has a small parser; after it runs on a scratch copy, the
 * cross-field checks (bucket count vs allocation count, names vs delimiter,
 * fallback and consumer bucket vs names) run on the whole configuration, so
 * whichever of a pair is set second reports the conflict.
 */
#include "bp_config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bp_escape.h"
#include "bp_fallback.h"
#include "bp_list.h"
#include "bp_properties.h"


void bp_config_init(bp_config_t *cfg) {
        memset(cfg, 0, sizeof(*cfg));
        strcpy(cfg->delimiter, "-");
        cfg->delimiter_len    = 1;
        cfg->layout           = BP_LAYOUT_CONTIGUOUS;
        cfg->within           = BP_WITHIN_ROUNDROBIN;
        cfg->fallback_kind    = BP_FALLBACK_BUCKET;
        cfg->fallback_bucket  = -1;
        cfg->group_per_bucket = 1;
        cfg->schedule         = BP_SCHEDULE_STRICT;
        cfg->lag_threshold    = 0;
        cfg->hold             = BP_HOLD_DEFAULT;
        cfg->next.step        = 1;
}

/* Formats "<property>: invalid value "<value>": <reason>" into errstr. */
static bp_set_result_t fail(char *errstr,
                            size_t errstr_size,
                            const char *name,
                            const char *value,
                            const char *fmt,
                            ...) {
        char shown[BP_SHOWN_VALUE_SIZE], reason[400];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(reason, sizeof(reason), fmt, ap);
        va_end(ap);
        snprintf(errstr, errstr_size, "%s: invalid value \"%s\": %s", name,
                 bp_shown_value(value, shown), reason);
        return BP_SET_INVALID;
}

/* A part of a value (a list item) as an error message shows it: escaped,
 * at most 40 bytes. Returns \p out. */
#define SHOWN_SIZE (4 * 40 + 4)
static const char *shown(const char *item, size_t len, char *out) {
        bp_escape(item, len, 40, out, SHOWN_SIZE);
        return out;
}

static int contains(const char *hay, size_t hay_len, const char *needle,
                    size_t needle_len) {
        size_t i;
        if (needle_len == 0 || needle_len > hay_len)
                return 0;
        for (i = 0; i + needle_len <= hay_len; i++)
                if (!memcmp(hay + i, needle, needle_len))
                        return 1;
        return 0;
}

/* --- one parser per property ------------------------------------------- */

static bp_set_result_t set_topic(bp_config_t *c, const char *name,
                                 const char *v, char *err, size_t errsz) {
        size_t len = strlen(v);

        if (len == 0)
                return fail(err, errsz, name, v,
                            "the topic is empty; expected a topic name");
        if (len > BP_MAX_TOPIC_LEN)
                return fail(err, errsz, name, v,
                            "a topic name is at most %d characters",
                            BP_MAX_TOPIC_LEN);
        memcpy(c->topic, v, len + 1);
        c->topic_set = 1;
        return BP_SET_OK;
}

static bp_set_result_t set_buckets(bp_config_t *c, const char *name,
                                   const char *v, char *err, size_t errsz) {
        const char *cur = v, *item;
        size_t len;
        int n = 0;

        while (bp_list_next(&cur, &item, &len)) {
                if (len == 0)
                        return fail(err, errsz, name, v,
                                    n == 0 && !cur
                                        ? "the list is empty; expected bucket "
                                          "names in priority order, such as "
                                          "\"Platinum, Gold\""
                                        : "bucket %d has an empty name",
                                    n + 1);
                if (len > BP_MAX_NAME_LEN)
                        return fail(err, errsz, name, v,
                                    "bucket %d's name is longer than %d bytes",
                                    n + 1, BP_MAX_NAME_LEN);
                if (n == BP_MAX_BUCKETS)
                        return fail(err, errsz, name, v,
                                    "more than %d buckets", BP_MAX_BUCKETS);
                c->bucket_cnt = n; /* names so far, for the duplicate check */
                if (bp_config_find_bucket(c, item, len) >= 0)
                        return fail(err, errsz, name, v,
                                    "bucket \"%.*s\" is listed twice",
                                    (int)len, item);
                memcpy(c->buckets[n].name, item, len);
                c->buckets[n].name[len] = '\0';
                c->buckets[n].name_len  = len;
                n++;
        }
        c->bucket_cnt   = n;
        c->max_name_len = 0;
        for (n = 0; n < c->bucket_cnt; n++)
                if (c->buckets[n].name_len > c->max_name_len)
                        c->max_name_len = c->buckets[n].name_len;
        return BP_SET_OK;
}

static bp_set_result_t set_allocation(bp_config_t *c, const char *name,
                                      const char *v, char *err, size_t errsz) {
        const char *cur = v, *item, *why;
        size_t len;
        uint64_t sum = 0;
        int n = 0;
        char sumtxt[32];

        while (bp_list_next(&cur, &item, &len)) {
                if (n == BP_MAX_BUCKETS)
                        return fail(err, errsz, name, v,
                                    "more than %d allocations", BP_MAX_BUCKETS);
                if (len == 0 && n == 0 && !cur)
                        return fail(err, errsz, name, v,
                                    "the list is empty; expected one "
                                    "percentage per bucket, such as "
                                    "\"70%%, 30%%\"");
                if (bp_allocation_parse(item, len, &c->allocation[n], &why)) {
                        char buf[SHOWN_SIZE];
                        return fail(err, errsz, name, v,
                                    "allocation %d (\"%s\") %s; expected a "
                                    "percentage above 0 such as 70%% or 33.5",
                                    n + 1, shown(item, len, buf), why);
                }
                sum += c->allocation[n];
                n++;
        }
        if (sum != BP_ALLOCATION_UNITS) {
                bp_allocation_format(
                    sum > 0xffffffffu ? 0xffffffffu : (uint32_t)sum, sumtxt,
                    sizeof(sumtxt));
                return fail(err, errsz, name, v,
                            "the allocations add up to %s%%; they must add up "
                            "to exactly 100%%",
                            sumtxt);
        }
        c->allocation_cnt = n;
        return BP_SET_OK;
}

static bp_set_result_t set_delimiter(bp_config_t *c, const char *name,
                                     const char *v, char *err, size_t errsz) {
        size_t len = strlen(v);

        if (len == 0)
                return fail(err, errsz, name, v,
                            "the delimiter is empty; expected one or more "
                            "characters, such as \"-\"");
        if (len > BP_MAX_DELIMITER_LEN)
                return fail(err, errsz, name, v,
                            "the delimiter is longer than %d bytes",
                            BP_MAX_DELIMITER_LEN);
        memcpy(c->delimiter, v, len + 1);
        c->delimiter_len = len;
        return BP_SET_OK;
}

/* A value that must be \p first or \p second: \p *second_chosen says
 * which. */
static bp_set_result_t one_of_two(const char *name, const char *v,
                                  const char *first, const char *second,
                                  int *second_chosen, char *err,
                                  size_t errsz) {
        if (!strcmp(v, first))
                *second_chosen = 0;
        else if (!strcmp(v, second))
                *second_chosen = 1;
        else
                return fail(err, errsz, name, v, "expected \"%s\" or \"%s\"",
                            first, second);
        return BP_SET_OK;
}

static bp_set_result_t set_layout(bp_config_t *c, const char *name,
                                  const char *v, char *err, size_t errsz) {
        int stable = 0;
        bp_set_result_t r =
            one_of_two(name, v, "contiguous", "stable", &stable, err, errsz);
        if (r == BP_SET_OK)
                c->layout = stable ? BP_LAYOUT_STABLE : BP_LAYOUT_CONTIGUOUS;
        return r;
}

static bp_set_result_t set_within(bp_config_t *c, const char *name,
                                  const char *v, char *err, size_t errsz) {
        int hash = 0;
        bp_set_result_t r =
            one_of_two(name, v, "roundrobin", "hash", &hash, err, errsz);
        if (r == BP_SET_OK)
                c->within = hash ? BP_WITHIN_HASH : BP_WITHIN_ROUNDROBIN;
        return r;
}

static bp_set_result_t set_fallback(bp_config_t *c, const char *name,
                                    const char *v, char *err, size_t errsz) {
        size_t len;

        c->fallback_text[0] = '\0';
        c->fallback_kind    = BP_FALLBACK_BUCKET;
        len = strlen(v);
        if (len == 0)
                return fail(err, errsz, name, v,
                            "expected a bucket name, \"discard\" or a "
                            "partitioner name");
        if (len > BP_MAX_FALLBACK_LEN)
                return fail(err, errsz, name, v, "longer than %d bytes",
                            BP_MAX_FALLBACK_LEN);
        memcpy(c->fallback_text, v, len + 1);
        bp_fallback_classify(v, &c->fallback_kind, &c->fallback_builtin);
        return BP_SET_OK;
}

static bp_set_result_t set_consumer_bucket(bp_config_t *c, const char *name,
                                           const char *v, char *err,
                                           size_t errsz) {
        const char *cur = v, *item;
        size_t len;
        int n = 0;

        c->consumer_bucket_cnt     = 0;
        c->consumer_bucket_text[0] = '\0';
        while (bp_list_next(&cur, &item, &len)) {
                if (len == 0)
                        return fail(err, errsz, name, v,
                                    "expected the name of the bucket this "
                                    "consumer serves");
                if (len > BP_MAX_NAME_LEN || n == BP_MAX_BUCKETS)
                        return fail(err, errsz, name, v,
                                    "bucket names are at most %d bytes",
                                    BP_MAX_NAME_LEN);
                n++;
        }
        strcpy(c->consumer_bucket_text, v);
        c->consumer_bucket_cnt = n;
        return BP_SET_OK;
}

static bp_set_result_t set_bool(int *out, const char *name, const char *v,
                                char *err, size_t errsz) {
        if (!strcasecmp(v, "true") || !strcmp(v, "1"))
                *out = 1;
        else if (!strcasecmp(v, "false") || !strcmp(v, "0"))
                *out = 0;
        else
                return fail(err, errsz, name, v, "expected true or false");
        return BP_SET_OK;
}

static bp_set_result_t set_schedule(bp_config_t *c, const char *name,
                                    const char *v, char *err, size_t errsz) {
        int weighted = 0;
        bp_set_result_t r =
            one_of_two(name, v, "strict", "weighted", &weighted, err, errsz);
        if (r == BP_SET_OK)
                c->schedule =
                    weighted ? BP_SCHEDULE_WEIGHTED : BP_SCHEDULE_STRICT;
        return r;
}

static bp_set_result_t set_hold(bp_config_t *c, const char *name,
                                const char *v, char *err, size_t errsz) {
        int queue = 0;
        bp_set_result_t r =
            one_of_two(name, v, "pause", "queue", &queue, err, errsz);
        if (r == BP_SET_OK)
                c->hold = queue ? BP_HOLD_QUEUE : BP_HOLD_PAUSE;
        return r;
}

static bp_set_result_t set_lag_threshold(bp_config_t *c, const char *name,
                                         const char *v, char *err,
                                         size_t errsz) {
        const char *p;
        char *end;
        long long n;

        for (p = v; *p >= '0' && *p <= '9'; p++)
                ;
        if (p == v || *p)
                return fail(err, errsz, name, v,
                            "expected a whole number of records, 0 or more, "
                            "such as 0 or 100");
        errno = 0;
        n     = strtoll(v, &end, 10);
        if (errno == ERANGE || n > BP_MAX_LAG_THRESHOLD)
                return fail(err, errsz, name, v,
                            "at most %lld records",
                            (long long)BP_MAX_LAG_THRESHOLD);
        c->lag_threshold = (int64_t)n;
        return BP_SET_OK;
}

/* bucket.priority.next.<x>: parsed as bucket.priority.<x> is, on a scratch
 * configuration, and kept in c->next (shared/bp_change.h). */
static bp_set_result_t set_next(bp_config_t *c, const char *name,
                                const char *v, char *err, size_t errsz) {
        bp_config_t s;
        bp_set_result_t r;
        char *end;
        long step;

        bp_config_init(&s);
        if (!strcmp(name, BP_PROP_NEXT_STEP)) {
                step = strtol(v, &end, 10);
                if (*end || end == v || step < 1 || step > BP_MAX_STEP)
                        return fail(err, errsz, name, v,
                                    "expected a step of the change, 1 to %d "
                                    "(bp-layout --next-* prints the steps)",
                                    BP_MAX_STEP);
                c->next.step = (int)step;
                r            = BP_SET_OK;
        } else if (!strcmp(name, BP_PROP_NEXT_BUCKETS)) {
                if (!(r = set_buckets(&s, name, v, err, errsz))) {
                        c->next.bucket_cnt = s.bucket_cnt;
                        memcpy(c->next.buckets, s.buckets, sizeof(s.buckets));
                }
        } else if (!strcmp(name, BP_PROP_NEXT_ALLOCATION)) {
                if (!(r = set_allocation(&s, name, v, err, errsz))) {
                        c->next.allocation_cnt = s.allocation_cnt;
                        memcpy(c->next.allocation, s.allocation,
                               sizeof(s.allocation));
                }
        } else if (!(r = set_layout(&s, name, v, err, errsz))) {
                c->next.layout     = s.layout;
                c->next.layout_set = 1;
        }
        c->next.set |= r == BP_SET_OK;
        return r;
}

/* The change's own checks, once the next layout is known well enough: a
 * count mismatch waits until both next lists are set (or is found by
 * bp_config_check_complete()), the rest is refused at once. */
static bp_set_result_t check_next(bp_config_t *c, const char *setting,
                                  const char *value, char *err,
                                  size_t errsz) {
        bp_config_t nx;
        char why[400];
        int nb = c->next.bucket_cnt ? c->next.bucket_cnt : c->bucket_cnt;
        int na = c->next.allocation_cnt ? c->next.allocation_cnt
                                        : c->allocation_cnt;

        if (!c->next.set || c->bucket_cnt == 0 || c->allocation_cnt == 0 ||
            (nb != na && !(c->next.bucket_cnt && c->next.allocation_cnt)))
                return BP_SET_OK;
        if (bp_config_next(c, &nx, why, sizeof(why)))
                return fail(err, errsz, setting, value, "%s", why);
        return BP_SET_OK;
}

/* --- the checks that need two properties -------------------------------- */

/* Resolves the consumer bucket list against the bucket names. */
static bp_set_result_t resolve_consumer_buckets(bp_config_t *c,
                                                const char *setting,
                                                char *err, size_t errsz) {
        const char *cur = c->consumer_bucket_text, *item;
        size_t len;
        int n = 0, idx, j;

        if (c->consumer_bucket_cnt == 0 || c->bucket_cnt == 0)
                return BP_SET_OK;
        while (bp_list_next(&cur, &item, &len)) {
                char buf[SHOWN_SIZE];
                idx = bp_config_find_bucket(c, item, len);
                if (idx < 0)
                        return fail(err, errsz, BP_PROP_BUCKET,
                                    c->consumer_bucket_text,
                                    "\"%s\" is not one of the buckets in "
                                    BP_PROP_BUCKETS " (checked when %s was set)",
                                    shown(item, len, buf), setting);
                for (j = 0; j < n; j++)
                        if (c->consumer_buckets[j] == idx)
                                return fail(err, errsz, BP_PROP_BUCKET,
                                            c->consumer_bucket_text,
                                            "bucket \"%s\" is listed twice",
                                            shown(item, len, buf));
                c->consumer_buckets[n++] = idx;
        }
        return BP_SET_OK;
}

static bp_set_result_t cross_check(bp_config_t *c, const char *setting,
                                   const char *value, char *err,
                                   size_t errsz) {
        int i;

        if (c->bucket_cnt > 0 && c->allocation_cnt > 0 &&
            c->bucket_cnt != c->allocation_cnt)
                return fail(err, errsz, setting, value,
                            "%s lists %d buckets but %s lists %d "
                            "allocations; give one allocation per bucket",
                            BP_PROP_BUCKETS, c->bucket_cnt,
                            BP_PROP_ALLOCATION, c->allocation_cnt);

        for (i = 0; i < c->bucket_cnt; i++)
                if (contains(c->buckets[i].name, c->buckets[i].name_len,
                             c->delimiter, c->delimiter_len)) {
                        char nb[SHOWN_SIZE], db[SHOWN_SIZE];
                        return fail(err, errsz, setting, value,
                                    "bucket \"%s\" contains the delimiter "
                                    "\"%s\", so no key could ever reach it",
                                    shown(c->buckets[i].name,
                                          c->buckets[i].name_len, nb),
                                    shown(c->delimiter, c->delimiter_len,
                                          db));
                }

        c->fallback_bucket = -1;
        if (c->fallback_kind == BP_FALLBACK_BUCKET && c->bucket_cnt > 0) {
                if (!c->fallback_text[0])
                        c->fallback_bucket = c->bucket_cnt - 1;
                else {
                        c->fallback_bucket = bp_config_find_bucket(
                            c, c->fallback_text, strlen(c->fallback_text));
                        if (c->fallback_bucket < 0)
                                return fail(
                                    err, errsz, BP_PROP_FALLBACK_PARTITIONER,
                                    c->fallback_text,
                                    "expected one of the buckets in " BP_PROP_BUCKETS
                                    ", \"discard\", or a partitioner "
                                    "(random, consistent, consistent_random, "
                                    "murmur2, murmur2_random, fnv1a, "
                                    "fnv1a_random, roundrobin)");
                }
        }
        if (check_next(c, setting, value, err, errsz))
                return BP_SET_INVALID;
        return resolve_consumer_buckets(c, setting, err, errsz);
}

/* --- entry points -------------------------------------------------------- */

typedef bp_set_result_t (*setter_t)(bp_config_t *, const char *,
                                    const char *, char *, size_t);

static bp_set_result_t set_group_per_bucket(bp_config_t *c, const char *name,
                                            const char *v, char *err,
                                            size_t errsz) {
        return set_bool(&c->group_per_bucket, name, v, err, errsz);
}

static bp_set_result_t set_events_mapped(bp_config_t *c, const char *name,
                                         const char *v, char *err,
                                         size_t errsz) {
        return set_bool(&c->events_mapped, name, v, err, errsz);
}

/* Accepted for properties files shared with the Java reference; the
 * consumer side never needs another assignor (docs/configuration.md). */
static bp_set_result_t set_ignored(bp_config_t *c, const char *name,
                                   const char *v, char *err, size_t errsz) {
        (void)c, (void)name, (void)v, (void)err, (void)errsz;
        return BP_SET_OK;
}

/* Every property, in the order the unknown-property error lists them;
 * listed = 0 for one that is accepted and ignored. */
static const struct {
        const char *name;
        setter_t set;
        int listed;
} setters[] = {
    {BP_PROP_TOPIC, set_topic, 1},
    {BP_PROP_BUCKETS, set_buckets, 1},
    {BP_PROP_ALLOCATION, set_allocation, 1},
    {BP_PROP_DELIMITER, set_delimiter, 1},
    {BP_PROP_LAYOUT, set_layout, 1},
    {BP_PROP_WITHIN, set_within, 1},
    {BP_PROP_FALLBACK_PARTITIONER, set_fallback, 1},
    {BP_PROP_BUCKET, set_consumer_bucket, 1},
    {BP_PROP_GROUP_PER_BUCKET, set_group_per_bucket, 1},
    {BP_PROP_EVENTS_MAPPED, set_events_mapped, 1},
    {BP_PROP_SCHEDULE, set_schedule, 1},
    {BP_PROP_LAG_THRESHOLD, set_lag_threshold, 1},
    {BP_PROP_HOLD, set_hold, 1},
    /* listed together as "next.*" (an error message stays short) */
    {BP_PROP_NEXT_BUCKETS, set_next, 0},
    {BP_PROP_NEXT_ALLOCATION, set_next, 0},
    {BP_PROP_NEXT_LAYOUT, set_next, 0},
    {BP_PROP_NEXT_STEP, set_next, 0},
    {BP_PROP_FALLBACK_ASSIGNOR, set_ignored, 0},
};

/* "topic, buckets, ...": the listed properties without the prefix. */
static const char *known_properties(char *buf, size_t size) {
        size_t i, len = 0;

        buf[0] = '\0';
        for (i = 0; i < sizeof(setters) / sizeof(setters[0]); i++) {
                int n;
                if (!setters[i].listed)
                        continue;
                n = snprintf(buf + len, size - len, "%s%s", len ? "," : "",
                             setters[i].name + BP_PROP_PREFIX_LEN);
                if (n < 0 || (size_t)n >= size - len)
                        break;
                len += (size_t)n;
        }
        snprintf(buf + len, size - len, ",next.*");
        return buf;
}

bp_set_result_t bp_config_set(bp_config_t *cfg,
                              const char *name,
                              const char *value,
                              char *errstr,
                              size_t errstr_size) {
        bp_config_t scratch;
        char known[256];
        size_t i;
        bp_set_result_t r;

        if (strncmp(name, BP_PROP_PREFIX, BP_PROP_PREFIX_LEN))
                return BP_SET_UNKNOWN;
        /* librdkafka hands "" to interceptors as NULL (its "reset"): both
         * are an empty value, which every setter refuses, since a reset
         * would leave the client half configured or silently replace what
         * the user wrote with a default. */
        if (!value)
                value = "";
        for (i = 0; i < sizeof(setters) / sizeof(setters[0]); i++) {
                if (strcmp(name, setters[i].name))
                        continue;
                if (strlen(value) > BP_MAX_VALUE_LEN)
                        return fail(errstr, errstr_size, name, value,
                                    "longer than %d bytes", BP_MAX_VALUE_LEN);
                scratch = *cfg;
                r = setters[i].set(&scratch, name, value, errstr, errstr_size);
                if (r == BP_SET_OK)
                        r = cross_check(&scratch, name, value, errstr,
                                        errstr_size);
                if (r == BP_SET_OK) {
                        scratch.touched = 1;
                        *cfg = scratch;
                }
                return r;
        }
        return fail(errstr, errstr_size, name, value,
                    "no such bucket-priority property (known: %s)",
                    known_properties(known, sizeof(known)));
}

int bp_config_is_touched(const bp_config_t *cfg) {
        return cfg->touched;
}
