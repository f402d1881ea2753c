/*
 * audit_report.c - the readable report and the JSON document.
 */
#include "audit_report.h"

#include <string.h>

#include "audit_change_report.h"
#include "audit_lag.h"
#include "bp_list.h"
#include "bp_escape.h"

#define JSON_STR_SIZE (6 * 512 + 1)

static const char *key_names[AUDIT_KEY__CNT] = {
    "in_bucket", "misrouted", "old_layout", "unknown", "null"};

int audit_fault_count(const audit_t *a) {
        int i, n = 0;
        for (i = 0; i < a->finding_cnt; i++)
                n += audit_finding_is_fault(a->findings[i].kind);
        return n;
}

int audit_unchecked_count(const audit_t *a) {
        int i, n = 0;
        for (i = 0; i < a->finding_cnt; i++)
                n += a->findings[i].kind == AUDIT_F_UNCHECKED;
        return n;
}

/* The JSON verdict of exit status \p status. */
static const char *verdict_name(int status) {
        return status == AUDIT_HEALTHY       ? "healthy"
               : status == AUDIT_FAULTY      ? "not healthy"
               : status == AUDIT_NOT_CHECKED ? "not checked"
                                             : "wait";
}

/* The label of a finding's line in the readable report. */
static const char *finding_label(audit_finding_kind_t kind) {
        if (audit_finding_is_fault(kind))
                return "FAULT";
        return kind == AUDIT_F_WAIT        ? "WAIT "
               : kind == AUDIT_F_UNCHECKED ? "UNCHECKED"
                                           : "note ";
}

static const int32_t *bucket_parts(const bp_layout_t *l, int b) {
        return l->partitions + l->first[b];
}

static void text_buckets(FILE *f, const audit_t *a) {
        char alloc[32], ranges[4096];
        int b, unc, g;
        int64_t lag;

        fprintf(f, "  %-16s %6s  %-16s %10s  %s\n", "bucket", "share",
                "partitions", "lag", "lag from group");
        for (b = 0; b < a->cfg->bucket_cnt; b++) {
                bp_allocation_format(a->cfg->allocation[b], alloc,
                                     sizeof(alloc));
                strcat(alloc, "%");
                fprintf(f, "  %-16s %6s  ", a->cfg->buckets[b].name, alloc);
                bp_ranges_format(ranges, sizeof(ranges),
                              bucket_parts(a->layout, b), a->layout->count[b]);
                fprintf(f, "%-16s", ranges);
                lag = audit_bucket_lag(a, b, &unc);
                g   = audit_lag_group(a, b);
                if (lag < 0)
                        fprintf(f, " %10s  -\n", "?");
                else
                        fprintf(f, " %10lld  %s%s\n", (long long)lag,
                                a->groups[g].name,
                                unc ? " (some partitions never committed: "
                                      "counted from their first record)"
                                    : "");
        }
}

/* The group's protocol as its line shows it ("" when unknown). */
static const char *text_type(const audit_group_t *grp) {
        return grp->type == AUDIT_GROUP_TYPE_CONSUMER
                   ? ", consumer protocol (KIP-848)"
               : grp->type == AUDIT_GROUP_TYPE_CLASSIC ? ", classic protocol"
                                                       : "";
}

/* How many partitions the members of \p grp hold paused. */
static int group_held(const audit_group_t *grp) {
        int m, n = 0;
        for (m = 0; m < grp->member_cnt; m++)
                n += grp->members[m].held_cnt;
        return n;
}

