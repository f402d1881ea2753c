/*
 * bp_rebalance.c - the assignment callbacks: map what the group gives this
 * consumer onto its bucket's partitions, and the ready-made rebalance
 * callback built on that mapping.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../include/bucket_priority.h"
#include "../plugin/bp_client_layout.h"
#include "../plugin/bp_registry.h"
#include "../shared/bp_mapping.h"
#include "bp_consumer_side.h"
#include "bp_kip848.h"
#include "bp_migrate.h"
#include "bp_offsets.h"
#include "bp_rebalance.h"
#include "bp_reader.h"
#include "bp_topic_count.h"
#include "bp_tracking.h"

static rd_kafka_topic_partition_list_t *
copy_list(const rd_kafka_topic_partition_list_t *partitions) {
        return rd_kafka_topic_partition_list_copy(partitions);
}

/* The layout every member must agree on: fresh metadata, else the last
 * known count (a disagreement heals at the next rebalance). */
static const bp_layout_t *agreed_layout(bp_client_t *c, rd_kafka_t *rk,
                                        char *errstr, size_t errstr_size) {
        /* A consumer of one bucket assigns exactly its partitions and
         * pauses none: its count comes through a helper client, which does
         * not wait behind the consumer's fetch (bp_reader.h). A consumer of
         * several buckets pauses new partitions before they are assigned
         * (bp_scheduler_assigning()), which librdkafka ignores for a
         * partition it does not know yet: asked on the consumer itself,
         * the request gives it the topic's partitions. */
        int32_t cnt =
            c->cfg.consumer_bucket_cnt == 1
                ? bp_reader_partition_count(c, rk, BP_REBALANCE_TIMEOUT_MS)
                : bp_topic_partition_count(rk, c->cfg.topic,
                                           BP_REBALANCE_TIMEOUT_MS);
        const bp_layout_t *l;

        if (cnt < 0) {
                l = atomic_load_explicit(&c->current, memory_order_acquire);
                if (l) {
                        bp_client_log(c, 4,
                                      "no fresh metadata for topic \"%s\"; "
                                      "mapping with the last known %d "
                                      "partitions",
                                      c->cfg.topic, (int)l->partition_cnt);
                        return l;
                }
                snprintf(errstr, errstr_size,
                         "cannot read the partition count of topic \"%s\"",
                         c->cfg.topic);
                return NULL;
        }
        l = bp_client_layout(c, cnt);
        if (!l)
                snprintf(errstr, errstr_size,
                         "no bucket layout for topic \"%s\" at %d partitions "
                         "(see the earlier error)",
                         c->cfg.topic, (int)cnt);
        return l;
}

