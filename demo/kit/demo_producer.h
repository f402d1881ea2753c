/*
 * demo_producer.h - the two services that write to the topic: the login
 * service (a steady trickle of critical one-time passcodes) and the
 * marketing campaign (a flood of bulk newsletters). Each is one thread with
 * its own producer; every record carries its id and send time.
 */
#ifndef DEMO_PRODUCER_H
#define DEMO_PRODUCER_H

#include <stdatomic.h>
#include <stdint.h>

#include <librdkafka/rdkafka.h>

#include "demo_conf.h"
#include "demo_stats.h"
#include "demo_thread.h"

typedef struct demo_producer {
        demo_class_t cls;
        double start_s; /**< First record at t0 + start_s. */
        double rate;    /**< Records per second. */
        long total;     /**< Records to send (ids 0 .. total-1). */
        int64_t t0_us;
        demo_stats_t *st;
        const char *topic;
        rd_kafka_t *rk;
        demo_thread_t thread;
        atomic_int stop;       /**< Ask the thread to stop sending. */
        atomic_int sending_done; /**< Every record handed to librdkafka. */
        atomic_int done;       /**< ...and every delivery report back. */
        atomic_int abandon;    /**< Stop waiting for delivery reports. */
        int64_t done_us;       /**< When sending ended. */
} demo_producer_t;

/**
 * Creates the producer from \p s (cls set by the caller) and connects it.
 * @returns 0, or -1 with \p err filled.
 */
int demo_producer_create(demo_producer_t *p, const demo_setup_t *s,
                         char *err, size_t err_size);

/** Starts sending (t0_us, start_s, rate, total, st set by the caller).
 *  @returns 0, or -1 with \p err filled. */
int demo_producer_start(demo_producer_t *p, char *err, size_t err_size);

/** Stops sending; the thread still collects delivery reports. */
void demo_producer_stop(demo_producer_t *p);

/** Stops everything, waits for the thread (at most ~5 s of reports
 *  still outstanding) and destroys the producer. */
void demo_producer_destroy(demo_producer_t *p);

/**
 * Parses a record made by this module: key "<class>-<id>", value
 * "<id> <send time us> text". @returns 0 and fills the outputs, or -1.
 */
int demo_record_parse(const rd_kafka_message_t *m, demo_class_t *cls,
                      long *id, int64_t *sent_us);

#endif /* DEMO_PRODUCER_H */
