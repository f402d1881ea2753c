/*
 * audit_change.c - bp-audit's judgement of a live layout change (see
 * audit_change.h; the steps are shared/bp_change.c's).
 */
#include "audit_change.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit_lag.h"
#include "bp_config.h"
#include "audit_owner.h"
#include "bp_escape.h"
#include "bp_key.h"

/* The name of the bucket reading partition p at step s (current bucket,
 * or a bucket the change adds), or NULL. */
static const char *reader_name(const audit_t *a, const bp_change_plan_t *pl,
                               int s, int32_t p) {
        int nb, r = bp_change_reader(pl, s < 1 ? 1 : s, p, &nb);
        if (r != BP_LAYOUT_NOBODY)
                return a->cfg->buckets[r].name;
        return nb >= 0 ? pl->next.buckets[nb].name : NULL;
}

/* Fills writer_<now|prev> (which bucket's producers write to each
 * partition at step s) from the layout producers use once s is rolled;
 * step 0 is the current layout. */
static int fill_writers(audit_t *a, int s, int now) {
        audit_change_t *ch = a->change;
        bp_step_layout_t w;
        int32_t i, p;
        int b;

        if (s < 1) {
                for (p = 0; p < a->layout->partition_cnt; p++)
                        ch->parts[p].writer_prev =
                            a->cfg->buckets[a->layout->bucket_of[p]].name;
                return 0;
        }
        if (bp_change_step_writes(ch->plan, a->cfg, s, &w))
                return -1;
        for (b = 0; b < w.layout->bucket_cnt; b++)
                for (i = 0; i < w.layout->count[b]; i++) {
                        p = w.layout->partitions[w.layout->first[b] + i];
                        if (now)
                                ch->parts[p].writer_now = w.cfg->buckets[b].name;
                        else
                                ch->parts[p].writer_prev =
                                    w.cfg->buckets[b].name;
                }
        /* the names must outlive w: they point into the plan or cfg */
        bp_step_layout_clear(&w);
        return 0;
}

int audit_change_init(audit_t *a, char *err, size_t err_size) {
        audit_change_t *ch;
        int32_t p, n = a->layout->partition_cnt;
        uint8_t *drain;

        if (!a->cfg->next.set)
                return 0;
        ch = calloc(1, sizeof(*ch));
        if (!ch) {
                snprintf(err, err_size, "out of memory");
                return -1;
        }
        a->change = ch;
        ch->plan  = bp_change_plan_new(a->cfg, n, err, err_size);
        if (!ch->plan)
                return -1;
        ch->step = a->cfg->next.step;
        if (ch->step > ch->plan->step_cnt) {
                snprintf(err, err_size,
                         "bucket.priority.next.step=%d: at %d partitions "
                         "this change has %d steps (bp-layout --next-* "
                         "prints them)",
                         ch->step, (int)n, ch->plan->step_cnt);
                return -1;
        }
        ch->check_step = ch->plan->refused[0]
                             ? 0
                             : bp_change_next_consumer_step(ch->plan, ch->step);
        ch->parts = calloc((size_t)n, sizeof(*ch->parts));
        drain     = calloc((size_t)n, 1);
        if (!ch->parts || !drain ||
            bp_change_step_writes(ch->plan, a->cfg, ch->step, &ch->writes) ||
            bp_change_step_reads(ch->plan, a->cfg, ch->step, 0, &ch->reads) ||
            !(ch->read_layout = bp_change_read_layout(
                  ch->plan, ch->plan->refused[0] ? 1 : ch->step)) ||
            fill_writers(a, ch->step, 1) || fill_writers(a, ch->step - 1, 0)) {
                free(drain);
                snprintf(err, err_size, "out of memory");
                return -1;
        }
        a->read_layout = ch->read_layout;
        if (ch->check_step)
                ch->drain_cnt = (int)bp_change_drain(ch->plan, ch->check_step,
                                                     drain);
        for (p = 0; p < n; p++) {
                audit_change_part_t *cp = &ch->parts[p];
                cp->drain       = drain[p];
                cp->drain_group = -1;
                cp->commit = cp->high_end = -1;
                cp->reader_now  = reader_name(a, ch->plan, ch->step, p);
                cp->reader_prev = reader_name(a, ch->plan, ch->step - 1, p);
        }
        free(drain);
        return 0;
}

