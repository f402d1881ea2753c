/*
 * audit_owner.c - members' assignments through the consumers' mapping (or,
 * on the consumer protocol, kept and paused outside their buckets), and the
 * ownership findings.
 */
#include "audit_owner.h"

#include <stdlib.h>
#include <string.h>

#include "bp_mapping.h"

uint64_t audit_group_mask(const audit_group_t *g) {
        uint64_t mask = 0;
        int k;
        for (k = 0; k < g->bucket_cnt; k++)
                mask |= 1ull << g->buckets[k];
        return mask;
}

/* A member reads its indexes as partitions when its group committed an
 * offset at one of them on a partition that never belonged to the group's
 * buckets (bucket consumers only ever commit their buckets' partitions),
 * and that offset is at the partition's end: a reader keeping up. A
 * commit behind the end is left by a consumer that stopped or left
 * (commit_findings()). */
static int reads_unmapped(const audit_t *a, const audit_group_t *g,
                          const audit_member_t *m) {
        uint64_t mask = audit_group_mask(g);
        int k;

        if (!g->offsets_read)
                return 0;
        for (k = 0; k < m->index_cnt; k++) {
                int32_t i = m->indexes[k];
                if (i >= 0 && i < a->layout->partition_cnt &&
                    g->committed[i] >= 0 && !(a->history[i] & mask) &&
                    g->committed[i] >= a->parts[i].high)
                        return 1;
        }
        return 0;
}

static void add_reader(audit_t *a, int32_t p, int g, int m) {
        audit_partition_t *pt = &a->parts[p];
        if (pt->reader_cnt < 2) {
                pt->reader_group[pt->reader_cnt]  = g;
                pt->reader_member[pt->reader_cnt] = m;
        }
        pt->reader_cnt++;
        a->groups[g].members[m].reads[a->groups[g].members[m].read_cnt++] = p;
}

/* The layout consumers map with: during a layout change, the one of its
 * step (partitions of a bucket the change adds belong to none). */
static const bp_layout_t *mapped(const audit_t *a) {
        return a->read_layout ? a->read_layout : a->layout;
}

/* Consumer protocol (KIP-848): the member keeps the broker's partitions
 * as they are and pauses those outside its buckets (\p mine: 1 for the
 * group's partitions): it reads the rest of them, and holds the others,
 * not read. */
static void keep_and_pause(audit_t *a, int g, int m, const char *mine) {
        audit_member_t *mem = &a->groups[g].members[m];
        int32_t n = a->layout->partition_cnt, i;
        int k;

        for (k = 0; k < mem->index_cnt; k++) {
                i = mem->indexes[k];
                if (i < 0 || i >= n)
                        continue;
                if (mem->not_bucket || mine[i]) {
                        add_reader(a, i, g, m);
                } else {
                        a->parts[i].held_cnt++;
                        mem->held[mem->held_cnt++] = i;
                }
        }
}

static void map_group(audit_t *a, int g, int32_t *b, char *mine) {
        audit_group_t *grp = &a->groups[g];
        int32_t n = a->layout->partition_cnt, b_cnt, p;
        int m, k;

        b_cnt = bp_mapping_partitions(mapped(a), grp->buckets, grp->bucket_cnt,
                                      b);
        memset(mine, 0, (size_t)n);
        for (k = 0; k < b_cnt; k++)
                mine[b[k]] = 1;
        for (m = 0; m < grp->member_cnt; m++) {
                audit_member_t *mem = &grp->members[m];
                mem->not_bucket     = reads_unmapped(a, grp, mem);
                if (grp->type == AUDIT_GROUP_TYPE_CONSUMER) {
                        keep_and_pause(a, g, m, mine);
                        continue;
                }
                for (k = 0; k < mem->index_cnt; k++) {
                        int32_t i = mem->indexes[k];
                        p = mem->not_bucket ? (i >= 0 && i < n ? i : -1)
                                            : bp_mapping_map(b, b_cnt, i);
                        if (p >= 0)
                                add_reader(a, p, g, m);
                }
        }
}

