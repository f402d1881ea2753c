/*
 * bp_reader.h - short-lived helper clients of a bucket consumer, made from
 * its connection, security and identity properties only (bp_connection.h):
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
#ifndef BP_READER_H
#define BP_READER_H

#include "bp_rdk.h"

#include "bp_client.h"

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

/**
 * The partition count of \p c's bucket topic from fresh metadata, asked
 * through a helper client of its own (see above); through \p rk itself
 * when a helper cannot be made or answer, and from then on for this
 * consumer when \p rk answered where the helper did not (logged once).
 * -1 when neither answers within \p timeout_ms. Its poll thread only.
 */
int32_t bp_reader_partition_count(bp_client_t *c, rd_kafka_t *rk,
                                  int timeout_ms);

#endif /* BP_READER_H */
