/*
 * bp_migrate.c - recognises a classic bucket consumer's group converted to
 * a consumer group by the broker (see bp_migrate.h).
 */
#include <stdio.h>
#include <string.h>

#include "../include/bucket_priority.h"
#include "bp_consumer_side.h"
#include "bp_migrate.h"
#include "bp_offsets.h"

/* The group's type as librdkafka 2.10+ reports it (rdkafka.h's
 * rd_kafka_consumer_group_type_t). */
enum { TYPE_CONSUMER = 1, TYPE_CLASSIC = 2 };

static bp_group_kind_t
kind_of(const rd_kafka_ConsumerGroupDescription_t *g) {
        const rd_kafka_error_t *e = rd_kafka_ConsumerGroupDescription_error(g);

        if (e && rd_kafka_error_code(e))
                return BP_GROUP_UNKNOWN;
        if (rd_kafka_ConsumerGroupDescription_type) {
                switch ((int)rd_kafka_ConsumerGroupDescription_type(g)) {
                case TYPE_CONSUMER:
                        return BP_GROUP_CONSUMER;
                case TYPE_CLASSIC:
                        return BP_GROUP_CLASSIC;
                default:
                        return BP_GROUP_UNKNOWN;
                }
        }
        /* Described by DescribeGroups: a consumer group is "Dead" there. */
        return rd_kafka_ConsumerGroupDescription_state(g) ==
                       RD_KAFKA_CONSUMER_GROUP_STATE_DEAD
                   ? BP_GROUP_CONSUMER
                   : BP_GROUP_CLASSIC;
}

bp_group_kind_t bp_migrate_group_kind(bp_client_t *c, rd_kafka_t *rk,
                                      int timeout_ms) {
        char group[512], errstr[256];
        size_t size = sizeof(group), n = 0, i;
        const char *groups[1] = {group};
        const rd_kafka_ConsumerGroupDescription_t **descs;
        const rd_kafka_DescribeConsumerGroups_result_t *res;
        rd_kafka_AdminOptions_t *opts;
        rd_kafka_queue_t *q;
        rd_kafka_event_t *ev;
        bp_group_kind_t kind = BP_GROUP_UNKNOWN;

        if (rd_kafka_conf_get(rd_kafka_conf(rk), "group.id", group, &size) !=
                RD_KAFKA_CONF_OK ||
            !group[0])
                return BP_GROUP_UNKNOWN;
        q    = rd_kafka_queue_new(rk);
        opts = rd_kafka_AdminOptions_new(
            rk, RD_KAFKA_ADMIN_OP_DESCRIBECONSUMERGROUPS);
        if (!q || !opts) {
                if (opts)
                        rd_kafka_AdminOptions_destroy(opts);
                if (q)
                        rd_kafka_queue_destroy(q);
                return BP_GROUP_UNKNOWN;
        }
        rd_kafka_AdminOptions_set_request_timeout(opts, timeout_ms, errstr,
                                                  sizeof(errstr));
        rd_kafka_DescribeConsumerGroups(rk, groups, 1, opts, q);
        /* Its own timeout ends the request; this wait only bounds it. */
        ev = rd_kafka_queue_poll(q, timeout_ms + 1000);
        if (ev && !rd_kafka_event_error(ev) &&
            (res = rd_kafka_event_DescribeConsumerGroups_result(ev))) {
                descs = rd_kafka_DescribeConsumerGroups_result_groups(res, &n);
                for (i = 0; i < n; i++)
                        kind = kind_of(descs[i]);
        }
        if (!ev || kind == BP_GROUP_UNKNOWN)
                bp_client_log(c, 4,
                              "cannot tell whether group \"%s\" is a "
                              "classic or a consumer group (%s)",
                              group,
                              !ev ? "no answer"
                              : rd_kafka_event_error(ev)
                                  ? rd_kafka_err2str(rd_kafka_event_error(ev))
                                  : "the broker's answer names no type");
        if (ev)
                rd_kafka_event_destroy(ev);
        rd_kafka_AdminOptions_destroy(opts);
        rd_kafka_queue_destroy(q);
        return kind;
}

static int has_bucket_topic(const bp_client_t *c,
                            const rd_kafka_topic_partition_list_t *list) {
        int i;
        for (i = 0; c->cfg.topic_set && list && i < list->cnt; i++)
                if (!strcmp(list->elems[i].topic, c->cfg.topic))
                        return 1;
        return 0;
}

int bp_migrate_at_assign(bp_client_t *c, rd_kafka_t *rk,
                         const rd_kafka_topic_partition_list_t *partitions) {
        bp_group_kind_t kind;
        int was = c->consumer->converted;

        if (c->consumer->kip848 || c->cfg.consumer_bucket_cnt == 0 ||
            c->mode != BP_MODE_ACTIVE || !has_bucket_topic(c, partitions))
                return 0;
        kind = bp_migrate_group_kind(c, rk, BP_REBALANCE_TIMEOUT_MS / 2);
        if (kind == BP_GROUP_UNKNOWN)
                return was; /* logged; the last answer stands */
        c->consumer->converted = kind == BP_GROUP_CONSUMER;
        if (c->consumer->converted != was)
                bp_client_log(
                    c, 5,
                    c->consumer->converted
                        ? "group of bucket \"%s\" is a consumer group now "
                          "(a member uses group.protocol=consumer): this "
                          "classic member keeps the partitions the broker "
                          "assigns and pauses those outside its bucket"
                        : "group of bucket \"%s\" is a classic group again: "
                          "this member maps its assignment as indexes",
                    c->cfg.consumer_bucket_text);
        return c->consumer->converted;
}
