/*
 * bp_entry.c - the plugin's entry point, above both sides: conf_init()
 * and the interceptors that own the bucket.priority.* properties and follow
 * a configuration from creation through copies to the client built from
 * it, handing each step to the producer side (partitioner/bp_producer.h)
 * and the consumer side (assignor/bp_consumer_side.h, bp_conf.h). The
 * state they share, and all that both sides call, is the core below them
 * (plugin/).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bucket_priority.h"
#include "bp_consumer_side.h"
#include "bp_conf.h"
#include "bp_producer.h"
#include "bp_producer_side.h"
#include "bp_client.h"
#include "bp_client_layout.h"
#include "bp_registry.h"
#include "bp_escape.h"
#include "bp_properties.h"

const char *bp_version(void) {
        return BP_VERSION_STR;
}

static rd_kafka_resp_err_t attach(rd_kafka_conf_t *conf, bp_client_t *c,
                                  char *errstr, size_t errstr_size);

/* --- the state, with both sides' parts ------------------------------------ */

static void client_destroy(bp_client_t *c) {
        bp_producer_side_t *producer;
        bp_consumer_side_t *consumer;

        if (!c)
                return;
        producer = c->producer;
        consumer = c->consumer;
        bp_client_destroy(c); /* forgets its handles first */
        bp_producer_side_destroy(producer);
        bp_consumer_side_destroy(consumer);
}

/* A fresh state, or a copy of \p src's configuration-time state; NULL when
 * out of memory. */
static bp_client_t *client_new(const bp_client_t *src) {
        bp_client_t *c = src ? bp_client_dup(src) : bp_client_new();

        if (!c)
                return NULL;
        c->producer = src ? bp_producer_side_dup(src->producer)
                          : bp_producer_side_new();
        c->consumer = src ? bp_consumer_side_dup(src->consumer)
                          : bp_consumer_side_new();
        if (!c->producer || !c->consumer) {
                client_destroy(c);
                return NULL;
        }
        return c;
}

/* --- configuration time -------------------------------------------------- */

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
        hook = bp_producer_on_conf_set(c, name, value, errstr, errstr_size);
        if (hook != RD_KAFKA_CONF_UNKNOWN)
                return hook;
        hook = bp_consumer_on_conf_set(c, conf, name, value, errstr,
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
        if (bp_producer_after_conf_set(c, conf, name, errstr, errstr_size) !=
            RD_KAFKA_CONF_OK)
                return RD_KAFKA_CONF_INVALID;
        return bp_consumer_after_conf_set(c, conf, name, errstr, errstr_size);
}

static rd_kafka_resp_err_t on_conf_dup(rd_kafka_conf_t *new_conf,
                                       const rd_kafka_conf_t *old_conf,
                                       size_t filter_cnt,
                                       const char **filter,
                                       void *ic_opaque) {
        bp_client_t *c = client_new(ic_opaque);
        char errstr[256];
        size_t i;

        (void)old_conf;
        if (!c)
                return RD_KAFKA_RESP_ERR__FAIL;
        for (i = 0; i < filter_cnt; i++)
                if (!strncmp(BP_PROP_PREFIX, filter[i], strlen(filter[i]))) {
                        bp_config_init(&c->cfg); /* our properties filtered */
                        c->topic_len = 0;
                }
        return attach(new_conf, c, errstr, sizeof(errstr));
}

static rd_kafka_resp_err_t on_conf_destroy(void *ic_opaque) {
        client_destroy(ic_opaque);
        return RD_KAFKA_RESP_ERR_NO_ERROR;
}

/* --- client time --------------------------------------------------------- */

/* librdkafka's main thread starts before rd_kafka_new() returns. */
static rd_kafka_resp_err_t on_thread_start(rd_kafka_t *rk,
                                           rd_kafka_thread_type_t type,
                                           const char *thread_name,
                                           void *ic_opaque) {
        bp_client_t *c = ic_opaque;

        (void)thread_name;
        if (type != RD_KAFKA_THREAD_MAIN)
                return RD_KAFKA_RESP_ERR_NO_ERROR;
        bp_client_log_pending(c); /* the client has its name now */
        bp_producer_on_thread_start(c, rk);
        return RD_KAFKA_RESP_ERR_NO_ERROR;
}

static rd_kafka_resp_err_t on_destroy(rd_kafka_t *rk, void *ic_opaque) {
        bp_client_t *c = ic_opaque;

        (void)rk;
        bp_client_log_pending(c); /* rd_kafka_new() failed after on_new() */
        bp_producer_on_destroy(c);
        return RD_KAFKA_RESP_ERR_NO_ERROR;
}

/* The plugin's first line in each client, at level 6 (info) as Kafka's own
 * clients log their version: which bucket-priority and which librdkafka
 * run, and what the plugin does in this client. log_level below 6 mutes
 * it. */
