/*
 * bp_prefetch.h - the sibling groups' commits read when a bucket consumer
 * is created, on a thread of its own, so that its first rebalance does not
 * wait for them (bp_siblings.h has what is read and why; bp_prefetch.c
 * why the answer read before the rebalance is the same).
 *
 * Only where the rebalance would read them the same way and keep them: a
 * consumer of one bucket, one group per bucket, on the classic protocol,
 * no layout change under way, a token its helper clients can get (no
 * application OAUTHBEARER callback). Every other consumer reads at its
 * rebalances as before.
 */
#ifndef BP_PREFETCH_H
#define BP_PREFETCH_H

#include "bp_rdk.h"

#include "bp_client.h"

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

#endif /* BP_PREFETCH_H */
