/*
 * bp_consumer_conf.c - consumer side configuration: the bucket a consumer
 * serves turns into the properties a bucket consumer needs, whatever order
 * they are set in:
 *   - group.id "orders-app" becomes "orders-app.Gold" (one group per
 *     bucket, unless bucket.priority.group.per.bucket=false);
 *   - partition.assignment.strategy must be roundrobin (set here);
 *   - the classic group protocol, or the next generation one
 *     (group.protocol=consumer, KIP-848: bp_kip848_conf.c) where the host
 *     librdkafka has it;
 *   - topic.metadata.refresh.interval.ms shortened so growth is seen soon;
 *   - the plugin's rebalance callback, unless the application has one;
 *   - a consumer of several buckets (scheduled, see bp_scheduler.h):
 *     fetch.wait.max.ms and fetch.queue.backoff.ms shortened (the wait
 *     more for the weighted schedule, which switches buckets often).
 */
#include <stdio.h>
#include <string.h>

#include "bucket_priority.h"
#include "bp_escape.h"
#include "bp_list.h"
#include "bp_properties.h"
#include "bp_conf.h"
#include "bp_consumer_side.h"

/* librdkafka's default (the same from 2.0.2 to 2.15.1): a value read before
 * the plugin loaded that equals it is taken as unset. */
#define BP_RDK_DEFAULT_ASSIGNOR "range,roundrobin"

/** fetch.queue.backoff.ms (librdkafka >= 2.2) of a consumer of several
 *  buckets, unless the user sets it: how soon librdkafka fetches again
 *  once its queue was full (its default, 1000 ms, would hold a higher
 *  bucket's records that long behind a lower bucket's backlog). */
#define BP_LIST_QUEUE_BACKOFF_MS_TEXT "10"

/** fetch.wait.max.ms of a consumer of several buckets, unless the user
 *  sets it: a resumed bucket's records come with the next fetch, which
 *  waits for the fetch the broker holds meanwhile (up to this long) for
 *  the other buckets; librdkafka's default, 500 ms, would hold every
 *  switch between buckets that long. */
#define BP_LIST_FETCH_WAIT_MS_TEXT "100"

/** The same for the weighted schedule: it pauses a bucket ahead of its
 *  share and resumes it within milliseconds, many times a second while
 *  both buckets have records; at 100 ms, a resumed bucket's wait for the
 *  held fetch cost it up to half its share in some windows of 2 000
 *  records on Kafka 4.4 (docs/consumer-several-buckets.md). */
#define BP_WEIGHTED_FETCH_WAIT_MS_TEXT "20"

/* The librdkafka properties a consumer of several buckets gets, unless
 * the user set them (bit i of sched_user_set, sched_set: tuned[i]), by
 * schedule. */
static const struct {
        const char *name, *strict_value, *weighted_value, *librdkafka_default;
} tuned[] = {
    {"fetch.queue.backoff.ms", BP_LIST_QUEUE_BACKOFF_MS_TEXT,
     BP_LIST_QUEUE_BACKOFF_MS_TEXT, "1000"},
    {"fetch.wait.max.ms", BP_LIST_FETCH_WAIT_MS_TEXT,
     BP_WEIGHTED_FETCH_WAIT_MS_TEXT, "500"},
};
#define TUNED_CNT ((int)(sizeof(tuned) / sizeof(tuned[0])))

/* Properties set before the plugin loaded: a value other than librdkafka's
 * default is the user's. */
static void tuned_conf_init(bp_client_t *c, const rd_kafka_conf_t *conf) {
        int i;
        for (i = 0; i < TUNED_CNT; i++) {
                char v[32];
                size_t size = sizeof(v);
                if (rd_kafka_conf_get(conf, tuned[i].name, v, &size) ==
                        RD_KAFKA_CONF_OK &&
                    strcmp(v, tuned[i].librdkafka_default))
                        c->consumer->props.sched_user_set |= 1u << i;
        }
}