static void log_loaded(bp_client_t *c, const rd_kafka_conf_t *conf) {
        char topic[BP_SHOWN_VALUE_SIZE], what[BP_SHOWN_VALUE_SIZE + 64];

        if (bp_conf_log_level(conf) < 6)
                return;
        if (c->mode == BP_MODE_ACTIVE) {
                bp_escape(c->cfg.topic, strlen(c->cfg.topic), 80, topic,
                          sizeof(topic));
                snprintf(what, sizeof(what), "topic \"%s\", %d buckets, %s layout",
                         topic, c->cfg.bucket_cnt,
                         c->cfg.layout == BP_LAYOUT_STABLE ? "stable"
                                                           : "contiguous");
        } else {
                snprintf(what, sizeof(what), "%s",
                         c->mode == BP_MODE_PASSTHROUGH
                             ? "no bucket.priority.* property set, nothing "
                               "to do"
                             : "configuration incomplete, not routing");
        }
        bp_client_log(c, 6, "bucket-priority %s on librdkafka %s: %s",
                      BP_VERSION_STR, rd_kafka_version_str(), what);
}

/* A share consumer (KIP-932, rd_kafka_share_consumer_new(), librdkafka
 * 2.15 and later), told by librdkafka refusing it client interceptors: the
 * broker alone assigns its partitions, and it has no assignment, pause or
 * rebalance callback, so nothing can hold it to a bucket. With producer
 * properties only (one properties file for every client of an app) the
 * plugin stays out of its way, silent. With a bucket, librdkafka refuses
 * it before this point (the plugin's rebalance_cb); should a later
 * librdkafka let it through, it says why here. */
static rd_kafka_resp_err_t share_consumer_on_new(bp_client_t *c,
                                                 rd_kafka_t *rk) {
        c->rk          = rk;
        c->log_unnamed = 1;
        if (c->cfg.consumer_bucket_cnt > 0)
                bp_client_log(c, 3,
                              "bucket.priority.bucket cannot be kept by a "
                              "share consumer (KIP-932): a share group's "
                              "partitions are assigned by the broker alone, "
                              "with no callback to hold them to one bucket; "
                              "this consumer reads every bucket. Use a "
                              "consumer group (the classic or the consumer "
                              "protocol) for a bucket consumer");
        return RD_KAFKA_RESP_ERR_NO_ERROR;
}

static rd_kafka_resp_err_t on_new(rd_kafka_t *rk,
                                  const rd_kafka_conf_t *conf,
                                  void *ic_opaque,
                                  char *errstr,
                                  size_t errstr_size) {
        bp_client_t *c = ic_opaque;
        rd_kafka_topic_conf_t *tconf =
            rd_kafka_conf_get_default_topic_conf((rd_kafka_conf_t *)conf);

        rd_kafka_resp_err_t destroy_err;

        c->log = (bp_log_fn_t *)bp_conf_pointer(conf, "log_cb");
        /* Both log what on_new() had to say once the client is named. */
        destroy_err =
            rd_kafka_interceptor_add_on_destroy(rk, BP_NAME, on_destroy, c);
        if (destroy_err == RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED &&
            rd_kafka_type(rk) == RD_KAFKA_CONSUMER)
                return share_consumer_on_new(c, rk);
        if (bp_registry_add(rk, c)) {
                snprintf(errstr, errstr_size, "too many clients in process");
                return RD_KAFKA_RESP_ERR__FAIL;
        }
        if (destroy_err || rd_kafka_interceptor_add_on_thread_start(
                               rk, BP_NAME, on_thread_start, c)) {
                c->rk           = rk;
                c->log_unnamed  = 1; /* nothing would log what is kept */
                bp_client_log(c, 4,
                              "cannot register the client's interceptors: "
                              "a producer's topic configuration given by "
                              "the application for the bucket topic would "
                              "not use the bucket partitioner");
        }
        c->rk = rk;
        bp_client_decide_mode(c);
        log_loaded(c, conf);
        bp_key_matcher_init(&c->matcher, &c->cfg);
        bp_client_change_homes(c);
        bp_producer_on_new(c, rk, (rd_kafka_conf_t *)conf, tconf);
        return bp_consumer_on_new(c, rk, conf, errstr, errstr_size);
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
                client_destroy(c);
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
        bp_client_t *c = client_new(NULL);
        rd_kafka_resp_err_t err;

        if (!c) {
                snprintf(errstr, errstr_size, "bucket-priority: out of memory");
                return RD_KAFKA_RESP_ERR__FAIL;
        }
        if ((err = attach(conf, c, errstr, errstr_size)))
                return err;
        bp_producer_on_conf_init(c, conf);
        bp_consumer_on_conf_init(c, conf);
        return RD_KAFKA_RESP_ERR_NO_ERROR;
}

rd_kafka_resp_err_t bp_conf_init(rd_kafka_conf_t *conf,
                                 char *errstr,
                                 size_t errstr_size) {
        if (bp_rdk_bind_default(errstr, errstr_size))
                return RD_KAFKA_RESP_ERR__FAIL;
        return load(conf, errstr, errstr_size);
}

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

/* librdkafka calls this through a function pointer from its plugin loader:
 * the return address lies inside the librdkafka copy that loaded us, the
 * one every call must go to. Not inlined, so that the address is its
 * caller's. */
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
