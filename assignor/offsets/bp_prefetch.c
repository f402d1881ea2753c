/*
 * bp_prefetch.c - the sibling groups' commits read at creation (see
 * bp_start_offsets.h).
 *
 * Why. A member joining a group of 50 buckets read the 49 sibling groups
 * inside its first rebalance callback (16 at once, 45 to 90 ms on Kafka
 * 4.4), which the whole group waited for. The same reads begin when the
 * consumer is created, before it has even subscribed; the rebalance then
 * finds them done, or waits for the rest of them, and reads only what
 * they left out.
 *
 * Why the answer is the same. A partition's start offset depends on the
 * sibling groups' commits on it. Under one layout those do not move: the
 * sibling groups' members map with the same layout and never hold this
 * bucket's partitions, so none of them commits there, whether they are
 * read at creation or at the rebalance. So what is read here is kept for
 * the layout it was read under (from the topic's partition count as a
 * helper client sees it now), and used only by a rebalance that maps with
 * that same layout: the record of bp_siblings.c empties itself for any
 * other (the topic grew in between). Nothing is read here during a layout
 * change (its groups hand partitions over: the rebalance reads), and a
 * partition is kept only once every sibling group answered for it. What
 * the argument does not cover is what it does not cover at a rebalance
 * either: a sibling member that maps with another layout (it has not seen
 * the topic grow yet, or it is misconfigured, which bp-audit reports) may
 * go on committing one of this bucket's partitions after the read, here
 * over a longer time. The commit read is then lower than the last one:
 * this consumer starts earlier and reads again what that member read (at
 * least once), never later.
 *
 * How. on_new() prepares the readers' configurations (the client's
 * connection properties, read while they cannot change) and the sibling
 * groups' names; the thread starts with librdkafka's main thread, once
 * the client has its name (so that every line says which client it is
 * about). It asks the partition count through a helper client of its own
 * (never through the consumer: the rebalance asks its own, bp_reader.c),
 * takes the layout for that count without making it the consumer's
 * current one, and reads the sibling groups for this bucket's partitions
 * with bp_sibling_groups_read(), with a shorter wait per reader than the
 * rebalance's: a group that does not answer in time is read again by the
 * rebalance.
 *
 * Locking. The thread never touches the consumer's record: it keeps what
 * it found in its own state, which the rebalance (bp_prefetch_collect())
 * puts into the record once the thread has ended; the lock and the
 * condition below hand it over. The thread reaches the client's state
 * only under that lock, through p->c (the layout, the log), and
 * on_destroy() clears p->c under it when the thread does not end in time:
 * the thread, left behind, then frees its own state when it ends and
 * touches nothing else. Its helper clients log through p, never through
 * the client.
 */
#include "bp_start_offsets.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp_client_layout.h"
#include "bp_mapping.h"
#include "bp_clock.h"
#include "bp_consumer_side.h"

#define PREFETCH_NAME "bucket-priority-prefetch"

/* How long one reader waits for a group's commits at creation: a group
 * that takes longer is read again at the rebalance. */
#define PREFETCH_READ_TIMEOUT_MS 3000

/* The partition count is asked in requests of at most this long (ms), the
 * thread looking between them whether it was told to stop. */
#define PREFETCH_COUNT_SLICE_MS 100

/* How long on_destroy() waits for the thread: once told to stop, it
 * begins no further read, and those under way end within their own
 * timeouts (the partition count's or PREFETCH_READ_TIMEOUT_MS). */
#define PREFETCH_STOP_WAIT_MS                                                  \
        ((BP_READER_COUNT_TIMEOUT_MS > PREFETCH_READ_TIMEOUT_MS                \
              ? BP_READER_COUNT_TIMEOUT_MS                                     \
              : PREFETCH_READ_TIMEOUT_MS) +                                    \
         3000)

enum { PF_PREPARED, PF_RUNNING, PF_DONE };

typedef struct bp_prefetch {
        pthread_mutex_t lock;
        pthread_cond_t done; /* state became PF_DONE */
        int state;
        pthread_t thread;
        /* The client, under lock; NULL once on_destroy() left the thread
         * behind. */
        bp_client_t *c;
        atomic_int cancel; /* begin no further read */
        int collected;     /* the rebalance looked */
        int joined;        /* the rebalance joined the thread */
        int log_level;     /* the client's log_level */
        char *topic;
        rd_kafka_conf_t *count_conf; /* the partition count helper's */
        bp_sibling_groups_t *groups;

        /* What the thread found, read once it is PF_DONE. */
        int32_t cnt;                /* partition count, -1: none */
        const bp_layout_t *layout;  /* NULL: nothing read */
        rd_kafka_topic_partition_list_t *wanted; /* the bucket's */
        int64_t *best;
        int *from;
        int answered, group_cnt, peak;
} bp_prefetch_t;

