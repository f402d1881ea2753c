/*
 * bp_sched_pause.c - the scheduler's decisions applied with pause and
 * resume (see bp_sched_state.h): the held partitions as the decisions see
 * them, the weighted credits, the pause state of each partition and bucket.
 */
#include "bp_sched_state.h"

#include <stdlib.h>
#include <string.h>

#include "bp_list.h"

static int is_paused_by_us(const bp_scheduler_t *s, int32_t p) {
        return p < s->paused_cap && s->paused_by_us[p];
}

/* The held partitions as the decisions (shared/bp_schedule.h) see them;
 * NULL when out of memory. */
static const bp_sched_part_t *view_held(bp_scheduler_t *s) {
        int i;

        if (bp_grow((void **)&s->view, &s->view_cap, s->held->cnt,
                    sizeof(*s->view)))
                return NULL;
        for (i = 0; i < s->held->cnt; i++) {
                const bp_held_part_t *h = &s->held->part[i];
                s->view[i]             = (bp_sched_part_t){
                    .partition = h->partition,
                    .rank      = h->rank,
                    .lag       = h->lag,
                    .at        = h->at,
                    .since_ms  = h->since_ms,
                    .stale     = h->stale,
                    .paused    = is_paused_by_us(s, h->partition)};
        }
        return s->view;
}

/* weighted: the records each rank delivered since the last decision, and
 * its credit, through bp_sched_decide_weighted(). */
static void decide_weighted(bp_scheduler_t *s, const bp_sched_ranks_t *rs,
                            int *want) {
        double allocation[BP_MAX_BUCKETS];
        uint64_t delivered[BP_MAX_BUCKETS];
        bp_sched_share_t share[BP_MAX_BUCKETS];
        int r;

        for (r = 0; r < s->n; r++) {
                int bucket           = s->served->bucket_at[r];
                bp_sched_bucket_t *b = &s->b[bucket];
                uint64_t now_cnt     = atomic_load_explicit(
                    &s->served->delivered[bucket], memory_order_relaxed);
                delivered[r]      = now_cnt - b->delivered_seen;
                b->delivered_seen = now_cnt;
                allocation[r]     = s->c->cfg.allocation[bucket];
                share[r]          = (bp_sched_share_t){b->credit, b->paused};
        }
        bp_sched_decide_weighted(s->n, rs, allocation, delivered, share,
                                 want);
        for (r = 0; r < s->n; r++)
                s->b[s->served->bucket_at[r]].credit = share[r].credit;
}

/* Marks bucket \p b paused or running, for the statistics. */
static void set_bucket_paused(bp_scheduler_t *s, int b, int paused,
                              int64_t now) {
        bp_sched_bucket_t *st = &s->b[b];
        if (paused == st->paused)
                return;
        if (paused) {
                st->paused_since_ms = now;
                st->pauses++;
        } else {
                st->paused_ms += (uint64_t)(now - st->paused_since_ms);
        }
        st->paused = paused;
}

/* Runs one pause or resume call on \p list; marks what it changed.
 * Returns how many partitions changed. */
static int change(bp_scheduler_t *s, rd_kafka_topic_partition_list_t *list,
                  int pause, int64_t now) {
        bp_held_t *h = s->held;
        int i, j, changed = 0;

        if (list->cnt == 0 || !bp_sched_op_begin(s))
                return 0;
        if (pause)
                rd_kafka_pause_partitions(s->rk, list);
        else
                rd_kafka_resume_partitions(s->rk, list);
        bp_sched_op_end(s);
        for (i = 0; i < list->cnt; i++) {
                if (list->elems[i].err)
                        continue; /* not known yet: the next tick retries */
                changed++;
                s->paused_by_us[list->elems[i].partition] = (uint8_t)pause;
                for (j = 0; !pause && j < h->cnt; j++)
                        if (h->part[j].partition == list->elems[i].partition) {
                                /* Its watermark is old until a fetch. */
                                h->part[j].since_ms  = now;
                                h->part[j].hwm_since = h->part[j].hwm;
                        }
        }
        return changed;
}

/* Pauses and resumes the held partitions as \p want says per rank.
 * Returns how many partitions it paused. */
static int apply(bp_scheduler_t *s, const bp_sched_part_t *view,
                 const int *want, int64_t now) {
        rd_kafka_topic_partition_list_t *pause, *resume;
        const bp_held_t *held = s->held;
        const char *topic     = held->topic;
        int32_t top           = 0;
        uint64_t mask     = 0;
        int i, r, paused;

        for (i = 0; i < held->cnt; i++)
                if (held->part[i].partition >= top)
                        top = held->part[i].partition + 1;
        if (bp_grow((void **)&s->paused_by_us, &s->paused_cap, top, 1))
                return 0; /* out of memory: change nothing */
        pause  = rd_kafka_topic_partition_list_new(held->cnt);
        resume = rd_kafka_topic_partition_list_new(held->cnt);
        for (r = 0; r < s->n; r++) {
                bp_sched_lead_t *lead = &s->b[s->served->bucket_at[r]].lead;
                int32_t only          = want[r] ? BP_SCHED_RESUME_ALL
                                                : bp_sched_stagger(
                                                      view, held->cnt, r,
                                                      held->settle_ms, now,
                                                      lead);
                if (want[r])
                        lead->lead = -1;
                for (i = 0; i < held->cnt; i++) {
                        const bp_held_part_t *h = &held->part[i];
                        int tracked     = s->paused_by_us[h->partition];
                        if (h->rank != r)
                                continue;
                        if (want[r] && !tracked)
                                rd_kafka_topic_partition_list_add(
                                    pause, topic, h->partition);
                        else if (!want[r] && tracked &&
                                 only != BP_SCHED_RESUME_NONE &&
                                 (only == BP_SCHED_RESUME_ALL ||
                                  only == h->partition))
                                rd_kafka_topic_partition_list_add(
                                    resume, topic, h->partition);
                }
        }
        paused = change(s, pause, 1, now);
        change(s, resume, 0, now);
        rd_kafka_topic_partition_list_destroy(pause);
        rd_kafka_topic_partition_list_destroy(resume);

        for (r = 0; r < s->n; r++) {
                int any = 0, all = 1;
                for (i = 0; i < held->cnt; i++)
                        if (held->part[i].rank == r) {
                                any = 1;
                                all &= s->paused_by_us[held->part[i].partition];
                        }
                set_bucket_paused(s, s->served->bucket_at[r], any && all, now);
                if (any && all)
                        mask |= 1ull << r;
        }
        atomic_store_explicit(&s->paused_ranks, mask, memory_order_relaxed);
        return paused;
}

