/*
 * bp_layout_change_plan.c - what bp-layout's change plan printers share
 * (see bp_layout_change_plan.h; the steps themselves are
 * shared/bp_change.c's): what each step sets, what it drains and how that
 * is checked, partition lists as ranges.
 */
#include "bp_layout_change_plan.h"

#include <stdlib.h>
#include <string.h>

#include "bp_properties.h"

const char *bp_lc_layout_name(bp_layout_kind_t k) {
        return k == BP_LAYOUT_STABLE ? "stable" : "contiguous";
}

void bp_lc_print_list(FILE *f, const int32_t *p, int32_t n) {
        int32_t i, j;
        if (n == 0)
                fprintf(f, "(none)");
        for (i = 0; i < n; i = j + 1) {
                j = i;
                while (j + 1 < n && p[j + 1] == p[j] + 1)
                        j++;
                fprintf(f, "%s%d", i ? "," : "", (int)p[i]);
                if (j > i)
                        fprintf(f, "-%d", (int)p[j]);
        }
}

void bp_layout_print_ranges(FILE *f, const bp_layout_t *l, int b) {
        bp_lc_print_list(f, l->partitions + l->first[b], l->count[b]);
}

/* "critical, bulk" or "50%, 50%" for \p c. */
void bp_lc_list_value(char *buf, size_t size, const bp_config_t *c,
                       int allocations) {
        char one[32];
        size_t at = 0;
        int b;
        buf[0] = '\0';
        for (b = 0; b < c->bucket_cnt && at < size; b++) {
                if (allocations) {
                        bp_allocation_format(c->allocation[b], one,
                                             sizeof(one));
                        strcat(one, "%");
                }
                at += (size_t)snprintf(buf + at, size - at, "%s%s",
                                       b ? ", " : "",
                                       allocations ? one : c->buckets[b].name);
        }
}

/* Whether step \p step is the last of its kind: clients then take the
 * next values as their main properties. */
int bp_lc_is_final(const bp_change_plan_t *pl, int step) {
        return step == bp_change_last_step(pl, bp_change_step_kind(pl, step));
}

/* The properties clients of step \p step set; returns how many. */
int bp_lc_stays_on_step(const bp_config_t *cfg, const bp_change_plan_t *pl,
                        int step) {
        int b, t;
        if (step != bp_change_last_step(pl, BP_STEP_CONSUMERS))
                return 0;
        for (b = 0; b < cfg->bucket_cnt; b++) {
                t = pl->target[b];
                if (t < 0 || pl->same[t] != b)
                        return 1;
        }
        return 0;
}

int bp_lc_step_properties(const bp_config_t *cfg, const bp_change_plan_t *pl,
                           int step, int via_step, prop_t *out) {
        int n = 0;
        if (bp_lc_is_final(pl, step) && !via_step &&
            !bp_lc_stays_on_step(cfg, pl, step)) {
                out[n].name = BP_PROP_BUCKETS;
                bp_lc_list_value(out[n++].value, LIST_SIZE, &pl->next, 0);
                out[n].name = BP_PROP_ALLOCATION;
                bp_lc_list_value(out[n++].value, LIST_SIZE, &pl->next, 1);
                out[n].name = BP_PROP_LAYOUT;
                snprintf(out[n++].value, LIST_SIZE, "%s",
                         bp_lc_layout_name(pl->next.layout));
                return n;
        }
        if (cfg->next.bucket_cnt) {
                out[n].name = BP_PROP_NEXT_BUCKETS;
                bp_lc_list_value(out[n++].value, LIST_SIZE, &pl->next, 0);
        }
        if (cfg->next.allocation_cnt) {
                out[n].name = BP_PROP_NEXT_ALLOCATION;
                bp_lc_list_value(out[n++].value, LIST_SIZE, &pl->next, 1);
        }
        if (cfg->next.layout_set) {
                out[n].name = BP_PROP_NEXT_LAYOUT;
                snprintf(out[n++].value, LIST_SIZE, "%s",
                         bp_lc_layout_name(pl->next.layout));
        }
        out[n].name = BP_PROP_NEXT_STEP;
        snprintf(out[n++].value, LIST_SIZE, "%d", step);
        return n;
}

/* Appends \p s to \p buf (of \p size, \p *at used) as one POSIX shell
 * word: in single quotes when it needs any. */
