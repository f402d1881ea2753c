/*
 * bp_plugin.c - the librdkafka plugin: conf_init() and the interceptors that
 * own the bucket.priority.* properties and follow a configuration from
 * creation through copies to the client built from it.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../include/bucket_priority.h"
#include "bp_builtins.h"
#include "bp_client.h"
#include "../assignor/bp_assignor.h"
#include "bp_registry.h"
#include "../shared/bp_escape.h"

#define BP_NAME "bucket-priority"
const char *bp_version(void) {
        return BP_VERSION_STR;
}

static rd_kafka_resp_err_t attach(rd_kafka_conf_t *conf, bp_client_t *c,
                                  char *errstr, size_t errstr_size);

/* --- configuration time -------------------------------------------------- */

rd_kafka_conf_res_t bp_conf_set_own(bp_client_t *c, rd_kafka_conf_t *conf,
                                    const char *name, const char *value,
                                    char *errstr, size_t errstr_size) {
        rd_kafka_conf_res_t r;
        c->in_conf_set++;
        r = rd_kafka_conf_set(conf, name, value, errstr, errstr_size);
        c->in_conf_set--;
        return r;
}

/* librdkafka skips custom partitioners for NULL-key records while
 * sticky.partitioning.linger.ms > 0, which would put them on a sticky
 * partition of any bucket: bucket producers run with it at 0. An empty
 * value would make librdkafka reset it to its default (above 0). */
static rd_kafka_conf_res_t watch_sticky(bp_client_t *c, const char *value,
                                        char *errstr, size_t errstr_size) {
        long v = value ? strtol(value, NULL, 10) : -1;
        char shown[BP_SHOWN_VALUE_SIZE];

        if ((v > 0 || !value) && c->producer_setup_done) {
                snprintf(errstr, errstr_size,
                         "sticky.partitioning.linger.ms: invalid value "
                         "\"%s\" on a bucket-priority producer: must be "
                         "0, because librdkafka bypasses the bucket "
                         "partitioner for records without a key while it is "
                         "above 0 (such records would land in any bucket)",
                         bp_shown_value(value, shown));
                return RD_KAFKA_CONF_INVALID;
        }
        c->sticky_user_value = (int)(v < 0 ? -1 : v);
        return RD_KAFKA_CONF_UNKNOWN; /* librdkafka stores it */
}

/* The first producer property of a client whose user chose sticky
 * partitioning (before or after the plugin loaded) is refused: the plugin
 * would have to overwrite that choice. */
static rd_kafka_conf_res_t refuse_for_sticky(const bp_client_t *c,
                                             const char *name,
                                             const char *value,
                                             char *errstr,
                                             size_t errstr_size) {
        char shown[BP_SHOWN_VALUE_SIZE];

        snprintf(errstr, errstr_size,
                 "%s: invalid value \"%s\": sticky.partitioning.linger.ms "
                 "is %d, and librdkafka bypasses the bucket partitioner for "
                 "records without a key while it is above 0; set it to 0 or "
                 "leave it unset",
                 name, bp_shown_value(value, shown), c->sticky_user_value);
        return RD_KAFKA_CONF_INVALID;
}

/* Choices made before the plugin loaded, which its own conf_set
 * interceptor never saw: a value other than librdkafka's default is the
 * user's (one equal to the default cannot be told from unset). */
static void read_earlier_choices(bp_client_t *c, const rd_kafka_conf_t *conf) {
        char val[32];
        size_t size = sizeof(val);

        if (rd_kafka_conf_get(conf, "sticky.partitioning.linger.ms", val,
                              &size) == RD_KAFKA_CONF_OK &&
            strcmp(val, BP_RDK_DEFAULT_STICKY_LINGER_MS))
                c->sticky_user_value = (int)strtol(val, NULL, 10);
}

/* What a producer of the bucket topic needs, done with the first
 * bucket.priority.* property unless bucket.priority.bucket (consumers only)
 * came first: consumers then get no "producer property" warnings. */
static rd_kafka_conf_res_t producer_setup(bp_client_t *c,
                                          rd_kafka_conf_t *conf,
                                          char *errstr, size_t errstr_size) {
        rd_kafka_topic_conf_t *tconf;

        if (c->producer_setup_done || c->cfg.consumer_bucket_cnt > 0)
                return RD_KAFKA_CONF_OK;
        c->producer_setup_done = 1;
        tconf = rd_kafka_conf_get_default_topic_conf(conf);
        if (!tconf) {
                tconf = rd_kafka_topic_conf_new();
                rd_kafka_topic_conf_set_partitioner_cb(tconf, bp_partitioner);
                rd_kafka_conf_set_default_topic_conf(conf, tconf);
        } else {
                rd_kafka_topic_conf_set_partitioner_cb(tconf, bp_partitioner);
        }
        if (c->sticky_user_value < 0)
                return bp_conf_set_own(c, conf,
                                       "sticky.partitioning.linger.ms", "0",
                                       errstr, errstr_size);
        return RD_KAFKA_CONF_OK;
}

