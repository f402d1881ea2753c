/*
 * bp_fallback.c - classifies bucket.priority.fallback.partitioner values
 * (see bp_fallback.h).
 */
#include "bp_fallback.h"

#include <string.h>

static const char *builtin_names[BP_BUILTIN__CNT] = {
    "random",  "consistent",     "consistent_random", "murmur2",
    "murmur2_random", "fnv1a", "fnv1a_random",      "roundrobin"};

/* The reference's Java partitioner classes and what they mean here. */
static const struct {
        const char *java_class;
        bp_fallback_kind_t kind;
        bp_builtin_t builtin;
} java_classes[] = {
    {"org.apache.kafka.clients.producer.internals.DefaultPartitioner",
     BP_FALLBACK_BUILTIN, BP_BUILTIN_MURMUR2_RANDOM},
    {"org.apache.kafka.clients.producer.UniformStickyPartitioner",
     BP_FALLBACK_BUILTIN, BP_BUILTIN_RANDOM},
    {"org.apache.kafka.clients.producer.RoundRobinPartitioner",
     BP_FALLBACK_BUILTIN, BP_BUILTIN_ROUNDROBIN},
};

#define DISCARD_CLASS_SUFFIX ".DiscardPartitioner"

const char *bp_builtin_name(bp_builtin_t b) {
        return (unsigned)b < BP_BUILTIN__CNT ? builtin_names[b] : "?";
}

static int ends_with(const char *s, const char *suffix) {
        size_t a = strlen(s), b = strlen(suffix);
        return a > b && !strcmp(s + a - b, suffix);
}

void bp_fallback_classify(const char *v,
                          bp_fallback_kind_t *kind,
                          bp_builtin_t *builtin) {
        size_t i;

        *kind = BP_FALLBACK_BUCKET;
        if (!strcmp(v, "discard") || ends_with(v, DISCARD_CLASS_SUFFIX)) {
                *kind = BP_FALLBACK_DISCARD;
                return;
        }
        for (i = 0; i < BP_BUILTIN__CNT; i++)
                if (!strcmp(v, builtin_names[i])) {
                        *kind    = BP_FALLBACK_BUILTIN;
                        *builtin = (bp_builtin_t)i;
                        return;
                }
        for (i = 0; i < sizeof(java_classes) / sizeof(java_classes[0]); i++)
                if (!strcmp(v, java_classes[i].java_class)) {
                        *kind    = java_classes[i].kind;
                        *builtin = java_classes[i].builtin;
                        return;
                }
}
