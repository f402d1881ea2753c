/*
 * demo_consumer.c - the worker threads: poll, account the record by id,
 * pay the processing cost; publish the current assignment (and, serving
 * several buckets, the plugin scheduler's figures) for the view.
 */
#include "demo_consumer.h"

#include <stdio.h>
#include <string.h>

#include "demo_producer.h"
#include "demo_time.h"

static void handle(demo_consumer_t *c, const rd_kafka_message_t *m,
                   demo_pacer_t *pacer) {
        demo_class_t cls;
        int64_t sent_us;
        long id;

        if (demo_record_parse(m, &cls, &id, &sent_us)) {
                demo_stats_garbage(c->st, DEMO_BULK);
                return;
        }
        /* The record is handled once its processing is paid for. */
        demo_pacer_charge(pacer, atomic_load(c->cost_us));
        demo_stats_consumed(c->st, cls, id, m->partition, sent_us,
                            demo_now_us());
        if (!demo_consumer_serves(c, cls))
                atomic_fetch_add(&c->st->cls[cls].other_bucket, 1);
        if (m->partition >= 0 && m->partition < 64)
                atomic_fetch_or(&c->seen[cls], 1ull << m->partition);
        atomic_fetch_add(&c->consumed, 1);
}

int demo_consumer_serves(const demo_consumer_t *c, demo_class_t cls) {
        const char *name = demo_class_name[cls], *p = c->bucket;
        size_t len       = strlen(name);

        if (!p)
                return 1;
        while (*p) { /* a comma-separated list, blanks around names */
                size_t n;
                p += strspn(p, " ,");
                n = strcspn(p, ",");
                while (n > 0 && p[n - 1] == ' ')
                        n--;
                if (n == len && !strncmp(p, name, len))
                        return 1;
                p += strcspn(p, ",");
        }
        return 0;
}

/* Serving several buckets: reads the scheduler's figures of each. */
static void publish_sched(demo_consumer_t *c) {
        bp_consumer_bucket_stats_t bs;
        int i, c2, found = 0;

        if (!c->plugin || !c->plugin->consumer_bucket_stats || !c->bucket ||
            !strchr(c->bucket, ','))
                return;
        for (i = 0; c->plugin->consumer_bucket_stats(c->rk, i, &bs) == 0;
             i++) {
                for (c2 = 0; c2 < DEMO_CLASSES; c2++)
                        if (bs.name && !strcmp(bs.name, demo_class_name[c2]))
                                break;
                if (c2 == DEMO_CLASSES)
                        continue;
                atomic_store(&c->sched[c2].delivered, (long)bs.delivered);
                atomic_store(&c->sched[c2].lag, (long)bs.lag);
                atomic_store(&c->sched[c2].partitions, (long)bs.partitions);
                atomic_store(&c->sched[c2].pauses, (long)bs.pauses);
                atomic_store(&c->sched[c2].paused_ms, (long)bs.paused_ms);
                atomic_store(&c->sched[c2].paused, bs.paused);
                found++;
        }
        if (found == DEMO_CLASSES) {
                atomic_store(&c->sched_valid, 1);
                atomic_fetch_add(&c->sched_reads, 1);
        }
}

int demo_consumer_sched(const demo_consumer_t *c,
                        demo_sched_t out[DEMO_CLASSES]) {
        int i;

        if (!atomic_load(&c->sched_valid))
                return -1;
        for (i = 0; i < DEMO_CLASSES; i++) {
                out[i].delivered  = atomic_load(&c->sched[i].delivered);
                out[i].lag        = atomic_load(&c->sched[i].lag);
                out[i].partitions = atomic_load(&c->sched[i].partitions);
                out[i].pauses     = atomic_load(&c->sched[i].pauses);
                out[i].paused_ms  = atomic_load(&c->sched[i].paused_ms);
                out[i].paused     = atomic_load(&c->sched[i].paused);
        }
        return 0;
}

