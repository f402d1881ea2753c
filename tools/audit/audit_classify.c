/*
 * audit_classify.c - key classification and the routing findings.
 */
#include "audit_classify.h"

#include "bp_escape.h"
#include "bp_key.h"

audit_key_class_t audit_classify_key(const audit_t *a, int32_t partition,
                                     const void *key, size_t keylen) {
        int b = bp_key_bucket(a->cfg, key, keylen);

        if (b == BP_KEY_NONE)
                return AUDIT_KEY_NULL;
        if (b < 0)
                return AUDIT_KEY_UNKNOWN;
        if (b == a->layout->bucket_of[partition])
                return AUDIT_KEY_IN_BUCKET;
        if (a->past[partition] & (1ull << b))
                return AUDIT_KEY_OLD_LAYOUT;
        return AUDIT_KEY_MISROUTED;
}

void audit_count_key(audit_t *a, int32_t partition, const void *key,
                     size_t keylen) {
        audit_partition_t *pt = &a->parts[partition];
        audit_key_class_t c = audit_classify_key(a, partition, key, keylen);

        pt->keys[c]++;
        if (c == AUDIT_KEY_MISROUTED && pt->sample_cnt < AUDIT_SAMPLES)
                bp_escape(key, keylen, BP_KEY_PREVIEW_LEN,
                          pt->samples[pt->sample_cnt++], AUDIT_SAMPLE_SIZE);
}

void audit_routing_findings(audit_t *a) {
        int32_t p;
        int b;

        for (p = 0; p < a->layout->partition_cnt; p++) {
                audit_partition_t *pt = &a->parts[p];
                b = a->layout->bucket_of[p];
                /* During a layout change the step's routing judges keys
                 * (audit_change.c: step_misplaced). */
                if (pt->keys[AUDIT_KEY_MISROUTED] && !a->change)
                        audit_add_finding(
                            a, AUDIT_F_MISROUTED, b, p, -1, -1,
                            pt->keys[AUDIT_KEY_MISROUTED],
                            "partition %d (bucket %s): %lld of the last %lld "
                            "records name another bucket, such as \"%s\": "
                            "a producer without the plugin (or with another "
                            "layout) writes here",
                            (int)p, a->cfg->buckets[b].name,
                            (long long)pt->keys[AUDIT_KEY_MISROUTED],
                            (long long)(pt->keys[0] + pt->keys[1] +
                                        pt->keys[2] + pt->keys[3] +
                                        pt->keys[4]),
                            pt->samples[0]);
                if (pt->keys[AUDIT_KEY_UNKNOWN])
                        audit_add_finding(
                            a, AUDIT_F_UNKNOWN_KEYS, b, p, -1, -1,
                            pt->keys[AUDIT_KEY_UNKNOWN],
                            "partition %d (bucket %s): %lld records with "
                            "keys naming no bucket (fallback)",
                            (int)p, a->cfg->buckets[b].name,
                            (long long)pt->keys[AUDIT_KEY_UNKNOWN]);
                if (pt->routing_incomplete)
                        audit_add_finding(
                            a, AUDIT_F_UNCHECKED, b, p, -1, -1, 0,
                            "partition %d: its last records were not all "
                            "read within the timeout",
                            (int)p);
        }
}
