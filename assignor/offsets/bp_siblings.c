/*
 * bp_siblings.c - the sibling bucket groups' commits, read in parallel (see
 * bp_start_offsets.h).
 *
 * How a rebalance reads them. The consumer of bucket Gold in group G lists
 * its sibling groups: G.<bucket> for every other bucket of the layout, and
 * for every bucket a layout change in progress adds. Each is read by a
 * short-lived consumer of that group that joins nothing (a "reader"):
 * rd_kafka_new(), rd_kafka_committed() for the partitions just assigned,
 * rd_kafka_destroy(). That is how the group's own consumers read their
 * commits, and it waits out a coordinator that is still loading. (The Admin
 * API's ListConsumerGroupOffsets would read them all from one client, but
 * it crashes librdkafka 2.0.2 to 2.15.1 when a coordinator answers with an
 * error, as in the first seconds of a broker.)
 *
 * A reader costs a connection, a coordinator lookup and one OffsetFetch:
 * about 7 ms on a local Kafka 4.4, so 49 siblings read one after another
 * held a rebalance of 50 buckets 0.4 s. Up to BP_SIBLING_READERS_MAX
 * threads now take the groups from a shared counter, each with its own
 * reader and result; the calling thread merges the results in bucket
 * order once all are done, so the answer is the one the sequential reads
 * gave (the highest commit; on a tie, the first bucket in order).
 *
 * What is read is kept, per partition, for the layout it was read under
 * (bp_consumer_side_t.siblings_seen), and a later rebalance reads only the
 * partitions not known yet: a member joining or leaving a group of 50
 * buckets then starts no reader at all in the members that stay. Under one
 * layout a sibling group's commits on this bucket's partitions do not
 * move: its members map with the same layout and never hold them. They
 * move when the layout changes: the topic grew (another layout, the record
 * starts empty) or a layout change is under way (nothing is kept while
 * bucket.priority.next.* is set, every rebalance reads). Only a sibling
 * member mapping with another layout, a misconfiguration bp-audit reports,
 * could move them meanwhile; this consumer then starts at its own group's
 * commit and reads again what that member read (at least once, nothing
 * skipped). A partition some sibling group did not answer for is not
 * kept, and read again at the next rebalance.
 *
 * The record's first entries usually come from before the first
 * rebalance: a consumer of one bucket on the classic protocol reads its
 * bucket's partitions when it is created (bp_prefetch.c, with the same
 * reads), and its first rebalance takes what they found, so a member
 * joining a group of 50 buckets starts no reader either.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp_clock.h"
#include "bp_config.h"
#include "bp_consumer_side.h"
#include "bp_start_offsets.h"

/* One sibling group to read, and what was read. */
typedef struct sibling_read {
        char group[sizeof(((bp_consumer_props_t *)0)->base_group_id) +
                   BP_MAX_NAME_LEN + 2];
        int bucket;                /* -1: a bucket a layout change adds */
        rd_kafka_conf_t *conf;     /* the reader's, until it is made */
        rd_kafka_topic_partition_list_t *committed; /* NULL: not read */
} sibling_read_t;

/* The sibling groups of a consumer, each with its reader's
 * configuration (see bp_start_offsets.h). */
struct bp_sibling_groups {
        sibling_read_t *reads;
        int cnt;
};

/* The reads of one batch, shared by the reader threads. */
typedef struct sibling_batch {
        const bp_siblings_how_t *how;
        const rd_kafka_topic_partition_list_t *wanted;
        sibling_read_t *reads;
        int cnt;
        atomic_int next;      /* the next read to take */
        atomic_int in_flight; /* readers alive now */
        atomic_int peak;      /* the most alive at once */
} sibling_batch_t;

/* Logs that group \p r could not be read, where \p b's reads log. */
static void log_unread(sibling_batch_t *b, const sibling_read_t *r,
                       const char *why) {
        char line[BP_LOG_LINE_MAX];

        snprintf(line, sizeof(line), "%s \"%s\" (%s)%s", b->how->unread,
                 r->group, why, b->how->unread_after);
        b->how->log(b->how->log_opaque, 4, line);
}

/* Reads one sibling group's commits for the wanted partitions into
 * r->committed (left NULL, and logged, when they cannot be read). */
