/*
 * bp_scheduler.c - one consumer serving several buckets: measures its
 * partitions' lag, asks the decisions (shared/bp_schedule.c: which ranks
 * may deliver now, strict or weighted, and how a paused bucket resumes)
 * and applies them with pause and resume; and the per bucket consumer
 * statistics.
 *
 * Who runs what:
 *   - the application thread, in on_consume: counts the records each
 *     bucket delivers and wakes the scheduler when a decision may change
 *     (a partition drained while another bucket waits, or at most every
 *     BP_SCHED_WAKE_MIN_US while records flow);
 *   - the application thread, in the rebalance callback: installs the new
 *     assignment and sets the pause state of its partitions before they
 *     are assigned (bp_scheduler_assigning());
 *   - the scheduler thread (consumers of more than one bucket): decides
 *     every BP_SCHED_TICK_MS, or when woken.
 * Decisions and pause state changes happen under state_lock, one actor at
 * a time; thread control (stop, wake, an operation in progress) is under
 * ctl_lock. See bp_scheduler.h for the librdkafka behaviour relied on.
 */
#include "bp_scheduler.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../include/bucket_priority.h"
#include "../plugin/bp_registry.h"

#define SCHED_NAME "bucket-priority-scheduler"

/* How on_destroy waits for a pause or resume in progress (see stop()). */
#define STOP_WAIT_MS 2000

/* Where a partition starts before the consumer has a position there. */
typedef enum {
        START_UNKNOWN = 0,
        START_OFFSET,   /* a concrete offset (committed, sibling group) */
        START_EARLIEST, /* the log start offset */
        START_LATEST    /* the high watermark when first seen */
} start_kind_t;

/* One partition of the bucket topic that the consumer holds. */
typedef struct held {
        int32_t partition;
        int bucket, rank;
        start_kind_t start_kind;
        int64_t start;     /* START_OFFSET; START_LATEST once seen */
        int64_t since_ms;  /* assigned or resumed at */
        int64_t hwm_since; /* its cached high watermark then */
        int64_t probed;    /* high watermark asked of the leader, or -1 */
        /* Filled by measure(): */
        int64_t lag;       /* -1: unknown */
        int64_t hwm;
        int64_t at;        /* position, or where it starts; -1: unknown */
        int stale;         /* its cached watermark may predate records */
} held_t;

/* The scheduler's view of one bucket (state_lock). */
typedef struct bucket_state {
        int paused;              /* held paused by the scheduler */
        int64_t paused_since_ms;
        uint64_t paused_ms;      /* completed pauses */
        uint64_t pauses;
        uint64_t delivered_seen; /* weighted: counter at the last tick */
        double credit;           /* weighted: records owed (+) or ahead (-) */
        bp_sched_lead_t lead;    /* a resume of the whole bucket */
} bucket_state_t;

struct bp_scheduler {
        bp_client_t *c;
        rd_kafka_t *rk;
        int n;                         /* buckets served */
        int rank_of[BP_MAX_BUCKETS];   /* bucket -> rank, -1: not served */
        int bucket_at[BP_MAX_BUCKETS]; /* rank -> bucket */
        bp_schedule_t mode;
        int64_t threshold;
        start_kind_t reset_kind; /* auto.offset.reset */
        int64_t settle_ms;       /* a fetch answers within this */
        int64_t grace_ms;        /* unknown lag counts as lag this long */
        int64_t queue_min_msgs;  /* queued.min.messages */
        int64_t queue_max_bytes; /* queued.max.messages.kbytes, in bytes */
        int64_t last_probe_ms;   /* state_lock */
        int64_t full_seen_ms;    /* state_lock: queue nearly full then */
        int wake_fetcher;        /* librdkafka < 2.2: no queue backoff,
                                  * see BP_SCHED_REFETCH_MS */
        int queue_blocked;       /* state_lock: queue nearly full at the
                                  * last decision */
        int threaded;

        pthread_mutex_t state_lock;
        held_t *held;
        int32_t held_cnt, held_cap;
        bp_sched_part_t *view; /* held as the decisions see it */
        int32_t view_cap;
        int64_t *committed; /* by partition, from bp_offsets_decide() */
        int32_t committed_cnt;
        uint8_t *paused_by_us; /* by partition, survives assignments */
        int32_t paused_cap;
        bucket_state_t b[BP_MAX_BUCKETS];

        pthread_mutex_t ctl_lock;
        pthread_cond_t ctl_cond;
        pthread_t thread;
        int thread_started, stop, wake, in_op;

