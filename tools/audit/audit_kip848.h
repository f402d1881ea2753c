/*
 * audit_kip848.h - what the running librdkafka tells bp-audit about groups
 * on the consumer protocol (KIP-848, group.protocol=consumer).
 *
 * librdkafka 2.10 and later describe such groups (DescribeConsumerGroups
 * asks the broker with ConsumerGroupDescribe) and add two accessors: the
 * group's type and a member's target assignment. They are looked up when
 * first needed, in the librdkafka bp-audit runs on, so that one binary
 * built on 2.0.2 (whose header lacks them) uses them under a newer
 * librdkafka.so.1. Older libraries describe such a group as "Dead" with no
 * member: audit_groups.c then lists the groups to tell it from a group
 * that does not exist (audit_group_hidden()).
 */
#ifndef AUDIT_KIP848_H
#define AUDIT_KIP848_H

#include <librdkafka/rdkafka.h>

#include "audit_model.h"

/** 1 when the running librdkafka describes consumer protocol groups
 *  (it has rd_kafka_ConsumerGroupDescription_type(): 2.10 or later). */
int audit_kip848_describable(void);

/** The group's protocol; AUDIT_GROUP_TYPE_UNKNOWN when the running
 *  librdkafka cannot tell. */
audit_group_type_t audit_kip848_group_type(
    const rd_kafka_ConsumerGroupDescription_t *d);

/** A consumer protocol member's target assignment (where the broker is
 *  moving it); NULL when none is known or the library cannot tell. */
const rd_kafka_topic_partition_list_t *
audit_kip848_member_target(const rd_kafka_MemberDescription_t *m);

#endif /* AUDIT_KIP848_H */