static void text_member(FILE *f, const audit_group_t *grp,
                        const audit_member_t *mem) {
        char ranges[8192];
        fprintf(f, "    %s (client id \"%s\", %s)\n", mem->consumer_id,
                mem->client_id, mem->host);
        bp_ranges_format(ranges, sizeof(ranges), mem->indexes, mem->index_cnt);
        fprintf(f, "      broker says  %s\n", ranges);
        if (audit_member_moving(mem)) {
                bp_ranges_format(ranges, sizeof(ranges), mem->target,
                                 mem->target_cnt);
                fprintf(f, "      moving to    %s  (the broker's target: "
                           "the group is rebalancing)\n",
                        ranges);
        }
        bp_ranges_format(ranges, sizeof(ranges), mem->reads, mem->read_cnt);
        fprintf(f, "      reads        %s%s\n", ranges,
                mem->not_bucket ? "  (NOT a bucket consumer: reads what the "
                                  "broker says)"
                                : "");
        if (grp->type == AUDIT_GROUP_TYPE_CONSUMER && !mem->not_bucket) {
                bp_ranges_format(ranges, sizeof(ranges), mem->held,
                                 mem->held_cnt);
                fprintf(f, "      held, not read  %s  (other buckets', "
                           "paused)\n",
                        ranges);
        }
}

static void text_groups(FILE *f, const audit_t *a) {
        int g, m;
        for (g = 0; g < a->group_cnt; g++) {
                const audit_group_t *grp = &a->groups[g];
                if (grp->described)
                        fprintf(f, "  %s: %s%s, %d member%s", grp->name,
                                grp->state, text_type(grp), grp->member_cnt,
                                grp->member_cnt == 1 ? "" : "s");
                else if (grp->state[0])
                        fprintf(f, "  %s: not described (listed as %s)%s",
                                grp->name, grp->state, text_type(grp));
                else
                        fprintf(f, "  %s: not described", grp->name);
                if (grp->described && grp->type == AUDIT_GROUP_TYPE_CONSUMER)
                        fprintf(f, ", %d partition%s held, not read",
                                group_held(grp),
                                group_held(grp) == 1 ? "" : "s");
                fprintf(f, "\n");
                for (m = 0; m < grp->member_cnt; m++)
                        text_member(f, grp, &grp->members[m]);
        }
}

static void text_partitions(FILE *f, const audit_t *a) {
        int32_t p;
        int unc;
        fprintf(f, "  %4s %-12s %10s %10s %7s %9s %9s %7s %7s %5s\n",
                "part", "bucket", "end", "lag", "readers", "in-bucket",
                "misrouted", "old", "unknown", "null");
        for (p = 0; p < a->layout->partition_cnt; p++) {
                const audit_partition_t *pt = &a->parts[p];
                int b       = a->layout->bucket_of[p];
                int64_t lag = audit_partition_lag(a, audit_lag_group(a, b), p,
                                                  &unc);
                fprintf(f, "  %4d %-12.12s %10lld ", (int)p,
                        a->cfg->buckets[b].name, (long long)pt->high);
                if (lag < 0)
                        fprintf(f, "%10s", "?");
                else
                        fprintf(f, "%10lld", (long long)lag);
                fprintf(f, " %7d %9lld %9lld %7lld %7lld %5lld%s\n",
                        pt->reader_cnt,
                        (long long)pt->keys[AUDIT_KEY_IN_BUCKET],
                        (long long)pt->keys[AUDIT_KEY_MISROUTED],
                        (long long)pt->keys[AUDIT_KEY_OLD_LAYOUT],
                        (long long)pt->keys[AUDIT_KEY_UNKNOWN],
                        (long long)pt->keys[AUDIT_KEY_NULL],
                        pt->routing_incomplete ? "  (not read to the end)"
                                               : "");
        }
}

static void text_growth(FILE *f, const audit_t *a, const bp_layout_t *l) {
        int32_t p;
        int moved = 0;
        if (!l)
                return;
        fprintf(f, "\nnext growth %d -> %d partitions:\n",
                (int)a->layout->partition_cnt, (int)l->partition_cnt);
        for (p = 0; p < a->layout->partition_cnt; p++)
                if (a->layout->bucket_of[p] != l->bucket_of[p]) {
                        fprintf(f, "  partition %d moves: %s -> %s\n", (int)p,
                                a->cfg->buckets[a->layout->bucket_of[p]].name,
                                a->cfg->buckets[l->bucket_of[p]].name);
                        moved++;
                }
        if (!moved)
                fprintf(f, "  no existing partition changes bucket\n");
}