int audit_change_alloc_commits(audit_t *a) {
        audit_change_t *ch = a->change;
        size_t i, n;
        if (!ch || a->group_cnt == 0)
                return 0;
        n                 = (size_t)a->group_cnt * (size_t)a->layout->partition_cnt;
        ch->committed_end = malloc(n * sizeof(*ch->committed_end));
        if (!ch->committed_end)
                return -1;
        for (i = 0; i < n; i++)
                ch->committed_end[i] = -1;
        return 0;
}

static int same(const char *x, const char *y) {
        return x && y && !strcmp(x, y);
}

/* The group of current bucket \p name, or -1. */
static int group_of(const audit_t *a, const char *name) {
        int b = bp_config_find_bucket(a->cfg, name, strlen(name));
        return b < 0 ? -1 : audit_lag_group(a, b);
}

void audit_change_count_key(audit_t *a, int32_t p, int64_t offset,
                            const void *key, size_t keylen) {
        audit_change_t *ch = a->change;
        const bp_change_plan_t *pl;
        audit_change_part_t *cp;
        const char *name, *home = NULL, *owner;
        int cb, nb, g;
        audit_fit_t fit;

        if (!ch || p < 0 || p >= a->layout->partition_cnt)
                return;
        pl = ch->plan;
        cp = &ch->parts[p];
        cb = bp_key_bucket(a->cfg, key, keylen);
        nb = bp_key_bucket(&pl->next, key, keylen);
        if (cb < 0 && nb < 0)
                return; /* NULL or no bucket: counted by the routing check */
        name = cb >= 0 ? a->cfg->buckets[cb].name : pl->next.buckets[nb].name;
        if (cb >= 0 && pl->target[cb] >= 0)
                home = pl->next.buckets[pl->target[cb]].name;
        if (same(name, cp->writer_now) || same(name, cp->writer_prev) ||
            same(home, cp->writer_now) || same(home, cp->writer_prev))
                return;
        owner = a->cfg->buckets[a->layout->bucket_of[p]].name;
        if (same(name, owner)) {
                /* Written before the change moved the partition: fine while
                 * its own bucket reads it, or below its group's commit. */
                if (same(name, cp->reader_now) || same(name, cp->reader_prev))
                        return;
                g = group_of(a, name);
                if (g >= 0 && a->groups[g].committed[p] > offset)
                        return;
        }
        fit = same(pl->next.buckets[pl->to->bucket_of[p]].name, home ? home
                                                                     : name)
                  ? AUDIT_FIT_NEXT
              : same(name, owner) ? AUDIT_FIT_CURRENT
                                  : AUDIT_FIT_NONE;
        if (!cp->sample[0])
                bp_escape(key, keylen, BP_KEY_PREVIEW_LEN, cp->sample,
                          sizeof(cp->sample));
        cp->misplaced[fit]++;
}

/* The drain verdict of every partition check_step hands over. */
static void drain_findings(audit_t *a) {
        audit_change_t *ch = a->change;
        char list[512];
        size_t at = 0;
        int32_t p;
        int nb, r;

        list[0] = '\0';
        for (p = 0; p < a->layout->partition_cnt; p++) {
                audit_change_part_t *cp = &ch->parts[p];
                const audit_partition_t *pt = &a->parts[p];
                int64_t start;
                if (!cp->drain)
                        continue;
                r = bp_change_reader(ch->plan, ch->check_step - 1, p, &nb);
                cp->drain_group = r == BP_LAYOUT_NOBODY ? -1
                                                        : audit_lag_group(a, r);
                if (cp->drain_group >= 0) {
                        const audit_group_t *g = &a->groups[cp->drain_group];
                        start      = g->offsets_read ? g->committed[p] : -1;
                        cp->commit = ch->committed_end
                                         ? ch->committed_end
                                               [(size_t)cp->drain_group *
                                                    (size_t)a->layout
                                                        ->partition_cnt +
                                                p]
                                         : -1;
                        if (cp->commit < start)
                                cp->commit = start;
                }
                /* Nothing ever written needs no commit to be drained. */
                cp->drained = pt->high >= 0 && cp->high_end == pt->high &&
                              (cp->commit >= pt->high ||
                               (pt->high == pt->low && cp->commit < 0));
                if (cp->drained)
                        continue;
                ch->not_drained++;
                if (at < sizeof(list))
                        at += (size_t)snprintf(list + at, sizeof(list) - at,
                                               "%s%d", at ? "," : "", (int)p);
        }
        if (ch->not_drained)
                audit_add_finding(
                    a, AUDIT_F_WAIT, -1, -1, -1, -1, ch->not_drained,
                    "step %d must wait: %d partition%s not drained (%s): "
                    "their old readers have not committed their end, or "
                    "records still arrive there (a producer not yet on "
                    "step %d); run the audit again",
                    ch->check_step, ch->not_drained,
                    ch->not_drained == 1 ? "" : "s", list,
                    ch->check_step - 1);
}

