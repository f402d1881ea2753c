/*
 * audit_model.c - setting up and freeing bp-audit's picture of a topic,
 * and the list of findings.
 */
#include "audit_model.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Above this partition count the buckets' past ownership (contiguous
 * layout) is not computed: the cost grows with its square. */
#define AUDIT_HISTORY_MAX 4096

static const char *finding_names[AUDIT_F__CNT] = {
    "misrouted",   "no_consumer",  "unread_partition", "double_read",
    "not_bucket_consumer", "idle_member", "stale_commit",
    "foreign_commit", "unknown_keys", "unchecked", "step_misplaced",
    "step_reader", "wait"};

const char *audit_finding_name(audit_finding_kind_t kind) {
        return (unsigned)kind < AUDIT_F__CNT ? finding_names[kind] : "?";
}

int audit_finding_is_fault(audit_finding_kind_t kind) {
        return kind <= AUDIT_F_NOT_BUCKET || kind == AUDIT_F_STEP_MISPLACED ||
               kind == AUDIT_F_STEP_READER;
}

int audit_exit_status(const audit_t *a) {
        int i, wait = 0, unchecked = 0;
        for (i = 0; i < a->finding_cnt; i++) {
                if (audit_finding_is_fault(a->findings[i].kind))
                        return 1;
                wait |= a->findings[i].kind == AUDIT_F_WAIT;
                unchecked |= a->findings[i].kind == AUDIT_F_UNCHECKED;
        }
        return wait ? 4 : unchecked ? 3 : 0;
}

/* Sets bit b of owners[p] for the bucket b that owns partition p when the
 * topic has \p partition_cnt partitions. 0, or -1 with \p err set. */
static int add_owners(const bp_config_t *cfg, int32_t partition_cnt,
                      uint64_t *owners, char *err, size_t err_size) {
        bp_layout_t *l = bp_layout_compute(cfg, partition_cnt, err, err_size);
        int32_t p;

        if (!l)
                return -1;
        for (p = 0; p < partition_cnt; p++)
                owners[p] |= 1ull << l->bucket_of[p];
        bp_layout_destroy(l);
        return 0;
}

/* Bit b of history[p]: bucket b owned partition p at some count from the
 * bucket count up to now (contiguous layouts move partitions as the topic
 * grows; stable ones never do). */
static int fill_history(audit_t *a, char *err, size_t err_size) {
        int32_t n = a->layout->partition_cnt, cnt, p;

        for (p = 0; p < n; p++)
                a->history[p] = a->past[p] = 1ull << a->layout->bucket_of[p];
        if (a->cfg->layout == BP_LAYOUT_STABLE || n > AUDIT_HISTORY_MAX)
                return 0;
        for (cnt = a->cfg->bucket_cnt; cnt < n; cnt++)
                if (add_owners(a->cfg, cnt, a->history, err, err_size))
                        return -1;
        return 0;
}

int audit_init(audit_t *a, const bp_config_t *cfg, const char *base_group,
               int32_t partition_cnt, char *err, size_t err_size) {
        int32_t p;

        memset(a, 0, sizeof(*a));
        a->cfg = cfg;
        snprintf(a->base_group, sizeof(a->base_group), "%s",
                 base_group ? base_group : "");
        a->layout = bp_layout_compute(cfg, partition_cnt, err, err_size);
        if (!a->layout)
                return -1;
        a->parts   = calloc((size_t)partition_cnt, sizeof(*a->parts));
        a->history = calloc((size_t)partition_cnt, sizeof(*a->history));
        a->past    = calloc((size_t)partition_cnt, sizeof(*a->past));
        if (!a->parts || !a->history || !a->past) {
                snprintf(err, err_size, "out of memory");
                audit_destroy(a);
                return -1;
        }
        for (p = 0; p < partition_cnt; p++)
                a->parts[p].low = a->parts[p].high = -1;
        if (fill_history(a, err, err_size)) {
                audit_destroy(a);
                return -1;
        }
        return 0;
}

int audit_add_past(audit_t *a, int32_t partition_cnt, char *err,
                   size_t err_size) {
        if (partition_cnt >= a->layout->partition_cnt) {
                snprintf(err, err_size,
                         "--grown-from %d: not below the topic's %d "
                         "partitions",
                         (int)partition_cnt, (int)a->layout->partition_cnt);
                return -1;
        }
        return add_owners(a->cfg, partition_cnt, a->past, err, err_size);
}

int audit_add_group(audit_t *a, const char *name, const int *buckets,
                    int bucket_cnt) {
        audit_group_t *g, *grown;
        int32_t p, n = a->layout->partition_cnt;

        grown = realloc(a->groups, (size_t)(a->group_cnt + 1) * sizeof(*g));
        if (!grown)
                return -1;
        a->groups = grown;
        g         = &a->groups[a->group_cnt];
        memset(g, 0, sizeof(*g));
        g->committed = malloc((size_t)n * sizeof(*g->committed));
        if (!g->committed)
                return -1;
        for (p = 0; p < n; p++)
                g->committed[p] = -1;
        snprintf(g->name, sizeof(g->name), "%s", name);
        memcpy(g->buckets, buckets, (size_t)bucket_cnt * sizeof(int));
        g->bucket_cnt = bucket_cnt;
        return a->group_cnt++;
}

