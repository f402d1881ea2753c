/*
 * bench_priority.c - bp-bench-priority: critical end-to-end latency while
 * a slow consumer drains a bulk backlog, for three designs under the same
 * load in one run (see bench_priority.h and docs/benchmarks.md).
 *
 *   bp-bench-priority [--brokers HOST:PORT] [--svg FILE] [--json FILE]
 *                     [--rounds N] [--backlog N] [--window S] [--rate R]
 *                     [--cost-us US] [--partitions P] [--critical-share PCT]
 *                     [--critical-workers K] [--bulk-workers K]
 *                     [--designs abc] [--tail-timeout S] [--plugin PATH]
 *                     [--group-protocol classic,consumer]
 *                     [--rebalance JOIN_S,LEAVE_S]
 *
 * main: options, the rounds (the order of the designs rotates from round
 * to round), the outputs and the exit status: 0 when every check passed
 * and both targets are met (not judged with --rebalance), 3 when only a
 * target is missed, 1 when a check failed (a record lost, failed, read by
 * the other class, or a design that could not run), 2 on a usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_priority.h"
#include "bench_priority_kip848.h"
#include "bp_cli.h"

/* librdkafka's mock partition keeps at most 5 MiB of record batches
 * (rdkafka_mock.c); a bulk record of the demo's format takes about 140
 * bytes there. The check keeps a 10 % margin. */
#define MOCK_PARTITION_BYTES (0.9 * 5 * 1024 * 1024)
#define MOCK_RECORD_BYTES 140.0

#ifndef BENCH_PLUGIN_PATH
#define BENCH_PLUGIN_PATH "libbucketpriority.so"
#endif

static void usage(FILE *f) {
        fprintf(f,
                "usage: bp-bench-priority [options]\n"
                "\n"
                "Critical p50/p99 end-to-end latency while a deliberately "
                "slow consumer\n"
                "drains a bulk backlog, for (a) one topic and one group, "
                "(b) bucket\n"
                "priority (the plugin, loaded by configuration), (c) one "
                "topic per class.\n"
                "\n"
                "  --brokers H:P          a real cluster (default: the "
                "embedded mock)\n"
                "  --svg FILE             chart: critical p99 per second, "
                "per design\n"
                "  --json FILE            every figure as JSON\n"
                "  --rounds N             repeat, rotating the order "
                "(default 1, max %d)\n"
                "  --backlog N            bulk records written before the "
                "window (500000)\n"
                "  --window S             seconds of critical records (30)\n"
                "  --rate R               critical records per second (50)\n"
                "  --cost-us US           processing cost of every record "
                "(500)\n"
                "  --partitions P         partitions of the topic (24)\n"
                "  --critical-share PCT   critical allocation in %% (25)\n"
                "  --critical-workers K   consumers of critical in b, c (1)\n"
                "  --bulk-workers K       consumers of bulk in b, c (3); "
                "(a) has both\n"
                "  --designs abc          which designs run (abc)\n"
                "  --group-protocol LIST  classic, consumer (KIP-848, "
                "librdkafka >= 2.12,\n"
                "                         a real broker), or both: "
                "classic,consumer (classic)\n"
                "  --rebalance J,L        a second consumer joins the "
                "critical group J s\n"
                "                         into the window, the first one "
                "leaves at L s\n"
                "  --tail-timeout S       wait for late critical records "
                "(600)\n"
                "  --plugin PATH          libbucketpriority.so (default: "
                "the build's)\n",
                BPB_MAX_ROUNDS);
}

/* "classic", "consumer" or both, comma separated: proto[0] classic,
 * proto[1] consumer. */
static int parse_protocols(const char *list, int proto[2]) {
        const char *p = list;

        while (*p) {
                size_t len = strcspn(p, ", ");
                if (len == 7 && !strncmp(p, "classic", len))
                        proto[0] = 1;
                else if (len == 8 && !strncmp(p, "consumer", len))
                        proto[1] = 1;
                else if (len) {
                        fprintf(stderr,
                                "bp-bench-priority: --group-protocol takes "
                                "classic, consumer or both "
                                "(classic,consumer), not \"%s\"\n",
                                list);
                        return -1;
                }
                p += len;
                p += strspn(p, ", ");
        }
        if (!proto[0] && !proto[1]) {
                fprintf(stderr, "bp-bench-priority: --group-protocol is "
                                "empty\n");
                return -1;
        }
        return 0;
}