void audit_print_text(FILE *f, const audit_t *a, const bp_layout_t *growth) {
        int i, faults = audit_fault_count(a);
        int unchecked = audit_unchecked_count(a);
        int notes     = a->finding_cnt - faults - unchecked;
        int status    = audit_exit_status(a);

        fprintf(f, "topic %s: %d partitions, %s layout, group.id %s\n",
                a->cfg->topic, (int)a->layout->partition_cnt,
                a->cfg->layout == BP_LAYOUT_STABLE ? "stable" : "contiguous",
                a->base_group[0] ? a->base_group : "(not set)");
        text_buckets(f, a);
        if (a->group_cnt) {
                fprintf(f, "\ngroups (broker's assignment -> partitions "
                           "read after the bucket mapping; on the consumer "
                           "protocol, other buckets' partitions are held "
                           "paused, not read):\n");
                text_groups(f, a);
        }
        fprintf(f, "\npartitions (keys of the last %d records of each):\n",
                a->routing_records);
        text_partitions(f, a);
        text_growth(f, a, growth);
        audit_change_print_text(f, a);
        fprintf(f, "\n");
        for (i = 0; i < a->finding_cnt; i++)
                fprintf(f, "%s %s: %s\n", finding_label(a->findings[i].kind),
                        audit_finding_name(a->findings[i].kind),
                        a->findings[i].text);
        fprintf(f, "%s: %d fault%s, ",
                faults      ? "NOT HEALTHY"
                : unchecked ? (status == AUDIT_WAIT ? "NOT CHECKED, and WAIT"
                                                    : "NOT CHECKED")
                : status == AUDIT_WAIT ? "healthy, but WAIT"
                                       : "healthy",
                faults, faults == 1 ? "" : "s");
        if (unchecked)
                fprintf(f, "%d check%s not made, ", unchecked,
                        unchecked == 1 ? "" : "s");
        fprintf(f, "%d note%s\n", notes, notes == 1 ? "" : "s");
}

/* --- JSON --------------------------------------------------------------- */

/* Writes \p s as a JSON string, or null when \p s is NULL. */
static void jstr(FILE *f, const char *s) {
        char buf[JSON_STR_SIZE];
        if (!s) {
                fprintf(f, "null");
                return;
        }
        bp_json_escape(s, strlen(s), buf, sizeof(buf));
        fprintf(f, "\"%s\"", buf);
}

/* Writes the member ,"<key>": with string \p s (or null, as jstr()). */
static void jfield(FILE *f, const char *key, const char *s) {
        fprintf(f, ",\"%s\":", key);
        jstr(f, s);
}

static void jints(FILE *f, const int32_t *v, int n) {
        int i;
        fprintf(f, "[");
        for (i = 0; i < n; i++)
                fprintf(f, "%s%d", i ? "," : "", (int)v[i]);
        fprintf(f, "]");
}

static void jlag(FILE *f, int64_t lag) {
        if (lag < 0)
                fprintf(f, "null");
        else
                fprintf(f, "%lld", (long long)lag);
}

static void json_buckets(FILE *f, const audit_t *a) {
        char alloc[32];
        int b, unc, g;
        fprintf(f, "\"buckets\":[");
        for (b = 0; b < a->cfg->bucket_cnt; b++) {
                int64_t lag = audit_bucket_lag(a, b, &unc);
                g           = audit_lag_group(a, b);
                bp_allocation_format(a->cfg->allocation[b], alloc,
                                     sizeof(alloc));
                fprintf(f, "%s{\"name\":", b ? "," : "");
                jstr(f, a->cfg->buckets[b].name);
                fprintf(f, ",\"allocation\":%s,\"partitions\":", alloc);
                jints(f, bucket_parts(a->layout, b), a->layout->count[b]);
                fprintf(f, ",\"lag\":");
                jlag(f, lag);
                jfield(f, "lag_group", g >= 0 ? a->groups[g].name : NULL);
                fprintf(f, ",\"uncommitted_partitions\":%d}", unc);
        }
        fprintf(f, "]");
}