        _Atomic uint64_t delivered[BP_MAX_BUCKETS];
        _Atomic uint64_t paused_ranks; /* bit r: rank r paused */
        _Atomic int64_t next_wake_us;
        _Atomic int64_t tick_cost_us;
        _Atomic int64_t record_bytes; /* average record size delivered */
        _Atomic int64_t quick_until_ms; /* decide every ms until then */
};

static int64_t now_us(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t now_ms(void) {
        return now_us() / 1000;
}

/* --- thread control ------------------------------------------------------ */

static void wake(bp_scheduler_t *s) {
        pthread_mutex_lock(&s->ctl_lock);
        s->wake = 1;
        pthread_cond_signal(&s->ctl_cond);
        pthread_mutex_unlock(&s->ctl_lock);
}

/* Before a pause or resume: refused once the client is stopping or the
 * consumer closed, since librdkafka's main thread, which performs it, may
 * then be gone and the call would never return. */
static int op_begin(bp_scheduler_t *s) {
        int ok;
        pthread_mutex_lock(&s->ctl_lock);
        ok = !s->stop;
        s->in_op = ok;
        pthread_mutex_unlock(&s->ctl_lock);
        if (ok && rd_kafka_consumer_closed(s->rk)) {
                pthread_mutex_lock(&s->ctl_lock);
                s->in_op = 0;
                pthread_cond_broadcast(&s->ctl_cond);
                pthread_mutex_unlock(&s->ctl_lock);
                ok = 0;
        }
        return ok;
}

static void op_end(bp_scheduler_t *s) {
        pthread_mutex_lock(&s->ctl_lock);
        s->in_op = 0;
        pthread_cond_broadcast(&s->ctl_cond);
        pthread_mutex_unlock(&s->ctl_lock);
}

/* --- measuring ----------------------------------------------------------- */

static int grow(void **arr, int32_t *cap, int32_t need, size_t elem) {
        int32_t n = *cap ? *cap : 16;
        void *p;
        if (need <= *cap)
                return 0;
        while (n < need)
                n *= 2;
        if (!(p = realloc(*arr, (size_t)n * elem)))
                return -1;
        memset((char *)p + (size_t)*cap * elem, 0,
               (size_t)(n - *cap) * elem);
        *arr = p;
        *cap = n;
        return 0;
}

static int is_paused_by_us(const bp_scheduler_t *s, int32_t p) {
        return p < s->paused_cap && s->paused_by_us[p];
}

/* Fills lag, hwm and stale of h[0..k-1] from librdkafka's cached high
 * watermarks and the consumer's positions (no request to the cluster).
 * Before the consumer has a position on a partition, it is where the
 * partition starts. */
static void measure(bp_scheduler_t *s, held_t *h, int k, int64_t now) {
        rd_kafka_topic_partition_list_t *pos =
            rd_kafka_topic_partition_list_new(k > 0 ? k : 1);
        const char *topic = s->c->cfg.topic;
        int i;

        for (i = 0; i < k; i++)
                rd_kafka_topic_partition_list_add(pos, topic, h[i].partition);
        if (k > 0)
                rd_kafka_position(s->rk, pos);
        for (i = 0; i < k; i++) {
                int64_t lo = -1, hi = -1, at = -1;

                if (rd_kafka_get_watermark_offsets(s->rk, topic,
                                                   h[i].partition, &lo, &hi))
                        lo = hi = -1;
                if (!pos->elems[i].err && pos->elems[i].offset >= 0)
                        at = pos->elems[i].offset;
                else if (h[i].start_kind == START_OFFSET)
                        at = h[i].start;
                else if (h[i].start_kind == START_EARLIEST)
                        at = lo >= 0 ? lo : -1;
                else if (h[i].start_kind == START_LATEST) {
                        if (h[i].start < 0 && hi >= 0)
                                h[i].start = hi;
                        at = h[i].start;
                }
                h[i].stale = now < h[i].since_ms + s->settle_ms &&
                             hi == h[i].hwm_since;
                if (h[i].probed > hi)
                        hi = h[i].probed; /* the leader knows more */
                h[i].hwm = hi;
                h[i].lag = hi >= 0 && at >= 0 ? (hi > at ? hi - at : 0) : -1;
                h[i].at  = at;
        }
        rd_kafka_topic_partition_list_destroy(pos);
}

/* librdkafka stops fetching every partition of a consumer while its queue
 * holds queued.min.messages records or queued.max.messages.kbytes (the
 * thresholds count the consumer queue, which every partition feeds), and
 * looks again only up to a second later, even once the queue drained: a
 * lower bucket's backlog can thus hide a higher bucket's new records from
 * the cached watermarks. Returns the queue's fill in per mille of the
 * nearer threshold (1000: librdkafka fetches nothing). */
static int64_t queue_fill(bp_scheduler_t *s) {
        rd_kafka_queue_t *q = rd_kafka_queue_get_consumer(s->rk);
        int64_t len, size, by_cnt, by_size = 0;

        if (!q)
                return 0;
        len = (int64_t)rd_kafka_queue_length(q);
        rd_kafka_queue_destroy(q);
        size   = atomic_load_explicit(&s->record_bytes, memory_order_relaxed);
        by_cnt = len * 1000 / s->queue_min_msgs;
        if (size > 0)
                by_size = len * size / (s->queue_max_bytes / 1000 + 1);
        return by_cnt > by_size ? by_cnt : by_size;
}

/* Asks the leaders for the high watermarks of the held partitions of
 * every bucket but the lowest: one ListOffsets request per leader. The
 * request also wakes librdkafka's fetcher (the broker thread that sends
 * it), which then decides again what to fetch. With \p note, the answer
 * counts as the partitions' high watermarks (lag the consumer cannot see
 * while its full queue stops the fetching); without, the request only
 * wakes the fetcher, which fetches what is new by itself. Used only
 * around a nearly full queue (see evaluate()), at most every
 * BP_SCHED_PROBE_MS. */
static void probe(bp_scheduler_t *s, int64_t now, int note) {
        rd_kafka_topic_partition_list_t *l =
            rd_kafka_topic_partition_list_new(s->held_cnt);
        int i, j;

        s->last_probe_ms = now;
        for (i = 0; i < s->held_cnt; i++)
                if (s->held[i].rank < s->n - 1)
                        rd_kafka_topic_partition_list_add(
                            l, s->c->cfg.topic, s->held[i].partition)
                            ->offset = RD_KAFKA_OFFSET_END;
        if (l->cnt > 0 && op_begin(s)) {
                /* Only to wake the fetcher: the request is on its way
                 * once this returns, the answer is not waited for (it
                 * may queue behind a fetch the broker holds for up to
                 * fetch.wait.max.ms, which would stall the decisions). */
                rd_kafka_resp_err_t err = rd_kafka_offsets_for_times(
                    s->rk, l,
                    note ? BP_SCHED_PROBE_TIMEOUT_MS
                         : BP_SCHED_WAKE_TIMEOUT_MS);
                op_end(s);
                for (i = 0; note && !err && i < l->cnt; i++)
                        for (j = 0; !l->elems[i].err && j < s->held_cnt; j++)
                                if (s->held[j].partition ==
                                        l->elems[i].partition &&
                                    l->elems[i].offset > s->held[j].probed)
                                        s->held[j].probed =
                                            l->elems[i].offset;
        }
        rd_kafka_topic_partition_list_destroy(l);
}

/* --- deciding ------------------------------------------------------------ */

/* The held partitions as the decisions (shared/bp_schedule.h) see them;
 * NULL when out of memory. */
static const bp_sched_part_t *view_held(bp_scheduler_t *s) {
        int i;

        if (grow((void **)&s->view, &s->view_cap, s->held_cnt,
                 sizeof(*s->view)))
                return NULL;
        for (i = 0; i < s->held_cnt; i++) {
                const held_t *h = &s->held[i];
                s->view[i]      = (bp_sched_part_t){
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
                bucket_state_t *b = &s->b[s->bucket_at[r]];
                uint64_t now_cnt  = atomic_load_explicit(
                    &s->delivered[s->bucket_at[r]], memory_order_relaxed);
                delivered[r]      = now_cnt - b->delivered_seen;
                b->delivered_seen = now_cnt;
                allocation[r]     = s->c->cfg.allocation[s->bucket_at[r]];
                share[r]          = (bp_sched_share_t){b->credit, b->paused};
        }
        bp_sched_decide_weighted(s->n, rs, allocation, delivered, share,
                                 want);
        for (r = 0; r < s->n; r++)
                s->b[s->bucket_at[r]].credit = share[r].credit;
}

/* Marks bucket \p b paused or running, for the statistics. */
static void set_bucket_paused(bp_scheduler_t *s, int b, int paused,
                              int64_t now) {
        bucket_state_t *st = &s->b[b];
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
        int i, j, changed = 0;

        if (list->cnt == 0 || !op_begin(s))
                return 0;
        if (pause)
                rd_kafka_pause_partitions(s->rk, list);
        else
                rd_kafka_resume_partitions(s->rk, list);
        op_end(s);
        for (i = 0; i < list->cnt; i++) {
                if (list->elems[i].err)
                        continue; /* not known yet: the next tick retries */
                changed++;
                s->paused_by_us[list->elems[i].partition] = (uint8_t)pause;
                for (j = 0; !pause && j < s->held_cnt; j++)
                        if (s->held[j].partition == list->elems[i].partition) {
                                /* Its watermark is old until a fetch. */
                                s->held[j].since_ms  = now;
                                s->held[j].hwm_since = s->held[j].hwm;
                        }
        }
        return changed;
}

/* Pauses and resumes the held partitions as \p want says per rank.
 * Returns how many partitions it paused. */
static int apply(bp_scheduler_t *s, const bp_sched_part_t *view,
                 const int *want, int64_t now) {
        rd_kafka_topic_partition_list_t *pause, *resume;
        const char *topic = s->c->cfg.topic;
        int32_t top       = 0;
        uint64_t mask     = 0;
        int i, r, paused;

        for (i = 0; i < s->held_cnt; i++)
                if (s->held[i].partition >= top)
                        top = s->held[i].partition + 1;
        if (grow((void **)&s->paused_by_us, &s->paused_cap, top, 1))
                return 0; /* out of memory: change nothing */
        pause  = rd_kafka_topic_partition_list_new(s->held_cnt);
        resume = rd_kafka_topic_partition_list_new(s->held_cnt);
        for (r = 0; r < s->n; r++) {
                bp_sched_lead_t *lead = &s->b[s->bucket_at[r]].lead;
                int32_t only          = want[r] ? BP_SCHED_RESUME_ALL
                                                : bp_sched_stagger(
                                                      view, s->held_cnt, r,
                                                      s->settle_ms, now, lead);
                if (want[r])
                        lead->lead = -1;
                for (i = 0; i < s->held_cnt; i++) {
                        const held_t *h = &s->held[i];
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
                for (i = 0; i < s->held_cnt; i++)
                        if (s->held[i].rank == r) {
                                any = 1;
                                all &= s->paused_by_us[s->held[i].partition];
                        }
                set_bucket_paused(s, s->bucket_at[r], any && all, now);
                if (any && all)
                        mask |= 1ull << r;
        }
        atomic_store_explicit(&s->paused_ranks, mask, memory_order_relaxed);
        return paused;
}

/* One decision over the held partitions (state_lock held). */
static void evaluate(bp_scheduler_t *s) {
        int want[BP_MAX_BUCKETS], full = 0;
        int64_t now = now_ms(), t0;
        const bp_sched_part_t *view;
        bp_sched_ranks_t rs;
        int r;

        if (s->held_cnt == 0) {
                for (r = 0; r < s->n; r++)
                        set_bucket_paused(s, s->bucket_at[r], 0, now);
                atomic_store_explicit(&s->paused_ranks, 0,
                                      memory_order_relaxed);
                return;
        }
        if (rd_kafka_consumer_closed(s->rk))
                return;
        t0 = now_us();
        measure(s, s->held, s->held_cnt, now);
        if (s->mode == BP_SCHEDULE_STRICT) {
                int64_t fill = queue_fill(s);
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
                        int64_t p0 = now_us();
                        probe(s, now, 1);
                        t0 += now_us() - p0; /* a request, not our cost */
                        measure(s, s->held, s->held_cnt, now);
                } else if ((s->queue_blocked && fill < 900) ||
                           (s->wake_fetcher && fill < 900 &&
                            now < s->full_seen_ms + BP_SCHED_REFETCH_MS &&
                            now >= s->last_probe_ms + BP_SCHED_PROBE_MS)) {
                        int64_t p0 = now_us();
                        probe(s, now, 0);
                        t0 += now_us() - p0;
                }
                s->queue_blocked = fill >= 900;
        }
        if (!(view = view_held(s)))
                return; /* out of memory: change nothing */
        bp_sched_summarise(view, s->held_cnt, s->threshold, s->grace_ms, now,
                           &rs);
        if (s->mode == BP_SCHEDULE_WEIGHTED)
                decide_weighted(s, &rs, want);
        else
                bp_sched_decide_strict(s->n, &rs, want);
        /* What a decision costs this thread (pauses wait on librdkafka's
         * main thread and are left out): paces the wake-ups. */
        atomic_store_explicit(&s->tick_cost_us, now_us() - t0,
                              memory_order_relaxed);
        if (apply(s, view, want, now) > 0 && full) {
                probe(s, now, 0); /* wakes the fetcher, see probe() */
                /* The paused records leave the queue shortly: decide
                 * every millisecond meanwhile, so that the fetcher is
                 * woken again as soon as the queue is below its
                 * thresholds. */
                atomic_store_explicit(&s->quick_until_ms,
                                      now + BP_SCHED_DRAIN_WATCH_MS,
                                      memory_order_relaxed);
        }
}

static void *run(void *arg) {
        bp_scheduler_t *s = arg;
        struct timespec until;

        pthread_mutex_lock(&s->ctl_lock);
        while (!s->stop) {
                if (!s->wake) {
                        long tick_ms =
                            now_ms() < atomic_load_explicit(
                                           &s->quick_until_ms,
                                           memory_order_relaxed)
                                ? 1
                                : BP_SCHED_TICK_MS;
                        clock_gettime(CLOCK_MONOTONIC, &until);
                        until.tv_nsec += tick_ms * 1000000L;
                        if (until.tv_nsec >= 1000000000L) {
                                until.tv_sec++;
                                until.tv_nsec -= 1000000000L;
                        }
                        pthread_cond_timedwait(&s->ctl_cond, &s->ctl_lock,
                                               &until);
                }
                if (s->stop)
                        break;
                s->wake = 0;
                pthread_mutex_unlock(&s->ctl_lock);

                pthread_mutex_lock(&s->state_lock);
                evaluate(s);
                pthread_mutex_unlock(&s->state_lock);

                pthread_mutex_lock(&s->ctl_lock);
        }
        pthread_mutex_unlock(&s->ctl_lock);
        return NULL;
}

/* --- interceptors -------------------------------------------------------- */

static rd_kafka_resp_err_t on_consume(rd_kafka_t *rk,
                                      rd_kafka_message_t *m,
                                      void *ic_opaque) {
        bp_client_t *c       = ic_opaque;
        bp_scheduler_t *s    = c->sched;
        const bp_layout_t *l;
        uint64_t others;
        int64_t now, lo, hi, size;
        int r;

        if (!s || m->err || !m->rkt || m->partition < 0 ||
            strcmp(rd_kafka_topic_name(m->rkt), c->cfg.topic))
                return RD_KAFKA_RESP_ERR_NO_ERROR;
        l = atomic_load_explicit(&c->current, memory_order_acquire);
        if (!l || m->partition >= l->partition_cnt ||
            l->bucket_of[m->partition] >= l->bucket_cnt ||
            (r = s->rank_of[l->bucket_of[m->partition]]) < 0)
                return RD_KAFKA_RESP_ERR_NO_ERROR;
        atomic_fetch_add_explicit(&s->delivered[l->bucket_of[m->partition]],
                                  1, memory_order_relaxed);
        if (!s->threaded)
                return RD_KAFKA_RESP_ERR_NO_ERROR;
        size = atomic_load_explicit(&s->record_bytes, memory_order_relaxed);
        atomic_store_explicit(&s->record_bytes,
                              size + ((int64_t)(m->len + m->key_len) - size) / 16,
                              memory_order_relaxed);

        /* This record drained its partition while another bucket waits:
         * decide now, so that the waiting bucket resumes at once. */
        others = atomic_load_explicit(&s->paused_ranks, memory_order_relaxed) &
                 ~(1ull << r);
        if (others && !rd_kafka_get_watermark_offsets(
                          rk, c->cfg.topic, m->partition, &lo, &hi) &&
            hi >= 0 && m->offset + 1 + s->threshold >= hi) {
                wake(s);
                return RD_KAFKA_RESP_ERR_NO_ERROR;
        }
        /* Records flow: a higher bucket may have been fetched meanwhile. */
        now = now_us();
        if (now >= atomic_load_explicit(&s->next_wake_us,
                                        memory_order_relaxed)) {
                int64_t cost = 4 * atomic_load_explicit(&s->tick_cost_us,
                                                        memory_order_relaxed);
                atomic_store_explicit(
                    &s->next_wake_us,
                    now + (cost > BP_SCHED_WAKE_MIN_US ? cost
                                                       : BP_SCHED_WAKE_MIN_US),
                    memory_order_relaxed);
                wake(s);
        }
        return RD_KAFKA_RESP_ERR_NO_ERROR;
}

static void destroy(bp_scheduler_t *s) {
        pthread_mutex_destroy(&s->state_lock);
        pthread_mutex_destroy(&s->ctl_lock);
        pthread_cond_destroy(&s->ctl_cond);
        free(s->held);
        free(s->view);
        free(s->committed);
        free(s->paused_by_us);
        free(s);
}

/* Stops the thread. on_destroy runs on librdkafka's main thread once it
 * stopped serving operations: a pause or resume caught in flight then
 * never returns, so after STOP_WAIT_MS the thread is left behind
 * (detached, its state kept) rather than hanging rd_kafka_destroy(). */
static int stop(bp_scheduler_t *s) {
        struct timespec until;
        int stuck;

        pthread_mutex_lock(&s->ctl_lock);
        s->stop = 1;
        pthread_cond_broadcast(&s->ctl_cond);
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += STOP_WAIT_MS / 1000;
        while (s->in_op &&
               pthread_cond_timedwait(&s->ctl_cond, &s->ctl_lock, &until) == 0)
                ;
        stuck = s->in_op;
        pthread_mutex_unlock(&s->ctl_lock);
        if (!s->thread_started)
                return 0;
        if (stuck) {
                pthread_detach(s->thread);
                return -1;
        }
        pthread_join(s->thread, NULL);
        return 0;
}

static rd_kafka_resp_err_t on_destroy(rd_kafka_t *rk, void *ic_opaque) {
        bp_client_t *c    = ic_opaque;
        bp_scheduler_t *s = c->sched;

        if (!s || s->rk != rk)
                return RD_KAFKA_RESP_ERR_NO_ERROR;
        c->sched = NULL;
        if (stop(s)) {
                bp_client_log(c, 3,
                              "scheduler thread left behind: a pause or "
                              "resume was in flight while the client was "
                              "destroyed");
                return RD_KAFKA_RESP_ERR_NO_ERROR;
        }
        destroy(s);
        return RD_KAFKA_RESP_ERR_NO_ERROR;
}

/* --- configuration time -------------------------------------------------- */

/* The librdkafka properties a consumer of several buckets gets, unless
 * the user set them (bit i of sched_user_set, sched_set: tuned[i]). */
static const struct {
        const char *name, *list_value, *librdkafka_default;
} tuned[] = {
    {"fetch.queue.backoff.ms", BP_SCHED_QUEUE_BACKOFF_MS_TEXT, "1000"},
    {"fetch.wait.max.ms", BP_SCHED_FETCH_WAIT_MS_TEXT, "500"},
};
#define TUNED_CNT ((int)(sizeof(tuned) / sizeof(tuned[0])))

void bp_scheduler_conf_init(bp_client_t *c, const rd_kafka_conf_t *conf) {
        int i;
        for (i = 0; i < TUNED_CNT; i++) {
                char v[32];
                size_t size = sizeof(v);
                if (rd_kafka_conf_get(conf, tuned[i].name, v, &size) ==
                        RD_KAFKA_CONF_OK &&
                    strcmp(v, tuned[i].librdkafka_default))
                        c->sched_user_set |= 1u << i;
        }
}

void bp_scheduler_conf_seen(bp_client_t *c, const char *name) {
        int i;
        for (i = 0; i < TUNED_CNT; i++)
                if (!strcmp(name, tuned[i].name))
                        c->sched_user_set |= 1u << i;
}

rd_kafka_conf_res_t bp_scheduler_conf_apply(bp_client_t *c,
                                            rd_kafka_conf_t *conf) {
        int list = c->cfg.consumer_bucket_cnt > 1, i;
        char errstr[256];

        for (i = 0; i < TUNED_CNT; i++) {
                unsigned bit = 1u << i;
                if ((c->sched_user_set & bit) ||
                    list == !!(c->sched_set & bit))
                        continue;
                /* RD_KAFKA_CONF_UNKNOWN where librdkafka lacks it (the
                 * backoff before 2.2): nothing to do. */
                if (bp_conf_set_own(c, conf, tuned[i].name,
                                    list ? tuned[i].list_value
                                         : tuned[i].librdkafka_default,
                                    errstr,
                                    sizeof(errstr)) == RD_KAFKA_CONF_OK)
                        c->sched_set = list ? c->sched_set | bit
                                            : c->sched_set & ~bit;
        }
        return RD_KAFKA_CONF_OK;
}

/* --- hooks --------------------------------------------------------------- */

static start_kind_t reset_kind(const rd_kafka_conf_t *conf) {
        char v[32];
        size_t size = sizeof(v);

        if (rd_kafka_conf_get(conf, "auto.offset.reset", v, &size) !=
            RD_KAFKA_CONF_OK)
                return START_LATEST; /* librdkafka's default */
        if (!strcmp(v, "smallest") || !strcmp(v, "earliest") ||
            !strcmp(v, "beginning"))
                return START_EARLIEST;
        if (!strcmp(v, "largest") || !strcmp(v, "latest") ||
            !strcmp(v, "end"))
                return START_LATEST;
        return START_UNKNOWN; /* "error" */
}

static int64_t conf_int(const rd_kafka_conf_t *conf, const char *name,
                        int64_t dflt) {
        char v[32];
        size_t size = sizeof(v);
        long long n;

        if (rd_kafka_conf_get(conf, name, v, &size) != RD_KAFKA_CONF_OK)
                return dflt;
        n = strtoll(v, NULL, 10);
        return n > 0 ? n : dflt;
}

static int conf_has(const rd_kafka_conf_t *conf, const char *name) {
        char v[32];
        size_t size = sizeof(v);
        return rd_kafka_conf_get(conf, name, v, &size) == RD_KAFKA_CONF_OK;
}

static int64_t fetch_wait_ms(const rd_kafka_conf_t *conf) {
        return conf_int(conf, "fetch.wait.max.ms", 500);
}

void bp_scheduler_on_new(bp_client_t *c,
                         rd_kafka_t *rk,
                         const rd_kafka_conf_t *conf) {
        bp_scheduler_t *s;
        pthread_condattr_t ca;
        char names[BP_MAX_VALUE_LEN + 1];
        size_t at = 0;
        int k, b;

        if (rd_kafka_type(rk) != RD_KAFKA_CONSUMER ||
            c->cfg.consumer_bucket_cnt == 0 || c->mode != BP_MODE_ACTIVE ||
            c->sched)
                return;
        if (!(s = calloc(1, sizeof(*s)))) {
                bp_client_log(c, 3, "out of memory: no consumer statistics");
                return;
        }
        s->c         = c;
        s->rk        = rk;
        s->n         = c->cfg.consumer_bucket_cnt;
        s->mode      = c->cfg.schedule;
        s->threshold = c->cfg.lag_threshold;
        for (b = 0; b < BP_MAX_BUCKETS; b++) {
                s->rank_of[b]     = -1;
                s->b[b].lead.lead = -1;
        }
        for (k = 0; k < s->n; k++) {
                b              = c->cfg.consumer_buckets[k];
                s->rank_of[b]  = k;
                s->bucket_at[k] = b;
                at += (size_t)snprintf(names + at, sizeof(names) - at, "%s%s",
                                       k ? ", " : "", c->cfg.buckets[b].name);
                if (at >= sizeof(names))
                        at = sizeof(names) - 1;
        }
        s->reset_kind      = reset_kind(conf);
        s->queue_min_msgs  = conf_int(conf, "queued.min.messages", 100000);
        s->queue_max_bytes =
            conf_int(conf, "queued.max.messages.kbytes", 65536) * 1024;
        s->wake_fetcher = !conf_has(conf, "fetch.queue.backoff.ms");
        s->settle_ms  = fetch_wait_ms(conf) + 2 * BP_SCHED_TICK_MS;
        s->grace_ms   = 2 * fetch_wait_ms(conf) + 1000;
        pthread_mutex_init(&s->state_lock, NULL);
        pthread_mutex_init(&s->ctl_lock, NULL);
        pthread_condattr_init(&ca); /* timed waits on CLOCK_MONOTONIC */
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&s->ctl_cond, &ca);
        pthread_condattr_destroy(&ca);

        if (rd_kafka_interceptor_add_on_consume(rk, SCHED_NAME, on_consume,
                                                c) ||
            rd_kafka_interceptor_add_on_destroy(rk, SCHED_NAME, on_destroy,
                                                c)) {
                bp_client_log(c, 3,
                              "cannot register the scheduler's interceptors: "
                              "buckets %s are not scheduled",
                              names);
                destroy(s);
                return;
        }
        c->sched = s;
        if (s->n < 2)
                return;

        s->threaded = 1;
        if (pthread_create(&s->thread, NULL, run, s)) {
                s->threaded = 0;
                bp_client_log(c, 3,
                              "cannot start the scheduler thread: buckets %s "
                              "are served without priority",
                              names);
                return;
        }
        s->thread_started = 1;
        if (rd_kafka_version() < 0x020100ff)
                bp_client_log(
                    c, 5,
                    "librdkafka %s: consume with rd_kafka_consumer_poll(); "
                    "before librdkafka 2.1.0, rd_kafka_consume_batch*() can "
                    "skip records of partitions paused or resumed from "
                    "another thread (librdkafka #4208), which the bucket "
                    "scheduler does",
                    rd_kafka_version_str());
}

void bp_scheduler_note_committed(bp_client_t *c,
                                 const rd_kafka_topic_partition_list_t *all) {
        bp_scheduler_t *s = c->sched;
        int i;

        if (!s)
                return;
        pthread_mutex_lock(&s->state_lock);
        grow((void **)&s->committed, &s->committed_cnt, all->cnt,
             sizeof(*s->committed));
        for (i = 0; i < s->committed_cnt; i++)
                s->committed[i] = RD_KAFKA_OFFSET_INVALID;
        for (i = 0; i < all->cnt; i++) {
                const rd_kafka_topic_partition_t *e = &all->elems[i];
                if (e->partition >= 0 && e->partition < s->committed_cnt)
                        s->committed[e->partition] =
                            e->err ? RD_KAFKA_OFFSET_INVALID : e->offset;
        }
        pthread_mutex_unlock(&s->state_lock);
}

void bp_scheduler_assigning(bp_client_t *c,
                            rd_kafka_t *rk,
                            const rd_kafka_topic_partition_list_t *assigned,
                            const bp_layout_t *l) {
        bp_scheduler_t *s = c->sched;
        int64_t now = now_ms(), lo, hi;
        int i, r;

        if (!s || s->rk != rk)
                return;
        pthread_mutex_lock(&s->state_lock);
        s->held_cnt = 0;
        for (i = 0; i < assigned->cnt; i++) {
                const rd_kafka_topic_partition_t *e = &assigned->elems[i];
                held_t *h;

                if (strcmp(e->topic, c->cfg.topic) || e->partition < 0 ||
                    e->partition >= l->partition_cnt ||
                    l->bucket_of[e->partition] >= l->bucket_cnt ||
                    (r = s->rank_of[l->bucket_of[e->partition]]) < 0 ||
                    grow((void **)&s->held, &s->held_cap, s->held_cnt + 1,
                         sizeof(*s->held)))
                        continue;
                h = &s->held[s->held_cnt++];
                memset(h, 0, sizeof(*h));
                h->partition = e->partition;
                h->bucket    = l->bucket_of[e->partition];
                h->rank      = r;
                h->start     = -1;
                h->probed    = -1;
                if (e->offset >= 0) {
                        h->start_kind = START_OFFSET;
                        h->start      = e->offset;
                } else if (e->offset == RD_KAFKA_OFFSET_BEGINNING) {
                        h->start_kind = START_EARLIEST;
                } else if (e->offset == RD_KAFKA_OFFSET_END) {
                        h->start_kind = START_LATEST;
                } else if (e->partition < s->committed_cnt &&
                           s->committed[e->partition] >= 0) {
                        h->start_kind = START_OFFSET;
                        h->start      = s->committed[e->partition];
                } else {
                        h->start_kind = s->reset_kind;
                }
                h->since_ms  = now;
                h->hwm_since = rd_kafka_get_watermark_offsets(
                                   rk, c->cfg.topic, e->partition, &lo, &hi)
                                   ? -1
                                   : hi;
        }
        /* Committed offsets are only good for this assignment; so are the
         * weighted credits, earned on partitions held before. */
        for (i = 0; i < s->committed_cnt; i++)
                s->committed[i] = RD_KAFKA_OFFSET_INVALID;
        for (r = 0; r < s->n; r++) {
                bucket_state_t *b = &s->b[s->bucket_at[r]];
                b->credit         = 0;
                b->lead.lead      = -1;
                b->delivered_seen = atomic_load_explicit(
                    &s->delivered[s->bucket_at[r]], memory_order_relaxed);
        }
        if (s->threaded)
                evaluate(s); /* before the partitions are assigned */
        pthread_mutex_unlock(&s->state_lock);
        if (s->threaded)
                wake(s);
}

void bp_scheduler_revoking(bp_client_t *c) {
        bp_scheduler_t *s = c->sched;

        if (!s)
                return;
        pthread_mutex_lock(&s->state_lock);
        s->held_cnt = 0;
        evaluate(s); /* no partitions: every bucket counts as running */
        pthread_mutex_unlock(&s->state_lock);
}

/* --- statistics ---------------------------------------------------------- */

int bp_consumer_bucket_stats(const rd_kafka_t *rk,
                             int idx,
                             bp_consumer_bucket_stats_t *stats) {
        bp_client_t *c = bp_registry_find(rk);
        bp_scheduler_t *s;
        bucket_state_t *b;
        held_t *h = NULL;
        int64_t now = now_ms();
        int i, k = 0;

        if (!c || !stats || !(s = c->sched) || idx < 0 ||
            idx >= c->cfg.bucket_cnt)
                return -1;
        memset(stats, 0, sizeof(*stats));
        stats->name      = c->cfg.buckets[idx].name;
        stats->rank      = s->rank_of[idx];
        stats->delivered = atomic_load_explicit(&s->delivered[idx],
                                                memory_order_relaxed);

        pthread_mutex_lock(&s->state_lock);
        b                 = &s->b[idx];
        stats->paused     = b->paused;
        stats->pauses     = b->pauses;
        stats->paused_ms  = b->paused_ms +
                           (b->paused ? (uint64_t)(now - b->paused_since_ms)
                                      : 0);
        if (s->held_cnt > 0)
                h = malloc(sizeof(*h) * (size_t)s->held_cnt);
        for (i = 0; h && i < s->held_cnt; i++)
                if (s->held[i].bucket == idx)
                        h[k++] = s->held[i];
        measure(s, h, k, now);
        pthread_mutex_unlock(&s->state_lock);

        stats->partitions = k;
        for (i = 0; i < k; i++) {
                if (h[i].lag >= 0)
                        stats->lag += h[i].lag;
                else
                        stats->lag_unknown++;
        }
        free(h);
        return 0;
}
