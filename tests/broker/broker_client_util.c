/*
 * broker_client_util.c - helpers shared by the broker suite's C clients,
 * see broker_client_util.h.
 */
#include "broker_client_util.h"

#include "bp_cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *bcu_program = "broker-client";

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
        long n;
        /* The options skeleton's check (tools/bp_cli.h), which says what
         * it refuses; the clients' fatal exit status. */
        if (bp_cli_whole(bcu_program, name, v, min, BCU_NUM_MAX, &n))
                exit(1);
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
        fprintf(stderr, "%" PRId64 " %s: %s error: %s: %s\n", tk_wall_ms(),
                rd_kafka_name(rk),
                err == RD_KAFKA_RESP_ERR__FATAL ? "FATAL" : "client",
                rd_kafka_err2name((rd_kafka_resp_err_t)err), reason);
}

FILE *bcu_open_out(const char *path, const char *suffix) {
        char name[4096];
        FILE *f;
        snprintf(name, sizeof(name), "%s%s", path, suffix);
        if (!(f = fopen(name, "w")))
                bcu_die("%s: %s", name, strerror(errno));
        return f;
}

volatile sig_atomic_t bcu_stop, bcu_usr1;

static void on_signal(int sig) {
        if (sig == SIGUSR1)
                bcu_usr1 = 1;
        else
                bcu_stop = 1;
}

void bcu_catch_signals(int usr1) {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        if (usr1)
                sigaction(SIGUSR1, &sa, NULL);
}

rd_kafka_t *bcu_subscribe(rd_kafka_conf_t *conf, const char *topic) {
        rd_kafka_topic_partition_list_t *sub;
        char errstr[512];
        rd_kafka_t *rk;

        if (!(rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr,
                                sizeof(errstr))))
                bcu_die("rd_kafka_new: %s", errstr);
        rd_kafka_poll_set_consumer(rk);
        sub = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(sub, topic, RD_KAFKA_PARTITION_UA);
        if (rd_kafka_subscribe(rk, sub))
                bcu_die("subscribe to %s failed", topic);
        rd_kafka_topic_partition_list_destroy(sub);
        return rk;
}

void bcu_consume_error(const rd_kafka_message_t *m, long *errors) {
        if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF && (*errors)++ < 50)
                fprintf(stderr, "%" PRId64 " consume: %s\n", tk_wall_ms(),
                        rd_kafka_message_errstr(m));
}

void bcu_record_line(FILE *out, const rd_kafka_message_t *m, int64_t ms) {
        size_t bucket_len;
        long id = tk_key_id(m->key, m->key_len, &bucket_len);
        fprintf(out, "%ld %d %" PRId64 " %.*s %" PRId64 "\n", id,
                (int)m->partition, m->offset, (int)bucket_len,
                m->key ? (const char *)m->key : "", ms);
}

void bcu_assignment_line(FILE *af, const rd_kafka_topic_partition_list_t *a,
                         char *last, size_t last_size) {
        char now[4096];
        size_t len = 0;
        int i;

        now[0] = '\0';
        for (i = 0; i < a->cnt && len + 16 < sizeof(now); i++)
                len += (size_t)snprintf(now + len, sizeof(now) - len, "%s%d",
                                        i ? "," : "", a->elems[i].partition);
        if (!a->cnt)
                snprintf(now, sizeof(now), "-");
        if (strcmp(now, last)) {
                snprintf(last, last_size, "%s", now);
                fprintf(af, "%" PRId64 " %s\n", tk_wall_ms(), now);
                fflush(af);
        }
}
