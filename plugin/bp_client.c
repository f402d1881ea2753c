/*
 * bp_client.c - the plugin's per-client state: lifecycle, mode, logging,
 * and the properties it reads and sets on the user's behalf. (Its layouts:
 * bp_client_layout.c.)
 */
#include "bp_client.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp_registry.h"

bp_client_t *bp_client_new(void) {
        bp_client_t *c = aligned_alloc(64, sizeof(*c));
        if (!c)
                return NULL;
        memset(c, 0, sizeof(*c));
        bp_config_init(&c->cfg);
        memset(c->change_home, 0xff, sizeof(c->change_home));
        c->log = rd_kafka_log_print;
        pthread_mutex_init(&c->layout_lock, NULL);
        return c;
}

bp_client_t *bp_client_dup(const bp_client_t *src) {
        bp_client_t *c = bp_client_new();
        if (!c)
                return NULL;
        c->cfg       = src->cfg;
        c->topic_len = src->topic_len;
        return c;
}

void bp_client_destroy(bp_client_t *c) {
        bp_layout_node_t *n, *next;

        if (!c)
                return;
        bp_registry_remove_client(c);
        for (n = c->layouts; n; n = next) {
                next = n->next;
                bp_layout_destroy(n->layout);
                free(n);
        }
        pthread_mutex_destroy(&c->layout_lock);
        free(c);
}

rd_kafka_conf_res_t bp_conf_set_own(bp_client_t *c, rd_kafka_conf_t *conf,
                                    const char *name, const char *value,
                                    char *errstr, size_t errstr_size) {
        rd_kafka_conf_res_t r;
        c->in_conf_set++;
        r = rd_kafka_conf_set(conf, name, value, errstr, errstr_size);
        c->in_conf_set--;
        return r;
}

void bp_client_decide_mode(bp_client_t *c) {
        char why[400];

        if (!bp_config_is_touched(&c->cfg)) {
                c->mode = BP_MODE_PASSTHROUGH;
        } else if (bp_config_check_complete(&c->cfg, why, sizeof(why))) {
                c->mode = BP_MODE_BROKEN;
                snprintf(c->broken_reason, sizeof(c->broken_reason),
                         "bucket-priority is not configured completely: %s",
                         why);
        } else {
                c->mode = BP_MODE_ACTIVE;
        }
}

/* librdkafka prints a pointer property with "%p": "0x..." or "(nil)". */
static void *parse_pointer(const char *text) {
        void *p = NULL;
        return sscanf(text, "%p", &p) == 1 ? p : NULL;
}

void *bp_conf_pointer(const rd_kafka_conf_t *conf, const char *name) {
        char buf[64];
        size_t size = sizeof(buf);
        return rd_kafka_conf_get(conf, name, buf, &size) == RD_KAFKA_CONF_OK
                   ? parse_pointer(buf)
                   : NULL;
}

int bp_is_bucket_topic(const bp_client_t *c, const char *topic) {
        return c->cfg.topic_set && !strcmp(topic, c->cfg.topic);
}

int bp_conf_log_level(const rd_kafka_conf_t *conf) {
        char v[16];
        size_t size = sizeof(v);

        if (rd_kafka_conf_get(conf, "log_level", v, &size) != RD_KAFKA_CONF_OK)
                return 6;
        return atoi(v);
}

int64_t bp_conf_int(const rd_kafka_conf_t *conf, const char *name,
                    int64_t dflt) {
        char v[32];
        size_t size = sizeof(v);
        long long n;

        if (rd_kafka_conf_get(conf, name, v, &size) != RD_KAFKA_CONF_OK)
                return dflt;
        n = strtoll(v, NULL, 10);
        return n > 0 ? n : dflt;
}

void *bp_topic_conf_pointer(const rd_kafka_topic_conf_t *tconf,
                            const char *name) {
        char buf[64];
        size_t size = sizeof(buf);
        return rd_kafka_topic_conf_get(tconf, name, buf, &size) ==
                       RD_KAFKA_CONF_OK
                   ? parse_pointer(buf)
                   : NULL;
}

static void vlog(bp_client_t *c, int level, const char *fmt, va_list ap) {
        char buf[BP_LOG_LINE_MAX];

        if (!c->log)
                return;
        if (c->rk && !c->log_unnamed && !rd_kafka_name(c->rk)[0] &&
            c->pending_cnt < BP_PENDING_LOGS) {
                /* In on_new(): librdkafka names the client after it. */
                c->pending[c->pending_cnt].level = level;
                vsnprintf(c->pending[c->pending_cnt].text,
                          sizeof(c->pending[0].text), fmt, ap);
                c->pending_cnt++;
                return;
        }
        vsnprintf(buf, sizeof(buf), fmt, ap);
        if (c->rk)
                c->log(c->rk, level, "BUCKETPRIO", buf);
        else
                fprintf(stderr, "%%%d|BUCKETPRIO| %s\n", level, buf);
}

void bp_client_log_pending(bp_client_t *c) {
        int i;

        for (i = 0; i < c->pending_cnt; i++)
                c->log(c->rk, c->pending[i].level, "BUCKETPRIO",
                       c->pending[i].text);
        c->pending_cnt = 0;
}

void bp_client_log(bp_client_t *c, int level, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        vlog(c, level, fmt, ap);
        va_end(ap);
}

void bp_client_log_once(bp_client_t *c,
                        unsigned once_flag,
                        int level,
                        const char *fmt,
                        ...) {
        va_list ap;

        if (atomic_fetch_or(&c->logged_once, once_flag) & once_flag)
                return;
        va_start(ap, fmt);
        vlog(c, level, fmt, ap);
        va_end(ap);
}
