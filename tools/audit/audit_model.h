/*
 * audit_model.h - what bp-audit knows about one bucket topic: the layout,
 * the partitions' offsets and key counts, the bucket groups with their
 * members and commits, and the findings drawn from them. Filled by
 * audit_cluster.c (or by the unit tests), judged by audit_owner.c and
 * audit_lag.c, printed by audit_report.c.
 */
#ifndef AUDIT_MODEL_H
#define AUDIT_MODEL_H

#include <stdint.h>

#include "bp_config.h"
#include "bp_layout.h"

/** How a record key relates to the partition it was found in. */
typedef enum {
        AUDIT_KEY_IN_BUCKET = 0, /**< Names the partition's bucket. */
        AUDIT_KEY_MISROUTED,     /**< Names another bucket. */
        AUDIT_KEY_OLD_LAYOUT,    /**< Names a bucket that owned the partition
                                  *   at a smaller partition count. */
        AUDIT_KEY_UNKNOWN,       /**< Names no bucket (fallback). */
        AUDIT_KEY_NULL,          /**< NULL or empty key. */
        AUDIT_KEY__CNT
} audit_key_class_t;

/** Escaped key prefixes kept per partition (misrouted and unknown). */
#define AUDIT_SAMPLES 3
/** Room for one escaped prefix: 16 bytes as \xNN, and "...". */
#define AUDIT_SAMPLE_SIZE (4 * 16 + 4)

/** A group's protocol, as the group coordinator describes it. */
typedef enum {
        AUDIT_GROUP_TYPE_UNKNOWN = 0, /**< This librdkafka cannot tell
                                       *   (before 2.10): judged classic. */
        AUDIT_GROUP_TYPE_CLASSIC,     /**< Classic protocol: members map
                                       *   their assigned indexes. */
        AUDIT_GROUP_TYPE_CONSUMER     /**< Consumer protocol (KIP-848):
                                       *   members keep the broker's
                                       *   partitions and pause those
                                       *   outside their buckets. */
} audit_group_type_t;

typedef struct audit_partition {
        int64_t low, high;  /**< Watermarks; -1 if unread. */
        int routing_started; /**< Its last records are being fetched. */
        int routing_read;   /**< 1 once its last records were classified. */
        int routing_incomplete; /**< Timed out before its end. */
        int64_t keys[AUDIT_KEY__CNT];
        int sample_cnt;
        char samples[AUDIT_SAMPLES][AUDIT_SAMPLE_SIZE]; /**< misrouted */
        int reader_cnt;     /**< Members reading it (after the mapping). */
        int held_cnt;       /**< Members holding it paused (consumer
                             *   protocol: another bucket's). */
        int reader_group[2], reader_member[2]; /**< The first two. */
} audit_partition_t;

typedef struct audit_member {
        char consumer_id[256];
        char client_id[256];
        char host[256];
        int32_t *indexes; /**< As the broker assigned (topic's only). */
        int index_cnt;
        int not_bucket;   /**< Reads its indexes as partitions. */
        int32_t *reads;   /**< Partitions it reads (audit_owner_judge()). */
        int read_cnt;
        int32_t *held;    /**< Consumer protocol: partitions it holds
                           *   paused, not read (audit_owner_judge()). */
        int held_cnt;
        int32_t *target;  /**< Consumer protocol: where the broker is
                           *   moving its assignment (the topic's only). */
        int target_cnt;   /**< -1: no target known. */
} audit_member_t;

/** A bucket group: <group.id>.<bucket> or <group.id>.<b1>+<b2>... */
typedef struct audit_group {
        char name[512];
        int buckets[BP_MAX_BUCKETS];
        int bucket_cnt;
        int described;    /**< 1: state and members below are known. */
        char state[32];
        audit_group_type_t type;
        audit_member_t *members;
        int member_cnt;
        int offsets_read; /**< 1: committed[] is known. */
        int64_t *committed; /**< Per partition; -1 none. */
} audit_group_t;

/** A finding's kind; the JSON spells these names. */
typedef enum {
        AUDIT_F_MISROUTED = 0,   /**< fault */
        AUDIT_F_NO_CONSUMER,     /**< fault: bucket no group member reads */
        AUDIT_F_UNREAD,          /**< fault: bucket partition nobody reads */
        AUDIT_F_DOUBLE_READ,     /**< fault: partition read by two */
        AUDIT_F_NOT_BUCKET,      /**< fault: member without the plugin */
        AUDIT_F_IDLE_MEMBER,     /**< note */
        AUDIT_F_STALE_COMMIT,    /**< note: commit on a moved partition */
        AUDIT_F_FOREIGN_COMMIT,  /**< note: commit outside the buckets,
                                  *   by no current member */
        AUDIT_F_UNKNOWN_KEYS,    /**< note */
        AUDIT_F_UNCHECKED,       /**< unchecked: something could not be
                                  *   read (exit 3 without a fault) */
        AUDIT_F_STEP_MISPLACED,  /**< fault: records the step's routing
                                  *   does not put there (layout change) */
        AUDIT_F_STEP_READER,     /**< fault: a group commits outside what
                                  *   its bucket reads at the step */
        AUDIT_F_WAIT,            /**< wait: the next consumer step of a
                                  *   layout change may not start yet */
        AUDIT_F__CNT
} audit_finding_kind_t;

