/*
 * bp_migrate.c - recognises a classic bucket consumer's group converted to
 * a consumer group by the broker (see bp_strategy.h).
 */
#include <stdio.h>
#include <string.h>

#include "bucket_priority.h"
#include "bp_consumer_side.h"
#include "bp_strategy.h"

/* Why the question goes to every broker (ListConsumerGroups) and not to the
 * group's coordinator (DescribeConsumerGroups): librdkafka's admin requests
 * sent to a coordinator can abort the whole process with
 * "rd_kafka_enq_once_del_source_return: Assertion `eonce->refcnt > 0'"
 * when the coordinator goes away around the request (librdkafka #4605,
 * #3663). A classic member asked from its rebalance callback, and the
 * rebalance after a broker restart is exactly that moment: on Kafka 4.4
 * with librdkafka 2.15.1 the broker suite's broker_restart lost two bucket
 * consumers to it (one run in three). The broker-addressed list takes
 * another path through librdkafka and is filtered by the brokers to the
 * consumer groups (ListGroups v5), so it stays short where the cluster's
 * groups are classic. */

/* The kind of group \p group as the answer \p res says: a consumer group
 * if listed as one, classic if absent from a complete answer.
 * *unsupported set when the brokers cannot tell types apart; *why points
 * at a broker's error when the answer is incomplete. */
static bp_group_kind_t
kind_listed(const rd_kafka_ListConsumerGroups_result_t *res,
            const char *group, int *unsupported, const char **why) {
        const rd_kafka_ConsumerGroupListing_t **listed;
        const rd_kafka_error_t **errors;
        size_t n = 0, n_errors = 0, i;

        listed = rd_kafka_ListConsumerGroups_result_valid(res, &n);
        for (i = 0; i < n; i++) {
                if (strcmp(rd_kafka_ConsumerGroupListing_group_id(listed[i]),
                           group))
                        continue;
                switch (rd_kafka_ConsumerGroupListing_type(listed[i])) {
                case RD_KAFKA_CONSUMER_GROUP_TYPE_CONSUMER:
                        return BP_GROUP_CONSUMER;
                case RD_KAFKA_CONSUMER_GROUP_TYPE_UNKNOWN:
                        /* a broker before ListGroups v5 ignores the type
                         * filter and reports no type */
                        *unsupported = 1;
                        return BP_GROUP_UNKNOWN;
                default:
                        return BP_GROUP_CLASSIC;
                }
        }
        errors = rd_kafka_ListConsumerGroups_result_errors(res, &n_errors);
        if (n_errors)
                *why = rd_kafka_error_string(errors[0]);
        for (i = 0; i < n_errors; i++)
                if (rd_kafka_error_code(errors[i]) ==
                    RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE)
                        *unsupported = 1;
        /* absent: classic, unless a broker that did not answer coordinates
         * it */
        return n_errors ? BP_GROUP_UNKNOWN : BP_GROUP_CLASSIC;
}

/* Lists the consumer groups (only those: the type filter) into \p q. */
static int list_consumer_groups(rd_kafka_t *rk, rd_kafka_queue_t *q,
                                int timeout_ms) {
        static const rd_kafka_consumer_group_type_t consumer[] = {
            RD_KAFKA_CONSUMER_GROUP_TYPE_CONSUMER};
        char errstr[256];
        rd_kafka_AdminOptions_t *opts = rd_kafka_AdminOptions_new(
            rk, RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPS);
        rd_kafka_error_t *err;

        if (!opts)
                return -1;
        rd_kafka_AdminOptions_set_request_timeout(opts, timeout_ms, errstr,
                                                  sizeof(errstr));
        if ((err = rd_kafka_AdminOptions_set_match_consumer_group_types(
                 opts, consumer, 1))) {
                rd_kafka_error_destroy(err);
                rd_kafka_AdminOptions_destroy(opts);
                return -1;
        }
        rd_kafka_ListConsumerGroups(rk, opts, q);
        rd_kafka_AdminOptions_destroy(opts);
        return 0;
}

bp_group_kind_t bp_migrate_group_kind(bp_client_t *c, rd_kafka_t *rk,
                                      int timeout_ms) {
        char group[512];
        size_t size = sizeof(group);
        const rd_kafka_ListConsumerGroups_result_t *res = NULL;
        rd_kafka_queue_t *q;
        rd_kafka_event_t *ev = NULL;
        bp_group_kind_t kind = BP_GROUP_UNKNOWN;
        int unsupported      = 0;
        const char *why      = "no answer";

        if (rd_kafka_conf_get(rd_kafka_conf(rk), "group.id", group, &size) !=
                RD_KAFKA_CONF_OK ||
            !group[0] || !(q = rd_kafka_queue_new(rk)))
                return BP_GROUP_UNKNOWN;
        if (list_consumer_groups(rk, q, timeout_ms) == 0)
                /* Its own timeout ends the request; this wait bounds it. */
                ev = rd_kafka_queue_poll(q, timeout_ms + 1000);
        if (ev && rd_kafka_event_error(ev) ==
                      RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE)
                unsupported = 1;
        else if (ev && !rd_kafka_event_error(ev) &&
                 (res = rd_kafka_event_ListConsumerGroups_result(ev)))
                kind = kind_listed(res, group, &unsupported, &why);
        if (!ev || unsupported) {
                c->consumer->run.mode = BP_CONSUMER_CLASSIC_UNASKED;
                /* A cluster that cannot tell group types apart (librdkafka's
                 * mock cluster; brokers before KIP-848) is informed of,
                 * not warned about: no answer at all is a warning. */
                bp_client_log(c, ev ? 6 : 4,
                              "the cluster does not tell this client the "
                              "type of group \"%s\" (%s): a migration of the "
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
                                  ? rd_kafka_event_error_string(ev)
                                  : why);
        }
        if (ev)
                rd_kafka_event_destroy(ev);
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
        if (!rd_kafka_ConsumerGroupListing_type ||
            !rd_kafka_AdminOptions_set_match_consumer_group_types ||
            rd_kafka_version() < 0x020a0000 ||
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
