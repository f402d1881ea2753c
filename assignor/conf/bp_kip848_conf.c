/*
 * bp_kip848_conf.c - a bucket consumer's configuration on the next
 * generation consumer group protocol (see bp_conf.h).
 */
#include <stdio.h>
#include <string.h>

#include "bucket_priority.h"
#include "bp_escape.h"
#include "bp_properties.h"
#include "bp_consumer_side.h"
#include "bp_conf.h"

rd_kafka_conf_res_t bp_kip848_check(const bp_client_t *c,
                                    const char *bucket_value,
                                    const char *name,
                                    const char *value,
                                    char *errstr,
                                    size_t errstr_size) {
        char shown[BP_SHOWN_VALUE_SIZE];

        (void)c; /* one bucket or several: only the library decides */
        (void)bucket_value;
        if (rd_kafka_version() < BP_KIP848_MIN_VERSION) {
                snprintf(errstr, errstr_size,
                         "%s: invalid value \"%s\" for a bucket consumer: "
                         "group.protocol=consumer (KIP-848) needs "
                         "librdkafka 2.12 or later, and this client runs "
                         "librdkafka %s; use group.protocol=classic (the "
                         "default) or a newer librdkafka",
                         name, bp_shown_value(value, shown),
                         rd_kafka_version_str());
                return RD_KAFKA_CONF_INVALID;
        }
        return RD_KAFKA_CONF_OK;
}

rd_kafka_conf_res_t bp_kip848_conf_apply(bp_client_t *c,
                                         rd_kafka_conf_t *conf,
                                         char *errstr,
                                         size_t errstr_size) {
        if (c->consumer->props.remote_assignor_user_set)
                return RD_KAFKA_CONF_OK;
        return bp_conf_set_own(c, conf, "group.remote.assignor",
                               BP_KIP848_ASSIGNOR, errstr, errstr_size);
}

static void conf_text(const rd_kafka_conf_t *conf, const char *name,
                      char *buf, size_t size) {
        size_t sz = size;
        if (rd_kafka_conf_get(conf, name, buf, &sz) != RD_KAFKA_CONF_OK)
                buf[0] = '\0';
}

void bp_kip848_on_new(bp_client_t *c, const rd_kafka_conf_t *conf) {
        char val[64], errstr[256];

        if (bp_kip848_check(c, NULL, "group.protocol", "consumer", errstr,
                            sizeof(errstr)) != RD_KAFKA_CONF_OK) {
                bp_client_log(c, 3, "%s", errstr); /* checked when set */
                return;
        }
        /* Set after the bucket, the protocol was held back: librdkafka
         * refuses group.protocol=consumer beside the
         * partition.assignment.strategy the plugin set for the classic
         * protocol, a check it makes before on_new(). The group is made
         * after on_new(), from this live copy. */
        conf_text(conf, "group.protocol", val, sizeof(val));
        if (strcmp(val, "consumer") &&
            bp_conf_set_own(c, (rd_kafka_conf_t *)conf, "group.protocol",
                            "consumer", errstr,
                            sizeof(errstr)) != RD_KAFKA_CONF_OK) {
                bp_client_log(c, 3,
                              "cannot switch to group.protocol=consumer "
                              "(%s): this consumer uses the classic protocol",
                              errstr);
                return;
        }
        c->consumer->run.mode = BP_CONSUMER_KIP848;

        conf_text(conf, "group.remote.assignor", val, sizeof(val));
        if (strcmp(val, BP_KIP848_ASSIGNOR))
                bp_client_log(
                    c, 4,
                    "group.remote.assignor is \"%s\": the broker's uniform "
                    "assignor (its default) is sticky, so the partitions "
                    "of bucket \"%s\" can end up 2 to 4 apart between the "
                    "members of its group (measured on Kafka 4.4), where "
                    "\"range\" keeps them within 1; leave it unset "
                    "(docs/consumer.md)",
                    val[0] ? val : "(broker default)",
                    c->cfg.consumer_bucket_text);
        if (c->cfg.layout == BP_LAYOUT_CONTIGUOUS)
                bp_client_log(
                    c, 4,
                    "bucket.priority.layout is \"contiguous\" with "
                    "group.protocol=consumer: the broker hands out the "
                    "topic's partitions in blocks, so all partitions of "
                    "bucket \"%s\" may land on one member of its group "
                    "(measured: up to 10 of 48) while the others read "
                    "nothing; use bucket.priority.layout=stable "
                    "(docs/consumer.md)",
                    c->cfg.consumer_bucket_text);
}
