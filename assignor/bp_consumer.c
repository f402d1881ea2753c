/*
 * bp_consumer.c - the consumer side at client creation and while it runs:
 * checks what the configuration became, puts the mapping in front of the
 * application's own rebalance callback, and the safety net that notices
 * records from partitions outside the consumer's buckets (an application
 * that assigns partitions of its own choosing) and stops a consumer that
 * takes rebalances as events it does not map.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bucket_priority.h"
#include "bp_client_layout.h"
#include "bp_change.h"
#include "bp_clock.h"
#include "bp_escape.h"
#include "bp_key.h"
#include "bp_properties.h"
#include "bp_consumer_side.h"
#include "bp_strategy.h"
#include "bp_conf.h"
#include "bp_start_offsets.h"
#include "bp_tracking.h"

static rd_kafka_resp_err_t safety_on_consume(rd_kafka_t *rk,
                                             rd_kafka_message_t *m,
                                             void *ic_opaque);

/* Whether the application asked for rebalances as events
 * (rd_kafka_conf_set_events(), as confluent-kafka-go does): librdkafka then
 * hands them to the application and never calls a callback, so the plugin
 * cannot map them. Read before librdkafka adds the bit for a callback. */
static int takes_rebalance_events(const rd_kafka_conf_t *conf) {
        char buf[32];
        size_t size = sizeof(buf);
        long events = 0;

        if (rd_kafka_conf_get(conf, "enabled_events", buf, &size) ==
            RD_KAFKA_CONF_OK)
                events = strtol(buf, NULL, 10);
        return (events & RD_KAFKA_EVENT_REBALANCE) != 0;
}

/* The Kafka protocol's JoinGroup request, and ConsumerGroupHeartbeat on
 * the next generation protocol (KIP-848): only a consumer that subscribes
 * (and so takes rebalances) sends them. */
#define BP_API_KEY_JOIN_GROUP 11
#define BP_API_KEY_CONSUMER_GROUP_HEARTBEAT 68

/* A bucket consumer whose rebalances the plugin cannot see (the
 * application takes them as events) and whose application did not say it
 * maps them would read every bucket. It cannot be refused at creation:
 * on_new() errors are only logged by librdkafka, and the configuration it
 * is given cannot be changed safely on a path where rd_kafka_new() then
 * fails (its strings still belong to the application). Nor can it be
 * failed with a fatal error: librdkafka 2.0.2 then never finishes
 * destroying the consumer. So it is told at creation, and once it has
 * joined its group the safety net pauses its whole assignment at its
 * first record: it reads at most one record per assignment and then
 * nothing, and says so. A consumer that assigns partitions itself never
 * joins a group and is left alone. */
static void warn_events(bp_client_t *c) {
        bp_client_log(c, 3,
                      "this consumer takes rebalances as events "
                      "(rd_kafka_conf_set_events(), as Go does), which the "
                      "plugin cannot map: it would read partitions of every "
                      "bucket, not only \"%s\", so once it joins its group "
                      "it reads at most one record. Pass each assignment through "
                      "bp_assignment_map_by_name() and set "
                      BP_PROP_EVENTS_MAPPED "=true (Go: "
                      "docs/clients.md)",
                      c->cfg.consumer_bucket_text);
}

/* on_request_sent(): notes the consumer's first JoinGroup request. */
static rd_kafka_resp_err_t note_unmapped_join(rd_kafka_t *rk,
                                              int sockfd,
                                              const char *brokername,
                                              int32_t brokerid,
                                              int16_t api_key,
                                              int16_t api_version,
                                              int32_t corr_id,
                                              size_t size,
                                              void *ic_opaque) {
        bp_client_t *c = ic_opaque;
        (void)rk, (void)sockfd, (void)brokername, (void)brokerid;
        (void)api_version, (void)corr_id, (void)size;

        if (api_key == BP_API_KEY_JOIN_GROUP ||
            api_key == BP_API_KEY_CONSUMER_GROUP_HEARTBEAT)
                atomic_store(&c->consumer->run.unmapped_joined, 1);
        return RD_KAFKA_RESP_ERR_NO_ERROR;
}