void bp_sched_evaluate(bp_scheduler_t *s) {
        bp_held_t *held = s->held;
        int want[BP_MAX_BUCKETS], full = 0;
        int64_t now = bp_clock_ms(), t0;
        const bp_sched_part_t *view;
        bp_sched_ranks_t rs;
        int r;

        if (held->cnt == 0) {
                for (r = 0; r < s->n; r++)
                        set_bucket_paused(s, s->served->bucket_at[r], 0, now);
                atomic_store_explicit(&s->paused_ranks, 0,
                                      memory_order_relaxed);
                return;
        }
        if (rd_kafka_consumer_closed(s->rk))
                return;
        if (s->hold_queues) { /* bp_sched_queues.c */
                bp_sched_queues_tick(s);
                if (s->mode == BP_SCHEDULE_STRICT)
                        return; /* nothing is paused */
        }
        t0 = bp_clock_us();
        bp_held_measure(held, held->part, held->cnt, now);
        if (s->mode == BP_SCHEDULE_STRICT) {
                int64_t fill = bp_sched_queue_fill(s);
                uint64_t ranks =
                    s->n >= 64 ? ~0ull : (1ull << s->n) - 1;
                int lower_run =
                    (~atomic_load_explicit(&s->paused_ranks,
                                           memory_order_relaxed) &
                     ranks & ~1ull) != 0;
                /* Nearly full now or at the last decision: librdkafka may
                 * have stopped fetching meanwhile. */
                full = fill >= 900 || s->queue_blocked;
                /* Lower buckets run on a nearly full queue: their backlog
                 * may hide new records of the higher ones. Or the queue
                 * just drained: librdkafka would look again only later,
                 * the probe wakes it now. */
                if (fill >= 900)
                        s->full_seen_ms = now;
                if (fill >= 900 && lower_run &&
                    now >= s->last_probe_ms + BP_SCHED_PROBE_MS) {
                        int64_t p0 = bp_clock_us();
                        bp_sched_probe(s, now, 1);
                        t0 += bp_clock_us() - p0; /* a request */
                        bp_held_measure(held, held->part, held->cnt, now);
                } else if ((s->queue_blocked && fill < 900) ||
                           (s->wake_fetcher && fill < 900 &&
                            now < s->full_seen_ms + BP_SCHED_REFETCH_MS &&
                            now >= s->last_probe_ms + BP_SCHED_PROBE_MS)) {
                        int64_t p0 = bp_clock_us();
                        bp_sched_probe(s, now, 0);
                        t0 += bp_clock_us() - p0;
                }
                s->queue_blocked = fill >= 900;
        }
        if (!(view = view_held(s)))
                return; /* out of memory: change nothing */
        bp_sched_summarise(view, held->cnt, s->threshold, s->grace_ms, now,
                           &rs);
        if (s->mode == BP_SCHEDULE_WEIGHTED) {
                decide_weighted(s, &rs, want);
                if (s->hold_queues)
                        bp_sched_hold_only_for_lower(s->n, &rs, want);
        } else
                bp_sched_decide_strict(s->n, &rs, want);
        /* What a decision costs this thread (pauses wait on librdkafka's
         * main thread and are left out): paces the wake-ups. */
        atomic_store_explicit(&s->tick_cost_us, bp_clock_us() - t0,
                              memory_order_relaxed);
        if (s->mode == BP_SCHEDULE_WEIGHTED && s->hold_queues)
                bp_sched_kick_stalled(s, now);
        if (apply(s, view, want, now) > 0 && full) {
                bp_sched_probe(s, now, 0); /* wakes the fetcher */
                /* The paused records leave the queue shortly: decide
                 * every millisecond meanwhile, so that the fetcher is
                 * woken again as soon as the queue is below its
                 * thresholds. */
                atomic_store_explicit(&s->quick_until_ms,
                                      now + BP_SCHED_DRAIN_WATCH_MS,
                                      memory_order_relaxed);
        }
}

void bp_sched_bucket_pauses(const bp_scheduler_t *s,
                            int b,
                            int64_t now,
                            int *paused,
                            uint64_t *pauses,
                            uint64_t *paused_ms) {
        const bp_sched_bucket_t *st = &s->b[b];

        *paused    = st->paused;
        *pauses    = st->pauses;
        *paused_ms = st->paused_ms +
                     (st->paused ? (uint64_t)(now - st->paused_since_ms) : 0);
}