static void shell_word(char *buf, size_t size, size_t *at, const char *s) {
        const char *c;
        int plain = *s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklm"
                                    "nopqrstuvwxyz0123456789._-+%,/:=@") ==
                              strlen(s);
        if (!plain && *at < size)
                *at += (size_t)snprintf(buf + *at, size - *at, "'");
        for (c = s; *c && *at < size; c++)
                *at += (size_t)snprintf(buf + *at, size - *at, "%s",
                                        *c == '\'' ? "'\\''" : (char[]){*c, 0});
        if (!plain && *at < size)
                *at += (size_t)snprintf(buf + *at, size - *at, "'");
}

/* The bp-audit command that says whether consumer step \p step may
 * start, into \p buf. */
void bp_lc_audit_command(char *buf, size_t size, const bp_config_t *cfg,
                          const bp_change_plan_t *pl, int step) {
        char v[LIST_SIZE];
        size_t at = (size_t)snprintf(buf, size,
                                     "bp-audit --config app.properties");
        if (cfg->next.bucket_cnt && at < size) {
                bp_lc_list_value(v, sizeof(v), &pl->next, 0);
                at += (size_t)snprintf(buf + at, size - at, " --next-buckets ");
                shell_word(buf, size, &at, v);
        }
        if (cfg->next.allocation_cnt && at < size) {
                bp_lc_list_value(v, sizeof(v), &pl->next, 1);
                at += (size_t)snprintf(buf + at, size - at,
                                       " --next-allocation ");
                shell_word(buf, size, &at, v);
        }
        if (cfg->next.layout_set && at < size)
                at += (size_t)snprintf(buf + at, size - at, " --next-layout %s",
                                       bp_lc_layout_name(pl->next.layout));
        if (at < size)
                snprintf(buf + at, size - at, " --next-step %d", step);
}

/* The partitions of \p l no bucket holds, into \p out; how many. */
int32_t bp_lc_unheld(const bp_layout_t *l, int32_t *out) {
        uint8_t *held = calloc((size_t)l->partition_cnt, 1);
        int32_t i, p, n = 0;
        int b;
        if (!held)
                return 0;
        for (b = 0; b < l->bucket_cnt; b++)
                for (i = 0; i < l->count[b]; i++)
                        held[l->partitions[l->first[b] + i]] = 1;
        for (p = 0; p < l->partition_cnt; p++)
                if (!held[p])
                        out[n++] = p;
        free(held);
        return n;
}

/* The partitions to drain before consumer step \p step whose old reader
 * is bucket \p r (current index; BP_LAYOUT_NOBODY with next bucket
 * \p nb), into \p out; how many. */
static int32_t drained_by(const bp_change_plan_t *pl, int step,
                          const uint8_t *drain, int r, int nb,
                          int32_t *out) {
        int32_t p, n = 0;
        int got, got_nb;
        for (p = 0; p < pl->partition_cnt; p++) {
                if (!drain[p])
                        continue;
                got = bp_change_reader(pl, step - 1, p, &got_nb);
                if (got == r && (r != BP_LAYOUT_NOBODY || got_nb == nb))
                        out[n++] = p;
        }
        return n;
}

/* Calls \p fn once per old reader of the partitions to drain before
 * consumer step \p step (marked in \p drain): its bucket's name and its
 * partitions. \p scratch has room for every partition. */
void bp_lc_each_drain_group(const bp_config_t *cfg,
                             const bp_change_plan_t *pl, int step,
                             const uint8_t *drain, int32_t *scratch,
                             void (*fn)(void *ctx, const char *bucket,
                                        const int32_t *parts, int32_t n,
                                        int first),
                             void *ctx) {
        int r, nb, reader, nobody, k = 0;
        int32_t n;
        for (r = 0; r <= cfg->bucket_cnt; r++) {
                nobody = r == cfg->bucket_cnt;
                reader = nobody ? BP_LAYOUT_NOBODY : r;
                for (nb = nobody ? 0 : -1;
                     nb < (nobody ? pl->next.bucket_cnt : 0); nb++) {
                        n = drained_by(pl, step, drain, reader, nb, scratch);
                        if (n > 0)
                                fn(ctx,
                                   nobody ? pl->next.buckets[nb].name
                                          : cfg->buckets[r].name,
                                   scratch, n, k++ == 0);
                }
        }
}