/* "JOIN,LEAVE" seconds into the window, 0 < JOIN < LEAVE < window. */
static int parse_rebalance(bpb_options_t *o, const char *text) {
        char join[32], *comma;
        double v;

        if (!text)
                return 0;
        comma = strchr(text, ',');
        if (!comma || (size_t)(comma - text) >= sizeof(join)) {
                fprintf(stderr, "bp-bench-priority: --rebalance takes "
                                "JOIN,LEAVE (seconds into the window), "
                                "not \"%s\"\n",
                        text);
                return -1;
        }
        memcpy(join, text, (size_t)(comma - text));
        join[comma - text] = '\0';
        if (bp_cli_decimal("bp-bench-priority", "--rebalance (join)", join,
                           0.1, BPB_MAX_SECONDS, &v))
                return -1;
        o->join_s = v;
        if (bp_cli_decimal("bp-bench-priority", "--rebalance (leave)",
                           comma + 1, 0.1, BPB_MAX_SECONDS, &v))
                return -1;
        o->leave_s = v;
        if (o->leave_s <= o->join_s || o->leave_s >= o->window_s) {
                fprintf(stderr,
                        "bp-bench-priority: --rebalance %s: the join must "
                        "come before the leave, and the leave inside the "
                        "window (--window %.0f)\n",
                        text, o->window_s);
                return -1;
        }
        return 0;
}

/* The KIP-848 designs need librdkafka 2.12 and a real broker: said and
 * dropped where they cannot run (the classic ones still run). */
static void skip_kip848_where_impossible(bpb_options_t *o) {
        char why[256];
        int d, any = 0;

        for (d = BPB_KINDS; d < BPB_DESIGNS; d++)
                any |= o->designs[d];
        if (!any)
                return;
        if (!bpb_kip848_available(why, sizeof(why)))
                ;
        else if (!o->brokers)
                snprintf(why, sizeof(why),
                         "they run on a real broker only (--brokers)");
        else
                return;
        for (d = BPB_KINDS; d < BPB_DESIGNS; d++)
                o->designs[d] = 0;
        snprintf(o->skipped, sizeof(o->skipped),
                 "KIP-848 designs skipped: %s", why);
        fprintf(stderr, "bp-bench-priority: %s\n", o->skipped);
}

/* What the options set, as parse() reads them. */
typedef struct {
        bpb_options_t *o;
        const char *plugin, *designs, *protocols, *rebalance;
} bpb_args_t;

/* Takes one option (bp_cli_t.take). */
static int take(void *ctx, int opt, char *value) {
        bpb_args_t *a    = ctx;
        bpb_options_t *o = a->o;
        double v;

        switch (opt) {
        case 'b': o->brokers = value; return 0;
        case 's': o->svg_path = value; return 0;
        case 'j': o->json_path = value; return 0;
        case 'P': a->plugin = value; return 0;
        case 'd': a->designs = value; return 0;
        case 'g': a->protocols = value; return 0;
        case 'e': a->rebalance = value; return 0;
#define NUM(ch, name, lo, hi, dst)                                            \
        case ch:                                                              \
                if (bp_cli_decimal("bp-bench-priority", name, value, lo, hi,  \
                                   &v))                                       \
                        return -1;                                            \
                dst;                                                          \
                return 0;
                NUM('r', "--rounds", 1, BPB_MAX_ROUNDS, o->rounds = (int)v)
                NUM('n', "--backlog", 1, 1e8, o->backlog = (long)v)
                NUM('w', "--window", 1, BPB_MAX_SECONDS, o->window_s = v)
                NUM('R', "--rate", 0.1, 10000, o->critical_rate = v)
                NUM('c', "--cost-us", 0, 1e6, o->cost_us = (int64_t)v)
                NUM('p', "--partitions", 2, 64, o->partitions = (int)v)
                NUM('S', "--critical-share", 1, 99,
                    o->critical_share = (int)v)
                NUM('C', "--critical-workers", 1, BPB_MAX_WORKERS - 1,
                    o->critical_workers = (int)v)
                NUM('B', "--bulk-workers", 1, BPB_MAX_WORKERS - 1,
                    o->bulk_workers = (int)v)
                NUM('t', "--tail-timeout", 1, 3600, o->tail_timeout_s = v)
#undef NUM
        default: return BP_CLI_USAGE;
        }
}

