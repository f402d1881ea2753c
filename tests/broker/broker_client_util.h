/*
 * broker_client_util.h - what the broker suite's C clients
 * (bp_broker_client.c, bp_sched_client.c) share beyond the test kit
 * (tests/kit/testkit.h: clocks, record keys): fatal errors, option numbers,
 * librdkafka properties, the client error callback, the consumer's
 * subscription, its record and assignment lines, signals.
 */
#ifndef BROKER_CLIENT_UTIL_H
#define BROKER_CLIENT_UTIL_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include <librdkafka/rdkafka.h>

#include "testkit.h"

/** The program's name in error lines ("bp-broker-client"). */
extern const char *bcu_program;

/** Prints "<program>: error: <message>" and exits 1. */
void bcu_die(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

/** The largest option number the clients take (15 digits, printed whole). */
#define BCU_NUM_MAX 999999999999999L

/** Option \p name's value \p v as a whole number from \p min to
 *  BCU_NUM_MAX; otherwise says so naming both (bp_cli_whole()) and exits
 *  1. */
long bcu_num_arg(const char *name, const char *v, long min);

/** Sets a librdkafka property, or dies naming it and why. */
void bcu_conf_set(rd_kafka_conf_t *conf, const char *name,
                  const char *value);

/** Sets a "name=value" pair (an -X option), or dies. */
void bcu_conf_set_pair(rd_kafka_conf_t *conf, const char *pair);

/** Error callback: one line on stderr with the wall clock, the client's
 *  name and the error (fatal ones marked). */
void bcu_on_error(rd_kafka_t *rk, int err, const char *reason, void *opaque);

/** Opens \p path with \p suffix appended (may be "") for writing, or dies
 *  naming it. */
FILE *bcu_open_out(const char *path, const char *suffix);

/** Set to 1 by SIGTERM or SIGINT (stop), and by SIGUSR1, once
 *  bcu_catch_signals() was called. */
extern volatile sig_atomic_t bcu_stop, bcu_usr1;

/** Catches SIGTERM and SIGINT, and SIGUSR1 too with \p usr1. */
void bcu_catch_signals(int usr1);

/** A consumer from \p conf subscribed to \p topic, or dies. */
rd_kafka_t *bcu_subscribe(rd_kafka_conf_t *conf, const char *topic);

/** A consumer error: printed (the first 50 of \p errors, partition ends
 *  neither printed nor counted). */
void bcu_consume_error(const rd_kafka_message_t *m, long *errors);

/**
 * Writes the record line "<id> <partition> <offset> <key bucket> <ms>"
 * (the key "<bucket>-<id>"; id -1 when the key has none).
 */
void bcu_record_line(FILE *out, const rd_kafka_message_t *m, int64_t ms);

/** Appends "<ms> <p,p,...>" (or "<ms> -" when empty) to \p af when the
 *  assignment \p a differs from \p last (then updated). */
void bcu_assignment_line(FILE *af, const rd_kafka_topic_partition_list_t *a,
                         char *last, size_t last_size);

#endif /* BROKER_CLIENT_UTIL_H */
