/*
 * bench_sched_options.c - the scheduler benchmark's command line: the
 * options with their defaults, their parsing and the usage.
 */
#include "bench_sched_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp_cli.h"

const char *const bsch_setup_name[BSCH_SETUPS] = {
    "dedicated", "strict", "queue", "weighted", "wqueue", "plain"};

bsch_options_t bsch_opt = {.rounds        = 3,
                           .rate          = 100,
                           .seconds       = 5,
                           .work_us       = 50,
                           .fetch_wait_ms = -1,
                           .bulk          = 200000,
                           .linger_ms     = "1"};

static void usage(FILE *f) {
        fprintf(f,
                "usage: bp-bench-scheduler [--rounds K] [--bulk N] [--rate R] "
                "[--seconds S]\n"
                "                          [--work-us W] [--work sleep|busy] "
                "[--fetch-wait-ms F]\n"
                "                          [--linger-ms L] "
                "[--only dedicated|strict|queue|weighted|wqueue|plain]\n"
                "                          [--prop name=value]... "
                "[--brokers B]\n");
}

/* A whole decimal number in [lo, hi] for option \p name into \p out. */
static int number(const char *name, const char *v, int lo, int hi, int *out) {
        return bp_cli_int("bp-bench-scheduler", name, v, lo, hi, out);
}

/* Takes one option (bp_cli_t.take). */
static int take(void *ctx, int opt, char *value) {
        long n;
        int i;

        (void)ctx;
        switch (opt) {
        case 'r':
                return number("--rounds", value, 1, BSCH_MAX_ROUNDS,
                              &bsch_opt.rounds);
        case 'b':
                return bp_cli_whole("bp-bench-scheduler", "--bulk", value, 1,
                                    100000000, &bsch_opt.bulk);
        case 'R':
                return number("--rate", value, 1, 100000, &bsch_opt.rate);
        case 's':
                return number("--seconds", value, 1, 3600, &bsch_opt.seconds);
        case 'w':
                return number("--work-us", value, 0, 1000000,
                              &bsch_opt.work_us);
        case 'W':
                if (strcmp(value, "busy") && strcmp(value, "sleep"))
                        break;
                bsch_opt.busy = !strcmp(value, "busy");
                return 0;
        case 'f':
                return number("--fetch-wait-ms", value, 1, 60000,
                              &bsch_opt.fetch_wait_ms);
        case 'l':
                if (bp_cli_whole("bp-bench-scheduler", "--linger-ms", value,
                                 0, 900000, &n))
                        return -1;
                bsch_opt.linger_ms = value;
                return 0;
        case 'o':
                for (i = 0; i < BSCH_SETUPS; i++)
                        if (!strcmp(value, bsch_setup_name[i]))
                                break;
                if (i == BSCH_SETUPS)
                        break;
                bsch_opt.only = value;
                return 0;
        case 'p':
                if (bsch_opt.prop_cnt == 16 || !strchr(value, '='))
                        break;
                bsch_opt.props[bsch_opt.prop_cnt++] = value;
                return 0;
        case 'B':
                bsch_opt.brokers = value;
                return 0;
        }
        return BP_CLI_USAGE; /* a value outside the usage's lists */
}

void bsch_parse_options(int argc, char **argv) {
        static const struct option longopts[] = {
            {"rounds", required_argument, NULL, 'r'},
            {"bulk", required_argument, NULL, 'b'},
            {"rate", required_argument, NULL, 'R'},
            {"seconds", required_argument, NULL, 's'},
            {"work-us", required_argument, NULL, 'w'},
            {"work", required_argument, NULL, 'W'},
            {"fetch-wait-ms", required_argument, NULL, 'f'},
            {"linger-ms", required_argument, NULL, 'l'},
            {"only", required_argument, NULL, 'o'},
            {"prop", required_argument, NULL, 'p'},
            {"brokers", required_argument, NULL, 'B'},
            {NULL, 0, NULL, 0}};
        const bp_cli_t cli = {.program = "bp-bench-scheduler",
                              .options = longopts,
                              .usage   = usage,
                              .take    = take};

        bp_cli_parse_or_exit(&cli, argc, argv);
        if (bsch_opt.fetch_wait_ms < 0 && !bsch_opt.brokers)
                bsch_opt.fetch_wait_ms = 10;
}
