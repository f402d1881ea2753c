/*
 * demo_plugin.h - the demo's own handle on the plugin file: librdkafka
 * loads it by plugin.library.paths; the demo opens the same file to read
 * its routing statistics (bp_stats, bp_bucket_stats) and the scheduler's
 * per-bucket figures (bp_consumer_bucket_stats) for the view, without
 * linking it.
 */
#ifndef DEMO_PLUGIN_H
#define DEMO_PLUGIN_H

#include <stddef.h>

#include "bucket_priority.h"

typedef struct demo_plugin {
        void *handle;
        const char *(*version)(void);
        int (*stats)(const rd_kafka_t *rk, bp_stats_t *stats);
        int (*bucket_stats)(const rd_kafka_t *rk, int idx,
                            bp_bucket_stats_t *stats);
        /** NULL when the plugin predates it (no scheduler figures). */
        int (*consumer_bucket_stats)(const rd_kafka_t *rk, int idx,
                                     bp_consumer_bucket_stats_t *stats);
} demo_plugin_t;

/** Opens \p path. @returns 0, or -1 with \p err filled. */
int demo_plugin_open(demo_plugin_t *pl, const char *path, char *err,
                     size_t err_size);

void demo_plugin_close(demo_plugin_t *pl);

#endif /* DEMO_PLUGIN_H */