rd_kafka_resp_err_t bp_consumer_on_new(bp_client_t *c,
                                       rd_kafka_t *rk,
                                       const rd_kafka_conf_t *conf,
                                       char *errstr,
                                       size_t errstr_size) {
        char val[64];
        size_t size = sizeof(val);
        void *cb;
        (void)errstr, (void)errstr_size;

        if (rd_kafka_type(rk) != RD_KAFKA_CONSUMER ||
            c->cfg.consumer_bucket_cnt == 0)
                return RD_KAFKA_RESP_ERR_NO_ERROR;

        if (takes_rebalance_events(conf) && !c->cfg.events_mapped) {
                warn_events(c);
                rd_kafka_interceptor_add_on_request_sent(
                    rk, BP_NAME, note_unmapped_join, c);
        }
        rd_kafka_interceptor_add_on_consume(rk, BP_NAME,
                                            safety_on_consume, c);
        cb = bp_conf_pointer(conf, "rebalance_cb");
        if (cb && cb != (void *)bp_rebalance_cb &&
            cb != (void *)bp_rebalance_chain) {
                /* The application's callback (confluent-kafka-python,
                 * kcat -G, C++ RebalanceCb, ...): put the mapping in front
                 * of it. on_new() gets the client's live copy of the
                 * configuration, before any librdkafka thread runs. */
                c->consumer->run.app_rebalance_cb = (bp_rebalance_fn_t *)cb;
                rd_kafka_conf_set_rebalance_cb((rd_kafka_conf_t *)conf,
                                               bp_rebalance_chain);
        }
        /* The next generation protocol (KIP-848): chosen before or after
         * the bucket, checked when it was set (bp_consumer_conf.c). */
        if (c->consumer->props.protocol != BP_PROTOCOL_CLASSIC ||
            (rd_kafka_conf_get(conf, "group.protocol", val, &size) ==
                 RD_KAFKA_CONF_OK &&
             !strcmp(val, "consumer")))
                bp_kip848_on_new(c, conf);
        if (c->mode == BP_MODE_BROKEN)
                bp_client_log(c, 3, "%s; this consumer reads no partition of "
                                    "the bucket topic",
                              c->broken_reason);
        bp_tracking_on_new(c, rk, conf);
        bp_prefetch_on_new(c, rk, conf);
        return RD_KAFKA_RESP_ERR_NO_ERROR;
}

/* The layout to judge records by: the current one, or one read from fresh
 * metadata when no rebalance of ours computed it (an application callback
 * that does not chain). Metadata is asked for at most every 10 s. */
static const bp_layout_t *judging_layout(bp_client_t *c, rd_kafka_t *rk) {
        const bp_layout_t *l =
            atomic_load_explicit(&c->current, memory_order_acquire);
        int64_t now, last;
        int32_t cnt;

        if (l)
                return l;
        now  = bp_clock_ms();
        last = atomic_load(&c->consumer->run.safety_layout_tried_ms);
        if ((last && now - last < 10000) ||
            !atomic_compare_exchange_strong(
                &c->consumer->run.safety_layout_tried_ms, &last, now))
                return NULL;
        cnt = bp_topic_partition_count(rk, c->cfg.topic, 5000);
        return cnt > 0 ? bp_client_layout(c, cnt) : NULL;
}

/* A consumer with unmapped rebalance events that joined its group and
 * reads: its whole assignment is paused, which also drops the records
 * already fetched (the one being delivered is the only one it reads). */
static void pause_unmapped(bp_client_t *c, rd_kafka_t *rk) {
        rd_kafka_topic_partition_list_t *assigned = NULL;

        if (rd_kafka_assignment(rk, &assigned) == RD_KAFKA_RESP_ERR_NO_ERROR &&
            assigned->cnt > 0) {
                rd_kafka_pause_partitions(rk, assigned);
                bp_client_log_once(
                    c, BP_ONCE_UNMAPPED, 3,
                    "consumer of bucket \"%s\" was assigned partitions by "
                    "a rebalance event it does not map: its %d assigned "
                    "partitions are paused and it reads no more. Map "
                    "assignments with bp_assignment_map_by_name() and set "
                    BP_PROP_EVENTS_MAPPED "=true (Go: "
                    "docs/clients.md)",
                    c->cfg.consumer_bucket_text, assigned->cnt);
        }
        if (assigned)
                rd_kafka_topic_partition_list_destroy(assigned);
}

/* A record of this consumer's partition \p p (bucket b) whose key names
 * another bucket was put there by a producer that routes with another
 * layout (another step of a layout change, or older properties) or
 * without the plugin: logged once, since the application reads it all
 * the same. A removed bucket's records read by their new home are not. */
