/*
 * demo_thread.c - start and stop of the producer and consumer threads
 * (see demo_thread.h).
 */
#include "demo_thread.h"

#include <stdio.h>

int demo_thread_start(demo_thread_t *t, void *(*fn)(void *), void *arg,
                      char *err, size_t err_size) {
        if (pthread_create(&t->id, NULL, fn, arg)) {
                snprintf(err, err_size, "cannot start a thread");
                return -1;
        }
        t->started = 1;
        return 0;
}

void demo_thread_stop(demo_thread_t *t, atomic_int *stop) {
        if (!t->started)
                return;
        atomic_store(stop, 1);
        pthread_join(t->id, NULL);
        t->started = 0;
}
