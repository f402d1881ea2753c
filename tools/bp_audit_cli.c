/*
 * bp_audit_cli.c - bp-audit: checks a live bucket topic against its layout
 * (routing of the last records, who really reads each partition, lag per
 * bucket), from the same properties file the clients use.
 *
 *   bp-audit --config app.properties [--records N] [--timeout MS]
 *            [--growth-to N] [--grown-from N1,N2] [--json] [--watch S]
 *            [--bootstrap B] [--topic T] [--group G] [--buckets ...]
 *            [--allocation ...] [--layout L] [--delimiter D]
 *            [--next-buckets B] [--next-allocation A] [--next-layout L]
 *            [--next-step K] [-X name=value]...
 *
 * Exit status (audit_status_t): 0 healthy, 1 a fault was found, 2 bad
 * input (options, properties, a topic that does not exist), 3 no fault
 * found but a check could not be made (authentication, authorization,
 * timeout, a request the cluster does not support), 4 no fault but a
 * layout change's next consumer step must wait (its partitions are not
 * drained yet).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>

#include "audit/audit_change.h"
#include "audit/audit_classify.h"
#include "audit/audit_cluster.h"
#include "audit/audit_groups.h"
#include "audit/audit_owner.h"
#include "audit/audit_props.h"
#include "audit/audit_report.h"
#include "bp_cli.h"
#include "bp_cli_layout_options.h"
#include "bp_clock.h"
#include "bp_config.h"
#include "bp_list.h"
#include "bp_properties.h"

#define DEFAULT_RECORDS 100
#define DEFAULT_TIMEOUT_MS 10000

static volatile sig_atomic_t stop_watch;

static void on_signal(int sig) {
        (void)sig;
        stop_watch = 1;
}

static void usage(FILE *f) {
        fprintf(f,
                "usage: bp-audit --config app.properties [--records N] "
                "[--timeout MS]\n"
                "                [--growth-to N] [--grown-from N1,N2] [--json] "
                "[--watch S]\n"
                "                [--bootstrap B] [--topic T] [--group G] "
                "[--buckets B]\n"
                "                [--allocation A] [--layout L] "
                "[--delimiter D] [-X name=value]\n"
                "                [--next-buckets B] [--next-allocation A] "
                "[--next-layout L] [--next-step K]\n"
                "       bp-audit --help | --version\n"
                "exit status: 0 healthy, 1 fault, 2 bad input, 3 not checked, "
                "4 a layout change's\n"
                "next consumer step must wait (not drained)\n");
}

static void help(void) {
        usage(stdout);
        printf("\nexit status: 0 healthy (every check made, no fault); "
               "1 a fault was found;\n"
               "  2 bad input (options, properties file, a topic that does "
               "not exist);\n"
               "  3 not checked: no fault found, but a check could not be "
               "made\n"
               "    (authentication failed, authorization denied, timeout, "
               "a request\n"
               "    the cluster does not support, a consumer protocol "
               "(KIP-848) group that\n"
               "    needs librdkafka 2.10 or later under bp-audit), named "
               "in an UNCHECKED line;\n"
               "  4 wait: no fault, but a layout change's next consumer step "
               "must wait\n"
               "    (its partitions are not drained yet).\n"
               "  A fault outranks waiting, waiting outranks a check not "
               "made.\n"
               "See docs/operations.md (Auditing a live topic) and "
               "docs/security.md.\n");
}

/* --version: ours, and the librdkafka this bp-audit runs on (SCRAM needs
 * 2.6.1, consumer protocol groups 2.10: docs/security.md). */
static int bad(const char *msg) {
        fprintf(stderr, "bp-audit: %s\n", msg);
        return 2;
}

/* The property option \p opt (as getopt_long() returns it) stands for;
 * NULL for an option that sets none. */
static const char *property_of(int opt) {
        switch (opt) {
        case 'B':
                return "bootstrap.servers";
        case 't':
                return BP_PROP_TOPIC;
        case 'g':
                return "group.id";
        case 'K':
                return BP_PROP_NEXT_STEP;
        default:
                return bp_cli_layout_property(opt);
        }
}

