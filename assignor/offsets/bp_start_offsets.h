/*
 * bp_start_offsets.h - the start offsets part of the consumer side: where each
 * newly assigned partition of the bucket topic starts, so that no record
 * is skipped and none of another bucket is read (the "no record skipped"
 * rules, bp_offsets.c):
 *
 *   1. the group's committed offset, unless a sibling bucket group
 *      committed further;
 *   2. else the highest offset a sibling bucket group committed (the
 *      partition moved between buckets);
 *   3. else the beginning, when the group has committed before (a
 *      partition added to the topic);
 *   4. else auto.offset.reset (a brand-new group).
 *
 * The files that make it, from the rebalance down:
 *   bp_offsets.c      the rules, called by the strategies at an assignment;
 *   bp_siblings.c     the sibling groups' commits (rules 1 and 2), read in
 *                     parallel and kept per layout;
 *   bp_prefetch.c     the same reads begun when a consumer of one bucket is
 *                     created, so its first rebalance does not wait;
 *   bp_reader.c       the short-lived helper clients that read them, and
 *                     the topic's partition count at a rebalance
 *                     (plugin/bp_topic_count.h asks it of a client).
 */
#ifndef BP_START_OFFSETS_H
#define BP_START_OFFSETS_H

#include <stdatomic.h>

#include "bp_rdk.h"
#include "bp_topic_count.h"
#include "bp_client.h"

/*
 * bp_offsets.c: where each newly assigned partition of the bucket topic
 * starts (the "no record skipped" rules).
 */

/**
 * Decides where each bucket-topic partition of \p assigned starts (the
 * "no record skipped" rules: committed offset; else the highest offset a
 * sibling bucket group committed; else the beginning if the group has
 * committed before; else auto.offset.reset).
 */
void bp_offsets_decide(bp_client_t *c,
                       rd_kafka_t *rk,
                       rd_kafka_topic_partition_list_t *assigned,
                       int32_t partition_cnt);

/**
 * A copy of \p partitions (as the broker gave them: keep-and-pause), the
 * start offsets of its partitions of the consumer's buckets under \p l
 * that have none yet decided by bp_offsets_decide(); a plain copy when
 * \p l is NULL or the consumer is not active.
 */
rd_kafka_topic_partition_list_t *
bp_offsets_given(bp_client_t *c,
                 rd_kafka_t *rk,
                 const rd_kafka_topic_partition_list_t *partitions,
                 const bp_layout_t *l);

/** 1 if partition \p p is one of this consumer's buckets' under layout
 *  \p l (NULL: none). */
int bp_offsets_serves(const bp_client_t *c, const bp_layout_t *l, int32_t p);

/*
 * bp_siblings.c: the offsets the sibling bucket groups committed (start-
 * offset rules 1 and 2 of bp_offsets.c): with one group per bucket, group
 * "G.Gold" must not re-read what "G.Platinum" processed on a partition
 * that moved between the buckets, nor skip what it did not.
 */

/** At most this many sibling groups are read at once. */
#define BP_SIBLING_READERS_MAX 16

/**
 * Raises best[p] to the highest offset a sibling group of consumer \p rk
 * committed for each partition p of \p wanted, and sets from[p] to that
 * group's bucket (-1: a bucket a layout change adds); best[] and from[]
 * have \p partition_cnt entries. Each sibling group is read the way its
 * own consumers read it (rd_kafka_committed() on a consumer of that group
 * that joins nothing), up to BP_SIBLING_READERS_MAX groups at once, so a
 * rebalance waits for the slowest read rather than their sum. A group that
 * cannot be read is logged and leaves best[] as it was. What every group
 * answered is kept for the current layout, and a partition read before
 * under it is not read again (no reader at all when every wanted
 * partition is known; see bp_siblings.c for why that is the same answer).
 * Nothing is read where no sibling group exists by name (a consumer of a
 * bucket list, or group-per-bucket off). Its poll thread only. The
 * caller collected the reads begun at creation first (bp_prefetch.c),
 * waiting \p waited µs for them, which the level-7 line reports.
 */
void bp_siblings_read(bp_client_t *c,
                      rd_kafka_t *rk,
                      const rd_kafka_topic_partition_list_t *wanted,
                      int64_t *best,
                      int *from,
                      int32_t partition_cnt,
                      int64_t waited);

