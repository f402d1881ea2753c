/*
 * bp_client_layout.c - the layout a client uses (see bp_client_layout.h):
 * the layouts it has computed, kept for its lifetime; how one is computed,
 * the configured one or during a live layout change
 * (bucket.priority.next.*) the one its step gives producers or consumers
 * (shared/bp_change.h), with the log lines that let operators compare
 * clients: each names its step and layout fingerprint.
 */
#include "bp_client_layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp_change.h"
#include "bp_config.h"
#include "bp_list.h"

/* ---- The layouts a client has computed, kept for its lifetime. ---- */

/* The kept layout for \p partition_cnt, computed once; made the current
 * one when \p current. */
static const bp_layout_t *kept(bp_client_t *c, int32_t partition_cnt,
                               int current) {
        bp_layout_node_t *n;
        bp_layout_t *l = NULL;
        char err[512];

        if (atomic_load_explicit(&c->failed_cnt, memory_order_acquire) ==
            partition_cnt)
                return NULL;

        pthread_mutex_lock(&c->layout_lock);
        for (n = c->layouts; n; n = n->next)
                if (n->layout->partition_cnt == partition_cnt) {
                        l = n->layout;
                        break;
                }
        if (!l) {
                l = bp_client_compute_layout(c, partition_cnt, err,
                                             sizeof(err));
                n = l ? malloc(sizeof(*n)) : NULL;
                if (n) {
                        n->layout  = l;
                        n->next    = c->layouts;
                        c->layouts = n;
                } else {
                        if (l) {
                                bp_layout_destroy(l);
                                l = NULL;
                                snprintf(err, sizeof(err), "out of memory");
                        }
                        atomic_store_explicit(&c->failed_cnt, partition_cnt,
                                              memory_order_release);
                        bp_client_log_once(
                            c, BP_ONCE_NO_LAYOUT, 3,
                            "records to topic \"%s\" fail: %s (logged once; "
                            "failures are counted in bp_stats())",
                            c->cfg.topic, err);
                }
        }
        if (l && current)
                atomic_store_explicit(&c->current, l, memory_order_release);
        pthread_mutex_unlock(&c->layout_lock);
        return l;
}

const bp_layout_t *bp_client_layout_slow(bp_client_t *c,
                                         int32_t partition_cnt) {
        return kept(c, partition_cnt, 1);
}

const bp_layout_t *bp_client_layout_aside(bp_client_t *c,
                                          int32_t partition_cnt) {
        return kept(c, partition_cnt, 0);
}

/* ---- How a layout is computed: configured, or a change's step. ---- */

/* "critical 8-11, bulk 6-7": each bucket's partitions as ranges. */
static void describe(const bp_layout_t *l, const bp_config_t *cfg, char *buf,
                     size_t size) {
        char ranges[256];
        size_t len = 0;
        int b, n;

        buf[0] = '\0';
        for (b = 0; b < l->bucket_cnt && len < size; b++) {
                if (l->count[b] == 0)
                        snprintf(ranges, sizeof(ranges), "none");
                else
                        bp_ranges_format(ranges, sizeof(ranges),
                                         l->partitions + l->first[b],
                                         l->count[b]);
                n = snprintf(buf + len, size - len, "%s%s %s", b ? ", " : "",
                             cfg->buckets[b].name, ranges);
                len += n > 0 ? (size_t)n : 0;
        }
}

static int is_consumer(const bp_client_t *c) {
        return c->cfg.consumer_bucket_cnt > 0;
}