/* Applies the bucket.priority.* properties to \p cfg. */
static int load_config(const audit_props_t *props, const char *path,
                       bp_config_t *cfg) {
        char err[1024];
        int i;

        bp_config_init(cfg);
        for (i = 0; i < props->cnt; i++) {
                const audit_prop_t *p = &props->items[i];
                if (bp_config_set(cfg, p->name, p->value, err, sizeof(err)) !=
                    BP_SET_INVALID)
                        continue;
                if (p->line)
                        fprintf(stderr, "bp-audit: %s:%d: %s\n", path, p->line,
                                err);
                else
                        fprintf(stderr, "bp-audit: %s\n", err);
                return -1;
        }
        if (bp_config_check_complete(cfg, err, sizeof(err)))
                return bad(err), -1;
        return 0;
}

/* --grown-from "6,12": the partition counts the topic had before. */
static int add_past(audit_t *a, const char *list) {
        const char *cur = list, *item;
        char num[16], err[512];
        size_t len;
        long n;

        while (bp_list_next(&cur, &item, &len)) {
                snprintf(num, sizeof(num), "%.*s", (int)(len < 15 ? len : 15),
                         item);
                if (len > 15 || bp_cli_whole("bp-audit", "--grown-from", num,
                                             1, BP_MAX_PARTITIONS, &n)) {
                        if (len > 15)
                                fprintf(stderr, "bp-audit: --grown-from "
                                                "\"%s\": expected partition "
                                                "counts such as 6,12\n",
                                        list);
                        return -1;
                }
                if (audit_add_past(a, (int32_t)n, err, sizeof(err)))
                        return bad(err), -1;
        }
        return 0;
}

/* Frees \p a with its layout change (the change first: the model does not
 * know it). */
static void free_audit(audit_t *a) {
        audit_change_destroy(a);
        audit_destroy(a);
}

/* One audit of the cluster; prints it and returns the exit status. */
static int audit_once(audit_cluster_t *c, const bp_config_t *cfg,
                      const char *group, int records, int32_t growth_to,
                      const char *grown_from, int json) {
        char err[2048];
        int status;
        int32_t n = audit_cluster_partitions(c, cfg->topic, &status, err,
                                             sizeof(err));
        bp_layout_t *growth = NULL;
        audit_t a;
        int rc;
        int64_t started;

        if (n < 0) {
                fprintf(stderr, "bp-audit: %s\n", err);
                return status;
        }
        if (audit_init(&a, cfg, group, n, err, sizeof(err)))
                return bad(err);
        if (audit_change_init(&a, err, sizeof(err))) {
                free_audit(&a);
                return bad(err);
        }
        if (grown_from && add_past(&a, grown_from)) {
                free_audit(&a);
                return 2;
        }
        started = bp_clock_ms();
        audit_cluster_watermarks(c, &a);
        audit_cluster_groups(c, &a);
        audit_cluster_routing(c, &a, records);
        if (a.change) {
                /* Ends and commits again, at least 1 s after the first
                 * read: a drained partition's end does not move. */
                int64_t left = started + 1000 - bp_clock_ms();
                if (left > 0)
                        usleep((useconds_t)left * 1000);
                audit_cluster_change_reread(c, &a);
        }
        audit_owner_judge(&a);
        audit_routing_findings(&a);
        audit_change_judge(&a);
        if (growth_to == 0 || growth_to > n)
                growth = bp_layout_compute(cfg, growth_to ? growth_to : 2 * n,
                                           err, sizeof(err));
        if (json)
                audit_print_json(stdout, &a, growth);
        else
                audit_print_text(stdout, &a, growth);
        fflush(stdout);
        rc = audit_exit_status(&a);
        bp_layout_destroy(growth);
        free_audit(&a);
        return rc;
}

/* What the options set: the properties they stand for, and the audit's
 * own settings. */
typedef struct {
        audit_props_t overrides;
        const char *config, *grown_from;
        long records, timeout, growth_to, watch;
        int json;
} audit_args_t;

/* Property \p name set to \p value by an option; -1 out of memory. */
static int set_override(audit_args_t *a, const char *name, const char *value) {
        if (audit_props_set(&a->overrides, name, value)) {
                bad("out of memory");
                return -1;
        }
        return 0;
}

