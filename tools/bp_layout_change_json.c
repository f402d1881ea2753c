/*
 * bp_layout_change_json.c - bp-layout's change plan as one JSON document
 * (shape in docs/operations.md): the same as the text, field by field.
 */
#include "bp_layout_change_json.h"

#include <stdlib.h>
#include <string.h>

#include "bp_escape.h"
#include "bp_layout_change_plan.h"

static void json_list(FILE *f, const int32_t *p, int32_t n) {
        int32_t i;
        fprintf(f, "[");
        for (i = 0; i < n; i++)
                fprintf(f, "%s%d", i ? "," : "", (int)p[i]);
        fprintf(f, "]");
}

static void json_str(FILE *f, const char *s) {
        char buf[JSON_SIZE];
        bp_json_escape(s, strlen(s), buf, sizeof(buf));
        fprintf(f, "\"%s\"", buf);
}

static void json_layout(FILE *f, const char *key, const bp_config_t *c,
                        const bp_layout_t *l) {
        char alloc[32], fp[9];
        int b;
        bp_layout_fingerprint(l, c, fp);
        fprintf(f, "\"%s\":{\"layout\":\"%s\",\"fingerprint\":\"%s\","
                   "\"buckets\":[",
                key, bp_lc_layout_name(c->layout), fp);
        for (b = 0; b < c->bucket_cnt; b++) {
                bp_allocation_format(c->allocation[b], alloc, sizeof(alloc));
                fprintf(f, "%s{\"name\":", b ? "," : "");
                json_str(f, c->buckets[b].name);
                fprintf(f, ",\"allocation\":%s,\"partitions\":", alloc);
                json_list(f, l->partitions + l->first[b], l->count[b]);
                fprintf(f, "}");
        }
        fprintf(f, "]}");
}

/* ,"<key>":{"fingerprint", "buckets":[{name, partitions}], "nobody"} */
static void json_step_layout(FILE *f, const char *key,
                             const bp_step_layout_t *s, int32_t *scratch) {
        int b;
        fprintf(f, ",\"%s\":{\"fingerprint\":\"%s\",\"main_properties\":%s,"
                   "\"buckets\":[",
                key, s->fingerprint, s->main_properties ? "true" : "false");
        for (b = 0; b < s->layout->bucket_cnt; b++) {
                fprintf(f, "%s{\"name\":", b ? "," : "");
                json_str(f, s->cfg->buckets[b].name);
                fprintf(f, ",\"partitions\":");
                json_list(f, s->layout->partitions + s->layout->first[b],
                          s->layout->count[b]);
                fprintf(f, "}");
        }
        fprintf(f, "],\"nobody\":");
        json_list(f, scratch, bp_lc_unheld(s->layout, scratch));
        fprintf(f, "}");
}

static void json_drain_group(void *ctx, const char *bucket,
                             const int32_t *parts, int32_t n, int first) {
        const char *group_id = ctx;
        fprintf(stdout, "%s{\"bucket\":", first ? "" : ",");
        json_str(stdout, bucket);
        fprintf(stdout, ",\"group\":");
        if (group_id) {
                char name[2 * LIST_SIZE];
                snprintf(name, sizeof(name), "%s.%s", group_id, bucket);
                json_str(stdout, name);
        } else
                fprintf(stdout, "null");
        fprintf(stdout, ",\"partitions\":");
        json_list(stdout, parts, n);
        fprintf(stdout, "}");
}

static void json_properties(const bp_config_t *cfg, const bp_change_plan_t *pl,
                            int step, int via_step) {
        prop_t props[MAX_PROPS];
        int i, n = bp_lc_step_properties(cfg, pl, step, via_step, props);
        fprintf(stdout, "{");
        for (i = 0; i < n; i++) {
                fprintf(stdout, "%s", i ? "," : "");
                json_str(stdout, props[i].name);
                fprintf(stdout, ":");
                json_str(stdout, props[i].value);
        }
        fprintf(stdout, "}");
}

