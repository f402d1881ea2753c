/*
 * bp_topic_count.c - a topic's partition count from fresh metadata (see
 * bp_topic_count.h).
 */
#include "bp_topic_count.h"

int32_t bp_topic_partition_count(rd_kafka_t *rk,
                                 const char *topic,
                                 int timeout_ms) {
        rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, topic, NULL);
        const rd_kafka_metadata_t *md = NULL;
        int32_t cnt = -1;

        if (!rkt)
                return -1;
        if (rd_kafka_metadata(rk, 0, rkt, &md, timeout_ms) ==
                RD_KAFKA_RESP_ERR_NO_ERROR &&
            md->topic_cnt == 1 && !md->topics[0].err)
                cnt = md->topics[0].partition_cnt;
        if (md)
                rd_kafka_metadata_destroy(md);
        rd_kafka_topic_destroy(rkt);
        return cnt;
}