/* Every property set: notes the user's own values of the tuned ones. */
static void tuned_seen(bp_client_t *c, const char *name) {
        int i;
        for (i = 0; i < TUNED_CNT; i++)
                if (!strcmp(name, tuned[i].name))
                        c->consumer->props.sched_user_set |= 1u << i;
}

/* After bucket.priority.bucket or .schedule changed: a consumer of
 * several buckets gets the fetch wait of its schedule and, where
 * librdkafka has the property (2.2 and later),
 * BP_LIST_QUEUE_BACKOFF_MS_TEXT, each unless the user set it; librdkafka's
 * defaults come back when the list shrinks to one bucket. */
static void tuned_apply(bp_client_t *c, rd_kafka_conf_t *conf) {
        bp_consumer_props_t *k = &c->consumer->props;
        int list              = c->cfg.consumer_bucket_cnt > 1, i;
        int weighted          = c->cfg.schedule == BP_SCHEDULE_WEIGHTED;
        char errstr[256];

        for (i = 0; i < TUNED_CNT; i++) {
                unsigned bit = 1u << i;
                if ((k->sched_user_set & bit) ||
                    (!list && !(k->sched_set & bit)))
                        continue;
                /* RD_KAFKA_CONF_UNKNOWN where librdkafka lacks it (the
                 * backoff before 2.2): nothing to do. */
                if (bp_conf_set_own(c, conf, tuned[i].name,
                                    !list      ? tuned[i].librdkafka_default
                                    : weighted ? tuned[i].weighted_value
                                               : tuned[i].strict_value,
                                    errstr,
                                    sizeof(errstr)) == RD_KAFKA_CONF_OK)
                        k->sched_set = list ? k->sched_set | bit
                                            : k->sched_set & ~bit;
        }
}

static int conf_text(const rd_kafka_conf_t *conf, const char *name,
                     char *buf, size_t size) {
        size_t sz = size;
        buf[0]    = '\0';
        return rd_kafka_conf_get(conf, name, buf, &sz) == RD_KAFKA_CONF_OK &&
               buf[0];
}

void bp_consumer_on_conf_init(bp_client_t *c, rd_kafka_conf_t *conf) {
        char val[256];

        /* Properties set before the plugin loaded. */
        if (conf_text(conf, "group.id", val, sizeof(val)))
                snprintf(c->consumer->props.base_group_id,
                         sizeof(c->consumer->props.base_group_id), "%s", val);
        if (conf_text(conf, "partition.assignment.strategy", val,
                      sizeof(val)) &&
            strcmp(val, BP_RDK_DEFAULT_ASSIGNOR))
                snprintf(c->consumer->props.user_strategy,
                         sizeof(c->consumer->props.user_strategy), "%.*s",
                         (int)sizeof(c->consumer->props.user_strategy) - 1,
                         val);
        if (conf_text(conf, "topic.metadata.refresh.interval.ms", val,
                      sizeof(val)) &&
            strcmp(val, "300000"))
                c->consumer->props.refresh_user_set = 1;
        /* librdkafka >= 2.4: group.protocol=consumer set before us. */
        if (conf_text(conf, "group.protocol", val, sizeof(val)) &&
            !strcmp(val, "consumer") &&
            c->consumer->props.protocol != BP_PROTOCOL_CONSUMER_HELD)
                c->consumer->props.protocol = BP_PROTOCOL_CONSUMER;
        if (conf_text(conf, "group.remote.assignor", val, sizeof(val)))
                c->consumer->props.remote_assignor_user_set = 1;
        tuned_conf_init(c, conf);
}

/* The group id this consumer should use: base, or base.bucket[+bucket]. */
static void effective_group(const bp_client_t *c, char *out, size_t size) {
        const char *cur = c->cfg.consumer_bucket_text, *item;
        size_t len, at;
        int n = 0;

        at = (size_t)snprintf(out, size, "%s",
                              c->consumer->props.base_group_id);
        if (!c->cfg.group_per_bucket || c->cfg.consumer_bucket_cnt == 0)
                return;
        while (at < size && bp_list_next(&cur, &item, &len))
                at += (size_t)snprintf(out + at, size - at, "%c%.*s",
                                       n++ ? '+' : '.', (int)len, item);
}