static void member_findings(audit_t *a, int g) {
        audit_group_t *grp = &a->groups[g];
        int m;

        for (m = 0; m < grp->member_cnt; m++) {
                audit_member_t *mem = &grp->members[m];
                if (mem->not_bucket)
                        audit_add_finding(
                            a, AUDIT_F_NOT_BUCKET, -1, -1, g, m, 0,
                            "group %s: member %s (client id \"%s\", host %s) "
                            "reads its assigned partition numbers as "
                            "partitions: the group committed offsets on "
                            "partitions outside its buckets at its indexes; "
                            "a consumer without the plugin",
                            grp->name, mem->consumer_id, mem->client_id,
                            mem->host);
                else if (mem->read_cnt == 0 && !audit_member_moving(mem))
                        audit_add_finding(
                            a, AUDIT_F_IDLE_MEMBER, -1, -1, g, m, 0,
                            "group %s: member %s (client id \"%s\") reads no "
                            "partition: %s",
                            grp->name, mem->consumer_id, mem->client_id,
                            grp->type == AUDIT_GROUP_TYPE_CONSUMER
                                ? "the broker gave it none of its buckets' "
                                  "partitions (it holds only other buckets', "
                                  "paused); more members than its buckets "
                                  "have partitions, or the assignor's blocks "
                                  "fall between them"
                                : "the group has more members than its "
                                  "buckets have partitions");
        }
}

/* Whether a described group serving bucket b has a member. */
static int bucket_has_members(const audit_t *a, int b, int *described) {
        int g, has = 0;
        *described = 0;
        for (g = 0; g < a->group_cnt; g++) {
                const audit_group_t *grp = &a->groups[g];
                if (!(audit_group_mask(grp) & (1ull << b)) || !grp->described)
                        continue;
                *described = 1;
                if (grp->member_cnt > 0)
                        has = 1;
        }
        return has;
}

/* Partition \p p of bucket \p b is read by no member; during a rebalance
 * of the consumer protocol the finding names the member the broker is
 * moving it to. */
static void unread_finding(audit_t *a, int b, int32_t p) {
        int g, m;
        for (g = 0; g < a->group_cnt; g++) {
                const audit_group_t *grp = &a->groups[g];
                if (!grp->described ||
                    !(audit_group_mask(grp) & (1ull << b)))
                        continue;
                for (m = 0; m < grp->member_cnt; m++)
                        if (audit_member_targets(&grp->members[m], p)) {
                                audit_add_finding(
                                    a, AUDIT_F_UNREAD, b, p, g, m, 0,
                                    "partition %d (bucket %s) is read by no "
                                    "member: the group %s is rebalancing, "
                                    "the broker moves it to %s; audit again "
                                    "once the group has settled",
                                    (int)p, a->cfg->buckets[b].name,
                                    grp->name, grp->members[m].consumer_id);
                                return;
                        }
        }
        audit_add_finding(a, AUDIT_F_UNREAD, b, p, -1, -1, 0,
                          "partition %d (bucket %s) is read by no member",
                          (int)p, a->cfg->buckets[b].name);
}

