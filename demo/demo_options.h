/*
 * demo_options.h - bp-demo's command line and the scenario it sizes: how
 * many login codes and newsletters, how fast, how long each run lasts and
 * what a record costs to process.
 */
#ifndef DEMO_OPTIONS_H
#define DEMO_OPTIONS_H

#include <stdint.h>

/** The runs, in the order the demo shows them. */
typedef enum demo_mode {
        DEMO_MODE_SHARED = 0, /**< One group reads everything, no plugin. */
        DEMO_MODE_BUCKETS,    /**< A group and workers per bucket. */
        DEMO_MODE_STRICT      /**< One worker serves both buckets, the
                               *   plugin's strict scheduler first. */
} demo_mode_t;
#define DEMO_MODES 3

/** "shared", "buckets", "strict": run names in the output and JSON. */
extern const char *const demo_mode_name[DEMO_MODES];

/** The load every run carries, identical in each (fairness). */
typedef struct demo_scenario {
        double window_s;          /**< Measured part of a run. */
        double critical_rate;     /**< Login codes per second. */
        double campaign_start_s;  /**< When the newsletters start. */
        long bulk_total;          /**< Newsletters in the campaign. */
        double bulk_rate;         /**< Newsletters per second. */
        int64_t cost_us;          /**< Processing cost of every record. */
        int partitions;           /**< Partitions of the topic. */
        int grow_to;              /**< --brokers: partitions after growth. */
        double grow_at_s;         /**< --brokers: when the topic grows. */
        double kill_at_s;         /**< --brokers: when a consumer dies. */
        int critical_consumers;   /**< Buckets run: critical consumers. */
        int bulk_consumers;       /**< Buckets run: bulk consumers. */
        int strict_consumers;     /**< Strict run: workers serving both
                                   *   buckets (1: the small service). */
        const char *allocation;   /**< "25%, 75%": critical, bulk. */
        double drain_timeout_s;   /**< Give up draining after this. */
} demo_scenario_t;

typedef struct demo_options {
        const char *brokers;     /**< NULL: embedded mock cluster. */
        char plugin[4096];       /**< Path of libbucketpriority.so. */
        const char *json_path;   /**< --json FILE or NULL. */
        const char *report_path; /**< --report FILE.html or NULL. */
        const char *layout;      /**< bucket.priority.layout. */
        int quick;               /**< --quick. */
        int plain;               /**< --plain: no live view. */
        long stamp;              /**< --brokers: suffix of topic and group
                                  *   names, unique per invocation. */
        demo_scenario_t sc;
} demo_options_t;

/**
 * Parses argv into \p o. On --help prints usage and returns 1; on an error
 * prints it and returns -1; else 0. Finds the plugin next to the binary
 * (../lib/libbucketpriority.so from /proc/self/exe) unless --plugin or
 * BP_PLUGIN_PATH says otherwise.
 */
int demo_options_parse(demo_options_t *o, int argc, char **argv);

/** Consumer threads of the shared and the buckets runs (the same). */
int demo_scenario_consumers(const demo_scenario_t *sc);

/** Consumer threads of run \p m. */
int demo_mode_workers(const demo_scenario_t *sc, demo_mode_t m);

#endif /* DEMO_OPTIONS_H */