rd_kafka_topic_partition_list_t *
bp_assignment_map(rd_kafka_t *rk,
                  const rd_kafka_topic_partition_list_t *partitions,
                  char *errstr,
                  size_t errstr_size) {
        bp_client_t *c = bp_registry_find(rk);
        rd_kafka_topic_partition_list_t *out;
        const bp_layout_t *l;
        int32_t *b, b_cnt, q;
        int i;

        if (errstr_size)
                errstr[0] = '\0';
        /* The consumer protocol: nothing is mapped (bp_kip848.h). */
        if (c && c->consumer->kip848)
                return partitions == c->consumer->mapped_in_flight
                           ? copy_list(partitions)
                           : bp_kip848_given(c, rk, partitions);
        /* A classic member of a group converted to the consumer protocol:
         * nothing is mapped either (bp_migrate.h). */
        if (c && partitions != c->consumer->mapped_in_flight &&
            bp_migrate_at_assign(c, rk, partitions))
                return bp_kip848_given(c, rk, partitions);
        if (c && c->cfg.consumer_bucket_cnt > 0 && c->mode == BP_MODE_BROKEN &&
            c->cfg.topic_set) {
                /* Incomplete configuration: never read another bucket's
                 * partitions; other topics still flow. */
                bp_client_log_once(c, BP_ONCE_BROKEN, 3,
                                   "%s; this consumer reads no partition of "
                                   "topic \"%s\"",
                                   c->broken_reason, c->cfg.topic);
                out = rd_kafka_topic_partition_list_new(partitions->cnt);
                for (i = 0; i < partitions->cnt; i++)
                        if (!bp_is_bucket_topic(c, partitions->elems[i].topic))
                                rd_kafka_topic_partition_list_add(
                                    out, partitions->elems[i].topic,
                                    partitions->elems[i].partition);
                return out;
        }
        if (!c || c->cfg.consumer_bucket_cnt == 0 ||
            c->mode != BP_MODE_ACTIVE ||
            partitions == c->consumer->mapped_in_flight)
                return copy_list(partitions); /* nothing to map, or done */
        if (!bp_list_has_bucket_topic(c, partitions))
                return copy_list(partitions);

        if (!(l = agreed_layout(c, rk, errstr, errstr_size)))
                return NULL;
        b = malloc(sizeof(*b) * (size_t)l->partition_cnt);
        if (!b) {
                snprintf(errstr, errstr_size, "out of memory");
                return NULL;
        }
        b_cnt = bp_mapping_partitions(l, c->cfg.consumer_buckets,
                                      c->cfg.consumer_bucket_cnt, b);
        out = rd_kafka_topic_partition_list_new(partitions->cnt);
        for (i = 0; i < partitions->cnt; i++) {
                const rd_kafka_topic_partition_t *e = &partitions->elems[i];
                if (!bp_is_bucket_topic(c, e->topic)) {
                        rd_kafka_topic_partition_list_add(out, e->topic,
                                                          e->partition)
                            ->offset = e->offset;
                        continue;
                }
                q = bp_mapping_map(b, b_cnt, e->partition);
                if (q >= 0)
                        rd_kafka_topic_partition_list_add(out, e->topic, q)
                            ->offset = RD_KAFKA_OFFSET_INVALID;
        }
        free(b);
        bp_offsets_decide(c, rk, out, l->partition_cnt);
        bp_tracking_assigning(c, rk, out, l);
        return out;
}

static void assign(bp_client_t *c, rd_kafka_t *rk,
                   const rd_kafka_topic_partition_list_t *list) {
        rd_kafka_resp_err_t err = rd_kafka_assign(rk, list);
        if (err && c)
                bp_client_log(c, 3, "rd_kafka_assign() failed: %s",
                              rd_kafka_err2str(err));
}

void bp_rebalance_cb(rd_kafka_t *rk,
                     rd_kafka_resp_err_t err,
                     rd_kafka_topic_partition_list_t *partitions,
                     void *opaque) {
        bp_client_t *c = bp_registry_find(rk);
        rd_kafka_topic_partition_list_t *mapped;
        char errstr[512];

        (void)opaque;
        if (c)
                c->consumer->migrate_asked = NULL; /* a new callback */
        if (c && c->consumer->kip848) {
                bp_kip848_rebalance(c, rk, err, partitions);
                return;
        }
        if (c && err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS &&
            bp_migrate_at_assign(c, rk, partitions)) {
                bp_kip848_assign_eager(c, rk, partitions);
                return;
        }
        switch (err) {
        case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
                mapped = bp_assignment_map(rk, partitions, errstr,
                                           sizeof(errstr));
                if (!mapped) {
                        if (c)
                                bp_client_log(c, 3,
                                              "this consumer takes no "
                                              "partition until the next "
                                              "rebalance: %s",
                                              errstr);
                        if (c)
                                bp_tracking_revoking(c);
                        assign(c, rk, NULL);
                        return;
                }
                assign(c, rk, mapped);
                rd_kafka_topic_partition_list_destroy(mapped);
                return;
        case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
                if (c && rd_kafka_assignment_lost(rk))
                        bp_client_log(c, 4,
                                      "assignment lost (session timed out "
                                      "or fenced): dropped without "
                                      "committing");
                if (c)
                        bp_tracking_revoking(c);
                assign(c, rk, NULL);
                return;
        default:
                if (c) {
                        bp_client_log(c, 3, "rebalance error: %s",
                                      rd_kafka_err2str(err));
                        bp_tracking_revoking(c);
                }
                assign(c, rk, NULL);
                return;
        }
}

