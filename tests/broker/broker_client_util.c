/*
 * broker_client_util.c - helpers shared by the broker suite's C clients,
 * see broker_client_util.h.
 */
#include "broker_client_util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *bcu_program = "broker-client";

int64_t bcu_wall_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t bcu_mono_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void bcu_sleep_us(long us) {
        struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
        nanosleep(&ts, NULL);
}

void bcu_die(const char *fmt, ...) {
        va_list ap;
        fprintf(stderr, "%s: error: ", bcu_program);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        exit(1);
}

long bcu_num_arg(const char *name, const char *v, long min) {
        char *end;
        long n;
        errno = 0;
        n     = strtol(v, &end, 10);
        if (errno || *end || end == v)
                bcu_die("%s: expected a whole number: \"%s\"", name, v);
        if (n < min)
                bcu_die("%s: expected %ld or more: \"%s\"", name, min, v);
        return n;
}

void bcu_conf_set(rd_kafka_conf_t *conf, const char *name,
                  const char *value) {
        char errstr[512];
        if (rd_kafka_conf_set(conf, name, value, errstr, sizeof(errstr)) !=
            RD_KAFKA_CONF_OK)
                bcu_die("%s=%s: %s", name, value, errstr);
}

void bcu_conf_set_pair(rd_kafka_conf_t *conf, const char *pair) {
        char name[256];
        const char *eq = strchr(pair, '=');
        size_t n;
        if (!eq)
                bcu_die("-X %s: expected name=value", pair);
        n = (size_t)(eq - pair);
        if (n >= sizeof(name))
                bcu_die("-X %s: name too long", pair);
        memcpy(name, pair, n);
        name[n] = '\0';
        bcu_conf_set(conf, name, eq + 1);
}

void bcu_on_error(rd_kafka_t *rk, int err, const char *reason, void *opaque) {
        (void)opaque;
        fprintf(stderr, "%" PRId64 " %s: %s error: %s: %s\n", bcu_wall_ms(),
                rd_kafka_name(rk),
                err == RD_KAFKA_RESP_ERR__FATAL ? "FATAL" : "client",
                rd_kafka_err2name((rd_kafka_resp_err_t)err), reason);
}
