/*
 * bench_sched_produce.h - the scheduler benchmark's producing: the bulk
 * backlog, the critical records (key critical-<id>, the send time in the
 * value) and the acknowledgement time of each.
 */
#ifndef BENCH_SCHED_PRODUCE_H
#define BENCH_SCHED_PRODUCE_H

#include <stddef.h>

#include <librdkafka/rdkafka.h>

/** Makes room for the acknowledgement times of \p total critical records
 *  (each -1 until acknowledged). @returns 0, or -1 out of memory. */
int bsch_acks_open(long total);

/** Critical record \p id's acknowledgement time (µs after its send): the
 *  producer's and the mock broker's share of a latency, not the
 *  consumer's; -1 until acknowledged. */
long bsch_ack_us(long id);

/** Frees the acknowledgement times. */
void bsch_acks_close(void);

/** The id of a critical record (key critical-<id>, id within those
 *  bsch_acks_open() made room for), or -1. */
long bsch_critical_id(const rd_kafka_message_t *m);

/** A producer to \p topic with the plugin that records acknowledgements;
 *  exits 2 when it cannot be made. */
rd_kafka_t *bsch_producer(const char *topic);

/** Sends key BUCKET-ID with \p value (copied), waiting while the queue is
 *  full. */
void bsch_produce(rd_kafka_t *rk, const char *topic, const char *bucket,
                  long id, const void *value, size_t len);

/** Writes the bulk backlog (bsch_opt.bulk records of 100 bytes) to
 *  \p topic; exits 2 when not acknowledged within 120 s. */
void bsch_load_backlog(const char *topic);

#endif /* BENCH_SCHED_PRODUCE_H */
