/*
 * bp_stats.c - the public routing statistics calls.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bucket_priority.h"
#include "bp_escape.h"
#include "bp_client.h"
#include "bp_registry.h"

#define LOAD(x) atomic_load_explicit(&(x), memory_order_relaxed)

static int32_t current_partitions(bp_client_t *c) {
        const bp_layout_t *l =
            atomic_load_explicit(&c->current, memory_order_acquire);
        return l ? l->partition_cnt : 0;
}

int bp_stats(const rd_kafka_t *rk, bp_stats_t *stats) {
        bp_client_t *c = bp_registry_find(rk);
        int b;

        if (!c || !stats)
                return -1;
        memset(stats, 0, sizeof(*stats));
        stats->bucket_cnt     = c->cfg.bucket_cnt;
        stats->partition_cnt  = current_partitions(c);
        stats->discarded      = LOAD(c->discarded);
        stats->fallback_other = LOAD(c->fallback_other);
        stats->unroutable     = LOAD(c->unroutable);
        for (b = 0; b < c->cfg.bucket_cnt; b++)
                stats->foreign += LOAD(c->counters[b].foreign);
        return 0;
}

int bp_bucket_stats(const rd_kafka_t *rk, int idx, bp_bucket_stats_t *stats) {
        bp_client_t *c = bp_registry_find(rk);
        const bp_layout_t *l;
        uint64_t placed, fallback, failed;

        if (!c || !stats || idx < 0 || idx >= c->cfg.bucket_cnt)
                return -1;
        l        = atomic_load_explicit(&c->current, memory_order_acquire);
        fallback = LOAD(c->counters[idx].fallback);
        placed   = LOAD(c->counters[idx].next);
        failed   = LOAD(c->counters[idx].failed);
        memset(stats, 0, sizeof(*stats));
        stats->name       = c->cfg.buckets[idx].name;
        stats->fallback   = fallback;
        stats->routed     = placed > fallback ? placed - fallback : 0;
        stats->failed     = failed;
        stats->partitions = l ? l->count[idx] : 0;
        stats->foreign    = LOAD(c->counters[idx].foreign);
        return 0;
}

int bp_explicit_stats(const rd_kafka_t *rk, int idx,
                      bp_explicit_stats_t *stats) {
        bp_client_t *c = bp_registry_find(rk);

        if (!c || !stats || idx < -1 || idx >= c->cfg.bucket_cnt)
                return -1;
        memset(stats, 0, sizeof(*stats));
        if (idx < 0) {
                stats->written = LOAD(c->explicit_other);
                return 0;
        }
        stats->written   = LOAD(c->counters[idx].explicit_partition);
        stats->misplaced = LOAD(c->counters[idx].misplaced);
        return 0;
}

/* Appends to buf like snprintf, tracking the length the text needs. */
static void put(char *buf, size_t size, size_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t size, size_t *at, const char *fmt, ...) {
        va_list ap;
        int n;
        va_start(ap, fmt);
        n = vsnprintf(*at < size ? buf + *at : NULL,
                      *at < size ? size - *at : 0, fmt, ap);
        va_end(ap);
        if (n > 0)
                *at += (size_t)n;
}

int bp_stats_json(const rd_kafka_t *rk, char *buf, size_t size) {
        bp_stats_t s;
        bp_bucket_stats_t b;
        bp_explicit_stats_t e;
        char name[6 * BP_MAX_NAME_LEN + 1];
        size_t at = 0;
        int i;

        if (bp_stats(rk, &s))
                return -1;
        if (size > 0)
                buf[0] = '\0';
        put(buf, size, &at,
            "{\"partitions\":%d,\"discarded\":%llu,\"fallback_other\":%llu,"
            "\"unroutable\":%llu,\"foreign\":%llu,\"explicit_other\":%llu,"
            "\"buckets\":[",
            (int)s.partition_cnt, (unsigned long long)s.discarded,
            (unsigned long long)s.fallback_other,
            (unsigned long long)s.unroutable, (unsigned long long)s.foreign,
            (unsigned long long)(bp_explicit_stats(rk, -1, &e) ? 0
                                                                : e.written));
        for (i = 0; i < s.bucket_cnt; i++) {
                bp_bucket_stats(rk, i, &b);
                bp_explicit_stats(rk, i, &e);
                bp_json_escape(b.name, strlen(b.name), name, sizeof(name));
                put(buf, size, &at,
                    "%s{\"name\":\"%s\",\"partitions\":%d,\"routed\":%llu,"
                    "\"fallback\":%llu,\"failed\":%llu,\"foreign\":%llu,"
                    "\"explicit\":%llu,\"misplaced\":%llu}",
                    i ? "," : "", name, (int)b.partitions,
                    (unsigned long long)b.routed,
                    (unsigned long long)b.fallback,
                    (unsigned long long)b.failed,
                    (unsigned long long)b.foreign,
                    (unsigned long long)e.written,
                    (unsigned long long)e.misplaced);
        }
        put(buf, size, &at, "]}");
        return (int)at;
}