audit_member_t *audit_add_member(audit_t *a, int g, const char *consumer_id,
                                 const char *client_id, const char *host,
                                 const int32_t *indexes, int index_cnt) {
        audit_group_t *grp = &a->groups[g];
        audit_member_t *m, *grown;

        grown = realloc(grp->members,
                        (size_t)(grp->member_cnt + 1) * sizeof(*m));
        if (!grown)
                return NULL;
        grp->members = grown;
        m            = &grp->members[grp->member_cnt];
        memset(m, 0, sizeof(*m));
        m->target_cnt = -1;
        if (index_cnt > 0) {
                m->indexes = malloc((size_t)index_cnt * sizeof(int32_t));
                m->reads   = malloc((size_t)index_cnt * sizeof(int32_t));
                m->held    = malloc((size_t)index_cnt * sizeof(int32_t));
                if (!m->indexes || !m->reads || !m->held) {
                        free(m->indexes);
                        free(m->reads);
                        free(m->held);
                        return NULL;
                }
                memcpy(m->indexes, indexes, (size_t)index_cnt * sizeof(int32_t));
        }
        m->index_cnt = index_cnt;
        snprintf(m->consumer_id, sizeof(m->consumer_id), "%s",
                 consumer_id ? consumer_id : "");
        snprintf(m->client_id, sizeof(m->client_id), "%s",
                 client_id ? client_id : "");
        snprintf(m->host, sizeof(m->host), "%s", host ? host : "");
        grp->member_cnt++;
        return m;
}

int audit_member_set_target(audit_member_t *m, const int32_t *target,
                            int target_cnt) {
        free(m->target);
        m->target     = NULL;
        m->target_cnt = -1;
        if (target_cnt > 0) {
                m->target = malloc((size_t)target_cnt * sizeof(int32_t));
                if (!m->target)
                        return -1;
                memcpy(m->target, target, (size_t)target_cnt * sizeof(int32_t));
        }
        m->target_cnt = target_cnt < 0 ? -1 : target_cnt;
        return 0;
}

int audit_member_targets(const audit_member_t *m, int32_t p) {
        int k;
        for (k = 0; k < m->target_cnt; k++)
                if (m->target[k] == p)
                        return 1;
        return 0;
}

int audit_member_moving(const audit_member_t *m) {
        int k;
        if (m->target_cnt < 0)
                return 0;
        if (m->target_cnt != m->index_cnt)
                return 1;
        for (k = 0; k < m->index_cnt; k++) /* each names a partition once */
                if (!audit_member_targets(m, m->indexes[k]))
                        return 1;
        return 0;
}

const char *audit_group_type_name(audit_group_type_t type) {
        return type == AUDIT_GROUP_TYPE_CONSUMER  ? "consumer"
               : type == AUDIT_GROUP_TYPE_CLASSIC ? "classic"
                                                  : NULL;
}

int audit_group_hidden(audit_t *a, int g, const char *listed_state,
                       const char *library) {
        audit_group_t *grp = &a->groups[g];

        if (!grp->described || grp->member_cnt > 0 ||
            strcmp(grp->state, "Dead") || !listed_state ||
            !strcmp(listed_state, "Dead"))
                return 0;
        grp->type = AUDIT_GROUP_TYPE_CONSUMER;
        snprintf(grp->state, sizeof(grp->state), "%s", listed_state);
        if (!strcmp(listed_state, "Empty"))
                return 1; /* no member: that much is known */
        grp->described = 0;
        audit_add_finding(
            a, AUDIT_F_UNCHECKED, -1, -1, g, -1, 0,
            "ownership of %s not checked: the cluster lists the group as "
            "%s, but describing it found no group: it runs the consumer "
            "group protocol (KIP-848, group.protocol=consumer), which "
            "librdkafka %s cannot describe; run bp-audit on librdkafka 2.10 "
            "or later (LD_LIBRARY_PATH naming the directory of a newer "
            "librdkafka.so.1)",
            grp->name, listed_state, library);
        return 1;
}

void audit_add_finding(audit_t *a, audit_finding_kind_t kind, int bucket,
                       int32_t partition, int group, int member,
                       int64_t count, const char *fmt, ...) {
        audit_finding_t *f;
        va_list ap;

        if (a->finding_cnt == a->finding_cap) {
                int cap = a->finding_cap ? 2 * a->finding_cap : 16;
                audit_finding_t *grown =
                    realloc(a->findings, (size_t)cap * sizeof(*f));
                if (!grown)
                        return; /* out of memory: the finding is lost */
                a->findings    = grown;
                a->finding_cap = cap;
        }
        f = &a->findings[a->finding_cnt++];
        f->kind      = kind;
        f->bucket    = bucket;
        f->partition = partition;
        f->group     = group;
        f->member    = member;
        f->count     = count;
        va_start(ap, fmt);
        vsnprintf(f->text, sizeof(f->text), fmt, ap);
        va_end(ap);
}

void audit_destroy(audit_t *a) {
        int g, m;

        for (g = 0; g < a->group_cnt; g++) {
                for (m = 0; m < a->groups[g].member_cnt; m++) {
                        free(a->groups[g].members[m].indexes);
                        free(a->groups[g].members[m].reads);
                        free(a->groups[g].members[m].held);
                        free(a->groups[g].members[m].target);
                }
                free(a->groups[g].members);
                free(a->groups[g].committed);
        }
        free(a->groups);
        free(a->findings);
        free(a->parts);
        free(a->history);
        free(a->past);
        bp_layout_destroy(a->layout);
        memset(a, 0, sizeof(*a));
}
