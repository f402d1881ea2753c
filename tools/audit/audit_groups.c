/*
 * audit_groups.c - bp-audit's look at the bucket groups on the cluster:
 * listing the groups of several buckets, describing each group (members
 * and what the group gave them, its protocol, waiting out a coordinator
 * that is not ready; consumer protocol groups a librdkafka before 2.10
 * cannot see told from groups that do not exist), then their committed
 * offsets (audit_cluster.c).
 */
#include "audit_groups.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit_classify.h"
#include "audit_kip848.h"
#include "bp_clock.h"
#include "bp_config.h"
#include "bp_list.h"

#define MAX_GROUPS 256

static rd_kafka_AdminOptions_t *options(audit_cluster_t *c,
                                        rd_kafka_admin_op_t op) {
        rd_kafka_AdminOptions_t *o = rd_kafka_AdminOptions_new(c->admin, op);
        char e[256];
        rd_kafka_AdminOptions_set_request_timeout(o, c->timeout_ms, e,
                                                  sizeof(e));
        return o;
}

/* Waits for the result event of \p type of an Admin request on \p q.
 * NULL when the request failed or got no answer in time, after recording
 * the finding "<what>: <why>" (the check \p what names is then not done). */
static rd_kafka_event_t *admin_result(audit_cluster_t *c, audit_t *a,
                                      rd_kafka_queue_t *q, int type,
                                      const char *what) {
        rd_kafka_event_t *ev;
        while ((ev = rd_kafka_queue_poll(q, c->timeout_ms + 1000))) {
                if (rd_kafka_event_type(ev) == type)
                        break;
                rd_kafka_event_destroy(ev);
        }
        if (!ev)
                c->abandoned = 1;
        else if (!rd_kafka_event_error(ev))
                return ev;
        audit_add_finding(a, AUDIT_F_UNCHECKED, -1, -1, -1, -1, 0, "%s: %s",
                          what,
                          ev ? rd_kafka_event_error_string(ev)
                             : "no answer within the timeout");
        if (ev)
                rd_kafka_event_destroy(ev);
        return NULL;
}

/* The buckets named by "b1+b2+..." (the suffix of a multi-bucket group),
 * or 0 if it names anything else. */
static int parse_bucket_suffix(const bp_config_t *cfg, const char *s,
                               int *buckets) {
        int n = 0;
        while (*s) {
                const char *plus = strchr(s, '+');
                size_t len       = plus ? (size_t)(plus - s) : strlen(s);
                int b            = bp_config_find_bucket(cfg, s, len);
                if (b < 0 || n == BP_MAX_BUCKETS)
                        return 0;
                buckets[n++] = b;
                if (!plus)
                        break;
                s = plus + 1;
        }
        return n;
}

static int has_group(const audit_t *a, const char *name) {
        int g;
        for (g = 0; g < a->group_cnt; g++)
                if (!strcmp(a->groups[g].name, name))
                        return 1;
        return 0;
}

/* Lists the cluster's groups: the result event, or NULL after recording
 * the finding "<what>: <why>" (and, when the cluster cannot list groups,
 * setting c->no_groups_api). */
static rd_kafka_event_t *list_groups(audit_cluster_t *c, audit_t *a,
                                     rd_kafka_queue_t *q, const char *what) {
        rd_kafka_AdminOptions_t *o =
            options(c, RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPS);
        const rd_kafka_error_t **errs;
        rd_kafka_event_t *ev;
        size_t i, cnt;

        rd_kafka_ListConsumerGroups(c->admin, o, q);
        rd_kafka_AdminOptions_destroy(o);
        ev = admin_result(c, a, q, RD_KAFKA_EVENT_LISTCONSUMERGROUPS_RESULT,
                          what);
        if (!ev)
                return NULL;
        errs = rd_kafka_ListConsumerGroups_result_errors(
            rd_kafka_event_ListConsumerGroups_result(ev), &cnt);
        for (i = 0; i < cnt; i++)
                if (rd_kafka_error_code(errs[i]) ==
                    RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE) {
                        /* No ListGroups: no DescribeGroups either (the
                         * mock cluster); asking anyway makes librdkafka
                         * 2.0.2 abort. */
                        c->no_groups_api = 1;
                        audit_add_finding(
                            a, AUDIT_F_UNCHECKED, -1, -1, -1, -1, 0,
                            "ownership not checked: the cluster does not "
                            "support listing or describing groups: %s",
                            rd_kafka_error_string(errs[i]));
                        rd_kafka_event_destroy(ev);
                        return NULL;
                }
        return ev;
}

static const rd_kafka_ConsumerGroupListing_t **
listed(rd_kafka_event_t *ev, size_t *cnt) {
        return rd_kafka_ListConsumerGroups_result_valid(
            rd_kafka_event_ListConsumerGroups_result(ev), cnt);
}

