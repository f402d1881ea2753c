/*
 * bp_layout_change_text.c - bp-layout's change plan as text: the current
 * and next layout with fingerprints, the moved partitions, then each step
 * (who rolls, what to drain first and the command that checks it, what to
 * set, where producers write and consumers read).
 */
#include "bp_layout_change_text.h"

#include <stdlib.h>
#include <string.h>

#include "bp_layout_change_plan.h"
#include "bp_properties.h"

static void text_layout(const char *title, const bp_config_t *c,
                        const bp_layout_t *l) {
        char alloc[32], fp[9];
        int b;
        bp_layout_fingerprint(l, c, fp);
        printf("%s: %s layout, fingerprint %s\n", title, bp_lc_layout_name(c->layout),
               fp);
        for (b = 0; b < c->bucket_cnt; b++) {
                bp_allocation_format(c->allocation[b], alloc, sizeof(alloc));
                strcat(alloc, "%");
                printf("  %-20s %10s %6d  ", c->buckets[b].name, alloc,
                       (int)l->count[b]);
                bp_layout_print_ranges(stdout, l, b);
                printf("\n");
        }
}

static void text_step_layout(const char *who, const char *does,
                             const bp_step_layout_t *s, int changed,
                             int32_t *scratch) {
        int b;
        int32_t n;
        printf("  %s %s (fingerprint %s%s):\n", who, does, s->fingerprint,
               changed ? "" : ", as before this step");
        for (b = 0; b < s->layout->bucket_cnt; b++) {
                printf("    %-20s ", s->cfg->buckets[b].name);
                bp_layout_print_ranges(stdout, s->layout, b);
                printf("\n");
        }
        if ((n = bp_lc_unheld(s->layout, scratch)) > 0) {
                printf("    %-20s ", "(nobody)");
                bp_lc_print_list(stdout, scratch, n);
                printf("\n");
        }
}

static void text_drain_group(void *ctx, const char *bucket,
                             const int32_t *parts, int32_t n, int first) {
        const char *group_id = ctx;
        (void)first;
        printf("    partitions ");
        bp_lc_print_list(stdout, parts, n);
        printf(" by group %s.%s\n", group_id ? group_id : "<group>", bucket);
}

static void text_drain(const bp_config_t *cfg, const bp_change_plan_t *pl,
                       int step, const char *group_id, int32_t *scratch) {
        uint8_t *drain = calloc((size_t)pl->partition_cnt, 1);
        char command[COMMAND_SIZE];
        if (!drain)
                return;
        if (bp_change_drain(pl, step, drain) == 0) {
                printf("  before it: nothing to drain\n");
                free(drain);
                return;
        }
        printf("  before it, wait until these partitions are drained (their "
               "old readers' group committed their end, and no producer "
               "writes to them):\n");
        bp_lc_each_drain_group(cfg, pl, step, drain, scratch, text_drain_group,
                         (void *)group_id);
        bp_lc_audit_command(command, sizeof(command), cfg, pl, step);
        printf("  check: %s\n         until it reports \"step %d may "
               "start\" (exit status 0)\n",
               command, step);
        free(drain);
}

static void text_properties(const bp_config_t *cfg, const bp_change_plan_t *pl,
                            int step) {
        prop_t props[MAX_PROPS];
        int i, n = bp_lc_step_properties(cfg, pl, step, 0, props);
        const char *who = bp_change_step_kind(pl, step) == BP_STEP_PRODUCERS
                              ? "producers'"
                              : "consumers'";
        int stays = bp_lc_stays_on_step(cfg, pl, step);
        if (stays)
                printf("  set in the consumers' properties (keep "
                       "bucket.priority.buckets, .allocation and .layout as "
                       "they are: the change removes a bucket, whose "
                       "partitions a consumer takes over from its group only "
                       "while its properties name it; give the new values "
                       "as main properties at a later restart, once every "
                       "group has committed on its partitions):\n");
        else if (bp_lc_is_final(pl, step))
                printf("  set in the %s properties, removing every "
                       "bucket.priority.next.* line:\n",
                       who);
        else
                printf("  set in the %s properties (keep "
                       "bucket.priority.buckets, .allocation and .layout as "
                       "they are):\n",
                       who);
        for (i = 0; i < n; i++)
                printf("    %s=%s\n", props[i].name, props[i].value);
        if (bp_lc_is_final(pl, step) && !stays &&
            bp_change_step_kind(pl, step) == BP_STEP_CONSUMERS) {
                bp_step_layout_t via;
                printf("  (consumers of a bucket the change keeps may "
                       "instead keep their properties and next.* lines "
                       "with %s=%d",
                       BP_PROP_NEXT_STEP, step);
                if (bp_change_step_reads(pl, cfg, step, 1, &via) == 0)
                        printf(": they read the same partitions and log "
                               "fingerprint %s",
                               via.fingerprint);
                bp_step_layout_clear(&via);
                printf(")\n");
        }
}