static void check_key(bp_client_t *c, const bp_layout_t *l,
                      const rd_kafka_message_t *m, int b) {
        char fp[9], shown[4 * BP_KEY_PREVIEW_LEN + 8], step[48] = "";
        int k;

        /* Logged once: after that, no record needs its key read. */
        if (atomic_load_explicit(&c->logged_once, memory_order_relaxed) &
            BP_ONCE_MISROUTED)
                return;
        k = bp_key_bucket(&c->cfg, m->key, m->key_len);
        if (k < 0)
                k = c->cfg.fallback_kind == BP_FALLBACK_BUCKET
                        ? c->cfg.fallback_bucket
                        : -1;
        if (k < 0 || k == b ||
            (c->consumer->props.consumer_mask & (1ull << k)) ||
            c->change_home[k] == b)
                return;
        bp_layout_fingerprint(l, &c->cfg, fp);
        if (c->cfg.next.set)
                snprintf(step, sizeof(step), ", layout change step %d",
                         c->cfg.next.step);
        bp_escape(m->key, m->key_len, BP_KEY_PREVIEW_LEN, shown,
                  sizeof(shown));
        bp_client_log_once(
            c, BP_ONCE_MISROUTED, 3,
            "consumer of bucket \"%s\" received from %s [%d] a record whose "
            "key \"%s\" names bucket \"%s\": a producer writes with another "
            "layout than this consumer reads (layout fingerprint %s%s), "
            "or without the plugin. The record is processed here, by the "
            "wrong bucket: check every producer's bucket.priority.* "
            "properties (bp-audit --config); during a layout change, that "
            "producers and consumers are at the same step "
            "(docs/operations.md). Logged once",
            c->cfg.consumer_bucket_text, c->cfg.topic, (int)m->partition,
            shown, c->cfg.buckets[k].name, fp, step);
}

/* The consumer's safety net: checks every consumed record's partition. */
static rd_kafka_resp_err_t safety_on_consume(rd_kafka_t *rk,
                                             rd_kafka_message_t *m,
                                             void *ic_opaque) {
        bp_client_t *c = ic_opaque;
        const bp_layout_t *l;
        int b;

        if (m->err || !m->rkt || c->mode != BP_MODE_ACTIVE ||
            strcmp(rd_kafka_topic_name(m->rkt), c->cfg.topic))
                return RD_KAFKA_RESP_ERR_NO_ERROR;
        if (atomic_load(&c->consumer->run.unmapped_joined)) {
                pause_unmapped(c, rk);
                return RD_KAFKA_RESP_ERR_NO_ERROR;
        }
        l = judging_layout(c, rk);
        if (!l || m->partition < 0 || m->partition >= l->partition_cnt)
                return RD_KAFKA_RESP_ERR_NO_ERROR; /* count not known yet */
        b = l->bucket_of[m->partition];
        if (b < l->bucket_cnt &&
            (c->consumer->props.consumer_mask & (1ull << b))) {
                check_key(c, l, m, b);
                return RD_KAFKA_RESP_ERR_NO_ERROR;
        }
        if (b >= l->bucket_cnt) {
                /* A partition of a bucket that a layout change adds. */
                bp_client_log_once(
                    c, BP_ONCE_FOREIGN, 3,
                    "consumer of bucket \"%s\" received a record from %s "
                    "[%d], a partition of a bucket that the layout change "
                    "adds: assign the list the rebalance callback is given",
                    c->cfg.consumer_bucket_text, c->cfg.topic,
                    (int)m->partition);
                return RD_KAFKA_RESP_ERR_NO_ERROR;
        }
        atomic_fetch_add_explicit(&c->counters[b].foreign, 1,
                                  memory_order_relaxed);
        if (c->consumer->run.mode == BP_CONSUMER_KIP848 ||
            c->consumer->run.mode == BP_CONSUMER_CONVERTED)
                /* kept and paused: resumed by someone */
                bp_kip848_pause_one(rk, c->cfg.topic, m->partition);
        bp_client_log_once(
            c, BP_ONCE_FOREIGN, 3,
            "consumer of bucket \"%s\" received a record from %s [%d], a "
            "partition of bucket \"%s\": the rebalance callback in use does "
            "not map assignments to buckets. Let the plugin install its "
            "callback (set no rebalance_cb), install bp_rebalance_cb(), or "
            "pass the partitions through bp_assignment_map() before "
            "rd_kafka_assign(). Further such records are counted in "
            "bp_stats() (foreign), not logged",
            c->cfg.consumer_bucket_text, c->cfg.topic, (int)m->partition,
            c->cfg.buckets[b].name);
        return RD_KAFKA_RESP_ERR_NO_ERROR;
}
