/*
 * testkit.h - the test kit: what the C tests (tests/), the broker suite's
 * clients (tests/broker/), the benchmarks (bench/) and the demo (demo/)
 * share, built once as the static library bp_testkit (tests/kit/) so that
 * none of them carries its own copy:
 *
 *   clock         the monotonic clock (ns, us, ms), the wall clock (ms,
 *                 comparable between processes), sleeping
 *   mock cluster  librdkafka's embedded mock cluster with its owning
 *                 client, topics on it; producers with a delivery report
 *                 callback
 *   metadata      a topic's metadata and partition count, fresh from the
 *                 cluster
 *   plugin path   where the built plugin is ($BP_PLUGIN_PATH)
 *   ledger        every record id written, and how often each was read
 *   record keys   the id and bucket of a key "<bucket>-<id>"
 *
 * Nothing here aborts or exits: failures come back as return values (and
 * an error text), for the caller to fail its test, die or report.
 * Not part of the plugin: nothing here is installed.
 */
#ifndef TESTKIT_H
#define TESTKIT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

/* --- clock (tk_clock.c) --------------------------------------------------- */

/** Monotonic clock in nanoseconds (the same in every thread). */
int64_t tk_now_ns(void);

/** Monotonic clock in microseconds. */
int64_t tk_now_us(void);

/** Monotonic clock in milliseconds. */
int64_t tk_now_ms(void);

/** Wall clock in milliseconds since the epoch: comparable across
 *  processes (the broker suite's record lines), not for intervals. */
int64_t tk_wall_ms(void);

/** Sleeps until tk_now_us() reaches \p deadline_us (signals do not cut
 *  it short). */
void tk_sleep_until_us(int64_t deadline_us);

/** Sleeps \p us microseconds (nothing when \p us <= 0). */
void tk_sleep_us(int64_t us);

/* --- mock cluster and clients (tk_mock.c) --------------------------------- */

/** librdkafka's embedded mock cluster and the client that owns it. */
typedef struct tk_mock {
        rd_kafka_t *owner;
        rd_kafka_mock_cluster_t *mcluster;
        char bootstraps[256];
} tk_mock_t;

/**
 * Starts a mock cluster of \p brokers brokers. Its owner is made from
 * \p conf (taken in every case; NULL: a configuration with log_level 3).
 * @returns 0, or -1 with \p err filled and \p m all zero.
 */
int tk_mock_start(tk_mock_t *m, rd_kafka_conf_t *conf, int brokers,
                  char *err, size_t err_size);

/** Creates \p topic with \p partitions partitions (replication factor 1).
 *  @returns 0, or -1 with \p err filled. */
int tk_mock_topic(tk_mock_t *m, const char *topic, int partitions, char *err,
                  size_t err_size);

/** Stops the cluster and destroys its owner (nothing if not started). */
void tk_mock_stop(tk_mock_t *m);

/** A producer from \p conf (taken in every case) whose delivery reports go
 *  to \p on_dr with \p opaque. @returns it, or NULL with \p err filled. */
rd_kafka_t *tk_producer(rd_kafka_conf_t *conf,
                        void (*on_dr)(rd_kafka_t *rk,
                                      const rd_kafka_message_t *m,
                                      void *opaque),
                        void *opaque, char *err, size_t err_size);

/* --- metadata (tk_metadata.c) -------------------------------------------- */

/**
 * The metadata of \p topic, asked of the cluster through client \p rk
 * (waiting up to \p timeout_ms): NULL when it is not available or names an
 * error. \p *mdp is what to give rd_kafka_metadata_destroy() afterwards
 * (NULL: nothing to free), in either case.
 */
const rd_kafka_metadata_topic_t *
tk_topic_metadata(rd_kafka_t *rk, const char *topic, int timeout_ms,
                  const struct rd_kafka_metadata **mdp);

/** The partition count of \p topic from fresh metadata, or -1. */
int tk_partition_count(rd_kafka_t *rk, const char *topic, int timeout_ms);

/* --- plugin path (tk_plugin.c) -------------------------------------------- */

/** The plugin to load: $BP_PLUGIN_PATH when set and not empty (ctest sets
 *  it), else \p fallback (may be NULL). */
const char *tk_plugin_path(const char *fallback);

/* --- ledger of record ids (tk_ledger.c) ----------------------------------- */

/**
 * Record ids 0 .. n-1: which were written (or are awaited), how often each
 * was read. tk_ledger_write() may be called from any thread (a producer's
 * delivery reports); the reads and the queries from one thread.
 */
typedef struct tk_ledger {
        int n;
        int *reads;             /**< Reads per id. */
        unsigned char *written; /**< 1: written, expected to be read. */
        long written_cnt;
        long duplicates; /**< Reads of an id read before. */
        pthread_mutex_t lock;
} tk_ledger_t;

/** A ledger of \p n ids, none written. @returns 0, -1 out of memory. */
int tk_ledger_init(tk_ledger_t *lg, int n);

void tk_ledger_free(tk_ledger_t *lg);

/** Id \p id was written (again: no change). Out of range: ignored. */
void tk_ledger_write(tk_ledger_t *lg, int id);

/**
 * Id \p id was read. @returns 1 for the first read of a written id, 0 for
 * any other read (a duplicate, an id not written), -1 out of range.
 */
int tk_ledger_read(tk_ledger_t *lg, int id);

/** Ids in [from, to) written but never read. */
long tk_ledger_missing(tk_ledger_t *lg, int from, int to);

/** Forgets every read (the written ids stay). */
void tk_ledger_reset_reads(tk_ledger_t *lg);

/* --- record keys (tk_key.c) ----------------------------------------------- */

/**
 * The id of a record keyed "<bucket>-<id>" (the number after the last
 * '-', decimal digits only, at most 18), -1 if the key has none. With
 * \p bucket_len, the length of the bucket part is stored there (the
 * whole key's length when it has no '-').
 */
long tk_key_id(const void *key, size_t key_len, size_t *bucket_len);

/** 1 if the key's bucket part is \p bucket ("critical-7" is critical). */
int tk_key_is_bucket(const void *key, size_t key_len, const char *bucket);

#endif /* TESTKIT_H */
