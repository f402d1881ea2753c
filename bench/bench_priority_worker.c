/*
 * bench_priority_worker.c - the benchmark's consumer threads: poll, pay
 * the processing cost, account the record; keep the assignment paused
 * while the gate is closed.
 */
#include "bench_priority_worker.h"

#include <stdio.h>
#include <string.h>

#include "demo_kit.h"

#define POLL_MS 10
#define PUBLISH_US 100000

static void handle(bpb_worker_t *w, const rd_kafka_message_t *m,
                   demo_pacer_t *pacer) {
        demo_class_t cls;
        int64_t sent_us, now_us;
        long id;

        if (demo_record_parse(m, &cls, &id, &sent_us)) {
                demo_stats_garbage(w->st, DEMO_BULK);
                return;
        }
        /* Handled once its processing is paid for (an SMS, an e-mail). */
        demo_pacer_charge(pacer, atomic_load(w->cost_us));
        now_us = demo_now_us();
        demo_stats_consumed(w->st, cls, id, m->partition, sent_us, now_us);
        if (cls == DEMO_CRITICAL && w->gaps)
                bpb_gaps_note(w->gaps, m->partition, sent_us, now_us);
        if (w->serves >= 0 && w->serves != (int)cls)
                atomic_fetch_add(&w->st->cls[cls].other_bucket, 1);
        atomic_fetch_add(&w->consumed, 1);
}

/* Partition mask of list \p a (partitions 0-63). */
static uint64_t mask_of(const rd_kafka_topic_partition_list_t *a) {
        uint64_t mask = 0;
        int i;
        for (i = 0; i < a->cnt; i++)
                if (a->elems[i].partition >= 0 && a->elems[i].partition < 64)
                        mask |= 1ull << a->elems[i].partition;
        return mask;
}

/* Resumes the partitions of \p a that are the worker's to read. */
static void resume_own(bpb_worker_t *w,
                       const rd_kafka_topic_partition_list_t *a) {
        rd_kafka_topic_partition_list_t *own =
            rd_kafka_topic_partition_list_new(a->cnt > 0 ? a->cnt : 1);
        int i;

        for (i = 0; i < a->cnt; i++) {
                int32_t p = a->elems[i].partition;
                if (p >= 0 && p < 64 && (w->reads & (1ull << p)))
                        rd_kafka_topic_partition_list_add(
                            own, a->elems[i].topic, p);
        }
        if (own->cnt > 0)
                rd_kafka_resume_partitions(w->rk, own);
        rd_kafka_topic_partition_list_destroy(own);
}

/* Publishes the assignment; while the gate is closed pauses what is not
 * paused yet; once it opens resumes what it paused and is its to read. */
static void follow_assignment(bpb_worker_t *w) {
        rd_kafka_topic_partition_list_t *a = NULL;
        uint64_t mask;
        int open = atomic_load(w->gate_open);

        if (rd_kafka_assignment(w->rk, &a) || !a)
                return;
        mask = mask_of(a);
        if (!open && w->hold && a->cnt > 0 &&
            (mask & ~atomic_load(&w->paused)) != 0) {
                if (!rd_kafka_pause_partitions(w->rk, a))
                        atomic_store(&w->paused, mask);
        } else if (open && atomic_load(&w->paused)) {
                resume_own(w, a);
                atomic_store(&w->paused, 0);
        }
        atomic_store(&w->assigned, mask & w->reads);
        rd_kafka_topic_partition_list_destroy(a);
}

static void *run(void *arg) {
        bpb_worker_t *w    = arg;
        demo_pacer_t pacer = {0};
        int64_t next       = 0;
        int was_open       = 0;

        while (!atomic_load(&w->stop)) {
                rd_kafka_message_t *m = rd_kafka_consumer_poll(w->rk, POLL_MS);
                int open              = atomic_load(w->gate_open);
                if (m) {
                        if (!m->err)
                                handle(w, m, &pacer);
                        rd_kafka_message_destroy(m);
                }
                /* Closed gate: follow every change at once. Open: resume
                 * at once, then only publish now and then. */
                if (!open || open != was_open || demo_now_us() >= next) {
                        follow_assignment(w);
                        next     = demo_now_us() + PUBLISH_US;
                        was_open = open;
                }
        }
        rd_kafka_consumer_close(w->rk);
        rd_kafka_destroy(w->rk);
        w->rk = NULL;
        atomic_store(&w->assigned, 0);
        return NULL;
}

int bpb_worker_start(bpb_worker_t *w, const demo_setup_t *s, char *err,
                     size_t err_size) {
        char client_id[64];

        snprintf(client_id, sizeof(client_id), "bp-bench-worker-%s-%d",
                 w->serves < 0 ? "shared" : demo_class_name[w->serves],
                 w->index);
        w->rk = demo_conf_open_consumer(s, w->bucket, client_id, err,
                                        err_size);
        if (!w->rk)
                return -1;
        atomic_init(&w->stop, 0);
        atomic_init(&w->assigned, 0);
        atomic_init(&w->paused, 0);
        atomic_init(&w->consumed, 0);
        if (demo_thread_start(&w->thread, run, w, err, err_size)) {
                rd_kafka_consumer_close(w->rk);
                rd_kafka_destroy(w->rk);
                w->rk = NULL;
                return -1;
        }
        return 0;
}

void bpb_worker_stop(bpb_worker_t *w) {
        demo_thread_stop(&w->thread, &w->stop);
}
