/*
 * bp_schedule.c - the scheduler's decisions (see bp_schedule.h): which
 * ranks to pause under the strict and weighted schedules (the weighted
 * one also when it holds by queue), how a paused bucket resumes, and the
 * start gate of a consumer holding by queue.
 */
#include "bp_schedule.h"

#include <string.h>

void bp_sched_summarise(const bp_sched_part_t *parts,
                        int k,
                        int64_t threshold,
                        int64_t grace_ms,
                        int64_t now_ms,
                        bp_sched_ranks_t *rs) {
        int i;

        memset(rs, 0, sizeof(*rs));
        for (i = 0; i < k; i++) {
                const bp_sched_part_t *p = &parts[i];
                rs->held[p->rank]++;
                if (p->lag > threshold)
                        rs->lagging[p->rank] = 1;
                if (p->lag > 0)
                        rs->has_work[p->rank] = 1;
                /* A paused partition's watermark is not refreshed; a new
                 * or resumed one's may predate its first fetch; an
                 * unknown lag is a lag until a fetch had time to answer. */
                if (p->paused || p->stale ||
                    (p->lag < 0 && now_ms < p->since_ms + grace_ms))
                        rs->unsure[p->rank] = 1;
        }
}

void bp_sched_decide_strict(int n, const bp_sched_ranks_t *rs, int *want) {
        int r, blocked = 0;

        for (r = 0; r < n; r++) {
                want[r] = blocked && rs->held[r] > 0;
                if (!blocked && rs->held[r] > 0 &&
                    (rs->lagging[r] || rs->unsure[r]))
                        blocked = 1;
        }
}

void bp_sched_decide_weighted(int n,
                              const bp_sched_ranks_t *rs,
                              const double *allocation,
                              const uint64_t *delivered,
                              bp_sched_share_t *share,
                              int *want) {
        int active[BP_MAX_BUCKETS], r, q, any_running = 0, best = -1;
        double total = 0, weights = 0;

        for (r = 0; r < n; r++) {
                active[r] = rs->held[r] > 0 &&
                            (rs->has_work[r] || delivered[r] > 0);
                if (active[r]) {
                        total += (double)delivered[r];
                        weights += allocation[r];
                }
        }
        for (r = 0; r < n; r++) {
                bp_sched_share_t *b = &share[r];
                int others          = 0;

                if (!active[r] || weights <= 0) {
                        b->credit = 0; /* nothing waiting: nothing owed */
                        want[r]   = 0;
                        continue;
                }
                b->credit += total * allocation[r] / weights -
                             (double)delivered[r];
                if (b->credit > BP_SCHED_WEIGHT_WINDOW)
                        b->credit = BP_SCHED_WEIGHT_WINDOW;
                if (b->credit < -BP_SCHED_WEIGHT_WINDOW)
                        b->credit = -BP_SCHED_WEIGHT_WINDOW;
                for (q = 0; q < n; q++)
                        others |= q != r && active[q] && rs->has_work[q];
                want[r] = others && (b->paused ? b->credit < 0
                                               : b->credit <
                                                     -BP_SCHED_WEIGHT_SLACK);
        }
        /* Never all paused: the rank owed most runs. */
        for (r = 0; r < n; r++) {
                any_running |= rs->held[r] > 0 && !want[r];
                if (active[r] &&
                    (best < 0 || share[r].credit > share[best].credit))
                        best = r;
        }
        if (!any_running && best >= 0)
                want[best] = 0;
}

void bp_sched_hold_only_for_lower(int n, const bp_sched_ranks_t *rs,
                                  int *want) {
        int r, lower_waiting = 0;

        for (r = n - 1; r >= 0; r--) {
                want[r] = want[r] && lower_waiting;
                lower_waiting |= rs->held[r] > 0 && rs->has_work[r];
        }
}

static const bp_sched_part_t *part_of(const bp_sched_part_t *parts, int k,
                                      int32_t partition) {
        int i;
        for (i = 0; i < k; i++)
                if (parts[i].partition == partition)
                        return &parts[i];
        return NULL;
}

int32_t bp_sched_stagger(const bp_sched_part_t *parts,
                         int k,
                         int r,
                         int64_t settle_ms,
                         int64_t now_ms,
                         bp_sched_lead_t *lead) {
        int32_t paused[BP_SCHED_STAGGER_MAX];
        int i, np = 0, held = 0;

        for (i = 0; i < k; i++)
                if (parts[i].rank == r) {
                        held++;
                        if (parts[i].paused && np < BP_SCHED_STAGGER_MAX)
                                paused[np++] = parts[i].partition;
                }
        if (lead->lead >= 0) {
                const bp_sched_part_t *p = part_of(parts, k, lead->lead);
                if (p && !p->paused && p->at == lead->lead_at &&
                    p->lag != 0 && now_ms < lead->since_ms + settle_ms)
                        return BP_SCHED_RESUME_NONE;
                lead->lead = -1;
                return BP_SCHED_RESUME_ALL;
        }
        if (np < 2 || np != held)
                return BP_SCHED_RESUME_ALL; /* not the whole bucket */
        lead->lead     = paused[lead->rotation++ % (unsigned)np];
        lead->lead_at  = part_of(parts, k, lead->lead)->at;
        lead->since_ms = now_ms;
        return lead->lead;
}

int bp_sched_gate_owed(bp_sched_owed_t *o, int64_t hwm, int64_t at,
                       int strict, int64_t grace_ms, int64_t now_ms) {
        if (o->owed_to == BP_SCHED_OWES_NOTHING)
                return 0;
        if (at > o->at) { /* progress */
                o->at       = at;
                o->since_ms = now_ms;
        }
        if (o->owed_to < 0 && hwm >= 0) /* its first answer */
                o->owed_to = strict ? hwm : BP_SCHED_OWES_NOTHING;
        if (o->owed_to >= 0 && at >= o->owed_to) /* handed out */
                o->owed_to = BP_SCHED_OWES_NOTHING;
        if (o->owed_to != BP_SCHED_OWES_NOTHING &&
            now_ms - o->since_ms > grace_ms) /* given up */
                o->owed_to = BP_SCHED_OWES_NOTHING;
        return o->owed_to != BP_SCHED_OWES_NOTHING;
}

int bp_sched_stalled(bp_sched_stall_t *st, int64_t at, int64_t lag,
                     int running, int waiting, uint64_t taken,
                     int64_t now_ms) {
        if (at < 0 || at != st->at || !running || lag <= 0 || waiting) {
                /* moved, or nothing to wait for: watch from here */
                st->at       = at;
                st->since_ms = now_ms;
                st->taken    = taken;
                st->wait_ms  = BP_SCHED_STALL_MS;
                return 0;
        }
        if (now_ms - st->since_ms < st->wait_ms ||
            taken - st->taken < BP_SCHED_STALL_TAKEN)
                return 0;
        st->since_ms = now_ms;
        st->taken    = taken;
        if (st->wait_ms < BP_SCHED_STALL_MAX_MS)
                st->wait_ms *= 2;
        return 1;
}