/* Takes one option of bp-audit (bp_cli_t.take). */
static int take(void *ctx, int opt, char *value) {
        audit_args_t *a = ctx;
        /* An option that stands for a property overrides it. */
        const char *property = property_of(opt);
        char *eq;

        if (property)
                return set_override(a, property, value);
        switch (opt) {
        case 'c':
                a->config = value;
                return 0;
        case 'X':
                eq = strchr(value, '=');
                if (!eq || eq == value) {
                        fprintf(stderr,
                                "bp-audit: -X \"%s\": expected name=value\n",
                                value);
                        return -1;
                }
                *eq = '\0';
                return set_override(a, value, eq + 1);
        case 'n':
                return bp_cli_whole("bp-audit", "--records", value, 0, 1000000,
                                    &a->records);
        case 'T':
                return bp_cli_whole("bp-audit", "--timeout", value, 100,
                                    600000, &a->timeout);
        case 'G':
                return bp_cli_whole("bp-audit", "--growth-to", value, 1,
                                    BP_MAX_PARTITIONS, &a->growth_to);
        case 'F':
                a->grown_from = value;
                return 0;
        case 'w':
                return bp_cli_whole("bp-audit", "--watch", value, 1, 86400,
                                    &a->watch);
        case 'j':
                a->json = 1;
                return 0;
        default:
                return BP_CLI_USAGE;
        }
}

int main(int argc, char **argv) {
        static const struct option opts[] = {
            {"config", required_argument, NULL, 'c'},
            {"bootstrap", required_argument, NULL, 'B'},
            {"topic", required_argument, NULL, 't'},
            {"group", required_argument, NULL, 'g'},
            BP_CLI_LAYOUT_OPTIONS,
            BP_CLI_NEXT_LAYOUT_OPTIONS,
            {"next-step", required_argument, NULL, 'K'},
            {"records", required_argument, NULL, 'n'},
            {"timeout", required_argument, NULL, 'T'},
            {"growth-to", required_argument, NULL, 'G'},
            {"grown-from", required_argument, NULL, 'F'},
            {"watch", required_argument, NULL, 'w'},
            {"json", no_argument, NULL, 'j'},
            BP_CLI_HELP_OPTION,
            BP_CLI_VERSION_OPTION,
            {NULL, 0, NULL, 0}};
        audit_args_t args = {.records = DEFAULT_RECORDS,
                             .timeout = DEFAULT_TIMEOUT_MS};
        char version[64];
        const bp_cli_t cli = {.program        = "bp-audit",
                              .options        = opts,
                              .short_options  = "X:",
                              .usage          = usage,
                              .help           = help,
                              .version_detail = version,
                              .take           = take,
                              .ctx            = &args};
        audit_props_t props = {0};
        audit_cluster_t cluster;
        const char *config;
        int i, rc;
        bp_config_t cfg;
        char err[1024];

        snprintf(version, sizeof(version), "librdkafka %s",
                 rd_kafka_version_str());
        if ((rc = bp_cli_parse(&cli, argc, argv)) >= 0)
                goto out;
        rc     = 2;
        config = args.config;
        if (config && audit_props_load(config, &props, err, sizeof(err))) {
                bad(err);
                goto out;
        }
        for (i = 0; i < args.overrides.cnt; i++)
                if (audit_props_set(&props, args.overrides.items[i].name,
                                    args.overrides.items[i].value))
                        goto oom;
        if (load_config(&props, config ? config : "options", &cfg))
                goto out;
        if (audit_cluster_open(&cluster, &props, (int)args.timeout, err,
                               sizeof(err))) {
                bad(err);
                goto out;
        }
        if (args.watch) {
                signal(SIGINT, on_signal);
                signal(SIGTERM, on_signal);
        }
        for (;;) {
                if (args.watch && !args.json && isatty(STDOUT_FILENO))
                        printf("\033[H\033[2J");
                rc = audit_once(&cluster, &cfg, audit_props_get(&props,
                                                                "group.id"),
                                (int)args.records, (int32_t)args.growth_to,
                                args.grown_from, args.json);
                if (!args.watch || stop_watch)
                        break;
                for (i = 0; i < args.watch && !stop_watch; i++)
                        sleep(1);
                if (stop_watch)
                        break;
        }
        audit_cluster_close(&cluster);
        goto out;
oom:
        bad("out of memory");
out:
        audit_props_free(&props);
        audit_props_free(&args.overrides);
        return rc;
}