/* Whether \p value is the group id the plugin derived itself: what
 * rd_kafka_conf_dup() sets again on the copy of a configuration (librdkafka++
 * and node-rdkafka create clients from copies), which must not become the
 * base of another ".<bucket>". */
static int is_derived_group(const bp_client_t *c, const char *value) {
        char group[sizeof(c->consumer->props.base_group_id) +
                   BP_MAX_VALUE_LEN + 2];

        if (!c->consumer->props.base_group_id[0])
                return 0;
        effective_group(c, group, sizeof(group));
        return !strcmp(group, value);
}

static rd_kafka_conf_res_t apply_group(bp_client_t *c, rd_kafka_conf_t *conf,
                                       char *errstr, size_t errstr_size) {
        char group[sizeof(c->consumer->props.base_group_id) +
                   BP_MAX_VALUE_LEN + 2];

        if (!c->consumer->props.base_group_id[0])
                return RD_KAFKA_CONF_OK; /* applied when group.id is set */
        effective_group(c, group, sizeof(group));
        return bp_conf_set_own(c, conf, "group.id", group, errstr,
                               errstr_size);
}

static int is_roundrobin(const char *v) {
        const char *p = v;
        size_t len    = strlen(v);
        bp_trim(&p, &len);
        return len == 10 && !strncmp(p, "roundrobin", 10);
}

#define STRATEGY_WHY                                                           \
        "the plugin maps the group's partitions onto the bucket's, which "     \
        "needs them spread evenly"

/* An empty value (NULL) would make librdkafka reset it to its default,
 * "range,roundrobin", under which the group assigns by range. */
static rd_kafka_conf_res_t refuse_strategy(const char *value, char *errstr,
                                           size_t errstr_size) {
        char shown[BP_SHOWN_VALUE_SIZE];

        snprintf(errstr, errstr_size,
                 "partition.assignment.strategy: invalid value \"%s\" for "
                 "a bucket consumer (" BP_PROP_BUCKET " is set): must be "
                 "\"roundrobin\", since " STRATEGY_WHY "; leave it unset",
                 bp_shown_value(value, shown));
        return RD_KAFKA_CONF_INVALID;
}

/* bucket.priority.bucket after another assignor was chosen (before or
 * after the plugin loaded): the plugin would have to overwrite it. */
static rd_kafka_conf_res_t refuse_bucket(const bp_client_t *c,
                                         const char *value, char *errstr,
                                         size_t errstr_size) {
        char shown[BP_SHOWN_VALUE_SIZE], strategy[BP_SHOWN_VALUE_SIZE];

        snprintf(errstr, errstr_size,
                 BP_PROP_BUCKET ": invalid value \"%s\": "
                 "partition.assignment.strategy is \"%s\", and a bucket "
                 "consumer needs \"roundrobin\", since " STRATEGY_WHY
                 "; leave it unset",
                 bp_shown_value(value, shown),
                 bp_shown_value(c->consumer->props.user_strategy, strategy));
        return RD_KAFKA_CONF_INVALID;
}

/* One property being set on a configuration (consumer: the client is a
 * bucket consumer already). */
typedef struct {
        bp_client_t *c;
        rd_kafka_conf_t *conf;
        int consumer;
        const char *name;
        const char *value;
        char *errstr;
        size_t errstr_size;
} conf_set_t;

/* The librdkafka properties a bucket consumer watches as they are set, one
 * handler each (RD_KAFKA_CONF_UNKNOWN hands the property on to
 * librdkafka), in the table watched[] below. */
typedef rd_kafka_conf_res_t(watch_fn_t)(const conf_set_t *s);

static rd_kafka_conf_res_t watch_group_id(const conf_set_t *s) {
        bp_client_t *c = s->c;

        if (s->consumer && c->cfg.group_per_bucket && s->value &&
            is_derived_group(c, s->value))
                return RD_KAFKA_CONF_UNKNOWN; /* a copy of ours */
        snprintf(c->consumer->props.base_group_id,
                 sizeof(c->consumer->props.base_group_id), "%s",
                 s->value ? s->value : "");
        if (!s->consumer || !c->cfg.group_per_bucket || !s->value)
                return RD_KAFKA_CONF_UNKNOWN;
        return apply_group(c, s->conf, s->errstr, s->errstr_size);
}