void bp_rebalance_chain(rd_kafka_t *rk,
                        rd_kafka_resp_err_t err,
                        rd_kafka_topic_partition_list_t *partitions,
                        void *opaque) {
        bp_client_t *c = bp_registry_find(rk);
        rd_kafka_topic_partition_list_t *given = NULL;
        char errstr[512];

        if (!c || !c->consumer->app_rebalance_cb) {
                bp_rebalance_cb(rk, err, partitions, opaque);
                return;
        }
        c->consumer->migrate_asked = NULL; /* a new callback */
        if (c->consumer->kip848 ||
            (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS &&
             bp_migrate_at_assign(c, rk, partitions))) {
                bp_kip848_chain(c, rk, err, partitions, opaque);
                return;
        }
        switch (err) {
        case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
                given = bp_assignment_map(rk, partitions, errstr,
                                          sizeof(errstr));
                if (!given) {
                        bp_client_log(c, 3,
                                      "this consumer takes no partition "
                                      "until the next rebalance: %s",
                                      errstr);
                        bp_tracking_revoking(c);
                        given = rd_kafka_topic_partition_list_new(0);
                }
                break;
        case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
                /* What the application assigned, not the group's indexes:
                 * an application that commits or cleans up per partition
                 * on revocation must see its own partitions. */
                bp_tracking_revoking(c);
                if (rd_kafka_assignment(rk, &given))
                        given = NULL;
                break;
        default:
                bp_tracking_revoking(c);
                break;
        }
        c->consumer->mapped_in_flight = given;
        c->consumer->app_rebalance_cb(rk, err, given ? given : partitions,
                                      opaque);
        c->consumer->mapped_in_flight = NULL;
        if (given)
                rd_kafka_topic_partition_list_destroy(given);
}

/* A client's own entry (not one of its topic handles) named \p arg. */
static int is_named(const void *handle, const bp_client_t *c, void *arg) {
        return c->rk == handle && !strcmp(rd_kafka_name(c->rk), arg);
}

/* The client named \p name that loaded the plugin, or NULL. */
static rd_kafka_t *client_by_name(const char *name) {
        bp_client_t *c = name ? bp_registry_search(is_named, (void *)name)
                              : NULL;
        return c ? c->rk : NULL;
}

int bp_assignment_map_by_name(const char *client_name,
                              const char *const *topics,
                              const int32_t *partitions,
                              int cnt,
                              int32_t *out_index,
                              int32_t *out_partitions,
                              int64_t *out_offsets,
                              char *errstr,
                              size_t errstr_size) {
        rd_kafka_t *rk = client_by_name(client_name);
        rd_kafka_topic_partition_list_t *in, *out;
        int i, j, n;

        if (!rk || cnt < 0 || (cnt > 0 && (!topics || !partitions ||
                                            !out_index || !out_partitions ||
                                            !out_offsets))) {
                snprintf(errstr, errstr_size,
                         rk ? "bp_assignment_map_by_name: bad arguments"
                            : "bp_assignment_map_by_name: no client named "
                              "\"%.64s\" loaded bucket-priority",
                         client_name ? client_name : "(null)");
                return -1;
        }
        in = rd_kafka_topic_partition_list_new(cnt);
        for (i = 0; i < cnt; i++)
                rd_kafka_topic_partition_list_add(in, topics[i],
                                                  partitions[i]);
        out = bp_assignment_map(rk, in, errstr, errstr_size);
        rd_kafka_topic_partition_list_destroy(in);
        if (!out)
                return -1;
        for (j = 0, n = 0; j < out->cnt && n < cnt; j++) {
                for (i = 0; i < cnt && strcmp(topics[i], out->elems[j].topic);
                     i++)
                        ;
                out_index[n]        = i < cnt ? i : 0;
                out_partitions[n]   = out->elems[j].partition;
                out_offsets[n++]    = out->elems[j].offset;
        }
        rd_kafka_topic_partition_list_destroy(out);
        return n;
}