static int parse(bpb_options_t *o, int argc, char **argv) {
        static const struct option longopts[] = {
            {"brokers", required_argument, NULL, 'b'},
            {"svg", required_argument, NULL, 's'},
            {"json", required_argument, NULL, 'j'},
            {"rounds", required_argument, NULL, 'r'},
            {"backlog", required_argument, NULL, 'n'},
            {"window", required_argument, NULL, 'w'},
            {"rate", required_argument, NULL, 'R'},
            {"cost-us", required_argument, NULL, 'c'},
            {"partitions", required_argument, NULL, 'p'},
            {"critical-share", required_argument, NULL, 'S'},
            {"critical-workers", required_argument, NULL, 'C'},
            {"bulk-workers", required_argument, NULL, 'B'},
            {"designs", required_argument, NULL, 'd'},
            {"tail-timeout", required_argument, NULL, 't'},
            {"plugin", required_argument, NULL, 'P'},
            {"group-protocol", required_argument, NULL, 'g'},
            {"rebalance", required_argument, NULL, 'e'},
            BP_CLI_HELP_OPTION,
            {NULL, 0, NULL, 0}};
        bpb_args_t args = {.o         = o,
                           .plugin    = getenv("BP_PLUGIN_PATH"),
                           .designs   = "abc",
                           .protocols = "classic"};
        const bp_cli_t cli = {.program       = "bp-bench-priority",
                              .options       = longopts,
                              .short_options = "h",
                              .usage         = usage,
                              .take          = take,
                              .ctx           = &args};
        const char *plugin, *designs;
        int proto[2] = {0, 0};
        int i, rc;

        memset(o, 0, sizeof(*o));
        o->backlog          = 500000;
        o->window_s         = 30;
        o->critical_rate    = 50;
        o->cost_us          = 500;
        o->partitions       = 24;
        o->critical_share   = 25;
        o->critical_workers = 1;
        o->bulk_workers     = 3;
        o->tail_timeout_s   = 600;
        o->drain_timeout_s  = 300;
        o->rounds           = 1;
        if ((rc = bp_cli_parse(&cli, argc, argv)) >= 0)
                return rc ? -1 : 1; /* bad input, or --help shown */
        plugin  = args.plugin;
        designs = args.designs;
        if (o->critical_workers + o->bulk_workers > BPB_MAX_WORKERS) {
                fprintf(stderr, "bp-bench-priority: at most %d workers\n",
                        BPB_MAX_WORKERS);
                return -1;
        }
        if (parse_protocols(args.protocols, proto) ||
            parse_rebalance(o, args.rebalance))
                return -1;
        for (i = 0; designs[i]; i++) {
                if (designs[i] < 'a' || designs[i] >= 'a' + BPB_KINDS) {
                        fprintf(stderr, "bp-bench-priority: --designs takes "
                                        "letters among a, b, c\n");
                        return -1;
                }
                o->designs[designs[i] - 'a']             = proto[0];
                o->designs[designs[i] - 'a' + BPB_KINDS] = proto[1];
        }
        skip_kip848_where_impossible(o);
        /* The critical bucket's size, as the plugin's layout rounds it;
         * design (c) gives its critical topic the same number, and the
         * run prints the partitions each design really used. */
        o->critical_parts =
            (int)((double)o->partitions * o->critical_share / 100.0 + 0.5);
        if (o->critical_parts < 1)
                o->critical_parts = 1;
        if (o->critical_parts > o->partitions - 1)
                o->critical_parts = o->partitions - 1;
        if (!plugin || !*plugin)
                plugin = BENCH_PLUGIN_PATH;
        if ((size_t)snprintf(o->plugin, sizeof(o->plugin), "%s", plugin) >=
            sizeof(o->plugin)) {
                fprintf(stderr, "bp-bench-priority: plugin path too long\n");
                return -1;
        }
        if ((o->designs[BPB_BUCKETS] || o->designs[BPB_BUCKETS_848]) &&
            access(o->plugin, R_OK)) {
                fprintf(stderr,
                        "bp-bench-priority: plugin not found: %s (--plugin "
                        "PATH)\n",
                        o->plugin);
                return -1;
        }
        /* The mock cluster keeps at most 5 MB of records per partition
         * and silently drops the oldest beyond that: a backlog over it
         * would show up as lost records, not as latency. */
        if (!o->brokers &&
            (double)o->backlog * MOCK_RECORD_BYTES /
                    (o->partitions - o->critical_parts) >
                MOCK_PARTITION_BYTES) {
                fprintf(stderr,
                        "bp-bench-priority: %ld bulk records over %d bulk "
                        "partitions exceed the mock cluster's 5 MB per "
                        "partition (it drops the oldest records): use more "
                        "--partitions or --brokers\n",
                        o->backlog, o->partitions - o->critical_parts);
                return -1;
        }
        o->stamp = ((long)time(NULL) * 131 + (long)getpid()) % 100000;
        return 0;
}

