/*
 * bp_layout_cli.c - bp-layout, the operators' and teachers' view of a bucket
 * layout: which partitions each bucket owns, which partitions change
 * bucket as the topic grows, and the steps of a live layout change
 * (bp_layout_change.c).
 *
 *   bp-layout --buckets "Platinum, Gold" --allocation "70%, 30%"
 *             --partitions 6 [--layout contiguous|stable]
 *             [--growth 6,12,24] [--delimiter -] [--json]
 *   bp-layout ... --partitions 12 [--next-buckets B] [--next-allocation A]
 *             [--next-layout L] [--group-id G]
 *
 * Bad input: a message on stderr and exit code 2; a change plan that is
 * refused: its reason and exit code 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp_cli.h"
#include "bp_cli_layout_options.h"
#include "bp_config.h"
#include "bp_escape.h"
#include "bp_layout.h"
#include "bp_layout_change.h"
#include "bp_layout_change_plan.h"
#include "bp_list.h"

#define MAX_STEPS 64

static void usage(FILE *f) {
        fprintf(f,
                "usage: bp-layout --buckets \"Platinum, Gold\" --allocation "
                "\"70%%, 30%%\"\n"
                "                 (--partitions N | --growth N1,N2,...)\n"
                "                 [--layout contiguous|stable] [--delimiter D] "
                "[--json]\n"
                "a live layout change, step by step (with --partitions):\n"
                "                 [--next-buckets B] [--next-allocation A] "
                "[--next-layout L]\n"
                "                 [--group-id G]  (names the groups "
                "<G>.<bucket> that drain)\n"
                "       bp-layout --help | --version\n"
                "exit status: 0, 1 a change that cannot be made (the reason "
                "is printed), 2 bad input\n");
}

static int bad(const char *fmt, const char *a) {
        fprintf(stderr, "bp-layout: ");
        fprintf(stderr, fmt, a);
        fprintf(stderr, "\n");
        usage(stderr);
        return 2;
}

/* Parses a partition count: a whole number in 1..BP_MAX_PARTITIONS. */
static int parse_count(const char *s, size_t len, int32_t *out) {
        long v = 0;
        size_t i;
        if (len == 0 || len > 7)
                return -1;
        for (i = 0; i < len; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return -1;
                v = v * 10 + (s[i] - '0');
        }
        if (v < 1 || v > BP_MAX_PARTITIONS)
                return -1;
        *out = (int32_t)v;
        return 0;
}

static void print_table(const bp_config_t *cfg, const bp_layout_t *l) {
        char alloc[32];
        int b;
        printf("%d partitions, %s layout\n", (int)l->partition_cnt,
               cfg->layout == BP_LAYOUT_STABLE ? "stable" : "contiguous");
        printf("  %-20s %10s %6s  %s\n", "bucket", "allocation", "count",
               "partitions");
        for (b = 0; b < cfg->bucket_cnt; b++) {
                bp_allocation_format(cfg->allocation[b], alloc, sizeof(alloc));
                strcat(alloc, "%");
                printf("  %-20s %10s %6d  ", cfg->buckets[b].name, alloc,
                       (int)l->count[b]);
                bp_layout_print_ranges(stdout, l, b);
                printf("\n");
        }
}

static void print_json(const bp_config_t *cfg, const bp_layout_t *l) {
        char alloc[32], name[6 * BP_MAX_NAME_LEN + 1];
        int b;
        int32_t i;
        printf("{\"partitions\":%d,\"layout\":\"%s\",\"buckets\":[",
               (int)l->partition_cnt,
               cfg->layout == BP_LAYOUT_STABLE ? "stable" : "contiguous");
        for (b = 0; b < cfg->bucket_cnt; b++) {
                bp_allocation_format(cfg->allocation[b], alloc, sizeof(alloc));
                bp_json_escape(cfg->buckets[b].name, cfg->buckets[b].name_len,
                               name, sizeof(name));
                printf("%s{\"name\":\"%s\",\"allocation\":%s,\"partitions\":[",
                       b ? "," : "", name, alloc);
                for (i = 0; i < l->count[b]; i++)
                        printf("%s%d", i ? "," : "",
                               (int)l->partitions[l->first[b] + i]);
                printf("]}");
        }
        printf("]}");
}

/* Lists the partitions of \p prev that belong to another bucket in \p l. */
static int print_moves(const bp_config_t *cfg, const bp_layout_t *prev,
                       const bp_layout_t *l) {
        int32_t p;
        int moved = 0;
        for (p = 0; p < prev->partition_cnt; p++) {
                if (prev->bucket_of[p] == l->bucket_of[p])
                        continue;
                printf("  partition %d moves: %s -> %s\n", (int)p,
                       cfg->buckets[prev->bucket_of[p]].name,
                       cfg->buckets[l->bucket_of[p]].name);
                moved++;
        }
        if (!moved)
                printf("  no existing partition changes bucket\n");
        return moved;
}

/* What the options set, apart from the layout itself. */
typedef struct {
        bp_config_t *cfg;
        const char *growth, *partitions, *group_id;
        int json;
} layout_args_t;

