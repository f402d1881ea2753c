/*
 * bench_backlog.c - bp-bench-backlog: how many lower-bucket records a
 * consumer of several buckets hands out before the last record of a
 * higher bucket's backlog, when it meets a backlog of every bucket at
 * once: at its first start, at a restart from its commits, and when it
 * takes over the partitions of a member that left (tests/kit/tk_backlog.h
 * runs each round). Counts, not times: a loaded machine does not change
 * what it prints. docs/benchmarks.md says how it is run,
 * docs/benchmarks-results.md holds the figures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp_cli.h"
#include "demo_kit.h"
#include "tk_backlog.h"

#define PROGRAM "bp-bench-backlog"

static struct {
        int runs, partitions, brokers, work_us;
        const char *buckets, *allocation, *records, *schedule, *hold,
            *protocol, *moment, *bootstraps;
} opt = {10, 8, 3, 0, "critical, bulk", "25%, 75%", "300, 30000", "strict",
         NULL, NULL, "cold", NULL};

static const struct option options[] = {
    {"runs", required_argument, NULL, 'r'},
    {"partitions", required_argument, NULL, 'p'},
    {"brokers", required_argument, NULL, 'B'},
    {"buckets", required_argument, NULL, 'b'},
    {"allocation", required_argument, NULL, 'a'},
    {"records", required_argument, NULL, 'n'},
    {"schedule", required_argument, NULL, 's'},
    {"hold", required_argument, NULL, 'H'},
    {"protocol", required_argument, NULL, 'P'},
    {"moment", required_argument, NULL, 'm'},
    {"bootstrap", required_argument, NULL, 'x'},
    {"work-us", required_argument, NULL, 'w'},
    BP_CLI_HELP_OPTION,
    BP_CLI_VERSION_OPTION,
    {NULL, 0, NULL, 0}};

static void usage(FILE *f) {
        fprintf(f,
                "usage: " PROGRAM " [--runs N] [--partitions N] "
                "[--brokers N]\n"
                "         [--buckets LIST] [--allocation LIST] "
                "[--records LIST]\n"
                "         [--schedule strict|weighted|plain] "
                "[--hold queue|pause]\n"
                "         [--protocol classic|consumer] "
                "[--moment cold|restart|leave]\n"
                "         [--work-us N] [--bootstrap HOST:PORT]\n"
                "Each run writes a backlog of every bucket to a topic of its "
                "own (the lowest\nbucket first), then starts the consumer "
                "of every bucket and counts the\nlower-bucket records handed "
                "out before the last record of a higher bucket.\nDefaults: "
                "10 runs, 8 partitions, 3 mock brokers, \"critical, bulk\" at "
                "\"25%%, 75%%\",\n\"300, 30000\" records, strict, the hold "
                "left to its default, classic, cold, no work\nper record "
                "(--work-us: the application's work on each record).\n"
                "plain: a consumer "
                "without the plugin (the control). --bootstrap: a real\n"
                "cluster instead of the embedded mock cluster.\n");
}

static int one_of(const char *v, const char *a, const char *b,
                  const char *c) {
        return !strcmp(v, a) || !strcmp(v, b) || (c && !strcmp(v, c));
}

static int take(void *ctx, int o, char *v) {
        (void)ctx;
        switch (o) {
        case 'r':
                return bp_cli_int(PROGRAM, "--runs", v, 1, 1000, &opt.runs);
        case 'p':
                return bp_cli_int(PROGRAM, "--partitions", v, 2, 1000,
                                  &opt.partitions);
        case 'B':
                return bp_cli_int(PROGRAM, "--brokers", v, 1, 9,
                                  &opt.brokers);
        case 'b': opt.buckets = v; return 0;
        case 'a': opt.allocation = v; return 0;
        case 'n': opt.records = v; return 0;
        case 's':
                opt.schedule = v;
                return one_of(v, "strict", "weighted", "plain")
                           ? 0
                           : BP_CLI_USAGE;
        case 'H':
                opt.hold = v;
                return one_of(v, "queue", "pause", NULL) ? 0 : BP_CLI_USAGE;
        case 'P':
                opt.protocol = v;
                return one_of(v, "classic", "consumer", NULL) ? 0
                                                             : BP_CLI_USAGE;
        case 'm':
                opt.moment = v;
                return one_of(v, "cold", "restart", "leave") ? 0
                                                            : BP_CLI_USAGE;
        case 'x': opt.bootstraps = v; return 0;
        case 'w':
                return bp_cli_int(PROGRAM, "--work-us", v, 0, 1000000,
                                  &opt.work_us);
        }
        return BP_CLI_USAGE;
}

/* "300, 30000" into \p records; returns the count or -1. */
static int parse_records(int *records) {
        const char *p = opt.records;
        int n = 0;
        while (*p) {
                char *end;
                long v = strtol(p, &end, 10);
                if (end == p || v < 1 || v > 1000000 ||
                    n == TK_BACKLOG_MAX_BUCKETS)
                        return -1;
                records[n++] = (int)v;
                p = end;
                while (*p == ',' || *p == ' ')
                        p++;
        }
        return n;
}