static void json_partitions(FILE *f, const audit_t *a) {
        int32_t p;
        int k, unc;
        fprintf(f, "\"partition_details\":[");
        for (p = 0; p < a->layout->partition_cnt; p++) {
                const audit_partition_t *pt = &a->parts[p];
                int b                       = a->layout->bucket_of[p];
                fprintf(f, "%s{\"partition\":%d", p ? "," : "", (int)p);
                jfield(f, "bucket", a->cfg->buckets[b].name);
                fprintf(f, ",\"low\":%lld,\"high\":%lld,\"lag\":",
                        (long long)pt->low, (long long)pt->high);
                jlag(f, audit_partition_lag(a, audit_lag_group(a, b), p,
                                            &unc));
                fprintf(f, ",\"readers\":%d,\"held_not_read\":%d,\"keys\":{",
                        pt->reader_cnt, pt->held_cnt);
                for (k = 0; k < AUDIT_KEY__CNT; k++)
                        fprintf(f, "%s\"%s\":%lld", k ? "," : "", key_names[k],
                                (long long)pt->keys[k]);
                fprintf(f, "},\"routing_complete\":%s,\"misrouted_samples\":[",
                        pt->routing_incomplete ? "false" : "true");
                for (k = 0; k < pt->sample_cnt; k++) {
                        fprintf(f, "%s", k ? "," : "");
                        jstr(f, pt->samples[k]);
                }
                fprintf(f, "]}");
        }
        fprintf(f, "]");
}

static void json_groups(FILE *f, const audit_t *a) {
        int g, m, k;
        int32_t p;
        fprintf(f, "\"groups\":[");
        for (g = 0; g < a->group_cnt; g++) {
                const audit_group_t *grp = &a->groups[g];
                fprintf(f, "%s{\"name\":", g ? "," : "");
                jstr(f, grp->name);
                fprintf(f, ",\"buckets\":[");
                for (k = 0; k < grp->bucket_cnt; k++) {
                        fprintf(f, "%s", k ? "," : "");
                        jstr(f, a->cfg->buckets[grp->buckets[k]].name);
                }
                fprintf(f, "],\"described\":%s",
                        grp->described ? "true" : "false");
                jfield(f, "state", grp->described ? grp->state : NULL);
                jfield(f, "type", audit_group_type_name(grp->type));
                fprintf(f, ",\"held_not_read\":%d,\"members\":[",
                        group_held(grp));
                for (m = 0; m < grp->member_cnt; m++) {
                        const audit_member_t *mem = &grp->members[m];
                        fprintf(f, "%s{\"consumer_id\":", m ? "," : "");
                        jstr(f, mem->consumer_id);
                        jfield(f, "client_id", mem->client_id);
                        jfield(f, "host", mem->host);
                        fprintf(f, ",\"assigned\":");
                        jints(f, mem->indexes, mem->index_cnt);
                        fprintf(f, ",\"reads\":");
                        jints(f, mem->reads, mem->read_cnt);
                        fprintf(f, ",\"held_not_read\":");
                        jints(f, mem->held, mem->held_cnt);
                        fprintf(f, ",\"target\":");
                        if (mem->target_cnt < 0)
                                fprintf(f, "null");
                        else
                                jints(f, mem->target, mem->target_cnt);
                        fprintf(f, ",\"bucket_consumer\":%s}",
                                mem->not_bucket ? "false" : "true");
                }
                fprintf(f, "],\"committed\":");
                if (!grp->offsets_read)
                        fprintf(f, "null");
                else {
                        fprintf(f, "{");
                        for (p = 0, k = 0; p < a->layout->partition_cnt; p++)
                                if (grp->committed[p] >= 0)
                                        fprintf(f, "%s\"%d\":%lld",
                                                k++ ? "," : "", (int)p,
                                                (long long)grp->committed[p]);
                        fprintf(f, "}");
                }
                fprintf(f, "}");
        }
        fprintf(f, "]");
}

