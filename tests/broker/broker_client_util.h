/*
 * broker_client_util.h - what the broker suite's C clients
 * (bp_broker_client.c, bp_sched_client.c) share: clocks, fatal errors,
 * option numbers, librdkafka properties and the client error callback.
 */
#ifndef BROKER_CLIENT_UTIL_H
#define BROKER_CLIENT_UTIL_H

#include <stdint.h>

#include <librdkafka/rdkafka.h>

/** The program's name in error lines ("bp-broker-client"). */
extern const char *bcu_program;

/** Wall clock (ms since the epoch): comparable across processes. */
int64_t bcu_wall_ms(void);

/** Monotonic clock (ns). */
int64_t bcu_mono_ns(void);

void bcu_sleep_us(long us);

/** Prints "<program>: error: <message>" and exits 1. */
void bcu_die(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

/** Option \p name's value \p v as a whole number, at least \p min; dies
 *  naming both otherwise. */
long bcu_num_arg(const char *name, const char *v, long min);

/** Sets a librdkafka property, or dies naming it and why. */
void bcu_conf_set(rd_kafka_conf_t *conf, const char *name,
                  const char *value);

/** Sets a "name=value" pair (an -X option), or dies. */
void bcu_conf_set_pair(rd_kafka_conf_t *conf, const char *pair);

/** Error callback: one line on stderr with the wall clock, the client's
 *  name and the error (fatal ones marked). */
void bcu_on_error(rd_kafka_t *rk, int err, const char *reason, void *opaque);

#endif /* BROKER_CLIENT_UTIL_H */