static void publish_assignment(demo_consumer_t *c) {
        rd_kafka_topic_partition_list_t *a = NULL;
        uint64_t mask                      = 0;
        int i;

        if (rd_kafka_assignment(c->rk, &a) || !a)
                return;
        for (i = 0; i < a->cnt; i++)
                if (a->elems[i].partition >= 0 && a->elems[i].partition < 64)
                        mask |= 1ull << a->elems[i].partition;
        rd_kafka_topic_partition_list_destroy(a);
        atomic_store(&c->assigned, mask);
        if (c->plugin) {
                bp_stats_t bs;
                if (c->plugin->stats(c->rk, &bs) == 0)
                        atomic_store(&c->foreign, (long)bs.foreign);
        }
        publish_sched(c);
}

static void *run(void *arg) {
        demo_consumer_t *c = arg;
        demo_pacer_t pacer = {0};
        int64_t next_publish = 0;

        while (!atomic_load(&c->stop) && !atomic_load(&c->kill)) {
                rd_kafka_message_t *m = rd_kafka_consumer_poll(c->rk, 100);
                if (m) {
                        if (!m->err)
                                handle(c, m, &pacer);
                        rd_kafka_message_destroy(m);
                }
                if (demo_now_us() >= next_publish) {
                        publish_assignment(c);
                        next_publish = demo_now_us() + 200000;
                }
        }
        if (atomic_load(&c->kill)) {
                /* A crash: no LeaveGroup, no final commit. The group only
                 * notices when the session times out. */
                rd_kafka_destroy_flags(c->rk,
                                       RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
        } else {
                publish_sched(c); /* the final figures */
                rd_kafka_consumer_close(c->rk);
                rd_kafka_destroy(c->rk);
        }
        c->rk = NULL;
        atomic_store(&c->assigned, 0);
        atomic_store(&c->dead, 1);
        return NULL;
}

int demo_consumer_start(demo_consumer_t *c, const demo_setup_t *s, char *err,
                        size_t err_size) {
        char client_id[64];
        int i;

        snprintf(client_id, sizeof(client_id), "bp-demo-worker-%s-%d",
                 !c->bucket                ? "shared"
                 : strchr(c->bucket, ',') ? "strict"
                                          : c->bucket,
                 c->index);
        c->rk = demo_conf_open_consumer(s, c->bucket, client_id, err,
                                        err_size);
        if (!c->rk)
                return -1;
        atomic_init(&c->stop, 0);
        atomic_init(&c->kill, 0);
        atomic_init(&c->dead, 0);
        atomic_init(&c->assigned, 0);
        atomic_init(&c->consumed, 0);
        atomic_init(&c->foreign, 0);
        atomic_init(&c->sched_valid, 0);
        atomic_init(&c->sched_reads, 0);
        for (i = 0; i < DEMO_CLASSES; i++) {
                atomic_init(&c->seen[i], 0);
                atomic_init(&c->sched[i].delivered, 0);
                atomic_init(&c->sched[i].lag, 0);
                atomic_init(&c->sched[i].partitions, 0);
                atomic_init(&c->sched[i].pauses, 0);
                atomic_init(&c->sched[i].paused_ms, 0);
                atomic_init(&c->sched[i].paused, 0);
        }
        if (demo_thread_start(&c->thread, run, c, err, err_size)) {
                rd_kafka_consumer_close(c->rk);
                rd_kafka_destroy(c->rk);
                c->rk = NULL;
                return -1;
        }
        return 0;
}

void demo_consumer_kill(demo_consumer_t *c) {
        atomic_store(&c->kill, 1);
}

void demo_consumer_stop(demo_consumer_t *c) {
        demo_thread_stop(&c->thread, &c->stop);
}

void demo_partitions_text(uint64_t mask, char *out, size_t size) {
        size_t len = 0;
        int p = 0, q;

        out[0] = '\0';
        while (p < 64 && len < size) {
                if (!(mask & (1ull << p))) {
                        p++;
                        continue;
                }
                for (q = p; q + 1 < 64 && (mask & (1ull << (q + 1))); q++)
                        ;
                len += (size_t)snprintf(out + len, size - len, "%s%d",
                                        len ? "," : "", p);
                if (q > p && len < size)
                        len += (size_t)snprintf(out + len, size - len,
                                                q == p + 1 ? ",%d" : "-%d", q);
                p = q + 1;
        }
        if (!out[0])
                snprintf(out, size, "-");
}
