/*
 * tk_metadata.c - a topic's metadata, fresh from the cluster, and its
 * partition count, for the broker suite's clients and the demo. (The
 * plugin reads the count through its own binding to the host's librdkafka:
 * assignor/strategy/bp_rebalance.c.)
 */
#include "testkit.h"

const rd_kafka_metadata_topic_t *
tk_topic_metadata(rd_kafka_t *rk, const char *topic, int timeout_ms,
                  const struct rd_kafka_metadata **mdp) {
        rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, topic, NULL);
        const rd_kafka_metadata_topic_t *t = NULL;

        *mdp = NULL;
        if (!rkt)
                return NULL;
        if (rd_kafka_metadata(rk, 0, rkt, mdp, timeout_ms) ==
                RD_KAFKA_RESP_ERR_NO_ERROR &&
            (*mdp)->topic_cnt == 1 && !(*mdp)->topics[0].err)
                t = &(*mdp)->topics[0];
        rd_kafka_topic_destroy(rkt);
        return t;
}

int tk_partition_count(rd_kafka_t *rk, const char *topic, int timeout_ms) {
        const struct rd_kafka_metadata *md;
        const rd_kafka_metadata_topic_t *t =
            tk_topic_metadata(rk, topic, timeout_ms, &md);
        int cnt = t ? t->partition_cnt : -1;

        if (md)
                rd_kafka_metadata_destroy(md);
        return cnt;
}
