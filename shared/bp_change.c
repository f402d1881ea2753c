/*
 * bp_change.c - the steps of a live layout change (see bp_change.h): the
 * next configuration, which partitions each bucket writes to and reads at
 * each step, and which partitions must be drained before a consumer step.
 */
#include "bp_change.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp_config.h"
#include "bp_properties.h"

/* Partition p is written by its current bucket's records at every step
 * while the current bucket keeps it (W(b) in the header's terms). */
static int kept(const bp_change_plan_t *pl, int32_t p) {
        int a = pl->from->bucket_of[p];
        return pl->target[a] >= 0 && pl->to->bucket_of[p] == pl->target[a];
}

/* A partition a homeless bucket b gains during step 3: it goes to b's
 * target and its current bucket, not homeless, stops writing to it. */
static int gained_by(const bp_change_plan_t *pl, int b, int32_t p) {
        int a = pl->from->bucket_of[p];
        return a != b && pl->to->bucket_of[p] == pl->target[b] &&
               !pl->homeless[a] && !kept(pl, p);
}

static void plan_refusals(bp_change_plan_t *pl) {
        int b, n = pl->from->bucket_cnt;
        int32_t p, gained;

        for (b = 0; b < n && !pl->refused[0]; b++) {
                if (!pl->homeless[b])
                        continue;
                for (gained = 0, p = 0; p < pl->partition_cnt; p++)
                        gained += gained_by(pl, b, p);
                if (gained == 0)
                        snprintf(pl->refused, sizeof(pl->refused),
                                 "bucket \"%s\" keeps none of its partitions "
                                 "through the change and gains none that "
                                 "another bucket can hand over first: change "
                                 "in two smaller steps, or add partitions",
                                 pl->next.buckets[pl->target[b]].name);
        }
}

bp_change_plan_t *bp_change_plan_new(const bp_config_t *cfg,
                                     int32_t partition_cnt,
                                     char *errstr,
                                     size_t errstr_size) {
        bp_config_t next;
        bp_layout_t *from, *to;

        if (bp_config_next(cfg, &next, errstr, errstr_size))
                return NULL;
        from = bp_layout_compute(cfg, partition_cnt, errstr, errstr_size);
        to   = from ? bp_layout_compute(&next, partition_cnt, errstr,
                                        errstr_size)
                    : NULL;
        return bp_change_plan_of(cfg, &next, from, to, errstr, errstr_size);
}

bp_change_plan_t *bp_change_plan_of(const bp_config_t *cfg,
                                    const bp_config_t *next,
                                    bp_layout_t *from,
                                    bp_layout_t *to,
                                    char *errstr,
                                    size_t errstr_size) {
        bp_change_plan_t *pl = from && to ? calloc(1, sizeof(*pl)) : NULL;
        int b, n;
        int32_t p, keeps;

        if (!pl) {
                if (from && to) /* else its computation said why */
                        snprintf(errstr, errstr_size, "out of memory");
                bp_layout_destroy(from);
                bp_layout_destroy(to);
                return NULL;
        }
        pl->next          = *next;
        pl->from          = from;
        pl->to            = to;
        pl->partition_cnt = from->partition_cnt;
        n                 = cfg->bucket_cnt;
        for (b = 0; b < pl->next.bucket_cnt; b++)
                pl->same[b] = bp_config_find_bucket(
                    cfg, pl->next.buckets[b].name, pl->next.buckets[b].name_len);
        for (b = 0; b < n; b++) {
                pl->target[b] = bp_config_find_bucket(
                    &pl->next, cfg->buckets[b].name, cfg->buckets[b].name_len);
                if (pl->target[b] < 0)
                        pl->target[b] = pl->next.fallback_bucket;
        }
        for (b = 0; b < n; b++) {
                for (keeps = 0, p = 0; p < pl->partition_cnt; p++)
                        keeps += pl->from->bucket_of[p] == b && kept(pl, p);
                pl->homeless[b] = pl->target[b] >= 0 && keeps == 0 &&
                                  pl->from->count[b] > 0;
                pl->homeless_cnt += pl->homeless[b];
        }
        pl->step_cnt = pl->homeless_cnt ? 5 : 3;
        plan_refusals(pl);
        return pl;
}

void bp_change_plan_destroy(bp_change_plan_t *pl) {
        if (!pl)
                return;
        bp_layout_destroy(pl->from);
        bp_layout_destroy(pl->to);
        free(pl);
}

bp_step_kind_t bp_change_step_kind(const bp_change_plan_t *plan, int step) {
        (void)plan;
        return step % 2 ? BP_STEP_PRODUCERS : BP_STEP_CONSUMERS;
}

/* A layout of the current buckets where partition p belongs to
 * owner(p) (a current bucket index, or BP_LAYOUT_NOBODY for none);
 * bucket_of comes from \p bucket_of when given, else from owner(). */