static int cmp_long(const void *a, const void *b) {
        long x = *(const long *)a, y = *(const long *)b;
        return (x > y) - (x < y);
}

int main(int argc, char **argv) {
        const bp_cli_t cli = {.program       = PROGRAM,
                              .options       = options,
                              .usage         = usage,
                              .take          = take};
        tk_backlog_setup_t st = {0};
        tk_mock_t mock        = {0};
        demo_cluster_t real   = {0}; /* --bootstrap: creates the topics */
        long *ahead;
        long missing = 0, reordered = 0, duplicates = 0, within = 0;
        double share_min = 1, share_max = 0;
        char err[512];
        int run, rc = 0;

        bp_cli_parse_or_exit(&cli, argc, argv);
        if ((st.n = parse_records(st.records)) < 2) {
                fprintf(stderr,
                        PROGRAM ": --records \"%s\": expected 2 to %d "
                                "counts from 1 to 1000000\n",
                        opt.records, TK_BACKLOG_MAX_BUCKETS);
                return 2;
        }
        st.plugin = tk_plugin_path(BENCH_PLUGIN_PATH);
        if (!opt.bootstraps) {
                if (tk_mock_start(&mock, NULL, opt.brokers, err,
                                  sizeof(err))) {
                        fprintf(stderr, PROGRAM ": %s\n", err);
                        return 1;
                }
                opt.bootstraps = mock.bootstraps;
        } else if (demo_cluster_start(&real, opt.bootstraps, err,
                                      sizeof(err))) {
                fprintf(stderr, PROGRAM ": %s\n", err);
                return 1;
        }
        st.bootstraps = opt.bootstraps;
        st.partitions = opt.partitions;
        st.buckets    = opt.buckets;
        st.allocation = opt.allocation;
        st.schedule   = strcmp(opt.schedule, "plain") ? opt.schedule : NULL;
        st.hold       = opt.hold;
        st.work_us    = opt.work_us;
        st.protocol   = opt.protocol && !strcmp(opt.protocol, "consumer")
                            ? "consumer"
                            : NULL;
        st.moment     = !strcmp(opt.moment, "cold")      ? TK_BACKLOG_COLD
                        : !strcmp(opt.moment, "restart") ? TK_BACKLOG_RESTART
                                                         : TK_BACKLOG_LEAVE;
        ahead = calloc((size_t)opt.runs, sizeof(*ahead));
        printf("%s, %d partitions, \"%s\" at \"%s\", backlog \"%s\", %s, "
               "hold %s, %s protocol, %s on %s\n",
               opt.moment, st.partitions, st.buckets, st.allocation,
               opt.records, opt.schedule, opt.hold ? opt.hold : "default",
               st.protocol ? "consumer" : "classic", opt.moment,
               mock.mcluster ? "the mock cluster" : opt.bootstraps);
        printf("run  ahead  first-%d share  missing reordered duplicates "
               "higher-read\n",
               TK_BACKLOG_SHARE_WINDOW);
        for (run = 0; run < opt.runs && ahead; run++) {
                char topic[64], group[80];
                tk_backlog_result_t res;
                snprintf(topic, sizeof(topic), "backlog-%lld-%d",
                         (long long)tk_wall_ms(), run);
                snprintf(group, sizeof(group), "%s-g", topic);
                st.topic = topic;
                st.group = group;
                if (mock.mcluster
                        ? tk_mock_topic(&mock, topic, st.partitions, err,
                                        sizeof(err))
                        : demo_cluster_create_topic(&real, topic,
                                                    st.partitions, err,
                                                    sizeof(err))) {
                        fprintf(stderr, PROGRAM ": %s\n", err);
                        rc = 1;
                        break;
                }
                if (tk_backlog_run(&st, &res, err, sizeof(err))) {
                        fprintf(stderr, PROGRAM ": run %d: %s\n", run, err);
                        rc = 1;
                        break;
                }
                ahead[run] = res.ahead;
                within += res.ahead <= 50;
                missing += res.missing;
                reordered += res.reordered;
                duplicates += res.duplicates;
                if (res.first_share < share_min)
                        share_min = res.first_share;
                if (res.first_share > share_max)
                        share_max = res.first_share;
                printf("%3d %6ld  %13.1f%% %8ld %9ld %10ld %11ld\n", run,
                       res.ahead, 100 * res.first_share, res.missing,
                       res.reordered, res.duplicates, res.taken_over);
                fflush(stdout);
        }
        if (!rc && ahead) {
                qsort(ahead, (size_t)opt.runs, sizeof(*ahead), cmp_long);
                printf("ahead: min %ld, median %ld, max %ld; %ld of %d runs "
                       "at most 50; first-%d share %.1f%%-%.1f%%; missing "
                       "%ld, reordered %ld, duplicates %ld\n",
                       ahead[0], ahead[opt.runs / 2], ahead[opt.runs - 1],
                       within, opt.runs, TK_BACKLOG_SHARE_WINDOW,
                       100 * share_min, 100 * share_max, missing, reordered,
                       duplicates);
        }
        free(ahead);
        tk_mock_stop(&mock);
        if (!mock.mcluster)
                demo_cluster_stop(&real);
        return rc;
}