/* The groups of several buckets ("<base>.<b1>+<b2>"), from a listing. */
static void list_multi_groups(audit_cluster_t *c, audit_t *a,
                              rd_kafka_queue_t *q) {
        const rd_kafka_ConsumerGroupListing_t **l;
        rd_kafka_event_t *ev;
        size_t i, cnt, base = strlen(a->base_group);
        int buckets[BP_MAX_BUCKETS], n;

        ev = list_groups(c, a, q,
                         "groups of several buckets not looked for: "
                         "listing groups failed");
        if (!ev)
                return;
        l = listed(ev, &cnt);
        for (i = 0; i < cnt && a->group_cnt < MAX_GROUPS; i++) {
                const char *id = rd_kafka_ConsumerGroupListing_group_id(l[i]);
                if (strncmp(id, a->base_group, base) || id[base] != '.' ||
                    has_group(a, id))
                        continue;
                n = parse_bucket_suffix(a->cfg, id + base + 1, buckets);
                if (n > 0)
                        audit_add_group(a, id, buckets, n);
        }
        rd_kafka_event_destroy(ev);
}

/* A librdkafka before 2.10 describes a consumer protocol (KIP-848) group
 * as "Dead" with no member, like a group that does not exist: the listing
 * tells them apart (audit_group_hidden()). Asked only when such a group
 * was described. */
static void find_hidden_groups(audit_cluster_t *c, audit_t *a,
                               rd_kafka_queue_t *q) {
        const rd_kafka_ConsumerGroupListing_t **l;
        rd_kafka_event_t *ev;
        size_t i, cnt;
        int g, dead = 0;

        if (audit_kip848_describable())
                return;
        for (g = 0; g < a->group_cnt; g++)
                dead |= a->groups[g].described &&
                        !a->groups[g].member_cnt &&
                        !strcmp(a->groups[g].state, "Dead");
        if (!dead || !(ev = list_groups(c, a, q,
                                        "groups described as Dead not "
                                        "told from consumer protocol "
                                        "groups: listing groups failed")))
                return;
        l = listed(ev, &cnt);
        for (g = 0; g < a->group_cnt; g++)
                for (i = 0; i < cnt; i++)
                        if (!strcmp(rd_kafka_ConsumerGroupListing_group_id(
                                        l[i]),
                                    a->groups[g].name))
                                audit_group_hidden(
                                    a, g,
                                    rd_kafka_consumer_group_state_name(
                                        rd_kafka_ConsumerGroupListing_state(
                                            l[i])),
                                    rd_kafka_version_str());
        rd_kafka_event_destroy(ev);
}

static int cmp_int32(const void *x, const void *y) {
        int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
        return (a > b) - (a < b);
}

/* The partitions of the audited topic in \p tp, sorted, into a new array
 * (*n of them; NULL when none or out of memory). */
static int32_t *topic_partitions(const audit_t *a,
                                 const rd_kafka_topic_partition_list_t *tp,
                                 int *n) {
        int32_t *idx = NULL;
        int i;

        *n = 0;
        if (tp && tp->cnt > 0)
                idx = malloc((size_t)tp->cnt * sizeof(*idx));
        for (i = 0; idx && i < tp->cnt; i++)
                if (!strcmp(tp->elems[i].topic, a->cfg->topic))
                        idx[(*n)++] = tp->elems[i].partition;
        if (*n > 1)
                qsort(idx, (size_t)*n, sizeof(*idx), cmp_int32);
        return idx;
}

static void read_member(audit_t *a, int g,
                        const rd_kafka_MemberDescription_t *m) {
        const rd_kafka_topic_partition_list_t *target;
        audit_member_t *mem;
        int32_t *idx;
        int n;

        idx = topic_partitions(
            a,
            rd_kafka_MemberAssignment_partitions(
                rd_kafka_MemberDescription_assignment(m)),
            &n);
        mem = audit_add_member(a, g, rd_kafka_MemberDescription_consumer_id(m),
                               rd_kafka_MemberDescription_client_id(m),
                               rd_kafka_MemberDescription_host(m), idx, n);
        free(idx);
        if (!mem || a->groups[g].type != AUDIT_GROUP_TYPE_CONSUMER ||
            !(target = audit_kip848_member_target(m)))
                return;
        idx = topic_partitions(a, target, &n);
        audit_member_set_target(mem, idx, n);
        free(idx);
}

/* 1 for the answers of a group coordinator that is not ready yet (a
 * broker that has just started, or a coordinator that moved): worth
 * asking again. */
static int coordinator_not_ready(const rd_kafka_error_t *e) {
        rd_kafka_resp_err_t code = e ? rd_kafka_error_code(e) : 0;
        return code == RD_KAFKA_RESP_ERR_NOT_COORDINATOR ||
               code == RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS ||
               code == RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE;
}

/* One group per request: librdkafka 2.0.2 asserts (and aborts) when a
 * request for several groups fails as unsupported (the mock cluster).
 * Returns 1 when the group's coordinator was not ready and \p may_retry
 * allows asking again (nothing recorded then), else 0. */