/* Properties that only a consumer reads: they make no producer set-up. */
static int consumer_only(const char *name) {
        return !strcmp(name, "bucket.priority.bucket") ||
               !strcmp(name, "bucket.priority.group.per.bucket") ||
               !strcmp(name, "bucket.priority.rebalance.events.mapped");
}

static rd_kafka_conf_res_t on_conf_set(rd_kafka_conf_t *conf,
                                       const char *name,
                                       const char *value,
                                       char *errstr,
                                       size_t errstr_size,
                                       void *ic_opaque) {
        bp_client_t *c = ic_opaque;
        rd_kafka_conf_res_t hook;

        if (c->in_conf_set)
                return RD_KAFKA_CONF_UNKNOWN;
        if (!strcmp(name, "sticky.partitioning.linger.ms"))
                return watch_sticky(c, value, errstr, errstr_size);
        if (!strncmp(name, "bucket.priority.", 16) &&
            !consumer_only(name) && c->cfg.consumer_bucket_cnt == 0 &&
            c->sticky_user_value > 0)
                return refuse_for_sticky(c, name, value, errstr, errstr_size);
        hook = bp_assignor_on_conf_set(c, conf, name, value, errstr,
                                       errstr_size);
        if (hook != RD_KAFKA_CONF_UNKNOWN)
                return hook;

        switch (bp_config_set(&c->cfg, name, value, errstr, errstr_size)) {
        case BP_SET_UNKNOWN:
                return RD_KAFKA_CONF_UNKNOWN;
        case BP_SET_INVALID:
                return RD_KAFKA_CONF_INVALID;
        case BP_SET_OK:
                break;
        }
        c->topic_len = strlen(c->cfg.topic);
        if (!consumer_only(name) &&
            producer_setup(c, conf, errstr, errstr_size) != RD_KAFKA_CONF_OK)
                return RD_KAFKA_CONF_INVALID;
        return bp_assignor_after_conf_set(c, conf, name, errstr, errstr_size);
}

static rd_kafka_resp_err_t on_conf_dup(rd_kafka_conf_t *new_conf,
                                       const rd_kafka_conf_t *old_conf,
                                       size_t filter_cnt,
                                       const char **filter,
                                       void *ic_opaque) {
        bp_client_t *c = bp_client_dup(ic_opaque);
        char errstr[256];
        size_t i;

        (void)old_conf;
        if (!c)
                return RD_KAFKA_RESP_ERR__FAIL;
        for (i = 0; i < filter_cnt; i++)
                if (!strncmp("bucket.priority.", filter[i], strlen(filter[i]))) {
                        bp_config_init(&c->cfg); /* our properties filtered */
                        c->topic_len = 0;
                }
        return attach(new_conf, c, errstr, sizeof(errstr));
}

static rd_kafka_resp_err_t on_conf_destroy(void *ic_opaque) {
        bp_client_destroy(ic_opaque);
        return RD_KAFKA_RESP_ERR_NO_ERROR;
}

/* --- client time --------------------------------------------------------- */

static rd_kafka_resp_err_t on_send(rd_kafka_t *rk,
                                   rd_kafka_message_t *rkmessage,
                                   void *ic_opaque) {
        bp_client_t *c = ic_opaque;
        (void)rk;
        if (__builtin_expect(bp_registry_find(rkmessage->rkt) != c, 0) &&
            bp_registry_add(rkmessage->rkt, c))
                bp_client_log_once(c, BP_ONCE_REGISTRY, 3,
                                   "too many topic handles in this process; "
                                   "records to topic \"%s\" fail",
                                   rd_kafka_topic_name(rkmessage->rkt));
        return RD_KAFKA_RESP_ERR_NO_ERROR;
}

/* Made when librdkafka's main thread starts, before rd_kafka_new()
 * returns: the bucket topic's handle with the bucket partitioner. An
 * application that then creates the topic with a topic configuration of its
 * own (kcat) is handed this handle by librdkafka, its configuration
 * dropped, so its records are routed by bucket too. */
