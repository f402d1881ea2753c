/*
 * bp_demo.c - bp-demo, the teaching demo of bucket priority: the incident
 * of a login code stuck behind a newsletter campaign (one shared consumer
 * group), then the same load with the bucket-priority plugin loaded by
 * configuration (dedicated workers per bucket), then with one worker
 * serving both buckets through the plugin's strict scheduler, side by
 * side. See demo/README.md or bp-demo --help.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librdkafka/rdkafka.h>

#include "demo_options.h"
#include "demo_plugin.h"
#include "demo_report.h"
#include "demo_run.h"
#include "demo_view.h"

static void on_signal(int sig) {
        (void)sig;
        demo_interrupted = 1;
}

static void intro(const demo_options_t *o, const demo_plugin_t *pl,
                  int color) {
        const demo_scenario_t *sc = &o->sc;
        char topic[64], group[64], total[32];

        if (o->brokers) {
                snprintf(topic, sizeof(topic), "bp-demo-buckets-%05ld",
                         o->stamp);
                snprintf(group, sizeof(group), "bp-demo-%05ld", o->stamp);
        } else {
                snprintf(topic, sizeof(topic), "notifications");
                snprintf(group, sizeof(group), "notifier");
        }

        demo_fmt_count(sc->bulk_total, total, sizeof(total));
        printf("%sbp-demo%s: bucket priority for librdkafka %s, plugin %s\n"
               "  %s\n\n"
               "Monday 09:00. Login codes and a %s-newsletter campaign go "
               "through one\nnotifications topic. Kafka has no priority: a "
               "record waits for every record\nahead of it in its "
               "partition. Three runs, same load, each record costing\n"
               "%lld us of work:\n\n"
               "  1. shared:  one consumer group reads everything (plain "
               "librdkafka),\n"
               "              %d workers\n"
               "  2. buckets: every client adds, by configuration only:\n"
               "       plugin.library.paths=libbucketpriority\n"
               "       bucket.priority.topic=%s\n"
               "       bucket.priority.buckets=critical, bulk\n"
               "       bucket.priority.allocation=%s\n"
               "       bucket.priority.layout=%s\n"
               "     and each worker names its bucket:\n"
               "       bucket.priority.bucket=critical  (%d worker, group "
               "%s.critical)\n"
               "       bucket.priority.bucket=bulk      (%d workers, group "
               "%s.bulk)\n",
               color ? "\033[1m" : "", color ? "\033[0m" : "",
               rd_kafka_version_str(), pl->version(), o->plugin, total,
               (long long)sc->cost_us, demo_scenario_consumers(sc), topic,
               sc->allocation, o->layout, sc->critical_consumers, group,
               sc->bulk_consumers, group);
        printf("  3. strict:  the same plugin settings, but %d worker "
               "(runs 1 and 2 have %d)\n"
               "              serves both buckets, highest priority "
               "first:\n"
               "       bucket.priority.bucket=critical, bulk  (group "
               "%s.critical+bulk)\n"
               "       bucket.priority.schedule=strict        (the default "
               "for a list)\n"
               "%s"
               "     Its scheduler keeps bulk's fetched records in a queue "
               "of their own and\n"
               "     reads each login code ahead of them (nothing is paused "
               "or fetched twice):\n"
               "     bulk gets whatever capacity critical leaves.\n\n",
               sc->strict_consumers, demo_scenario_consumers(sc), group,
               o->brokers ? "       fetch.wait.max.ms=100                  "
                            "(the plugin's, for a list)\n"
                          : "");
        if (o->brokers)
                printf("Cluster: %s. Topics are created and deleted with "
                       "the Admin API;\nin each run the topic grows to %d "
                       "partitions at %.0f s and a worker\ncrashes at %.0f "
                       "s.\n\n",
                       o->brokers, sc->grow_to, sc->grow_at_s, sc->kill_at_s);
        else
                printf("Cluster: librdkafka's embedded mock cluster (no "
                       "broker needed).\n\n");
        fflush(stdout);
}

int main(int argc, char **argv) {
        demo_options_t o;
        demo_plugin_t pl;
        demo_view_t view;
        demo_result_t res[DEMO_MODES];
        struct sigaction sa;
        char err[512];
        int rc, i, done = 0, status = 0;

        rc = demo_options_parse(&o, argc, argv);
        if (rc)
                return rc > 0 ? 0 : 2;
        if (demo_plugin_open(&pl, o.plugin, err, sizeof(err))) {
                fprintf(stderr, "bp-demo: cannot load the plugin: %s\n", err);
                return 2;
        }
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_signal;
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        signal(SIGPIPE, SIG_IGN);

        demo_view_init(&view, o.plain);
        intro(&o, &pl, view.color);
        memset(res, 0, sizeof(res));
        for (i = 0; i < DEMO_MODES && !demo_interrupted; i++) {
                if (demo_run(&o, (demo_mode_t)i, i + 1, DEMO_MODES, &view,
                             &pl, &res[i])) {
                        status = 1;
                        break;
                }
                done++;
                printf("\n");
        }
        demo_view_restore_cursor();
        if (demo_interrupted) {
                fprintf(stderr, "bp-demo: interrupted\n");
                status = 130;
        } else if (done == DEMO_MODES) {
                demo_report_summary(stdout, &o, res, DEMO_MODES, view.color);
                if (o.json_path &&
                    demo_report_json(o.json_path, res, DEMO_MODES)) {
                        perror(o.json_path);
                        status = 1;
                }
                if (o.report_path &&
                    demo_report_html(o.report_path, &o, res, DEMO_MODES)) {
                        perror(o.report_path);
                        status = 1;
                }
                if (o.json_path)
                        printf("\nfigures written to %s\n", o.json_path);
                if (o.report_path)
                        printf("report written to %s\n", o.report_path);
                for (i = 0; i < DEMO_MODES; i++)
                        if (res[i].lost)
                                status = 1;
        }
        for (i = 0; i < DEMO_MODES; i++)
                demo_result_free(&res[i]);
        demo_plugin_close(&pl);
        return status;
}