static void read_one(sibling_batch_t *b, sibling_read_t *r) {
        rd_kafka_topic_partition_list_t *parts;
        rd_kafka_resp_err_t err;
        rd_kafka_t *reader;
        char errstr[256];
        int now, peak;

        if (rd_kafka_conf_set(r->conf, "group.id", r->group, errstr,
                              sizeof(errstr)) ||
            !(reader = rd_kafka_new(RD_KAFKA_CONSUMER, r->conf, errstr,
                                    sizeof(errstr)))) {
                rd_kafka_conf_destroy(r->conf);
                r->conf = NULL;
                log_unread(b, r, errstr);
                return;
        }
        r->conf = NULL; /* the reader owns it */
        now     = atomic_fetch_add(&b->in_flight, 1) + 1;
        peak    = atomic_load(&b->peak);
        while (now > peak && !atomic_compare_exchange_weak(&b->peak, &peak,
                                                           now))
                ;
        parts = rd_kafka_topic_partition_list_copy(b->wanted);
        err   = rd_kafka_committed(reader, parts, b->how->timeout_ms);
        if (err) {
                log_unread(b, r, rd_kafka_err2str(err));
                rd_kafka_topic_partition_list_destroy(parts);
        } else
                r->committed = parts;
        rd_kafka_destroy(reader);
        atomic_fetch_sub(&b->in_flight, 1);
}

static void *reader_thread(void *arg) {
        sibling_batch_t *b = arg;
        int i;

        while ((!b->how->cancel || !atomic_load(b->how->cancel)) &&
               (i = atomic_fetch_add(&b->next, 1)) < b->cnt)
                read_one(b, &b->reads[i]);
        return NULL;
}

/* Reads every group of \p b: up to BP_SIBLING_READERS_MAX threads, the
 * calling thread taking part; a thread that cannot start leaves its share
 * to the others. */
static void read_all(sibling_batch_t *b) {
        pthread_t threads[BP_SIBLING_READERS_MAX - 1];
        int started = 0, want, i;

        want = b->cnt < BP_SIBLING_READERS_MAX ? b->cnt
                                               : BP_SIBLING_READERS_MAX;
        for (i = 0; i < want - 1; i++)
                if (!pthread_create(&threads[started], NULL, reader_thread, b))
                        started++;
        reader_thread(b);
        for (i = 0; i < started; i++)
                pthread_join(threads[i], NULL);
}

bp_sibling_groups_t *bp_sibling_groups_new(bp_client_t *c,
                                           const rd_kafka_conf_t *base) {
        bp_sibling_groups_t *g = calloc(1, sizeof(*g));
        sibling_read_t *reads;
        rd_kafka_conf_t *own;
        char errstr[256];
        int n = 0, b;

        if (!g || !(reads = calloc(2 * BP_MAX_BUCKETS, sizeof(*reads)))) {
                free(g);
                return NULL;
        }
        own = rd_kafka_conf_dup(base); /* a reader commits nothing */
        rd_kafka_conf_set(own, "enable.auto.commit", "false", errstr,
                          sizeof(errstr));
        base = own;
        for (b = 0; b < c->cfg.bucket_cnt; b++) {
                if (b == c->cfg.consumer_buckets[0])
                        continue;
                snprintf(reads[n].group, sizeof(reads[n].group), "%s.%s",
                         c->consumer->props.base_group_id,
                         c->cfg.buckets[b].name);
                reads[n].bucket = b;
                reads[n++].conf = rd_kafka_conf_dup(base);
        }
        /* During a layout change, the buckets it adds are siblings too. */
        for (b = 0; b < c->cfg.next.bucket_cnt; b++) {
                const bp_bucket_def_t *d = &c->cfg.next.buckets[b];
                if (bp_config_find_bucket(&c->cfg, d->name, d->name_len) >= 0)
                        continue;
                snprintf(reads[n].group, sizeof(reads[n].group), "%s.%s",
                         c->consumer->props.base_group_id, d->name);
                reads[n].bucket = -1;
                reads[n++].conf = rd_kafka_conf_dup(base);
        }
        rd_kafka_conf_destroy(own);
        g->reads = reads;
        g->cnt   = n;
        return g;
}

int bp_sibling_groups_cnt(const bp_sibling_groups_t *g) {
        return g->cnt;
}

void bp_sibling_groups_destroy(bp_sibling_groups_t *g) {
        int i;

        if (!g)
                return;
        for (i = 0; i < g->cnt; i++) {
                if (g->reads[i].committed)
                        rd_kafka_topic_partition_list_destroy(
                            g->reads[i].committed);
                if (g->reads[i].conf)
                        rd_kafka_conf_destroy(g->reads[i].conf);
        }
        free(g->reads);
        free(g);
}