static int checks_pass(const bpb_options_t *o,
                       bpb_result_t res[][BPB_DESIGNS], int rounds) {
        int i, d, ok = 1;
        for (i = 0; i < rounds; i++)
                for (d = 0; d < BPB_DESIGNS; d++) {
                        const bpb_result_t *r = &res[i][d];
                        if (!o->designs[d])
                                continue;
                        if (!r->ok || r->lost || r->failed ||
                            r->garbage ||
                            r->critical_consumed != r->critical_sent ||
                            (d != BPB_SHARED && r->wrong_class))
                                ok = 0;
                }
        return ok;
}

int main(int argc, char **argv) {
        static bpb_result_t res[BPB_MAX_ROUNDS][BPB_DESIGNS];
        bpb_options_t o;
        int rc = parse(&o, argc, argv), round, k, met, ok = 1;

        if (rc)
                return rc > 0 ? 0 : 2;
        setvbuf(stdout, NULL, _IOLBF, 0);
        for (k = 0, met = 0; k < BPB_DESIGNS; k++)
                met |= o.designs[k];
        if (!met) {
                printf("nothing to run: %s\n", o.skipped);
                return 0;
        }
        for (round = 0; round < o.rounds; round++) {
                for (k = 0; k < BPB_DESIGNS; k++) {
                        int d = (k + round) % BPB_DESIGNS;
                        if (!o.designs[d])
                                continue;
                        fprintf(stderr, "--- round %d of %d\n", round + 1,
                                o.rounds);
                        if (bpb_run(&o, d, &res[round][d]))
                                ok = 0;
                }
        }
        met = bpb_report_table(&o, res, o.rounds);
        ok  = ok && checks_pass(&o, res, o.rounds);
        if (o.svg_path && bpb_report_svg(&o, res[0], o.svg_path)) {
                fprintf(stderr, "bp-bench-priority: cannot write %s\n",
                        o.svg_path);
                ok = 0;
        }
        if (o.json_path && bpb_report_json(&o, res, o.rounds, o.json_path)) {
                fprintf(stderr, "bp-bench-priority: cannot write %s\n",
                        o.json_path);
                ok = 0;
        }
        for (round = 0; round < o.rounds; round++)
                for (k = 0; k < BPB_DESIGNS; k++)
                        bpb_result_free(&res[round][k]);
        if (!ok) {
                printf("CHECK FAILED (see above)\n");
                return 1;
        }
        return met ? 0 : 3;
}
