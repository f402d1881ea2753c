/*
 * demo_options.c - command line parsing, scenario sizes (default and
 * --quick) and locating the plugin for bp-demo.
 */
#include "demo_options.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bp_cli.h"

const char *const demo_mode_name[DEMO_MODES] = {"shared", "buckets",
                                                "strict"};

static void usage(FILE *f) {
        fprintf(f,
                "usage: bp-demo [--quick] [--json FILE] [--report FILE.html]\n"
                "               [--brokers HOST:PORT] [--plugin PATH]\n"
                "               [--layout contiguous|stable] [--plain]\n"
                "\n"
                "Shows why one Kafka topic needs bucket priority: login codes\n"
                "(critical) and a newsletter campaign (bulk) share a topic.\n"
                "Run 1 \"shared\": one consumer group reads everything, login\n"
                "codes wait behind newsletters. Run 2 \"buckets\": the\n"
                "bucket-priority plugin, loaded by configuration, gives each\n"
                "class its own partitions and consumer group. Run 3\n"
                "\"strict\": one worker serves both buckets, the plugin\n"
                "pausing bulk while a login code waits.\n"
                "\n"
                "  --quick            smaller campaign, whole demo under 60 s\n"
                "  --json FILE        write the runs' figures as JSON\n"
                "  --report FILE      write a self-contained HTML report\n"
                "  --brokers H:P      use a real cluster instead of the\n"
                "                     embedded mock one (topics are created\n"
                "                     and deleted with the Admin API; adds a\n"
                "                     partition growth and a consumer crash)\n"
                "  --plugin PATH      libbucketpriority.so to load (default:\n"
                "                     $BP_PLUGIN_PATH, else ../lib next to\n"
                "                     this binary)\n"
                "  --layout L         bucket.priority.layout (default\n"
                "                     contiguous; stable with --brokers)\n"
                "  --plain            periodic lines, no live view\n");
}

static void scenario_default(demo_scenario_t *sc, int quick) {
        sc->critical_rate      = 50;
        sc->bulk_rate          = 30000;
        sc->cost_us            = 200;
        sc->partitions         = 8;
        sc->grow_to            = 12;
        sc->critical_consumers = 1;
        sc->bulk_consumers     = 2;
        sc->strict_consumers   = 1;
        sc->allocation         = "25%, 75%";
        sc->drain_timeout_s    = 120;
        /* Sized so the shared run's backlog drains inside the window at the
         * normal processing cost (~13 000 records/s for 3 workers on two
         * cores): its login code latencies are all measured, none is
         * flattered by the faster drain. */
        if (quick) {
                sc->window_s         = 12;
                sc->campaign_start_s = 1;
                sc->bulk_total       = 100000;
        } else {
                sc->window_s         = 28;
                sc->campaign_start_s = 3;
                sc->bulk_total       = 300000;
        }
}

/* A real cluster adds a partition growth and a crash (a rebalance that
 * waits for session.timeout.ms): a longer window shows the recovery. */
static void scenario_brokers(demo_scenario_t *sc) {
        sc->window_s += 8;
        sc->grow_at_s = sc->window_s * 0.3;
        sc->kill_at_s = sc->window_s * 0.45;
}

/* The plugin next to the binary: <dir of /proc/self/exe>/../lib/. */
static int plugin_next_to_exe(char *out, size_t size) {
        char exe[4096];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

        if (n <= 0)
                return -1;
        exe[n] = '\0';
        if ((size_t)snprintf(out, size, "%s/../lib/libbucketpriority.so",
                             dirname(exe)) >= size)
                return -1;
        return 0;
}

int demo_scenario_consumers(const demo_scenario_t *sc) {
        return sc->critical_consumers + sc->bulk_consumers;
}

int demo_mode_workers(const demo_scenario_t *sc, demo_mode_t m) {
        return m == DEMO_MODE_STRICT ? sc->strict_consumers
                                     : demo_scenario_consumers(sc);
}

/* What the options set: the options, and the plugin path given. */
typedef struct {
        demo_options_t *o;
        const char *plugin;
} demo_args_t;

/* Takes one option (bp_cli_t.take). */
static int take(void *ctx, int opt, char *value) {
        demo_args_t *a    = ctx;
        demo_options_t *o = a->o;

        switch (opt) {
        case 'q': o->quick = 1; return 0;
        case 'j': o->json_path = value; return 0;
        case 'r': o->report_path = value; return 0;
        case 'b': o->brokers = value; return 0;
        case 'p': a->plugin = value; return 0;
        case 'l': o->layout = value; return 0;
        case 'P': o->plain = 1; return 0;
        default: return BP_CLI_USAGE;
        }
}

int demo_options_parse(demo_options_t *o, int argc, char **argv) {
        static const struct option longopts[] = {
            {"quick", no_argument, NULL, 'q'},
            {"json", required_argument, NULL, 'j'},
            {"report", required_argument, NULL, 'r'},
            {"brokers", required_argument, NULL, 'b'},
            {"plugin", required_argument, NULL, 'p'},
            {"layout", required_argument, NULL, 'l'},
            {"plain", no_argument, NULL, 'P'},
            BP_CLI_HELP_OPTION,
            {NULL, 0, NULL, 0}};
        demo_args_t args   = {.o = o, .plugin = getenv("BP_PLUGIN_PATH")};
        const bp_cli_t cli = {.program       = "bp-demo",
                              .options       = longopts,
                              .short_options = "qj:r:b:p:l:Ph",
                              .usage         = usage,
                              .take          = take,
                              .ctx           = &args};
        const char *plugin;
        int rc;

        memset(o, 0, sizeof(*o));
        if ((rc = bp_cli_parse(&cli, argc, argv)) >= 0)
                return rc ? -1 : 1; /* bad input, or --help shown */
        plugin = args.plugin;
        if (o->layout && strcmp(o->layout, "contiguous") &&
            strcmp(o->layout, "stable")) {
                fprintf(stderr,
                        "bp-demo: --layout must be contiguous or stable\n");
                return -1;
        }
        if (!o->layout)
                o->layout = o->brokers ? "stable" : "contiguous";
        if (plugin && *plugin) {
                if ((size_t)snprintf(o->plugin, sizeof(o->plugin), "%s",
                                     plugin) >= sizeof(o->plugin)) {
                        fprintf(stderr, "bp-demo: plugin path too long\n");
                        return -1;
                }
        } else if (plugin_next_to_exe(o->plugin, sizeof(o->plugin))) {
                fprintf(stderr, "bp-demo: cannot find my own binary; use "
                                "--plugin PATH\n");
                return -1;
        }
        if (access(o->plugin, R_OK)) {
                fprintf(stderr,
                        "bp-demo: plugin not found: %s\n"
                        "  build it (cmake --build build) or pass --plugin "
                        "PATH / BP_PLUGIN_PATH\n",
                        o->plugin);
                return -1;
        }
        scenario_default(&o->sc, o->quick);
        if (o->brokers)
                scenario_brokers(&o->sc);
        o->stamp = ((long)time(NULL) * 131 + (long)getpid()) % 100000;
        return 0;
}