/* --- the parts the reads at creation share (bp_prefetch.c) ---------------- */

/** Where a batch of reads logs, and how long each reader waits. */
typedef struct bp_siblings_how {
        /** Takes a finished line at syslog \p level (the readers' own
         *  failures); called from the reader threads. */
        void (*log)(void *opaque, int level, const char *line);
        void *log_opaque;
        /** A group not read is logged as "<unread> \"<group>\" (<why>)
         *  <unread_after>". */
        const char *unread, *unread_after;
        int timeout_ms;           /**< rd_kafka_committed()'s wait. */
        const atomic_int *cancel; /**< Set: no further group is begun
                                   *   (NULL: never). */
} bp_siblings_how_t;

/** The sibling groups of consumer \p c, in the order their answers are
 *  merged (the layout's buckets, then those a layout change adds), each
 *  with a copy of \p base for its reader; nothing else of \p c is kept.
 *  NULL when out of memory. */
typedef struct bp_sibling_groups bp_sibling_groups_t;
bp_sibling_groups_t *bp_sibling_groups_new(bp_client_t *c,
                                           const rd_kafka_conf_t *base);

/** How many groups \p g holds. */
int bp_sibling_groups_cnt(const bp_sibling_groups_t *g);

/**
 * Reads every group of \p g (once: a reader's configuration goes with
 * it) for the partitions of \p wanted, raising best[] and from[] as
 * bp_siblings_read() says, up to BP_SIBLING_READERS_MAX at once. Returns
 * how many groups answered; *peak: the most readers alive at once. Uses
 * nothing of the consumer: safe on a thread of its own.
 */
int bp_sibling_groups_read(bp_sibling_groups_t *g,
                           const bp_siblings_how_t *how,
                           const rd_kafka_topic_partition_list_t *wanted,
                           int64_t *best,
                           int *from,
                           int32_t partition_cnt,
                           int *peak);

/** Frees \p g (NULL is ignored). */
void bp_sibling_groups_destroy(bp_sibling_groups_t *g);

/**
 * Keeps in the consumer's record (bp_consumer_side_t.siblings_seen) what
 * every sibling group answered for the partitions of \p parts under
 * layout \p l of \p partition_cnt partitions: best[p] and from[p] as
 * bp_sibling_groups_read() left them. Nothing is kept during a layout change. Its poll thread only.
 */
void bp_siblings_keep(bp_client_t *c, const bp_layout_t *l,
                      int32_t partition_cnt,
                      const rd_kafka_topic_partition_list_t *parts,
                      const int64_t *best, const int *from);

/*
 * bp_prefetch.c: the sibling groups' commits read when a bucket consumer
 * is created, on a thread of its own, so that its first rebalance does not
 * wait for them (bp_siblings.c has what is read and why; bp_prefetch.c
 * why the answer read before the rebalance is the same).
 *
 * Only where the rebalance would read them the same way and keep them: a
 * consumer of one bucket, one group per bucket, on the classic protocol,
 * no layout change under way, a token its helper clients can get (no
 * application OAUTHBEARER callback), brokers named by its configuration
 * (not only added with rd_kafka_brokers_add(), which comes after
 * on_new()). Every other consumer reads at its rebalances as before.
 */

/**
 * Called from on_new() for every client, after the consumer side has
 * decided its protocol: for a consumer the reads apply to, prepares them
 * from its configuration and registers the interceptors that start them
 * once librdkafka's main thread runs (the client is named by then) and
 * end them at on_destroy(). Nothing happens when anything fails: the
 * first rebalance reads as before.
 */
void bp_prefetch_on_new(bp_client_t *c, rd_kafka_t *rk,
                        const rd_kafka_conf_t *conf);

/**
 * Called by the rebalance before it reads any sibling group
 * (bp_siblings_read()): the first time, waits for the reads begun at
 * creation if they still run (at most BP_REBALANCE_TIMEOUT_MS; after that
 * they are stopped and not used) and keeps what they found in the
 * consumer's record (bp_consumer_side_t.siblings_seen), for the layout
 * they read under. Later calls return at once. Its poll thread only.
 */
void bp_prefetch_collect(bp_client_t *c);