/* Takes one option of bp-layout (bp_cli_t.take). */
static int take(void *ctx, int opt, char *value) {
        layout_args_t *a = ctx;
        /* --buckets, --allocation, --layout, --delimiter, --next-* */
        const char *property = bp_cli_layout_property(opt);
        char err[512];

        if (property) {
                if (bp_config_set(a->cfg, property, value, err,
                                  sizeof(err)) != BP_SET_OK) {
                        bad("%s", err);
                        return -1;
                }
                return 0;
        }
        switch (opt) {
        case 'p':
                a->partitions = value;
                return 0;
        case 'g':
                a->growth = value;
                return 0;
        case 'G':
                a->group_id = value;
                return 0;
        case 'j':
                a->json = 1;
                return 0;
        default:
                return BP_CLI_USAGE;
        }
}

int main(int argc, char **argv) {
        static const struct option opts[] = {
            BP_CLI_LAYOUT_OPTIONS,
            BP_CLI_NEXT_LAYOUT_OPTIONS,
            {"group-id", required_argument, NULL, 'G'},
            {"partitions", required_argument, NULL, 'p'},
            {"growth", required_argument, NULL, 'g'},
            {"json", no_argument, NULL, 'j'},
            BP_CLI_HELP_OPTION,
            BP_CLI_VERSION_OPTION,
            {NULL, 0, NULL, 0}};
        bp_config_t cfg;
        layout_args_t args = {.cfg = &cfg};
        const bp_cli_t cli = {.program = "bp-layout",
                              .options = opts,
                              .usage   = usage,
                              .take    = take,
                              .ctx     = &args};
        bp_layout_t *layouts[MAX_STEPS] = {0};
        int32_t steps[MAX_STEPS];
        int nsteps = 0, i, rc;
        char err[512];

        bp_config_init(&cfg);
        if ((rc = bp_cli_parse(&cli, argc, argv)) >= 0)
                return rc;
        rc = 0;
        if (cfg.bucket_cnt == 0)
                return bad("%s", "--buckets is required");
        if (cfg.allocation_cnt == 0)
                return bad("%s", "--allocation is required");
        if (!args.partitions && !args.growth)
                return bad("%s", "--partitions or --growth is required");
        if (args.partitions && args.growth)
                return bad("%s", "give --partitions or --growth, not both");
        if (args.partitions) {
                if (parse_count(args.partitions, strlen(args.partitions),
                                &steps[0]))
                        return bad("--partitions \"%s\": expected a whole "
                                   "number from 1 to 1000000",
                                   args.partitions);
                nsteps = 1;
        } else {
                const char *cur = args.growth, *item;
                size_t len;
                while (bp_list_next(&cur, &item, &len)) {
                        if (nsteps == MAX_STEPS)
                                return bad("--growth \"%s\": at most 64 steps",
                                           args.growth);
                        if (parse_count(item, len, &steps[nsteps]) ||
                            (nsteps > 0 && steps[nsteps] <= steps[nsteps - 1]))
                                return bad("--growth \"%s\": expected "
                                           "increasing partition counts such "
                                           "as 6,12,24",
                                           args.growth);
                        nsteps++;
                }
        }
        if (cfg.next.set && args.growth)
                return bad("%s", "--next-* plans a change at one partition "
                                 "count: give --partitions, not --growth");
        if (cfg.next.set && cfg.next.bucket_cnt == 0 &&
            cfg.next.allocation_cnt == 0 && !cfg.next.layout_set)
                return bad("%s", "give --next-buckets, --next-allocation or "
                                 "--next-layout");
        if (args.group_id && !cfg.next.set)
                return bad("%s", "--group-id names the groups of a change: "
                                 "give --next-buckets, --next-allocation or "
                                 "--next-layout");
        if (cfg.next.set)
                return bp_layout_change_print(&cfg, steps[0], args.group_id,
                                              args.json);
        for (i = 0; i < nsteps; i++) {
                layouts[i] = bp_layout_compute(&cfg, steps[i], err,
                                               sizeof(err));
                if (!layouts[i]) {
                        rc = bad("%s", err);
                        goto done;
                }
        }
        if (args.json && nsteps == 1) {
                print_json(&cfg, layouts[0]);
                printf("\n");
        } else if (args.json) {
                printf("[");
                for (i = 0; i < nsteps; i++) {
                        printf("%s", i ? "," : "");
                        print_json(&cfg, layouts[i]);
                }
                printf("]\n");
        } else {
                for (i = 0; i < nsteps; i++) {
                        if (i > 0) {
                                printf("\ngrowing %d -> %d partitions:\n",
                                       (int)steps[i - 1], (int)steps[i]);
                                print_moves(&cfg, layouts[i - 1], layouts[i]);
                                printf("\n");
                        }
                        print_table(&cfg, layouts[i]);
                }
                if (cfg.layout == BP_LAYOUT_STABLE)
                        printf("\nevery bucket holds a partition from %d "
                               "partitions on\n",
                               (int)bp_layout_stable_min(cfg.allocation,
                                                         cfg.bucket_cnt));
        }
done:
        for (i = 0; i < nsteps; i++)
                bp_layout_destroy(layouts[i]);
        return rc;
}
