/*
 * tk_backlog.h - a consumer of several buckets meeting a backlog of every
 * bucket at once: the moment a strict or weighted consumer starts, restarts
 * from its commits, or takes over the partitions of a member that left.
 * Shared by test_mock_backlog (asserts the bounds) and bp-bench-backlog
 * (prints them for docs/benchmarks-results.md); plain C on librdkafka with
 * the plugin loaded by plugin.library.paths, never aborts (failures are
 * return values with a message).
 *
 * One run: a topic of its own, the lowest bucket's backlog written first,
 * then each higher bucket's (highest last), then the consumer(s) start and
 * read until every record was read. What is counted, per run:
 *   - ahead: records of lower buckets handed to the application before the
 *     last backlog record of a higher bucket (the largest over the higher
 *     buckets; 0 is strict priority, a plain consumer hands out thousands);
 *   - the first share: the highest bucket's share of the first
 *     TK_BACKLOG_SHARE_WINDOW records (weighted);
 *   - every record read, none out of order within a partition.
 */
#ifndef TK_BACKLOG_H
#define TK_BACKLOG_H

#include "testkit.h"

#define TK_BACKLOG_MAX_BUCKETS 4
#define TK_BACKLOG_SHARE_WINDOW 2000

typedef enum {
        TK_BACKLOG_COLD,    /* a new group starts on the backlog */
        TK_BACKLOG_RESTART, /* the group read, committed and closed before;
                             * the backlog is written, then it restarts */
        TK_BACKLOG_LEAVE    /* two members; the backlog of the higher
                             * buckets is written, one leaves: judged on
                             * the survivor, from its takeover on */
} tk_backlog_moment_t;

typedef struct tk_backlog_setup {
        const char *bootstraps;
        const char *plugin;     /* the plugin's path */
        const char *topic;      /* a new topic of `partitions` */
        int partitions;
        int n;                  /* buckets, highest first */
        const char *buckets;    /* "critical, bulk" */
        const char *allocation; /* "25%, 75%" */
        int records[TK_BACKLOG_MAX_BUCKETS]; /* backlog per bucket */
        const char *schedule;   /* "strict", "weighted"; NULL: a plain
                                 * consumer without the plugin (control) */
        const char *hold;       /* NULL: left to its default */
        const char *protocol;   /* NULL: classic; "consumer": KIP-848 */
        tk_backlog_moment_t moment;
        const char *group;
        long work_us;           /* the application's work per record */
} tk_backlog_setup_t;

typedef struct tk_backlog_result {
        long ahead;          /* see above */
        long ahead_of[TK_BACKLOG_MAX_BUCKETS]; /* per higher bucket */
        double first_share;  /* highest bucket, first window, 0..1 */
        long read[TK_BACKLOG_MAX_BUCKETS];     /* first reads per bucket */
        long missing, duplicates, reordered;
        long taken_over;     /* higher-bucket records first read once
                              * judging began (the takeover's, leave) */
} tk_backlog_result_t;

/**
 * Runs one \p st. @returns 0 with \p res filled, or -1 with \p err
 * filled (a client could not be made, a record was not written, the
 * records were not all read within 60 s).
 */
int tk_backlog_run(const tk_backlog_setup_t *st, tk_backlog_result_t *res,
                   char *err, size_t err_size);

#endif /* TK_BACKLOG_H */