static void partition_findings(audit_t *a) {
        int32_t p, n = a->layout->partition_cnt;
        int b, described;
        const bp_config_t *cfg = a->cfg;

        for (b = 0; b < cfg->bucket_cnt; b++) {
                if (bucket_has_members(a, b, &described) || !described ||
                    (a->read_layout && a->read_layout->count[b] == 0))
                        continue;
                audit_add_finding(a, AUDIT_F_NO_CONSUMER, b, -1, -1, -1, 0,
                                  "bucket %s: no group serving it has a "
                                  "member; its %d partitions are not read",
                                  cfg->buckets[b].name,
                                  (int)mapped(a)->count[b]);
        }
        for (p = 0; p < n; p++) {
                audit_partition_t *pt = &a->parts[p];
                b = mapped(a)->bucket_of[p];
                if (b >= cfg->bucket_cnt)
                        continue; /* a bucket a layout change adds */
                if (pt->reader_cnt >= 2) {
                        const audit_group_t *g0 =
                            &a->groups[pt->reader_group[0]];
                        const audit_group_t *g1 =
                            &a->groups[pt->reader_group[1]];
                        audit_add_finding(
                            a, AUDIT_F_DOUBLE_READ, b, p, -1, -1,
                            pt->reader_cnt,
                            "partition %d (bucket %s) is read by %d members: "
                            "%s in %s and %s in %s",
                            (int)p, cfg->buckets[b].name, pt->reader_cnt,
                            g0->members[pt->reader_member[0]].consumer_id,
                            g0->name,
                            g1->members[pt->reader_member[1]].consumer_id,
                            g1->name);
                }
                if (pt->reader_cnt == 0 &&
                    bucket_has_members(a, b, &described))
                        unread_finding(a, b, p);
        }
}

/* Whether a member of \p grp reading unmapped holds index p. */
static int held_unmapped(const audit_group_t *grp, int32_t p) {
        int m, k;
        for (m = 0; m < grp->member_cnt; m++)
                for (k = 0; grp->members[m].not_bucket &&
                            k < grp->members[m].index_cnt;
                     k++)
                        if (grp->members[m].indexes[k] == p)
                                return 1;
        return 0;
}

static void commit_findings(audit_t *a, int g) {
        audit_group_t *grp = &a->groups[g];
        uint64_t mask      = audit_group_mask(grp);
        int32_t p;

        if (!grp->offsets_read)
                return;
        for (p = 0; p < a->layout->partition_cnt; p++) {
                int64_t c = grp->committed[p], behind;
                int stale;

                if (c < 0 || (mask & (1ull << a->layout->bucket_of[p])))
                        continue;
                behind = a->parts[p].high >= c ? a->parts[p].high - c : 0;
                stale  = (a->history[p] & mask) != 0;
                if (stale || !held_unmapped(grp, p))
                        audit_add_finding(
                            a, stale ? AUDIT_F_STALE_COMMIT
                                     : AUDIT_F_FOREIGN_COMMIT,
                            a->layout->bucket_of[p], p, g, -1, behind,
                            stale ? "group %s: committed offset %lld on "
                                    "partition %d, now of bucket %s, which "
                                    "its buckets held at a smaller partition "
                                    "count: left from before a growth (or by "
                                    "a consumer without the plugin); standard "
                                    "tools show %lld of lag there, which is "
                                    "not lag"
                                  : "group %s: committed offset %lld on "
                                    "partition %d of bucket %s, which it "
                                    "never served, %lld records behind its "
                                    "end: a consumer without the plugin read "
                                    "it in this group and stopped or left; "
                                    "delete the offset once it is gone "
                                    "(kafka-consumer-groups.sh "
                                    "--delete-offsets)",
                            grp->name, (long long)c, (int)p,
                            a->cfg->buckets[a->layout->bucket_of[p]].name,
                            (long long)behind);
        }
}

void audit_owner_judge(audit_t *a) {
        int32_t *b = malloc((size_t)a->layout->partition_cnt * sizeof(*b));
        char *mine = malloc((size_t)a->layout->partition_cnt);
        int g;

        if (!b || !mine) {
                free(b);
                free(mine);
                return;
        }
        for (g = 0; g < a->group_cnt; g++)
                if (a->groups[g].described)
                        map_group(a, g, b, mine);
        free(b);
        free(mine);
        for (g = 0; g < a->group_cnt; g++)
                if (a->groups[g].described)
                        member_findings(a, g);
        partition_findings(a);
        for (g = 0; g < a->group_cnt; g++)
                commit_findings(a, g);
}