static void prefetch_free(bp_prefetch_t *p) {
        if (p->count_conf)
                rd_kafka_conf_destroy(p->count_conf);
        bp_sibling_groups_destroy(p->groups);
        if (p->wanted)
                rd_kafka_topic_partition_list_destroy(p->wanted);
        free(p->best);
        free(p->from);
        free(p->topic);
        pthread_cond_destroy(&p->done);
        pthread_mutex_destroy(&p->lock);
        free(p);
}

/* A line for the client's log at level 7 (debug), unless the client is
 * gone (left behind). What fails here is no fault: the rebalance reads
 * again, and logs what fails then as a warning. (A brand-new group's
 * coordinator, for one, may answer "not coordinator" for a moment.) */
static void gate_log(void *opaque, int level, const char *line) {
        bp_prefetch_t *p = opaque;

        (void)level;
        pthread_mutex_lock(&p->lock);
        if (p->c && p->log_level >= 7)
                bp_client_log(p->c, 7, "%s", line);
        pthread_mutex_unlock(&p->lock);
}

/* The helper clients' log: librdkafka's errors. */
static void helper_log(const rd_kafka_t *helper, int level, const char *fac,
                       const char *buf) {
        char line[BP_LOG_LINE_MAX];

        (void)fac;
        if (level > 3)
                return;
        snprintf(line, sizeof(line),
                 "reads at creation, a helper client: %s (what it could not "
                 "read is read at the first rebalance)",
                 buf);
        gate_log(rd_kafka_opaque(helper), level, line);
}

/* \p conf's log and opaque made p's. */
static rd_kafka_conf_t *gated(rd_kafka_conf_t *conf, bp_prefetch_t *p) {
        rd_kafka_conf_set_opaque(conf, p);
        rd_kafka_conf_set_log_cb(conf, helper_log);
        return conf;
}

/* The partition count from a helper client of the thread's own, or -1. */
static int32_t count_partitions(bp_prefetch_t *p) {
        char errstr[256];
        rd_kafka_t *helper;
        int64_t until;
        int32_t cnt;

        if (atomic_load(&p->cancel))
                return -1; /* destroyed already */
        /* A producer: no group, nothing to close. */
        helper = rd_kafka_new(RD_KAFKA_PRODUCER, p->count_conf, errstr,
                              sizeof(errstr));
        if (!helper)
                return -1; /* p->count_conf freed with p */
        p->count_conf = NULL; /* the helper's now */
        /* Asked in slices, so that on_destroy() (cancel) does not wait
         * out the whole timeout: a client created and destroyed at once,
         * or one whose cluster does not answer, ends within a slice. */
        until = bp_clock_ms() + BP_READER_COUNT_TIMEOUT_MS;
        do
                cnt = bp_topic_partition_count(helper, p->topic,
                                               PREFETCH_COUNT_SLICE_MS);
        while (cnt < 0 && !atomic_load(&p->cancel) && bp_clock_ms() < until);
        rd_kafka_destroy(helper);
        return cnt;
}

/* The layout for \p cnt partitions and this bucket's partitions in it
 * (p->layout, p->wanted), while the client is there. */
static void locate(bp_prefetch_t *p, int32_t cnt) {
        const bp_layout_t *l;
        bp_client_t *c;
        int32_t *b, n, i;

        pthread_mutex_lock(&p->lock);
        c = p->c;
        l = c ? bp_client_layout_aside(c, cnt) : NULL;
        b = l ? malloc(sizeof(*b) * (size_t)cnt) : NULL;
        if (b) {
                n = bp_mapping_partitions(l, c->cfg.consumer_buckets,
                                          c->cfg.consumer_bucket_cnt, b);
                p->wanted = rd_kafka_topic_partition_list_new(n);
                for (i = 0; i < n; i++)
                        rd_kafka_topic_partition_list_add(p->wanted, p->topic,
                                                          b[i]);
                p->layout = l;
                free(b);
        }
        pthread_mutex_unlock(&p->lock);
}