static rd_kafka_conf_res_t watch_strategy(const conf_set_t *s) {
        if (s->consumer && (!s->value || !is_roundrobin(s->value)))
                return refuse_strategy(s->value, s->errstr, s->errstr_size);
        snprintf(s->c->consumer->props.user_strategy,
                 sizeof(s->c->consumer->props.user_strategy), "%s",
                 s->value ? s->value : "");
        return RD_KAFKA_CONF_UNKNOWN;
}

static rd_kafka_conf_res_t watch_protocol(const conf_set_t *s) {
        bp_client_t *c  = s->c;
        int is_consumer = s->value && !strcmp(s->value, "consumer");

        /* librdkafka < 2.4 knows no group.protocol: before the
         * bucket (Go's ConfigMap has no order) it would refuse it
         * as an unknown property; refused here naming the
         * version, as after the bucket. */
        if (is_consumer && !s->consumer &&
            rd_kafka_version() < BP_GROUP_PROTOCOL_VERSION)
                return bp_kip848_check(c, NULL, s->name, s->value, s->errstr,
                                       s->errstr_size);
        if (s->consumer && is_consumer) {
                if (bp_kip848_check(c, NULL, s->name, s->value, s->errstr,
                                    s->errstr_size) != RD_KAFKA_CONF_OK ||
                    bp_kip848_conf_apply(c, s->conf, s->errstr,
                                         s->errstr_size) != RD_KAFKA_CONF_OK)
                        return RD_KAFKA_CONF_INVALID;
                /* Held back: librdkafka would refuse it beside
                 * the assignment strategy set for the bucket;
                 * the client gets it at creation
                 * (bp_kip848_on_new()). */
                c->consumer->props.protocol = BP_PROTOCOL_CONSUMER_HELD;
                return RD_KAFKA_CONF_OK;
        }
        /* While held, the "classic" librdkafka keeps is also what
         * a copy of the configuration sets again (librdkafka++):
         * the choice stands. */
        if (s->consumer &&
            c->consumer->props.protocol == BP_PROTOCOL_CONSUMER_HELD &&
            s->value && !strcmp(s->value, "classic"))
                return RD_KAFKA_CONF_UNKNOWN;
        c->consumer->props.protocol =
            is_consumer ? BP_PROTOCOL_CONSUMER : BP_PROTOCOL_CLASSIC;
        return RD_KAFKA_CONF_UNKNOWN;
}

static rd_kafka_conf_res_t watch_remote_assignor(const conf_set_t *s) {
        s->c->consumer->props.remote_assignor_user_set =
            s->value && s->value[0];
        return RD_KAFKA_CONF_UNKNOWN;
}

static rd_kafka_conf_res_t watch_refresh(const conf_set_t *s) {
        s->c->consumer->props.refresh_user_set = 1;
        return RD_KAFKA_CONF_UNKNOWN;
}

/* Becoming a bucket consumer must not contradict earlier sets. */
static rd_kafka_conf_res_t watch_bucket(const conf_set_t *s) {
        bp_client_t *c = s->c;

        if (!s->value || !s->value[0])
                return RD_KAFKA_CONF_UNKNOWN;
        if (c->consumer->props.user_strategy[0] &&
            !is_roundrobin(c->consumer->props.user_strategy))
                return refuse_bucket(c, s->value, s->errstr, s->errstr_size);
        if (c->consumer->props.protocol != BP_PROTOCOL_CLASSIC &&
            bp_kip848_check(c, s->value, s->name, s->value, s->errstr,
                            s->errstr_size) != RD_KAFKA_CONF_OK)
                return RD_KAFKA_CONF_INVALID;
        return RD_KAFKA_CONF_UNKNOWN;
}

