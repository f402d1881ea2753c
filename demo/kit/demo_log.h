/*
 * demo_log.h - the story being told: narration lines from the run and the
 * warnings librdkafka or the plugin log, kept in a small thread-safe ring
 * that the view shows (or prints as they come when there is no live view).
 */
#ifndef DEMO_LOG_H
#define DEMO_LOG_H

#include <librdkafka/rdkafka.h>

#define DEMO_LOG_LINES 64
#define DEMO_LOG_WIDTH 160

typedef enum demo_log_kind {
        DEMO_LOG_STORY = 0, /**< Narration. */
        DEMO_LOG_STEP,      /**< Something the demo does to the cluster. */
        DEMO_LOG_WARN       /**< A librdkafka or plugin warning. */
} demo_log_kind_t;

/** Starts a new run's story: \p t0_us is its time zero. */
void demo_log_reset(long long t0_us);

/** Adds a narration line (printf format), stamped with the run time. */
void demo_log(demo_log_kind_t kind, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/**
 * Copies line number \p seq (0, 1, ... in order of arrival) into \p out.
 * @returns 1 if it is still in the ring, 0 if not (too old or not yet).
 */
int demo_log_get(unsigned long seq, char *out, size_t size,
                 demo_log_kind_t *kind);

/** Number of lines added since the last reset. */
unsigned long demo_log_count(void);

/** librdkafka log callback: keeps warnings and errors (level <= 4). */
void demo_log_rdkafka(const rd_kafka_t *rk, int level, const char *fac,
                      const char *buf);

#endif /* DEMO_LOG_H */