int bp_sibling_groups_read(bp_sibling_groups_t *g,
                           const bp_siblings_how_t *how,
                           const rd_kafka_topic_partition_list_t *wanted,
                           int64_t *best,
                           int *from,
                           int32_t partition_cnt,
                           int *peak) {
        sibling_batch_t batch = {
            .how = how, .wanted = wanted, .reads = g->reads, .cnt = g->cnt};
        int i, j, read = 0;

        read_all(&batch);
        for (i = 0; i < g->cnt; i++) {
                sibling_read_t *r = &g->reads[i];
                for (j = 0; r->committed && j < r->committed->cnt; j++) {
                        const rd_kafka_topic_partition_t *e =
                            &r->committed->elems[j];
                        if (!e->err && e->offset >= 0 && e->partition >= 0 &&
                            e->partition < partition_cnt &&
                            e->offset > best[e->partition]) {
                                best[e->partition] = e->offset;
                                from[e->partition] = r->bucket;
                        }
                }
                read += r->committed != NULL;
                if (r->committed)
                        rd_kafka_topic_partition_list_destroy(r->committed);
                r->committed = NULL;
        }
        *peak = atomic_load(&batch.peak);
        return read;
}

/* The consumer's record of the siblings' commits, made ready for layout
 * \p l at \p cnt partitions: emptied when the layout is another (the
 * topic grew) or the size changed. 0 when it cannot be kept (no memory). */
static int seen_ready(bp_consumer_run_t *k, const bp_layout_t *l,
                      int32_t cnt) {
        if (k->siblings_seen.layout == l && k->siblings_seen.cnt == cnt &&
            k->siblings_seen.read)
                return 1;
        free(k->siblings_seen.read);
        free(k->siblings_seen.best);
        free(k->siblings_seen.from);
        k->siblings_seen.read   = calloc((size_t)cnt, 1);
        k->siblings_seen.best   = calloc((size_t)cnt, sizeof(int64_t));
        k->siblings_seen.from   = calloc((size_t)cnt, sizeof(int));
        k->siblings_seen.layout = l;
        k->siblings_seen.cnt    = cnt;
        if (k->siblings_seen.read && k->siblings_seen.best &&
            k->siblings_seen.from)
                return 1;
        free(k->siblings_seen.read);
        k->siblings_seen.read = NULL; /* tried again next time */
        return 0;
}

void bp_siblings_keep(bp_client_t *c, const bp_layout_t *l,
                      int32_t partition_cnt,
                      const rd_kafka_topic_partition_list_t *parts,
                      const int64_t *best, const int *from) {
        bp_consumer_run_t *k = &c->consumer->run;
        int i;

        if (!l || c->cfg.next.set || !seen_ready(k, l, partition_cnt))
                return;
        for (i = 0; i < parts->cnt; i++) {
                int32_t p = parts->elems[i].partition;
                if (p < 0 || p >= partition_cnt)
                        continue;
                k->siblings_seen.read[p] = 1;
                k->siblings_seen.best[p] = best[p];
                k->siblings_seen.from[p] = from[p];
        }
}

/* Where a rebalance's reads log: the client's log. */
static void log_to_client(void *opaque, int level, const char *line) {
        bp_client_log(opaque, level, "%s", line);
}

/* Reads the sibling groups for \p missing, raising best[] and from[]
 * (bucket order, as bp_siblings_read() says). Returns how many groups of
 * how many (*groups) answered; *peak: the most readers alive at once. */
static int read_groups(bp_client_t *c, rd_kafka_t *rk,
                       const rd_kafka_topic_partition_list_t *missing,
                       int64_t *best, int *from, int32_t partition_cnt,
                       int *groups, int *peak) {
        const bp_siblings_how_t how = {
            .log          = log_to_client,
            .log_opaque   = c,
            .unread       = "cannot read the offsets of sibling group",
            .unread_after = "",
            .timeout_ms   = BP_REBALANCE_TIMEOUT_MS};
        bp_sibling_groups_t *g;
        rd_kafka_conf_t *base;
        int read;

        *groups = *peak = 0;
        base = bp_reader_conf(c, rk, BP_READER_SIBLINGS);
        if (bp_reader_lend_brokers(c, rk, base)) {
                rd_kafka_conf_destroy(base);
                *groups = 1; /* not read: nothing is kept */
                return 0;
        }
        g = bp_sibling_groups_new(c, base);
        rd_kafka_conf_destroy(base);
        if (!g) {
                bp_client_log(c, 3,
                              "out of memory: sibling offsets not read");
                *groups = 1; /* not read: nothing is kept */
                return 0;
        }
        read    = bp_sibling_groups_read(g, &how, missing, best, from,
                                         partition_cnt, peak);
        *groups = g->cnt;
        bp_sibling_groups_destroy(g);
        return read;
}