static void *prefetch_main(void *arg) {
        bp_prefetch_t *p = arg;
        const bp_siblings_how_t how = {
            .log          = gate_log,
            .log_opaque   = p,
            .unread       = "reads at creation: no answer from sibling group",
            .unread_after = "; the first rebalance reads it",
            .timeout_ms   = PREFETCH_READ_TIMEOUT_MS,
            .cancel       = &p->cancel};
        int64_t started = bp_clock_us();
        int32_t p_cnt, i;
        int left;

        p->cnt = count_partitions(p);
        if (p->cnt > 0 && !atomic_load(&p->cancel))
                locate(p, p->cnt);
        if (p->wanted && p->wanted->cnt > 0 && !atomic_load(&p->cancel)) {
                p_cnt   = p->cnt;
                p->best = malloc(sizeof(*p->best) * (size_t)p_cnt);
                p->from = malloc(sizeof(*p->from) * (size_t)p_cnt);
                if (p->best && p->from) {
                        for (i = 0; i < p_cnt; i++) {
                                p->best[i] = -1;
                                p->from[i] = -1;
                        }
                        p->group_cnt = bp_sibling_groups_cnt(p->groups);
                        p->answered  = bp_sibling_groups_read(
                            p->groups, &how, p->wanted, p->best, p->from,
                            p_cnt, &p->peak);
                } else
                        p->layout = NULL; /* out of memory: nothing read */
        } else
                p->layout = NULL;

        pthread_mutex_lock(&p->lock);
        if (p->c && p->log_level >= 7)
                bp_client_log(
                    p->c, 7,
                    "sibling offsets read at creation: %d of %d groups "
                    "answered for %d partitions of %d, at most %d at once, "
                    "in %lld ms%s",
                    p->answered, p->group_cnt,
                    p->wanted ? p->wanted->cnt : 0, (int)p->cnt, p->peak,
                    (long long)((bp_clock_us() - started) / 1000),
                    p->cnt < 0       ? " (no partition count)"
                    : atomic_load(&p->cancel) ? " (stopped)"
                                              : "");
        p->state = PF_DONE;
        pthread_cond_broadcast(&p->done);
        left = !p->c;
        pthread_mutex_unlock(&p->lock);
        if (left)
                prefetch_free(p); /* on_destroy() gave up on it */
        return NULL;
}

/* Waits until the thread is done or \p ms have passed; p->lock held.
 * Returns 1 when it is done. */
static int wait_done(bp_prefetch_t *p, int ms) {
        struct timespec until;

        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += ms / 1000;
        until.tv_nsec += (long)(ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000L;
        }
        while (p->state == PF_RUNNING &&
               pthread_cond_timedwait(&p->done, &p->lock, &until) != ETIMEDOUT)
                ;
        return p->state != PF_RUNNING;
}

static rd_kafka_resp_err_t on_thread_start(rd_kafka_t *rk,
                                           rd_kafka_thread_type_t type,
                                           const char *thread_name,
                                           void *ic_opaque) {
        bp_client_t *c   = ic_opaque;
        bp_prefetch_t *p = atomic_load(&c->consumer->run.prefetch);

        (void)rk, (void)thread_name;
        if (type != RD_KAFKA_THREAD_MAIN || !p)
                return RD_KAFKA_RESP_ERR_NO_ERROR;
        pthread_mutex_lock(&p->lock);
        if (p->state == PF_PREPARED &&
            !pthread_create(&p->thread, NULL, prefetch_main, p))
                p->state = PF_RUNNING;
        pthread_mutex_unlock(&p->lock);
        return RD_KAFKA_RESP_ERR_NO_ERROR;
}

/* Ends the reads (they begin nothing more) and frees them; a thread that
 * does not end within PREFETCH_STOP_WAIT_MS is left behind, without the
 * client, rather than holding rd_kafka_destroy() longer. */
static rd_kafka_resp_err_t on_destroy(rd_kafka_t *rk, void *ic_opaque) {
        bp_client_t *c   = ic_opaque;
        bp_prefetch_t *p = atomic_exchange(&c->consumer->run.prefetch, NULL);
        int done, started;

        (void)rk;
        if (!p)
                return RD_KAFKA_RESP_ERR_NO_ERROR;
        atomic_store(&p->cancel, 1);
        pthread_mutex_lock(&p->lock);
        done    = wait_done(p, PREFETCH_STOP_WAIT_MS);
        started = p->state != PF_PREPARED && !p->joined;
        if (!done) {
                bp_client_log(c, 3,
                              "the sibling offsets reads begun at creation "
                              "did not end within %d ms of the client's "
                              "destruction: left to end on their own",
                              PREFETCH_STOP_WAIT_MS);
                p->c = NULL; /* the thread frees p */
        }
        pthread_mutex_unlock(&p->lock);
        if (!done) {
                pthread_detach(p->thread);
                return RD_KAFKA_RESP_ERR_NO_ERROR;
        }
        if (started)
                pthread_join(p->thread, NULL);
        prefetch_free(p);
        return RD_KAFKA_RESP_ERR_NO_ERROR;
}

