/*
 * audit_change_report.c - the layout change section of bp-audit's report
 * and JSON: step, fingerprints producers and consumers should log, and
 * the drain verdict per partition of the next consumer step.
 */
#include "audit_change_report.h"

#include <string.h>

#include "audit_change.h"
#include "bp_list.h"
#include "bp_escape.h"

/* "critical 8-11, bulk 6-7" */
static void text_layout(FILE *f, const bp_step_layout_t *s) {
        char ranges[4096];
        int b;
        for (b = 0; b < s->layout->bucket_cnt; b++) {
                bp_ranges_format(ranges, sizeof(ranges),
                                    s->layout->partitions +
                                        s->layout->first[b],
                                    s->layout->count[b]);
                fprintf(f, "%s%s %s", b ? ", " : "", s->cfg->buckets[b].name,
                        ranges);
        }
}

/* The fingerprint consumers still on next.step log at a last consumer
 * step, when it differs from the main properties' one; "" else. */
static void via_step(const audit_t *a, char out[9]) {
        const audit_change_t *ch = a->change;
        bp_step_layout_t v;
        out[0] = '\0';
        if (!ch->reads.main_properties ||
            bp_change_step_reads(ch->plan, a->cfg, ch->step, 1, &v))
                return;
        if (strcmp(v.fingerprint, ch->reads.fingerprint))
                memcpy(out, v.fingerprint, 9);
        bp_step_layout_clear(&v);
}

static void text_drain(FILE *f, const audit_t *a) {
        const audit_change_t *ch = a->change;
        int32_t p;
        fprintf(f, "  before step %d (consumers), the partitions it hands "
                   "over must be drained by their old readers:\n",
                ch->check_step);
        fprintf(f, "    %4s %-24s %10s %10s %10s  %s\n", "part", "old readers",
                "committed", "end", "end later", "verdict");
        for (p = 0; p < a->layout->partition_cnt; p++) {
                const audit_change_part_t *cp = &ch->parts[p];
                if (!cp->drain)
                        continue;
                fprintf(f, "    %4d %-24.24s %10lld %10lld %10lld  %s\n",
                        (int)p,
                        cp->drain_group >= 0 ? a->groups[cp->drain_group].name
                                             : "(no group)",
                        (long long)cp->commit, (long long)a->parts[p].high,
                        (long long)cp->high_end,
                        cp->drained ? "drained" : "NOT drained");
        }
}

void audit_change_print_text(FILE *f, const audit_t *a) {
        const audit_change_t *ch = a->change;
        char via[9];
        if (!ch)
                return;
        fprintf(f, "\nlayout change: step %d of %d (bucket.priority.next.step)"
                   "\n",
                ch->step, ch->plan->step_cnt);
        if (ch->plan->refused[0])
                fprintf(f, "  refused: %s\n", ch->plan->refused);
        fprintf(f, "  producers should log layout fingerprint %s (",
                ch->writes.fingerprint);
        text_layout(f, &ch->writes);
        fprintf(f, ")\n  consumers should log layout fingerprint %s (",
                ch->reads.fingerprint);
        text_layout(f, &ch->reads);
        via_step(a, via);
        fprintf(f, ")%s%s%s\n", via[0] ? ", or " : "", via,
                via[0] ? " if still on bucket.priority.next.step" : "");
        if (!ch->check_step) {
                fprintf(f, "  no consumer step left%s\n",
                        ch->plan->refused[0] ? " (the change is refused)"
                                             : "");
                return;
        }
        if (ch->drain_cnt == 0) {
                fprintf(f, "  step %d may start: it hands over no partition "
                           "that needs draining\n",
                        ch->check_step);
                return;
        }
        text_drain(f, a);
        if (ch->not_drained)
                fprintf(f, "  step %d must wait: %d partition%s not drained\n",
                        ch->check_step, ch->not_drained,
                        ch->not_drained == 1 ? "" : "s");
        else
                fprintf(f, "  step %d may start\n", ch->check_step);
}

static void json_layout(FILE *f, const char *key, const bp_step_layout_t *s) {
        char name[6 * BP_MAX_NAME_LEN + 1];
        int b, i;
        fprintf(f, "\"%s\":{\"fingerprint\":\"%s\",\"buckets\":[", key,
                s->fingerprint);
        for (b = 0; b < s->layout->bucket_cnt; b++) {
                bp_json_escape(s->cfg->buckets[b].name,
                               s->cfg->buckets[b].name_len, name, sizeof(name));
                fprintf(f, "%s{\"name\":\"%s\",\"partitions\":[", b ? "," : "",
                        name);
                for (i = 0; i < s->layout->count[b]; i++)
                        fprintf(f, "%s%d", i ? "," : "",
                                (int)s->layout->partitions[s->layout->first[b] +
                                                           i]);
                fprintf(f, "]}");
        }
        fprintf(f, "]}");
}

void audit_change_print_json(FILE *f, const audit_t *a) {
        const audit_change_t *ch = a->change;
        char via[9], name[6 * 512 + 1];
        int32_t p;
        int k = 0;
        if (!ch) {
                fprintf(f, "\"change\":null");
                return;
        }
        via_step(a, via);
        fprintf(f, "\"change\":{\"step\":%d,\"step_count\":%d,\"refused\":",
                ch->step, ch->plan->step_cnt);
        if (ch->plan->refused[0]) {
                bp_json_escape(ch->plan->refused, strlen(ch->plan->refused),
                               name, sizeof(name));
                fprintf(f, "\"%s\"", name);
        } else
                fprintf(f, "null");
        fprintf(f, ",");
        json_layout(f, "producers", &ch->writes);
        fprintf(f, ",");
        json_layout(f, "consumers", &ch->reads);
        if (via[0])
                fprintf(f, ",\"consumers_via_step_fingerprint\":\"%s\"", via);
        else
                fprintf(f, ",\"consumers_via_step_fingerprint\":null");
        fprintf(f, ",\"check_step\":");
        if (ch->check_step)
                fprintf(f, "%d", ch->check_step);
        else
                fprintf(f, "null");
        fprintf(f, ",\"may_start\":%s,\"drain\":[",
                ch->check_step && !ch->not_drained ? "true" : "false");
        for (p = 0; p < a->layout->partition_cnt; p++) {
                const audit_change_part_t *cp = &ch->parts[p];
                if (!cp->drain)
                        continue;
                fprintf(f, "%s{\"partition\":%d,\"group\":", k++ ? "," : "",
                        (int)p);
                if (cp->drain_group >= 0) {
                        const char *g = a->groups[cp->drain_group].name;
                        bp_json_escape(g, strlen(g), name, sizeof(name));
                        fprintf(f, "\"%s\"", name);
                } else
                        fprintf(f, "null");
                fprintf(f, ",\"committed\":%lld,\"high\":%lld,"
                           "\"high_later\":%lld,\"drained\":%s}",
                        (long long)cp->commit, (long long)a->parts[p].high,
                        (long long)cp->high_end,
                        cp->drained ? "true" : "false");
        }
        fprintf(f, "]}");
}