typedef struct audit_finding {
        audit_finding_kind_t kind;
        int bucket;    /**< -1 if none */
        int32_t partition; /**< -1 if none */
        int group;     /**< index in groups, -1 if none */
        int member;    /**< index in the group's members, -1 if none */
        int64_t count; /**< records, where it applies */
        char text[512];
} audit_finding_t;

typedef struct audit {
        const bp_config_t *cfg;
        char base_group[256];
        bp_layout_t *layout;
        uint64_t *history; /**< Per partition: buckets that owned it at any
                            *   count up to now (bit b = bucket b): judges
                            *   commits left behind. */
        uint64_t *past;    /**< Per partition: buckets that owned it now or
                            *   at a count given by audit_add_past(): judges
                            *   keys written before a growth. */
        audit_partition_t *parts;
        audit_group_t *groups;
        int group_cnt;
        audit_finding_t *findings;
        int finding_cnt, finding_cap;
        int routing_records; /**< Records per partition read (N). */
        struct audit_change *change; /**< A layout change under way
                                      *   (audit_change.h), or NULL;
                                      *   audit_change_destroy() frees
                                      *   it. */
        const bp_layout_t *read_layout; /**< The layout consumers map
                                         *   with, when not layout (a
                                         *   change's step); not owned. */
} audit_t;

/** Sets up \p a for \p cfg at \p partition_cnt. Returns 0, or -1 with
 *  \p err set. */
int audit_init(audit_t *a, const bp_config_t *cfg, const char *base_group,
               int32_t partition_cnt, char *err, size_t err_size);

/** Declares that the topic had \p partition_cnt partitions before (keys
 *  of those layouts count as old_layout, not misrouted). 0 or -1. */
int audit_add_past(audit_t *a, int32_t partition_cnt, char *err,
                   size_t err_size);

/** Adds a group with \p bucket_cnt buckets; returns its index or -1. */
int audit_add_group(audit_t *a, const char *name, const int *buckets,
                    int bucket_cnt);

/** Adds a member to group \p g; returns it, or NULL on out of memory. */
audit_member_t *audit_add_member(audit_t *a, int g, const char *consumer_id,
                                 const char *client_id, const char *host,
                                 const int32_t *indexes, int index_cnt);

/** Gives member \p m the broker's target assignment \p target (consumer
 *  protocol). 0, or -1 on out of memory. */
int audit_member_set_target(audit_member_t *m, const int32_t *target,
                            int target_cnt);

/** 1 when member \p m has a target assignment other than what it holds:
 *  the broker is moving partitions to or from it (a rebalance under way on
 *  the consumer protocol). */
int audit_member_moving(const audit_member_t *m);

/** 1 when \p m's target assignment names partition \p p. */
int audit_member_targets(const audit_member_t *m, int32_t p);

/** "consumer", "classic", or NULL when unknown (the JSON's group type). */
const char *audit_group_type_name(audit_group_type_t type);

/**
 * Judges group \p g, which a librdkafka that cannot describe consumer
 * protocol groups (before 2.10, named by \p library) described as "Dead"
 * with no member, by its state in the cluster's list of groups
 * (\p listed_state; NULL when it is not listed): listed in any other
 * state, it exists on the consumer protocol (KIP-848) and takes that
 * type and state. Listed "Empty", it has no member, which is all the
 * ownership checks need; in any other state it is marked not described
 * (no ownership fault is drawn from what could not be seen) with an
 * "unchecked" finding naming the library needed.
 * Returns 1 when it was so marked, else 0.
 */
int audit_group_hidden(audit_t *a, int g, const char *listed_state,
                       const char *library);

/** Records a finding (text formatted like printf). */
void audit_add_finding(audit_t *a, audit_finding_kind_t kind, int bucket,
                       int32_t partition, int group, int member,
                       int64_t count, const char *fmt, ...)
        __attribute__((format(printf, 8, 9)));

/** 1 for the kinds that make bp-audit exit 1. */
int audit_finding_is_fault(audit_finding_kind_t kind);

/** bp-audit's exit status for \p a's findings: 1 with a fault, else 4
 *  with a "wait" finding (a layout change's next step may not start yet),
 *  else 3 with an "unchecked" one (a check could not be made: never
 *  healthy), else 0. */
int audit_exit_status(const audit_t *a);

/** The finding kind's name in the JSON ("misrouted", ...). */
const char *audit_finding_name(audit_finding_kind_t kind);

/** Frees everything \p a holds (not cfg, nor a->change: call
 *  audit_change_destroy() first). */
void audit_destroy(audit_t *a);

#endif /* AUDIT_MODEL_H */