/* Buckets whose consumers start or stop at the last consumer step. */
static void text_start_stop(const bp_config_t *cfg,
                            const bp_change_plan_t *pl) {
        int b, t;
        for (b = 0; b < pl->next.bucket_cnt; b++)
                if (pl->same[b] < 0)
                        printf("  start the consumers of bucket %s (the "
                               "change adds it)\n",
                               pl->next.buckets[b].name);
        for (b = 0; b < cfg->bucket_cnt; b++) {
                t = pl->target[b];
                if (t >= 0 && pl->same[t] == b)
                        continue;
                printf("  stop the consumers of bucket %s (the change "
                       "removes it; its records go to %s)\n",
                       cfg->buckets[b].name,
                       t >= 0 ? pl->next.buckets[t].name : "no bucket");
        }
}

static int text_steps(const bp_config_t *cfg, const bp_change_plan_t *pl,
                      const char *group_id, int32_t *scratch) {
        bp_step_layout_t w, r;
        char before_w[9], before_r[9];
        int s, consumers;

        bp_layout_fingerprint(pl->from, cfg, before_w);
        memcpy(before_r, before_w, sizeof(before_r));
        for (s = 1; s <= pl->step_cnt; s++) {
                consumers = bp_change_step_kind(pl, s) == BP_STEP_CONSUMERS;
                printf("\nstep %d of %d: %s roll%s\n", s, pl->step_cnt,
                       consumers ? "consumers" : "producers",
                       bp_lc_is_final(pl, s) ? " (their last step)" : "");
                if (consumers)
                        text_drain(cfg, pl, s, group_id, scratch);
                text_properties(cfg, pl, s);
                if (consumers && bp_lc_is_final(pl, s))
                        text_start_stop(cfg, pl);
                if (bp_change_step_writes(pl, cfg, s, &w) ||
                    bp_change_step_reads(pl, cfg, s,
                                         bp_lc_stays_on_step(cfg, pl, s),
                                         &r)) {
                        bp_step_layout_clear(&w);
                        bp_step_layout_clear(&r);
                        return -1;
                }
                if (!consumers)
                        text_step_layout("producers", "write", &w,
                                         strcmp(w.fingerprint, before_w),
                                         scratch);
                text_step_layout("consumers", "read", &r,
                                 strcmp(r.fingerprint, before_r), scratch);
                if (consumers)
                        text_step_layout("producers", "write", &w,
                                         strcmp(w.fingerprint, before_w),
                                         scratch);
                memcpy(before_w, w.fingerprint, sizeof(before_w));
                memcpy(before_r, r.fingerprint, sizeof(before_r));
                bp_step_layout_clear(&w);
                bp_step_layout_clear(&r);
        }
        return 0;
}

static void text_moves(const bp_config_t *cfg, const bp_change_plan_t *pl) {
        int32_t p;
        int moved = 0;
        printf("\npartitions that change bucket:\n");
        for (p = 0; p < pl->partition_cnt; p++) {
                int a = pl->from->bucket_of[p], c = pl->to->bucket_of[p];
                if (!strcmp(cfg->buckets[a].name, pl->next.buckets[c].name))
                        continue;
                printf("  partition %d moves: %s -> %s\n", (int)p,
                       cfg->buckets[a].name, pl->next.buckets[c].name);
                moved++;
        }
        if (!moved)
                printf("  none\n");
}

int bp_lc_print_text(const bp_config_t *cfg, const bp_change_plan_t *pl,
                      const char *group_id, int32_t *scratch) {
        int b;
        printf("layout change at %d partitions: %d steps\n",
               (int)pl->partition_cnt, pl->step_cnt);
        text_layout("now", cfg, pl->from);
        text_layout("next", &pl->next, pl->to);
        text_moves(cfg, pl);
        for (b = 0; b < cfg->bucket_cnt; b++)
                if (pl->homeless[b])
                        printf("bucket %s keeps none of its partitions: it "
                               "moves in steps 2 and 3, so the change takes "
                               "5 steps\n",
                               cfg->buckets[b].name);
        if (pl->refused[0]) {
                printf("\nrefused: %s\n", pl->refused);
                return 1;
        }
        return text_steps(cfg, pl, group_id, scratch) ? 2 : 0;
}