/*
 * bp_reader.c: short-lived helper clients of a bucket consumer, made from
 * its connection, security and identity properties only (bp_connection.c):
 * the readers of the sibling groups' commits (bp_siblings.c) and of the
 * topic's partition count at a rebalance.
 *
 * Why a client of its own for the partition count: a broker answers the
 * requests of one connection in order, and the consumer's connection to a
 * leader usually carries a fetch the broker holds for up to
 * fetch.wait.max.ms (500 ms by default) while its partitions have no new
 * records. A metadata request sent on it at a rebalance waited behind that
 * fetch: measured on Kafka 4.4 with an idle topic, 146 to 203 ms of a
 * 2-bucket consumer's join went there, 2 ms with fetch.wait.max.ms=20. A
 * fresh client's connection carries nothing else (about 5 ms). Used where
 * the consumer pauses nothing at the assignment (a consumer of one bucket
 * on the classic protocol): asking on the consumer itself also makes it
 * know the topic's partitions, which a pause before the assignment needs
 * (librdkafka ignores a pause of a partition it does not know yet).
 */

/** What a helper client reads; its errors are logged under that name
 *  ("sibling offsets reader: ...", "partition count reader: ..."). */
typedef enum bp_reader_kind {
        BP_READER_SIBLINGS,
        BP_READER_COUNT
} bp_reader_kind_t;

/**
 * A configuration for a helper client of consumer \p rk: its connection,
 * security and identity properties, no plugin, no application callback,
 * a log that passes librdkafka's errors to \p c's log (level 4), named
 * for \p kind. The caller owns it.
 */
rd_kafka_conf_t *bp_reader_conf(bp_client_t *c, rd_kafka_t *rk,
                                bp_reader_kind_t kind);

/**
 * 1 when \p rk authenticates with OAUTHBEARER through a token refresh
 * callback of the application: a helper client would get no token (a
 * callback is not a property it can copy) and wait out its timeout.
 */
int bp_reader_token_from_application(rd_kafka_t *rk);

/** A helper asked for the partition count waits at most this long (ms). */
#define BP_READER_COUNT_TIMEOUT_MS 3000

/** 1 when \p conf names brokers to bootstrap from (bootstrap.servers, or
 *  its other name metadata.broker.list). */
int bp_reader_conf_names_brokers(const rd_kafka_conf_t *conf);

/** The consumer's metadata request that finds the brokers for helpers
 *  waits at most this long (ms), once per consumer. */
#define BP_READER_BROKERS_TIMEOUT_MS 2000

/**
 * Gives helper configuration \p conf brokers to bootstrap from when it has
 * none: the configuration of consumer \p rk named none, because the
 * application added them with rd_kafka_brokers_add() (rsyslog's imkafka
 * does). They are the brokers \p rk knows, asked of it once, at most
 * BP_READER_BROKERS_TIMEOUT_MS, and kept for the consumer's life (logged
 * once). 0, or -1 when there are none to give (logged): the caller makes
 * no helper. Its poll thread only.
 */
int bp_reader_lend_brokers(bp_client_t *c, rd_kafka_t *rk,
                           rd_kafka_conf_t *conf);

/** How long (ms) the plugin makes no helper client once one got no
 *  answer where the consumer did: a rebalance waits out a helper's timeout
 *  at most once in this time. */
#define BP_READER_RETRY_MS 300000

/** 1 while a helper client's failure keeps helpers from being made (see
 *  BP_READER_RETRY_MS). */
int bp_reader_helpers_failing(const bp_client_t *c);

/** Notes and logs that a helper client got no answer where the consumer
 *  did. Its poll thread only. */
void bp_reader_helpers_failed(bp_client_t *c);

/**
 * The partition count of \p c's bucket topic from fresh metadata, asked
 * through a helper client of its own (see above); through \p rk itself
 * when a helper cannot be made or answer, and for BP_READER_RETRY_MS
 * after when \p rk answered where the helper did not (logged).
 * -1 when neither answers within \p timeout_ms. Its poll thread only.
 */
int32_t bp_reader_partition_count(bp_client_t *c, rd_kafka_t *rk,
                                  int timeout_ms);

#endif /* BP_START_OFFSETS_H */