/* ,"drain":[...],"check":"..." of consumer step \p step. */
static void json_drain(const bp_config_t *cfg, const bp_change_plan_t *pl,
                       int step, const char *group_id, int32_t *scratch) {
        uint8_t *drain = calloc((size_t)pl->partition_cnt, 1);
        char command[COMMAND_SIZE];
        fprintf(stdout, ",\"drain\":[");
        if (drain && bp_change_drain(pl, step, drain) > 0)
                bp_lc_each_drain_group(cfg, pl, step, drain, scratch,
                                       json_drain_group, (void *)group_id);
        bp_lc_audit_command(command, sizeof(command), cfg, pl, step);
        fprintf(stdout, "],\"check\":");
        json_str(stdout, command);
        free(drain);
}

static int json_step(const bp_config_t *cfg, const bp_change_plan_t *pl,
                     int s, const char *group_id, int32_t *scratch) {
        int consumers = bp_change_step_kind(pl, s) == BP_STEP_CONSUMERS;
        int stays     = bp_lc_stays_on_step(cfg, pl, s);
        bp_step_layout_t w, r;
        int rc = 0;

        fprintf(stdout, "%s{\"step\":%d,\"rolls\":\"%s\",\"last\":%s",
                s > 1 ? "," : "", s, consumers ? "consumers" : "producers",
                bp_lc_is_final(pl, s) ? "true" : "false");
        fprintf(stdout, ",\"properties\":");
        json_properties(cfg, pl, s, 0);
        fprintf(stdout, ",\"keep_next\":%s", stays ? "true" : "false");
        if (consumers && bp_lc_is_final(pl, s) && !stays) {
                fprintf(stdout, ",\"properties_via_step\":");
                json_properties(cfg, pl, s, 1);
        }
        if (consumers)
                json_drain(cfg, pl, s, group_id, scratch);
        if (bp_change_step_writes(pl, cfg, s, &w) ||
            bp_change_step_reads(pl, cfg, s, stays, &r))
                rc = -1;
        else {
                json_step_layout(stdout, "write", &w, scratch);
                json_step_layout(stdout, "read", &r, scratch);
        }
        bp_step_layout_clear(&w);
        bp_step_layout_clear(&r);
        if (!rc && consumers && bp_lc_is_final(pl, s) && !stays) {
                if (bp_change_step_reads(pl, cfg, s, 1, &r))
                        rc = -1;
                else
                        fprintf(stdout, ",\"read_via_step_fingerprint\":\"%s\"",
                                r.fingerprint);
                bp_step_layout_clear(&r);
        }
        fprintf(stdout, "}");
        return rc;
}

int bp_lc_print_json(const bp_config_t *cfg, const bp_change_plan_t *pl,
                     const char *group_id, int32_t *scratch) {
        int32_t p;
        int b, k = 0, s, rc = 0;

        fprintf(stdout, "{\"partitions\":%d,\"step_count\":%d,\"group_id\":",
                (int)pl->partition_cnt, pl->step_cnt);
        if (group_id)
                json_str(stdout, group_id);
        else
                fprintf(stdout, "null");
        fprintf(stdout, ",");
        json_layout(stdout, "now", cfg, pl->from);
        fprintf(stdout, ",");
        json_layout(stdout, "next", &pl->next, pl->to);
        fprintf(stdout, ",\"moves\":[");
        for (p = 0; p < pl->partition_cnt; p++) {
                const char *a = cfg->buckets[pl->from->bucket_of[p]].name;
                const char *c = pl->next.buckets[pl->to->bucket_of[p]].name;
                if (!strcmp(a, c))
                        continue;
                fprintf(stdout, "%s{\"partition\":%d,\"from\":", k++ ? "," : "",
                        (int)p);
                json_str(stdout, a);
                fprintf(stdout, ",\"to\":");
                json_str(stdout, c);
                fprintf(stdout, "}");
        }
        fprintf(stdout, "],\"homeless\":[");
        for (b = 0, k = 0; b < cfg->bucket_cnt; b++)
                if (pl->homeless[b]) {
                        fprintf(stdout, "%s", k++ ? "," : "");
                        json_str(stdout, cfg->buckets[b].name);
                }
        fprintf(stdout, "],\"refused\":");
        if (pl->refused[0])
                json_str(stdout, pl->refused);
        else
                fprintf(stdout, "null");
        fprintf(stdout, ",\"steps\":[");
        for (s = 1; s <= pl->step_cnt && !pl->refused[0] && !rc; s++)
                rc = json_step(cfg, pl, s, group_id, scratch);
        fprintf(stdout, "]}\n");
        return rc ? 2 : pl->refused[0] ? 1 : 0;
}
