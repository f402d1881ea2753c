/*
 * bp_migrate.c - recognises a classic bucket consumer's group converted to
 * a consumer group by the broker (see bp_strategy.h).
 */
#include <stdio.h>
#include <string.h>

#include "bucket_priority.h"
#include "bp_consumer_side.h"
#include "bp_strategy.h"

/* The group's type as librdkafka 2.10+ reports it (rdkafka.h's
 * rd_kafka_consumer_group_type_t). */
enum { TYPE_CONSUMER = 1, TYPE_CLASSIC = 2 };

/* The kind of group \p g is; *unsupported set when the broker cannot
 * describe it to this client. */
static bp_group_kind_t
kind_of(const rd_kafka_ConsumerGroupDescription_t *g, int *unsupported) {
        const rd_kafka_error_t *e = rd_kafka_ConsumerGroupDescription_error(g);

        if (e && rd_kafka_error_code(e)) {
                *unsupported = rd_kafka_error_code(e) ==
                               RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE;
                return BP_GROUP_UNKNOWN;
        }
        switch ((int)rd_kafka_ConsumerGroupDescription_type(g)) {
        case TYPE_CONSUMER:
                return BP_GROUP_CONSUMER;
        case TYPE_CLASSIC:
                return BP_GROUP_CLASSIC;
        default:
                return BP_GROUP_UNKNOWN;
        }
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
        int unsupported = 0;

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
                        kind = kind_of(descs[i], &unsupported);
        }
        if (!ev || unsupported) {
                c->consumer->run.mode = BP_CONSUMER_CLASSIC_UNASKED;
                /* A cluster that cannot describe groups (librdkafka's
                 * mock cluster; brokers before KIP-848) is informed of,
                 * not warned about: no answer at all is a warning. */
                bp_client_log(c, ev ? 6 : 4,
                              "the cluster does not describe group \"%s\" "
                              "to this client (%s): a migration of the "
                              "group to group.protocol=consumer would not "
                              "be recognised, and this classic member "
                              "maps its assignments as indexes "
                              "(docs/consumer.md)",
                              group, ev ? "unsupported" : "no answer");
        } else if (kind == BP_GROUP_UNKNOWN) {
                bp_client_log(c, 4,
                              "cannot tell whether group \"%s\" is a "
                              "classic or a consumer group (%s); the last "
                              "answer stands",
                              group,
                              rd_kafka_event_error(ev)
                                  ? rd_kafka_err2str(rd_kafka_event_error(ev))
                                  : "no type in the answer");
        }
        if (ev)
                rd_kafka_event_destroy(ev);
        rd_kafka_AdminOptions_destroy(opts);
        rd_kafka_queue_destroy(q);
        return kind;
}

/* Whether the consumer is a member of its group now (a list handed to
 * bp_assignment_map() by a consumer that never joined is not). */
static int is_member(rd_kafka_t *rk) {
        char *id = rd_kafka_memberid(rk);
        int yes  = id && id[0];

        if (id)
                rd_kafka_mem_free(rk, id);
        return yes;
}

int bp_migrate_group_converted(bp_client_t *c, rd_kafka_t *rk) {
        bp_consumer_run_t *run = &c->consumer->run;
        int was = run->mode == BP_CONSUMER_CONVERTED, now;
        bp_group_kind_t kind;

        /* Before librdkafka 2.10 (no group type) not asked: see
         * bp_strategy.h. */
        if (!rd_kafka_ConsumerGroupDescription_type ||
            run->mode == BP_CONSUMER_KIP848 ||
            run->mode == BP_CONSUMER_CLASSIC_UNASKED ||
            c->cfg.consumer_bucket_cnt == 0 || c->mode != BP_MODE_ACTIVE ||
            !is_member(rk))
                return 0;
        kind = bp_migrate_group_kind(c, rk, BP_MIGRATE_TIMEOUT_MS);
        if (kind == BP_GROUP_UNKNOWN)
                return was; /* logged; the last answer stands */
        now       = kind == BP_GROUP_CONSUMER;
        run->mode = now ? BP_CONSUMER_CONVERTED : BP_CONSUMER_CLASSIC;
        if (now != was)
                bp_client_log(
                    c, 5,
                    now ? "group of bucket \"%s\" is a consumer group now "
                          "(a member uses group.protocol=consumer): this "
                          "classic member keeps the partitions the broker "
                          "assigns and pauses those outside its bucket"
                        : "group of bucket \"%s\" is a classic group again: "
                          "this member maps its assignment as indexes",
                    c->cfg.consumer_bucket_text);
        return now;
}