void bp_prefetch_collect(bp_client_t *c) {
        bp_prefetch_t *p = atomic_load(&c->consumer->run.prefetch);
        int done, started;

        if (!p)
                return;
        pthread_mutex_lock(&p->lock);
        if (p->collected) {
                pthread_mutex_unlock(&p->lock);
                return;
        }
        p->collected = 1; /* the next rebalances do not wait */
        done    = wait_done(p, BP_REBALANCE_TIMEOUT_MS);
        started = p->state != PF_PREPARED;
        pthread_mutex_unlock(&p->lock);
        if (!done) {
                /* Read by the rebalance instead; freed at on_destroy(). */
                atomic_store(&p->cancel, 1);
                bp_client_log(c, 4,
                              "the sibling offsets reads begun at creation "
                              "are still running after %d ms: this "
                              "rebalance reads them itself",
                              BP_REBALANCE_TIMEOUT_MS);
                return;
        }
        if (started) {
                pthread_join(p->thread, NULL);
                pthread_mutex_lock(&p->lock);
                p->joined = 1;
                pthread_mutex_unlock(&p->lock);
        }
        /* Kept only once every sibling group answered, as at a rebalance.
         * The rest of p is freed at on_destroy(). */
        if (p->layout && p->answered == p->group_cnt &&
            !atomic_load(&p->cancel))
                bp_siblings_keep(c, p->layout, p->cnt, p->wanted, p->best,
                                 p->from);
}

/* 1 when the reads at creation apply to consumer \p c (bp_start_offsets.h). */
static int applies(const bp_client_t *c, rd_kafka_t *rk) {
        const bp_consumer_side_t *k = c->consumer;

        return rd_kafka_type(rk) == RD_KAFKA_CONSUMER &&
               c->mode == BP_MODE_ACTIVE && c->cfg.consumer_bucket_cnt == 1 &&
               c->cfg.group_per_bucket && k->props.base_group_id[0] &&
               c->cfg.bucket_cnt >= 2 && !c->cfg.next.set &&
               k->run.mode != BP_CONSUMER_KIP848 &&
               !bp_reader_token_from_application(rk) &&
               /* Brokers added with rd_kafka_brokers_add() come after
                * on_new(): the rebalance lends them to its readers. */
               bp_reader_conf_names_brokers(rd_kafka_conf(rk));
}

void bp_prefetch_on_new(bp_client_t *c, rd_kafka_t *rk,
                        const rd_kafka_conf_t *conf) {
        bp_prefetch_t *p;
        rd_kafka_conf_t *base;

        if (!applies(c, rk) || !(p = calloc(1, sizeof(*p))))
                return;
        pthread_mutex_init(&p->lock, NULL);
        {
                pthread_condattr_t ca; /* timed waits on CLOCK_MONOTONIC */
                pthread_condattr_init(&ca);
                pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
                pthread_cond_init(&p->done, &ca);
                pthread_condattr_destroy(&ca);
        }
        p->c          = c;
        p->cnt        = -1;
        p->log_level  = bp_conf_log_level(conf);
        p->topic      = strdup(c->cfg.topic);
        p->count_conf = gated(bp_reader_conf(c, rk, BP_READER_COUNT), p);
        base          = gated(bp_reader_conf(c, rk, BP_READER_SIBLINGS), p);
        p->groups     = bp_sibling_groups_new(c, base);
        rd_kafka_conf_destroy(base);
        if (!p->topic || !p->groups ||
            rd_kafka_interceptor_add_on_destroy(rk, PREFETCH_NAME, on_destroy,
                                                c) ||
            rd_kafka_interceptor_add_on_thread_start(rk, PREFETCH_NAME,
                                                     on_thread_start, c)) {
                /* An on_destroy() that was registered finds nothing. */
                prefetch_free(p);
                return;
        }
        atomic_store(&c->consumer->run.prefetch, p);
}