static rd_kafka_resp_err_t on_thread_start(rd_kafka_t *rk,
                                           rd_kafka_thread_type_t type,
                                           const char *thread_name,
                                           void *ic_opaque) {
        bp_client_t *c = ic_opaque;
        rd_kafka_topic_conf_t *tconf;

        (void)thread_name;
        if (type != RD_KAFKA_THREAD_MAIN)
                return RD_KAFKA_RESP_ERR_NO_ERROR;
        bp_client_log_pending(c); /* the client has its name now */
        if (c->own_rkt || !c->own_tconf)
                return RD_KAFKA_RESP_ERR_NO_ERROR;
        tconf         = c->own_tconf;
        c->own_tconf  = NULL;
        c->own_rkt    = rd_kafka_topic_new(rk, c->cfg.topic, tconf);
        if (!c->own_rkt)
                bp_client_log(c, 4,
                              "cannot create topic handle \"%s\" early: a "
                              "topic configuration given by the application "
                              "for it would not use the bucket partitioner",
                              c->cfg.topic);
        return RD_KAFKA_RESP_ERR_NO_ERROR;
}

static rd_kafka_resp_err_t on_destroy(rd_kafka_t *rk, void *ic_opaque) {
        bp_client_t *c = ic_opaque;

        (void)rk;
        bp_client_log_pending(c); /* rd_kafka_new() failed after on_new() */
        if (c->own_rkt)
                rd_kafka_topic_destroy(c->own_rkt);
        c->own_rkt = NULL;
        if (c->own_tconf)
                rd_kafka_topic_conf_destroy(c->own_tconf);
        c->own_tconf = NULL;
        return RD_KAFKA_RESP_ERR_NO_ERROR;
}

/* A producer of the bucket topic: the partitioner must be the topic's,
 * whatever the application does with topic configurations. */
static void keep_bucket_topic(bp_client_t *c, rd_kafka_topic_conf_t *tconf) {
        void *cb = tconf ? bp_topic_conf_pointer(tconf, "partitioner_cb")
                         : NULL;

        /* The default topic configuration replaced after the plugin loaded
         * (node-rdkafka does): on_new() sees the client's live copy. */
        if (tconf && !cb)
                rd_kafka_topic_conf_set_partitioner_cb(tconf, bp_partitioner);
        c->own_tconf = tconf ? rd_kafka_topic_conf_dup(tconf)
                             : rd_kafka_topic_conf_new();
        if (c->own_tconf)
                rd_kafka_topic_conf_set_partitioner_cb(c->own_tconf,
                                                       bp_partitioner);
}