static void json_growth(FILE *f, const audit_t *a, const bp_layout_t *l) {
        int32_t p;
        int k = 0;
        if (!l) {
                fprintf(f, "\"growth\":null");
                return;
        }
        fprintf(f, "\"growth\":{\"partitions\":%d,\"moves\":[",
                (int)l->partition_cnt);
        for (p = 0; p < a->layout->partition_cnt; p++) {
                if (a->layout->bucket_of[p] == l->bucket_of[p])
                        continue;
                fprintf(f, "%s{\"partition\":%d", k++ ? "," : "", (int)p);
                jfield(f, "from",
                       a->cfg->buckets[a->layout->bucket_of[p]].name);
                jfield(f, "to", a->cfg->buckets[l->bucket_of[p]].name);
                fprintf(f, "}");
        }
        fprintf(f, "]}");
}

static void json_findings(FILE *f, const audit_t *a) {
        int i;
        fprintf(f, "\"findings\":[");
        for (i = 0; i < a->finding_cnt; i++) {
                const audit_finding_t *x = &a->findings[i];
                const audit_group_t *grp =
                    x->group >= 0 ? &a->groups[x->group] : NULL;
                fprintf(f, "%s{\"kind\":\"%s\",\"fault\":%s", i ? "," : "",
                        audit_finding_name(x->kind),
                        audit_finding_is_fault(x->kind) ? "true" : "false");
                jfield(f, "bucket",
                       x->bucket >= 0 ? a->cfg->buckets[x->bucket].name
                                      : NULL);
                fprintf(f, ",\"partition\":");
                if (x->partition >= 0)
                        fprintf(f, "%d", (int)x->partition);
                else
                        fprintf(f, "null");
                jfield(f, "group", grp ? grp->name : NULL);
                jfield(f, "member",
                       grp && x->member >= 0
                           ? grp->members[x->member].consumer_id
                           : NULL);
                fprintf(f, ",\"count\":%lld", (long long)x->count);
                jfield(f, "text", x->text);
                fprintf(f, "}");
        }
        fprintf(f, "]");
}

void audit_print_json(FILE *f, const audit_t *a, const bp_layout_t *growth) {
        int faults = audit_fault_count(a);
        fprintf(f, "{\"version\":1");
        jfield(f, "topic", a->cfg->topic);
        fprintf(f, ",\"partitions\":%d,\"layout\":\"%s\"",
                (int)a->layout->partition_cnt,
                a->cfg->layout == BP_LAYOUT_STABLE ? "stable" : "contiguous");
        jfield(f, "group_id", a->base_group[0] ? a->base_group : NULL);
        fprintf(f, ",\"healthy\":%s,\"faults\":%d,\"notes\":%d,"
                   "\"routing_records\":%d,\"verdict\":\"%s\","
                   "\"unchecked\":%d,",
                faults || audit_unchecked_count(a) ? "false" : "true", faults,
                a->finding_cnt - faults, a->routing_records,
                verdict_name(audit_exit_status(a)), audit_unchecked_count(a));
        json_buckets(f, a);
        fprintf(f, ",");
        json_partitions(f, a);
        fprintf(f, ",");
        json_groups(f, a);
        fprintf(f, ",");
        json_growth(f, a, growth);
        fprintf(f, ",");
        audit_change_print_json(f, a);
        fprintf(f, ",");
        json_findings(f, a);
        fprintf(f, "}\n");
}
