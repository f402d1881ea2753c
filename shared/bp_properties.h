/*
 * bp_properties.h - the names of the bucket.priority.* properties, in one
 * place. They follow the Java reference's names; docs/configuration.md
 * describes each.
 */
#ifndef BP_PROPERTIES_H
#define BP_PROPERTIES_H

/** What every property name of the plugin starts with. */
#define BP_PROP_PREFIX "bucket.priority."
#define BP_PROP_PREFIX_LEN (sizeof(BP_PROP_PREFIX) - 1)

/* Producers and consumers. */
#define BP_PROP_TOPIC BP_PROP_PREFIX "topic"
#define BP_PROP_BUCKETS BP_PROP_PREFIX "buckets"
#define BP_PROP_ALLOCATION BP_PROP_PREFIX "allocation"
#define BP_PROP_DELIMITER BP_PROP_PREFIX "delimiter"
#define BP_PROP_LAYOUT BP_PROP_PREFIX "layout"

/* Producers. */
#define BP_PROP_WITHIN BP_PROP_PREFIX "within"
#define BP_PROP_FALLBACK_PARTITIONER BP_PROP_PREFIX "fallback.partitioner"

/* A layout change in progress: the layout the topic moves to
 * (shared/bp_change.h; docs/layout-change.md). Each defaults to the current
 * value of the property without "next.". */
#define BP_PROP_NEXT_PREFIX BP_PROP_PREFIX "next."
#define BP_PROP_NEXT_BUCKETS BP_PROP_NEXT_PREFIX "buckets"
#define BP_PROP_NEXT_ALLOCATION BP_PROP_NEXT_PREFIX "allocation"
#define BP_PROP_NEXT_LAYOUT BP_PROP_NEXT_PREFIX "layout"
/** The step of the change a client follows (1..BP_MAX_STEP). */
#define BP_PROP_NEXT_STEP BP_PROP_NEXT_PREFIX "step"
#define BP_MAX_STEP 5

/* Consumers only. */
#define BP_PROP_BUCKET BP_PROP_PREFIX "bucket"
#define BP_PROP_GROUP_PER_BUCKET BP_PROP_PREFIX "group.per.bucket"
#define BP_PROP_EVENTS_MAPPED BP_PROP_PREFIX "rebalance.events.mapped"
#define BP_PROP_SCHEDULE BP_PROP_PREFIX "schedule"
#define BP_PROP_LAG_THRESHOLD BP_PROP_PREFIX "lag.threshold"
#define BP_PROP_HOLD BP_PROP_PREFIX "hold"
/** Accepted for the Java reference's configurations, and ignored. */
#define BP_PROP_FALLBACK_ASSIGNOR BP_PROP_PREFIX "fallback.assignor"

#endif /* BP_PROPERTIES_H */