/* What a plan means for this client, logged; the client's layout. */
static bp_layout_t *change_layout(bp_client_t *c, bp_change_plan_t *pl) {
        int step = c->cfg.next.step, served = 0, i;
        bp_layout_t *l;
        char fp[9], next_fp[9], parts[400];

        if (pl->refused[0] && step > 1)
                bp_client_log(c, 3,
                              "layout change of topic \"%s\" refused at %d "
                              "partitions: %s; producers stay on step 1, "
                              "consumers on the current layout",
                              c->cfg.topic, (int)pl->partition_cnt,
                              pl->refused);
        if (!is_consumer(c) && step >= pl->step_cnt)
                bp_client_log(c, 4,
                              "layout change of topic \"%s\": at %d "
                              "partitions it has %d steps, and step %d is "
                              "taken by restarting producers with the next "
                              "values as bucket.priority.buckets, .allocation "
                              "and .layout and no bucket.priority.next.* "
                              "property; until then this producer writes as "
                              "at step %d",
                              c->cfg.topic, (int)pl->partition_cnt,
                              pl->step_cnt, pl->step_cnt, pl->step_cnt - 1);
        l = is_consumer(c) ? bp_change_read_layout(pl, pl->refused[0] ? 1 : step)
                           : bp_change_route_layout(pl, step);
        if (!l)
                return NULL;
        for (i = 0; i < c->cfg.consumer_bucket_cnt; i++)
                served += l->count[c->cfg.consumer_buckets[i]];
        if (is_consumer(c) && served == 0)
                bp_client_log(c, 3,
                              "consumer of bucket \"%s\" reads no partition "
                              "of topic \"%s\" at step %d of the layout "
                              "change: the next layout removes its bucket; "
                              "stop this consumer",
                              c->cfg.consumer_bucket_text, c->cfg.topic, step);
        bp_layout_fingerprint(l, &c->cfg, fp);
        bp_layout_fingerprint(pl->to, &pl->next, next_fp);
        describe(l, &c->cfg, parts, sizeof(parts));
        bp_client_log(c, 5,
                      "topic \"%s\" at %d partitions, layout change step %d "
                      "of %d: this %s %s with layout fingerprint %s (%s); "
                      "the next layout's fingerprint is %s",
                      c->cfg.topic, (int)pl->partition_cnt, step, pl->step_cnt,
                      is_consumer(c) ? "consumer" : "producer",
                      is_consumer(c) ? "reads" : "writes", fp, parts, next_fp);
        return l;
}

void bp_client_change_homes(bp_client_t *c) {
        bp_config_t next;
        char err[256];
        int b, t;

        for (b = 0; b < BP_MAX_BUCKETS; b++)
                c->change_home[b] = -1;
        if (!c->cfg.next.set || bp_config_next(&c->cfg, &next, err,
                                               sizeof(err)))
                return;
        for (b = 0; b < c->cfg.bucket_cnt; b++) {
                if (bp_config_find_bucket(&next, c->cfg.buckets[b].name,
                                          c->cfg.buckets[b].name_len) >= 0 ||
                    next.fallback_bucket < 0)
                        continue; /* kept, or discarded after the change */
                t = next.fallback_bucket;
                c->change_home[b] = bp_config_find_bucket(
                    &c->cfg, next.buckets[t].name, next.buckets[t].name_len);
        }
}

bp_layout_t *bp_client_compute_layout(bp_client_t *c,
                                      int32_t partition_cnt,
                                      char *errstr,
                                      size_t errstr_size) {
        int changing = c->cfg.next.set;
        bp_config_t next;
        bp_change_plan_t *pl;
        bp_layout_t *l, *to;
        char fp[9], parts[400];

        /* During a change, its next configuration's error comes first. */
        if (changing && bp_config_next(&c->cfg, &next, errstr, errstr_size))
                return NULL;
        l = bp_layout_compute(&c->cfg, partition_cnt, errstr, errstr_size);
        if (!l)
                return NULL;
        if (!changing) {
                bp_layout_fingerprint(l, &c->cfg, fp);
                describe(l, &c->cfg, parts, sizeof(parts));
                bp_client_log(c, 6,
                              "topic \"%s\" at %d partitions: layout "
                              "fingerprint %s (%s)",
                              c->cfg.topic, (int)partition_cnt, fp, parts);
                return l;
        }
        /* A change: planned from the configured layout to the next one. */
        to = bp_layout_compute(&next, partition_cnt, errstr, errstr_size);
        pl = bp_change_plan_of(&c->cfg, &next, l, to, errstr, errstr_size);
        if (!pl)
                return NULL;
        l = change_layout(c, pl);
        if (!l)
                snprintf(errstr, errstr_size, "out of memory");
        bp_change_plan_destroy(pl);
        return l;
}
