/*
 * bp_config_next.c - the configuration a live layout change moves to:
 * the current one with the bucket.priority.next.* values (bp_change.h
 * plans the change itself); and whether a configuration is complete,
 * which includes that its next one can be made.
 */
#include "bp_config.h"

#include <stdio.h>
#include <string.h>

#include "bp_fallback.h"
#include "bp_properties.h"

int bp_config_next(const bp_config_t *cfg,
                   bp_config_t *next,
                   char *errstr,
                   size_t errstr_size) {
        const bp_next_def_t *n = &cfg->next;
        int i;

        *next = *cfg;
        memset(&next->next, 0, sizeof(next->next));
        next->consumer_bucket_cnt = 0;
        if (n->bucket_cnt > 0) {
                next->bucket_cnt = n->bucket_cnt;
                memcpy(next->buckets, n->buckets, sizeof(next->buckets));
                next->max_name_len = 0;
                for (i = 0; i < n->bucket_cnt; i++)
                        if (n->buckets[i].name_len > next->max_name_len)
                                next->max_name_len = n->buckets[i].name_len;
        }
        if (n->allocation_cnt > 0) {
                next->allocation_cnt = n->allocation_cnt;
                memcpy(next->allocation, n->allocation,
                       sizeof(next->allocation));
        }
        if (n->layout_set)
                next->layout = n->layout;
        if (next->bucket_cnt != next->allocation_cnt) {
                snprintf(errstr, errstr_size,
                         "the next layout has %d bucket%s (%s) but %d "
                         "allocation%s (%s); give one allocation per bucket",
                         next->bucket_cnt, next->bucket_cnt == 1 ? "" : "s",
                         n->bucket_cnt ? BP_PROP_NEXT_BUCKETS
                                       : BP_PROP_BUCKETS,
                         next->allocation_cnt,
                         next->allocation_cnt == 1 ? "" : "s",
                         n->allocation_cnt ? BP_PROP_NEXT_ALLOCATION
                                           : BP_PROP_ALLOCATION);
                return -1;
        }
        if (cfg->fallback_kind == BP_FALLBACK_BUILTIN) {
                snprintf(errstr, errstr_size,
                         "%s=%s spreads records over the whole topic, also "
                         "onto partitions that change bucket; during a "
                         "layout change the fallback must be a bucket or "
                         "\"discard\"",
                         BP_PROP_FALLBACK_PARTITIONER,
                         bp_builtin_name(cfg->fallback_builtin));
                return -1;
        }
        next->fallback_bucket = -1;
        if (cfg->fallback_kind == BP_FALLBACK_BUCKET) {
                next->fallback_bucket =
                    cfg->fallback_text[0]
                        ? bp_config_find_bucket(next, cfg->fallback_text,
                                                strlen(cfg->fallback_text))
                        : next->bucket_cnt - 1;
                if (next->fallback_bucket < 0) {
                        snprintf(errstr, errstr_size,
                                 "%s names bucket \"%s\", which %s leaves "
                                 "out; name a bucket of both layouts",
                                 BP_PROP_FALLBACK_PARTITIONER,
                                 cfg->fallback_text, BP_PROP_NEXT_BUCKETS);
                        return -1;
                }
        }
        return 0;
}

int bp_config_check_complete(const bp_config_t *cfg,
                             char *errstr,
                             size_t errstr_size) {
        const char *missing = NULL;
        bp_config_t next;
        if (!cfg->topic_set)
                missing = BP_PROP_TOPIC;
        else if (cfg->bucket_cnt == 0)
                missing = BP_PROP_BUCKETS;
        else if (cfg->allocation_cnt == 0)
                missing = BP_PROP_ALLOCATION;
        if (!missing && cfg->next.set &&
            bp_config_next(cfg, &next, errstr, errstr_size))
                return -1;
        if (!missing)
                return 0;
        snprintf(errstr, errstr_size,
                 "%s is not set; the bucket-priority plugin needs "
                 "%s, %s and %s",
                 missing, BP_PROP_TOPIC, BP_PROP_BUCKETS, BP_PROP_ALLOCATION);
        return -1;
}
