/*
 * bp_sched_ctl.c - thread control of the scheduler (see bp_sched_state.h),
 * under ctl_lock.
 */
#include "bp_sched_state.h"

#include <time.h>

/* How on_destroy waits for a pause or resume in progress (see
 * bp_sched_stop()). */
#define STOP_WAIT_MS 2000

void bp_sched_wake(bp_scheduler_t *s) {
        pthread_mutex_lock(&s->ctl_lock);
        s->wake = 1;
        pthread_cond_signal(&s->ctl_cond);
        pthread_mutex_unlock(&s->ctl_lock);
}

/* Refused once the client is stopping or the consumer closed, since
 * librdkafka's main thread, which performs a pause or resume, may then be
 * gone and the call would never return. */
int bp_sched_op_begin(bp_scheduler_t *s) {
        int ok;
        pthread_mutex_lock(&s->ctl_lock);
        ok = !s->stop;
        s->in_op = ok;
        pthread_mutex_unlock(&s->ctl_lock);
        if (ok && rd_kafka_consumer_closed(s->rk)) {
                pthread_mutex_lock(&s->ctl_lock);
                s->in_op = 0;
                pthread_cond_broadcast(&s->ctl_cond);
                pthread_mutex_unlock(&s->ctl_lock);
                ok = 0;
        }
        return ok;
}

void bp_sched_op_end(bp_scheduler_t *s) {
        pthread_mutex_lock(&s->ctl_lock);
        s->in_op = 0;
        pthread_cond_broadcast(&s->ctl_cond);
        pthread_mutex_unlock(&s->ctl_lock);
}

/* on_destroy runs on librdkafka's main thread once it stopped serving
 * operations: a pause or resume caught in flight then never returns, so
 * after STOP_WAIT_MS the thread is left behind (detached, its state kept)
 * rather than hanging rd_kafka_destroy(). */
int bp_sched_stop(bp_scheduler_t *s) {
        struct timespec until;
        int stuck;

        pthread_mutex_lock(&s->ctl_lock);
        s->stop = 1;
        pthread_cond_broadcast(&s->ctl_cond);
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += STOP_WAIT_MS / 1000;
        while (s->in_op &&
               pthread_cond_timedwait(&s->ctl_cond, &s->ctl_lock, &until) == 0)
                ;
        stuck = s->in_op;
        pthread_mutex_unlock(&s->ctl_lock);
        if (!s->thread_started)
                return 0;
        if (stuck) {
                pthread_detach(s->thread);
                return -1;
        }
        pthread_join(s->thread, NULL);
        return 0;
}