static int describe_group_once(audit_cluster_t *c, audit_t *a, int one,
                               rd_kafka_queue_t *q, int may_retry) {
        const char *names[1] = {a->groups[one].name};
        const rd_kafka_ConsumerGroupDescription_t **d;
        rd_kafka_AdminOptions_t *o =
            options(c, RD_KAFKA_ADMIN_OP_DESCRIBECONSUMERGROUPS);
        rd_kafka_event_t *ev;
        char what[sizeof(a->groups->name) + 64];
        size_t i, cnt, m;
        int g, retry = 0;

        rd_kafka_DescribeConsumerGroups(c->admin, names, 1, o, q);
        rd_kafka_AdminOptions_destroy(o);
        snprintf(what, sizeof(what),
                 "ownership of %s not checked: describing the group failed",
                 a->groups[one].name);
        ev = admin_result(c, a, q,
                          RD_KAFKA_EVENT_DESCRIBECONSUMERGROUPS_RESULT, what);
        if (!ev)
                return 0;
        d = rd_kafka_DescribeConsumerGroups_result_groups(
            rd_kafka_event_DescribeConsumerGroups_result(ev), &cnt);
        for (i = 0; i < cnt; i++) {
                const char *id = rd_kafka_ConsumerGroupDescription_group_id(d[i]);
                const rd_kafka_error_t *e =
                    rd_kafka_ConsumerGroupDescription_error(d[i]);
                for (g = 0; g < a->group_cnt; g++)
                        if (!strcmp(a->groups[g].name, id))
                                break;
                if (g == a->group_cnt)
                        continue;
                if (e && may_retry && coordinator_not_ready(e)) {
                        retry = 1;
                        continue;
                }
                if (e) {
                        audit_add_finding(a, AUDIT_F_UNCHECKED, -1, -1, g, -1,
                                          0,
                                          "group %s not described: %s", id,
                                          rd_kafka_error_string(e));
                        continue;
                }
                a->groups[g].described = 1;
                snprintf(a->groups[g].state, sizeof(a->groups[g].state), "%s",
                         rd_kafka_consumer_group_state_name(
                             rd_kafka_ConsumerGroupDescription_state(d[i])));
                a->groups[g].type = audit_kip848_group_type(d[i]);
                for (m = 0;
                     m < rd_kafka_ConsumerGroupDescription_member_count(d[i]);
                     m++)
                        read_member(a, g,
                                    rd_kafka_ConsumerGroupDescription_member(
                                        d[i], (int)m));
        }
        rd_kafka_event_destroy(ev);
        return retry;
}

/* Describes group \p one, asking again every half second while its
 * coordinator is not ready, up to the timeout. */
static void describe_group(audit_cluster_t *c, audit_t *a, int one,
                           rd_kafka_queue_t *q) {
        int64_t deadline = bp_clock_ms() + c->timeout_ms;
        while (describe_group_once(c, a, one, q, bp_clock_ms() < deadline))
                usleep(500 * 1000);
}

void audit_cluster_groups(audit_cluster_t *c, audit_t *a) {
        const bp_config_t *cfg = a->cfg;
        rd_kafka_queue_t *q;
        char name[512], e[512];
        int b, g;

        if (!a->base_group[0]) {
                audit_add_finding(a, AUDIT_F_UNCHECKED, -1, -1, -1, -1, 0,
                                  "ownership and lag not checked: group.id "
                                  "is not set (in --config or --group)");
                return;
        }
        if (!cfg->group_per_bucket) {
                if (cfg->consumer_bucket_cnt > 0)
                        audit_add_group(a, a->base_group,
                                        cfg->consumer_buckets,
                                        cfg->consumer_bucket_cnt);
        } else {
                for (b = 0; b < cfg->bucket_cnt; b++) {
                        snprintf(name, sizeof(name), "%s.%s", a->base_group,
                                 cfg->buckets[b].name);
                        audit_add_group(a, name, &b, 1);
                }
        }
        /* A client of its own for each round of group requests: one the
         * cluster leaves unanswered (the mock cluster has no DescribeGroups)
         * wedges the client that sent it, even rd_kafka_destroy(); such a
         * client is left to the process's exit, the audit goes on. */
        c->admin = rd_kafka_new(RD_KAFKA_PRODUCER, rd_kafka_conf_dup(c->conf),
                                e, sizeof(e));
        if (!c->admin) {
                audit_add_finding(a, AUDIT_F_UNCHECKED, -1, -1, -1, -1, 0,
                                  "ownership and lag not checked: %s", e);
                return;
        }
        c->abandoned = 0;
        q = rd_kafka_queue_new(c->admin);
        c->no_groups_api = 0;
        if (cfg->group_per_bucket)
                list_multi_groups(c, a, q);
        for (g = 0; g < a->group_cnt && !c->abandoned && !c->no_groups_api;
             g++)
                describe_group(c, a, g, q);
        if (!c->abandoned && !c->no_groups_api)
                find_hidden_groups(c, a, q);
        for (g = 0; g < a->group_cnt; g++)
                audit_cluster_read_offsets(c, a, g, a->groups[g].committed);
        if (!c->abandoned) {
                rd_kafka_queue_destroy(q);
                rd_kafka_destroy(c->admin);
        }
        c->admin = NULL;
}
