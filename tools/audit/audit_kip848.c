/*
 * audit_kip848.c - the consumer protocol accessors of librdkafka 2.10 and
 * later, found at run time in the librdkafka bp-audit runs on.
 */
#include "audit_kip848.h"

#include <dlfcn.h>

/* The accessors' signatures (the enum returned as the int it is). */
typedef int (*group_type_fn)(const rd_kafka_ConsumerGroupDescription_t *);
typedef const rd_kafka_MemberAssignment_t *(*member_target_fn)(
    const rd_kafka_MemberDescription_t *);

/* librdkafka's values of rd_kafka_consumer_group_type_t (2.10 and later;
 * absent from older headers). */
#define RDK_GROUP_TYPE_CONSUMER 1
#define RDK_GROUP_TYPE_CLASSIC 2

static int looked_up;
static group_type_fn group_type;
static member_target_fn member_target;

/* Finds the accessors once; bp-audit reads groups from one thread. */
static void look_up(void) {
        if (looked_up)
                return;
        looked_up = 1;
        *(void **)&group_type =
            dlsym(RTLD_DEFAULT, "rd_kafka_ConsumerGroupDescription_type");
        *(void **)&member_target =
            dlsym(RTLD_DEFAULT, "rd_kafka_MemberDescription_target_assignment");
}

int audit_kip848_describable(void) {
        look_up();
        return group_type != NULL;
}

audit_group_type_t audit_kip848_group_type(
    const rd_kafka_ConsumerGroupDescription_t *d) {
        look_up();
        if (!group_type)
                return AUDIT_GROUP_TYPE_UNKNOWN;
        switch (group_type(d)) {
        case RDK_GROUP_TYPE_CONSUMER:
                return AUDIT_GROUP_TYPE_CONSUMER;
        case RDK_GROUP_TYPE_CLASSIC:
                return AUDIT_GROUP_TYPE_CLASSIC;
        default:
                return AUDIT_GROUP_TYPE_UNKNOWN;
        }
}

const rd_kafka_topic_partition_list_t *
audit_kip848_member_target(const rd_kafka_MemberDescription_t *m) {
        const rd_kafka_MemberAssignment_t *t;
        look_up();
        if (!member_target || !(t = member_target(m)))
                return NULL;
        return rd_kafka_MemberAssignment_partitions(t);
}
