/*
 * bp_change_plan.c - bp-change-plan, the broker suite's view of a layout
 * change plan (shared/bp_change.h), as JSON for broker_change.py:
 *
 *   bp-change-plan --partitions N name=value...   (bucket.priority.*)
 *
 * (--partitions is checked as the other programs check their numbers:
 * tools/bp_cli.h; the name=value words are its own.)
 *
 *   {"steps": 5, "refused": "", "plan": [
 *     {"step": 1, "kind": "producers",
 *      "write": {"critical": [8, ...], ...},
 *      "read": {"critical": [...], ..., "+batch": [...]},
 *      "drain": [...]}, ...]}
 *
 * "write" is where each current bucket's records go at that step (the
 * last step: the next layout itself, by the next buckets' names), "read"
 * which bucket reads each partition ("+name" for a bucket the change
 * adds), "drain" the partitions whose reader changes at a consumer step.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp_cli.h"
#include "shared/bp_change.h"
#include "shared/bp_config.h"

static void list(const bp_layout_t *l, int b) {
        int32_t i;
        printf("[");
        for (i = 0; i < l->count[b]; i++)
                printf("%s%d", i ? ", " : "", (int)l->partitions[l->first[b] + i]);
        printf("]");
}

static void step_json(const bp_config_t *cfg, const bp_change_plan_t *pl,
                      int s, uint8_t *drain) {
        bp_layout_t *w = s < pl->step_cnt ? bp_change_route_layout(pl, s)
                                          : NULL;
        int b, nb, first = 1, r;
        int32_t p, cnt;

        printf("%s\n  {\"step\": %d, \"kind\": \"%s\", \"write\": {",
               s > 1 ? "," : "", s,
               bp_change_step_kind(pl, s) == BP_STEP_PRODUCERS ? "producers"
                                                               : "consumers");
        for (b = 0; b < (w ? cfg->bucket_cnt : pl->next.bucket_cnt); b++) {
                printf("%s\"%s\": ", b ? ", " : "",
                       w ? cfg->buckets[b].name : pl->next.buckets[b].name);
                list(w ? w : pl->to, b);
        }
        printf("}, \"read\": {");
        for (b = 0; b < cfg->bucket_cnt + pl->next.bucket_cnt; b++) {
                int added = b >= cfg->bucket_cnt;
                int want  = added ? b - cfg->bucket_cnt : b;
                if (added && pl->same[want] >= 0)
                        continue;
                printf("%s\"%s%s\": [", first ? "" : ", ", added ? "+" : "",
                       added ? pl->next.buckets[want].name
                             : cfg->buckets[want].name);
                first = 0;
                for (cnt = 0, p = 0; p < pl->partition_cnt; p++) {
                        r = bp_change_reader(pl, s, p, &nb);
                        if ((!added && r == want) ||
                            (added && r == BP_LAYOUT_NOBODY && nb == want))
                                printf("%s%d", cnt++ ? ", " : "", (int)p);
                }
                printf("]");
        }
        printf("}, \"drain\": [");
        bp_change_drain(pl, s, drain);
        for (cnt = 0, p = 0; p < pl->partition_cnt; p++)
                if (drain[p])
                        printf("%s%d", cnt++ ? ", " : "", (int)p);
        printf("]}");
        bp_layout_destroy(w);
}

int main(int argc, char **argv) {
        bp_config_t cfg;
        bp_change_plan_t *pl;
        char err[512];
        int32_t partitions = 0;
        uint8_t *drain;
        int i, s, n;

        bp_config_init(&cfg);
        bp_config_set(&cfg, "bucket.priority.topic", "t", err, sizeof(err));
        for (i = 1; i < argc; i++) {
                char *eq = strchr(argv[i], '=');
                if (!strcmp(argv[i], "--partitions") && i + 1 < argc) {
                        if (bp_cli_int("bp-change-plan", "--partitions",
                                       argv[++i], 1, BP_MAX_PARTITIONS, &n))
                                return 2;
                        partitions = n;
                        continue;
                }
                if (!eq) {
                        fprintf(stderr, "bp-change-plan: expected name=value, "
                                        "not \"%s\"\n", argv[i]);
                        return 2;
                }
                *eq = '\0';
                if (bp_config_set(&cfg, argv[i], eq + 1, err, sizeof(err))) {
                        fprintf(stderr, "bp-change-plan: %s\n", err);
                        return 2;
                }
        }
        if (!(pl = bp_change_plan_new(&cfg, partitions, err, sizeof(err)))) {
                fprintf(stderr, "bp-change-plan: %s\n", err);
                return 2;
        }
        drain = calloc((size_t)partitions, 1);
        for (i = 0; pl->refused[i]; i++) /* no quote inside a JSON string */
                if (pl->refused[i] == '"' || pl->refused[i] == '\\')
                        pl->refused[i] = '\'';
        printf("{\"steps\": %d, \"refused\": \"%s\", \"plan\": [",
               pl->step_cnt, pl->refused);
        for (s = 1; drain && s <= pl->step_cnt; s++)
                step_json(&cfg, pl, s, drain);
        printf("]}\n");
        free(drain);
        bp_change_plan_destroy(pl);
        return 0;
}