static const struct {
        const char *name;
        watch_fn_t *watch;
} watched[] = {
    {"group.id", watch_group_id},
    {"partition.assignment.strategy", watch_strategy},
    {"group.protocol", watch_protocol},
    {"group.remote.assignor", watch_remote_assignor},
    {"topic.metadata.refresh.interval.ms", watch_refresh},
    {BP_PROP_BUCKET, watch_bucket},
};

rd_kafka_conf_res_t bp_consumer_on_conf_set(bp_client_t *c,
                                            rd_kafka_conf_t *conf,
                                            const char *name,
                                            const char *value,
                                            char *errstr,
                                            size_t errstr_size) {
        conf_set_t s = {c,    conf,  c->cfg.consumer_bucket_cnt > 0,
                        name, value, errstr, errstr_size};
        size_t i;

        tuned_seen(c, name);
        for (i = 0; i < sizeof(watched) / sizeof(watched[0]); i++)
                if (!strcmp(name, watched[i].name))
                        return watched[i].watch(&s);
        return RD_KAFKA_CONF_UNKNOWN;
}

/* The classic protocol's properties for a bucket consumer: roundrobin,
 * which the mapping needs, and, where the property exists (librdkafka >=
 * 2.4), group.protocol=classic pinned, since librdkafka says its default
 * will become "consumer". */
static rd_kafka_conf_res_t classic_protocol(bp_client_t *c,
                                            rd_kafka_conf_t *conf,
                                            char *errstr,
                                            size_t errstr_size) {
        char val[16];

        if (bp_conf_set_own(c, conf, "partition.assignment.strategy",
                            "roundrobin", errstr,
                            errstr_size) != RD_KAFKA_CONF_OK ||
            (conf_text(conf, "group.protocol", val, sizeof(val)) &&
             bp_conf_set_own(c, conf, "group.protocol", "classic", errstr,
                             errstr_size) != RD_KAFKA_CONF_OK))
                return RD_KAFKA_CONF_INVALID;
        return RD_KAFKA_CONF_OK;
}

static void update_mask(bp_client_t *c) {
        int k;
        c->consumer->props.consumer_mask = 0;
        if (c->cfg.bucket_cnt == 0)
                return;
        for (k = 0; k < c->cfg.consumer_bucket_cnt; k++)
                c->consumer->props.consumer_mask |=
                    1ull << c->cfg.consumer_buckets[k];
}

rd_kafka_conf_res_t bp_consumer_after_conf_set(bp_client_t *c,
                                               rd_kafka_conf_t *conf,
                                               const char *name,
                                               char *errstr,
                                               size_t errstr_size) {
        void *cb;

        update_mask(c);
        if (!strcmp(name, BP_PROP_TOPIC) && c->cfg.topic_set &&
            !c->consumer->props.refresh_user_set &&
            bp_conf_set_own(c, conf, "topic.metadata.refresh.interval.ms",
                            BP_METADATA_REFRESH_MS_TEXT, errstr,
                            errstr_size) != RD_KAFKA_CONF_OK)
                return RD_KAFKA_CONF_INVALID;

        if (!strcmp(name, BP_PROP_SCHEDULE)) {
                tuned_apply(c, conf); /* the fetch wait of the schedule */
                return RD_KAFKA_CONF_OK;
        }
        if (strcmp(name, BP_PROP_BUCKET) && strcmp(name, BP_PROP_GROUP_PER_BUCKET))
                return RD_KAFKA_CONF_OK;
        if (c->cfg.consumer_bucket_cnt > 0) {
                if ((c->consumer->props.protocol != BP_PROTOCOL_CLASSIC
                         ? bp_kip848_conf_apply(c, conf, errstr, errstr_size)
                         : classic_protocol(c, conf, errstr, errstr_size)) !=
                    RD_KAFKA_CONF_OK)
                        return RD_KAFKA_CONF_INVALID;
                cb = bp_conf_pointer(conf, "rebalance_cb");
                if (!cb || cb == (void *)bp_rebalance_cb)
                        rd_kafka_conf_set_rebalance_cb(conf, bp_rebalance_cb);
        }
        tuned_apply(c, conf); /* a list: fetch queue backoff */
        return apply_group(c, conf, errstr, errstr_size);
}
