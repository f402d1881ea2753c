/*
 * bench_sched_options.c - the scheduler benchmark's command line: the
 * options with their defaults, their parsing and the usage.
 */
#include "bench_sched_options.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp_cli_number.h"

const char *const bsch_setup_name[BSCH_SETUPS] = {"dedicated", "strict",
                                                  "queue", "plain"};

bsch_options_t bsch_opt = {.rounds        = 3,
                           .rate          = 100,
                           .seconds       = 5,
                           .work_us       = 50,
                           .fetch_wait_ms = -1,
                           .bulk          = 200000,
                           .linger_ms     = "1"};

static void usage(void) {
        fprintf(stderr,
                "usage: bp-bench-scheduler [--rounds K] [--bulk N] [--rate R] "
                "[--seconds S]\n"
                "                          [--work-us W] [--work sleep|busy] "
                "[--fetch-wait-ms F]\n"
                "                          [--linger-ms L] "
                "[--only dedicated|strict|queue|plain]\n"
                "                          [--prop name=value]... "
                "[--brokers B]\n");
        exit(2);
}

/* A whole decimal number in [lo, hi] for option \p name, or exit 2. */
static long number(const char *name, const char *v, long lo, long hi) {
        long n;

        if (bp_cli_whole("bp-bench-scheduler", name, v, lo, hi, &n))
                exit(2);
        return n;
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
        int c;

        while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
                switch (c) {
                case 'r':
                        bsch_opt.rounds =
                            (int)number("--rounds", optarg, 1, BSCH_MAX_ROUNDS);
                        break;
                case 'b':
                        bsch_opt.bulk = number("--bulk", optarg, 1, 100000000);
                        break;
                case 'R':
                        bsch_opt.rate =
                            (int)number("--rate", optarg, 1, 100000);
                        break;
                case 's':
                        bsch_opt.seconds =
                            (int)number("--seconds", optarg, 1, 3600);
                        break;
                case 'w':
                        bsch_opt.work_us =
                            (int)number("--work-us", optarg, 0, 1000000);
                        break;
                case 'W':
                        if (strcmp(optarg, "busy") && strcmp(optarg, "sleep"))
                                usage();
                        bsch_opt.busy = !strcmp(optarg, "busy");
                        break;
                case 'f':
                        bsch_opt.fetch_wait_ms =
                            (int)number("--fetch-wait-ms", optarg, 1, 60000);
                        break;
                case 'l':
                        number("--linger-ms", optarg, 0, 900000);
                        bsch_opt.linger_ms = optarg;
                        break;
                case 'o':
                        if (strcmp(optarg, "dedicated") &&
                            strcmp(optarg, "strict") &&
                            strcmp(optarg, "queue") && strcmp(optarg, "plain"))
                                usage();
                        bsch_opt.only = optarg;
                        break;
                case 'p':
                        if (bsch_opt.prop_cnt == 16 || !strchr(optarg, '='))
                                usage();
                        bsch_opt.props[bsch_opt.prop_cnt++] = optarg;
                        break;
                case 'B':
                        bsch_opt.brokers = optarg;
                        break;
                default:
                        usage();
                }
        }
        if (optind < argc)
                usage();
        if (bsch_opt.rounds < 1 || bsch_opt.rounds > BSCH_MAX_ROUNDS ||
            bsch_opt.bulk < 1 || bsch_opt.rate < 1 || bsch_opt.seconds < 1 ||
            bsch_opt.work_us < 0 || bsch_opt.fetch_wait_ms == 0)
                usage();
        if (bsch_opt.fetch_wait_ms < 0 && !bsch_opt.brokers)
                bsch_opt.fetch_wait_ms = 10;
}