static bp_layout_t *build(const bp_change_plan_t *pl, const int *owner,
                          const uint8_t *bucket_of) {
        int32_t P = pl->partition_cnt, p, fill[BP_MAX_BUCKETS];
        int n = pl->from->bucket_cnt, b;
        bp_layout_t *l = calloc(1, sizeof(*l) + (size_t)P * (sizeof(int32_t) +
                                                              sizeof(uint8_t)));
        if (!l)
                return NULL;
        l->partition_cnt = P;
        l->bucket_cnt    = n;
        l->partitions    = (int32_t *)(l + 1);
        l->bucket_of     = (uint8_t *)(l->partitions + P);
        for (p = 0; p < P; p++) {
                l->bucket_of[p] = bucket_of ? bucket_of[p] : (uint8_t)owner[p];
                if (owner[p] != BP_LAYOUT_NOBODY)
                        l->count[owner[p]]++;
        }
        for (b = 1; b < n; b++)
                l->first[b] = l->first[b - 1] + l->count[b - 1];
        memcpy(fill, l->first, sizeof(fill));
        for (p = 0; p < P; p++)
                if (owner[p] != BP_LAYOUT_NOBODY)
                        l->partitions[fill[owner[p]]++] = p;
        return l;
}

/* Which current bucket writes to partition p at step \p step. */
static int writer(const bp_change_plan_t *pl, int step, int32_t p) {
        int a = pl->from->bucket_of[p], b;

        if (pl->homeless[a] && !(pl->step_cnt == 5 && step >= 3))
                return a;
        if (kept(pl, p))
                return a;
        if (pl->step_cnt == 5 && step >= 3)
                for (b = 0; b < pl->from->bucket_cnt; b++)
                        if (pl->homeless[b] && gained_by(pl, b, p))
                                return b;
        return BP_LAYOUT_NOBODY;
}

bp_layout_t *bp_change_route_layout(const bp_change_plan_t *plan, int step) {
        bp_layout_t *l;
        int32_t p;
        int *own;

        if (step >= plan->step_cnt)
                step = plan->step_cnt - 1;
        if (plan->refused[0])
                step = 1; /* homeless buckets stay where they are */
        own = malloc(sizeof(*own) * (size_t)plan->partition_cnt);
        if (!own)
                return NULL;
        for (p = 0; p < plan->partition_cnt; p++)
                own[p] = writer(plan, step, p);
        l = build(plan, own, plan->from->bucket_of);
        free(own);
        return l;
}

int bp_change_reader(const bp_change_plan_t *plan,
                     int step,
                     int32_t p,
                     int *next_bucket) {
        int a = plan->from->bucket_of[p], c = plan->to->bucket_of[p];
        int changing = plan->step_cnt == 5 && (step == 2 || step == 3);

        if (next_bucket)
                *next_bucket = -1;
        if (step < 2 || (changing && (plan->homeless[a] || kept(plan, p))))
                return a;
        if (plan->same[c] >= 0)
                return plan->same[c];
        if (next_bucket)
                *next_bucket = c;
        return BP_LAYOUT_NOBODY;
}

bp_layout_t *bp_change_read_layout(const bp_change_plan_t *plan, int step) {
        int *own = malloc(sizeof(*own) * (size_t)plan->partition_cnt);
        bp_layout_t *l;
        int32_t p;

        if (!own)
                return NULL;
        for (p = 0; p < plan->partition_cnt; p++)
                own[p] = bp_change_reader(plan, step, p, NULL);
        l = build(plan, own, NULL);
        free(own);
        return l;
}

int32_t bp_change_drain(const bp_change_plan_t *plan,
                        int step,
                        uint8_t *drain) {
        int32_t p, cnt = 0;
        int before, after, nb_before, nb_after;

        memset(drain, 0, (size_t)plan->partition_cnt);
        if (step < 2 || step > plan->step_cnt ||
            bp_change_step_kind(plan, step) != BP_STEP_CONSUMERS)
                return 0;
        for (p = 0; p < plan->partition_cnt; p++) {
                before = bp_change_reader(plan, step - 1, p, &nb_before);
                after  = bp_change_reader(plan, step, p, &nb_after);
                if (before == after && nb_before == nb_after)
                        continue;
                /* Still written by its current bucket, whose records go to
                 * the new reader after the change (a bucket removed into
                 * its fallback): nothing to drain, the new reader goes on
                 * where the old one stopped. */
                if (kept(plan, p) && before == plan->from->bucket_of[p])
                        continue;
                drain[p] = 1;
                cnt++;
        }
        return cnt;
}

void bp_layout_fingerprint(const bp_layout_t *l,
                           const bp_config_t *cfg,
                           char out[9]) {
        uint32_t h = 2166136261u;
        int32_t i, v;
        int b;
        size_t k;

#define MIX(byte) (h = (h ^ (uint8_t)(byte)) * 16777619u)
        for (k = 0; k < 4; k++)
                MIX((uint32_t)l->partition_cnt >> (8 * k));
        for (b = 0; b < l->bucket_cnt && b < cfg->bucket_cnt; b++) {
                for (k = 0; k < cfg->buckets[b].name_len; k++)
                        MIX(cfg->buckets[b].name[k]);
                MIX(0);
                for (i = 0; i < l->count[b]; i++) {
                        v = l->partitions[l->first[b] + i];
                        for (k = 0; k < 4; k++)
                                MIX((uint32_t)v >> (8 * k));
                }
                MIX(0xff);
        }
#undef MIX
        snprintf(out, 9, "%08x", h);
}
