/*
 * demo_thread.h - the threads of the demo's and the benchmark's producers
 * and consumers: started once, told to stop through their own flag, waited
 * for once; stopping one that never started does nothing.
 */
#ifndef DEMO_THREAD_H
#define DEMO_THREAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

typedef struct demo_thread {
        pthread_t id;
        int started; /**< 1 from a successful start to the join. */
} demo_thread_t;

/** Runs \p fn(\p arg) on a new thread.
 *  @returns 0, or -1 with "cannot start a thread" in \p err. */
int demo_thread_start(demo_thread_t *t, void *(*fn)(void *), void *arg,
                      char *err, size_t err_size);

/** If \p t was started: sets \p *stop and waits for the thread to end. */
void demo_thread_stop(demo_thread_t *t, atomic_int *stop);

#endif /* DEMO_THREAD_H */