void bp_siblings_read(bp_client_t *c,
                      rd_kafka_t *rk,
                      const rd_kafka_topic_partition_list_t *wanted,
                      int64_t *best,
                      int *from,
                      int32_t partition_cnt,
                      int64_t waited) {
        bp_consumer_run_t *k = &c->consumer->run;
        const bp_layout_t *l;
        rd_kafka_topic_partition_list_t *missing;
        int64_t started = bp_clock_us() - waited; /* the wait counts */
        int keep, read = 0, groups = 0, peak = 0, known = 0, i;

        /* Sibling groups exist by name only with one group per bucket and a
         * consumer serving a single bucket. */
        if (!c->cfg.group_per_bucket ||
            !c->consumer->props.base_group_id[0] ||
            c->cfg.consumer_bucket_cnt != 1 || wanted->cnt == 0)
                return;
        if (bp_reader_token_from_application(rk)) {
                bp_client_log(c, 4,
                              "sibling offsets not read: the client gets "
                              "its OAUTHBEARER token from an application "
                              "callback, which the plugin's reader cannot "
                              "use; partitions this group never committed "
                              "follow start-offset rules 3 and 4 (the "
                              "beginning, once the group has committed)");
                return;
        }
        if (bp_reader_helpers_failing(c)) {
                /* Its readers are helper clients made the same way: each
                 * would wait out its timeout on this thread. */
                if (k->siblings_skip_logged_ms < k->helpers_failed_ms)
                        bp_client_log(c, 4,
                                      "sibling offsets not read: the "
                                      "plugin's helper clients got no "
                                      "answer from the cluster where the "
                                      "consumer did (see the \"partition "
                                      "count reader\" lines); partitions "
                                      "this group never committed follow "
                                      "start-offset rules 3 and 4 (the "
                                      "beginning, once the group has "
                                      "committed)");
                k->siblings_skip_logged_ms = k->helpers_failed_ms;
                return;
        }
        l      = atomic_load_explicit(&c->current, memory_order_acquire);
        /* What was read under this layout is kept, but not during a layout
         * change (its buckets' groups hand partitions over). */
        keep = l && !c->cfg.next.set && seen_ready(k, l, partition_cnt);
        missing = rd_kafka_topic_partition_list_new(wanted->cnt);
        for (i = 0; i < wanted->cnt; i++) {
                int32_t p = wanted->elems[i].partition;
                if (p < 0 || p >= partition_cnt)
                        continue;
                if (keep && k->siblings_seen.read[p]) {
                        if (k->siblings_seen.best[p] > best[p]) {
                                best[p] = k->siblings_seen.best[p];
                                from[p] = k->siblings_seen.from[p];
                        }
                        known++;
                } else
                        rd_kafka_topic_partition_list_add(
                            missing, wanted->elems[i].topic, p);
        }
        if (missing->cnt > 0) {
                read = read_groups(c, rk, missing, best, from, partition_cnt,
                                   &groups, &peak);
                /* Kept only once every sibling group answered: one that
                 * did not is asked again at the next rebalance. */
                if (keep && read == groups)
                        bp_siblings_keep(c, l, partition_cnt, missing, best,
                                         from);
        }
        if (bp_conf_log_level(rd_kafka_conf(rk)) >= 7)
                bp_client_log(c, 7,
                              "start offsets: %d of %d sibling groups read "
                              "for %d partitions, at most %d at once, in "
                              "%lld ms; %d partitions known from before "
                              "under this layout (read when the consumer "
                              "was created or at an earlier rebalance), "
                              "%lld ms of it waiting for the reads begun at "
                              "creation",
                              read, groups, missing->cnt, peak,
                              (long long)((bp_clock_us() - started) / 1000),
                              known, (long long)(waited / 1000));
        rd_kafka_topic_partition_list_destroy(missing);
}