static const char *fit_text[AUDIT_FIT__CNT] = {
    "they fit the next layout: a producer switched early (it is on a later "
    "step, or has the next values as its main properties)",
    "they fit the current layout, past what that bucket's group read, and "
    "another bucket reads them now: a producer is on an earlier step (or has "
    "no bucket.priority.next.* lines), or the drain was skipped",
    "they fit neither layout: a producer without the plugin, or with "
    "other properties"};

static void misplaced_findings(audit_t *a) {
        audit_change_t *ch = a->change;
        int32_t p;
        int f;
        for (p = 0; p < a->layout->partition_cnt; p++) {
                const audit_change_part_t *cp = &ch->parts[p];
                for (f = 0; f < AUDIT_FIT__CNT; f++)
                        if (cp->misplaced[f])
                                audit_add_finding(
                                    a, AUDIT_F_STEP_MISPLACED,
                                    a->layout->bucket_of[p], p, -1, -1,
                                    cp->misplaced[f],
                                    "partition %d: %lld of the last records "
                                    "name a bucket whose producers may not "
                                    "write here at step %d (here write: "
                                    "%s), such as \"%s\"; %s",
                                    (int)p, (long long)cp->misplaced[f],
                                    ch->step,
                                    cp->writer_now ? cp->writer_now
                                                   : "no bucket",
                                    cp->sample, fit_text[f]);
        }
}

/* Whether group \p g serves bucket \p name (current buckets). */
static int serves(const audit_t *a, int g, const char *name) {
        int b = name ? bp_config_find_bucket(a->cfg, name, strlen(name)) : -1;
        return b >= 0 && (audit_group_mask(&a->groups[g]) & (1ull << b));
}

/* Groups whose commits advanced during the audit on a partition their
 * buckets do not read at this step (nor the step before, while it
 * rolls). */
static void reader_findings(audit_t *a) {
        audit_change_t *ch = a->change;
        int32_t p, n = a->layout->partition_cnt;
        int g;
        if (!ch->committed_end)
                return;
        for (g = 0; g < a->group_cnt; g++) {
                const audit_group_t *grp = &a->groups[g];
                if (!grp->offsets_read)
                        continue;
                for (p = 0; p < n; p++) {
                        const audit_change_part_t *cp = &ch->parts[p];
                        int64_t end = ch->committed_end[(size_t)g * (size_t)n +
                                                        (size_t)p];
                        if (end < 0 || end <= grp->committed[p] ||
                            serves(a, g, cp->reader_now) ||
                            serves(a, g, cp->reader_prev))
                                continue;
                        audit_add_finding(
                            a, AUDIT_F_STEP_READER, a->layout->bucket_of[p],
                            p, g, -1, end - grp->committed[p],
                            "group %s committed on partition %d during the "
                            "audit (%lld -> %lld), which bucket %s reads at "
                            "step %d: a member of %s reads with another "
                            "layout (another step, or without the "
                            "bucket.priority.next.* lines); compare the "
                            "members' \"layout fingerprint\" log lines with "
                            "%s",
                            grp->name, (int)p, (long long)grp->committed[p],
                            (long long)end,
                            cp->reader_now ? cp->reader_now : "no",
                            ch->step, grp->name, ch->reads.fingerprint);
                }
        }
}

void audit_change_judge(audit_t *a) {
        if (!a->change)
                return;
        if (a->change->check_step && a->change->drain_cnt)
                drain_findings(a);
        misplaced_findings(a);
        reader_findings(a);
}

void audit_change_destroy(audit_t *a) {
        audit_change_t *ch = a->change;
        if (!ch)
                return;
        bp_change_plan_destroy(ch->plan);
        bp_step_layout_clear(&ch->writes);
        bp_step_layout_clear(&ch->reads);
        bp_layout_destroy(ch->read_layout);
        free(ch->parts);
        free(ch->committed_end);
        free(ch);
        a->change      = NULL;
        a->read_layout = NULL;
}