static void decide_mode(bp_client_t *c) {
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

static rd_kafka_resp_err_t on_new(rd_kafka_t *rk,
                                  const rd_kafka_conf_t *conf,
                                  void *ic_opaque,
                                  char *errstr,
                                  size_t errstr_size) {
        bp_client_t *c = ic_opaque;
        rd_kafka_topic_conf_t *tconf =
            rd_kafka_conf_get_default_topic_conf((rd_kafka_conf_t *)conf);
        char name[64];
        size_t size = sizeof(name);

        c->log = (bp_log_fn_t *)bp_conf_pointer(conf, "log_cb");
        if (bp_registry_add(rk, c)) {
                snprintf(errstr, errstr_size, "too many clients in process");
                return RD_KAFKA_RESP_ERR__FAIL;
        }
        /* Both log what on_new() had to say once the client is named. */
        if (rd_kafka_interceptor_add_on_thread_start(rk, BP_NAME,
                                                     on_thread_start, c) ||
            rd_kafka_interceptor_add_on_destroy(rk, BP_NAME, on_destroy, c)) {
                c->rk           = rk;
                c->log_unnamed  = 1; /* nothing would log what is kept */
                bp_client_log(c, 4,
                              "cannot register the client's interceptors: "
                              "a producer's topic configuration given by "
                              "the application for the bucket topic would "
                              "not use the bucket partitioner");
        }
        c->rk = rk;
        c->other = bp_builtin_by_name(
            tconf && rd_kafka_topic_conf_get(tconf, "partitioner", name,
                                             &size) == RD_KAFKA_CONF_OK
                ? name
                : NULL);
        c->fallback_fn = bp_builtin_fn(c->cfg.fallback_builtin);
        decide_mode(c);
        bp_key_matcher_init(&c->matcher, &c->cfg);

        if (rd_kafka_type(rk) == RD_KAFKA_PRODUCER) {
                rd_kafka_interceptor_add_on_send(rk, BP_NAME, on_send, c);
                if (c->mode == BP_MODE_BROKEN)
                        bp_client_log(c, 3, "%s; every record to %s fails",
                                      c->broken_reason,
                                      c->cfg.topic_set ? c->cfg.topic
                                                       : "any topic");
                if (c->mode != BP_MODE_PASSTHROUGH && c->cfg.topic_set)
                        keep_bucket_topic(c, tconf);
        }
        return bp_assignor_on_new(c, rk, conf, errstr, errstr_size);
}

/* --- loading ------------------------------------------------------------- */

/* Registers the interceptors on conf. Takes ownership of c: the
 * on_conf_destroy interceptor, registered first, frees it with conf. */
static rd_kafka_resp_err_t attach(rd_kafka_conf_t *conf, bp_client_t *c,
                                  char *errstr, size_t errstr_size) {
        rd_kafka_resp_err_t err;

        err = rd_kafka_conf_interceptor_add_on_conf_destroy(
            conf, BP_NAME, on_conf_destroy, c);
        if (err)
                bp_client_destroy(c);
        else if (!(err = rd_kafka_conf_interceptor_add_on_conf_set(
                       conf, BP_NAME, on_conf_set, c)) &&
                 !(err = rd_kafka_conf_interceptor_add_on_conf_dup(
                       conf, BP_NAME, on_conf_dup, c)))
                err = rd_kafka_conf_interceptor_add_on_new(conf, BP_NAME,
                                                           on_new, c);
        if (err)
                snprintf(errstr, errstr_size,
                         "bucket-priority: cannot register its interceptors "
                         "(%s): is the plugin loaded twice?",
                         rd_kafka_err2str(err));
        return err;
}

/* Loads the plugin's state into \p conf; the function table is bound. */
static rd_kafka_resp_err_t load(rd_kafka_conf_t *conf, char *errstr,
                                size_t errstr_size) {
        bp_client_t *c = bp_client_new();
        rd_kafka_resp_err_t err;

        if (!c) {
                snprintf(errstr, errstr_size, "bucket-priority: out of memory");
                return RD_KAFKA_RESP_ERR__FAIL;
        }
        if ((err = attach(conf, c, errstr, errstr_size)))
                return err;
        read_earlier_choices(c, conf);
        bp_assignor_on_conf_init(c, conf);
        return RD_KAFKA_RESP_ERR_NO_ERROR;
}

rd_kafka_resp_err_t bp_conf_init(rd_kafka_conf_t *conf,
                                 char *errstr,
                                 size_t errstr_size) {
        if (bp_rdk_bind_default(errstr, errstr_size))
                return RD_KAFKA_RESP_ERR__FAIL;
        return load(conf, errstr, errstr_size);
}

/* librdkafka calls this through a function pointer from its plugin loader:
 * the return address lies inside the librdkafka copy that loaded us, the
 * one every call must go to. Not inlined, so that the address is its
 * caller's. */
/* Keeps the plugin mapped for the life of the process. librdkafka unloads
 * a plugin with the configuration that loaded it, but copies of that
 * configuration (rd_kafka_conf_dup(): librdkafka++ and node-rdkafka create
 * their clients from a copy, and C++ programs delete the original at once)
 * keep calling its interceptors. */
static void pin_in_memory(void) {
        Dl_info self;

        if (dladdr((void *)pin_in_memory, &self) && self.dli_fname)
                (void)dlopen(self.dli_fname, RTLD_NOW | RTLD_NODELETE);
}

__attribute__((noinline)) rd_kafka_resp_err_t
conf_init(rd_kafka_conf_t *conf,
          void **plug_opaquep,
          char *errstr,
          size_t errstr_size) {
        const void *caller = __builtin_return_address(0);
        rd_kafka_resp_err_t err;

        (void)plug_opaquep;
        if (bp_rdk_bind_caller(caller, errstr, errstr_size))
                return RD_KAFKA_RESP_ERR__FAIL;
        pin_in_memory();
        err = load(conf, errstr, errstr_size);
        __asm__ volatile("" ::: "memory"); /* no tail call: keep our frame */
        return err;
}

void bp_topic_conf_set_partitioner(rd_kafka_topic_conf_t *tconf) {
        char errstr[BP_RDK_ERR_MAX + 8];

        if (!tconf || bp_rdk_bind_default(errstr, sizeof(errstr)))
                return;
        rd_kafka_topic_conf_set_partitioner_cb(tconf, bp_partitioner);
}
