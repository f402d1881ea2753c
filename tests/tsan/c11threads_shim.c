/*
 * c11threads_shim.c - C11 threads (thrd_*, mtx_*, cnd_*, call_once) on top
 * of the pthread calls ThreadSanitizer intercepts, preloaded into the
 * TSan test run by run-tsan.sh.
 *
 * Debian's librdkafka 2.0.2 uses C11 threads. glibc implements them by
 * calling its pthread internals directly, past the sanitizer's
 * interceptors, and the TSan runtimes of GCC 12 and Clang 14 have no C11
 * thread interceptors of their own: a thread started with thrd_create()
 * is unknown to TSan, which crashes in its first intercepted malloc, and
 * mtx_lock()/cnd_wait() would be invisible as synchronization, so every
 * hand-off through librdkafka's queues would look like a race. Each call
 * here does what glibc's own does (the C11 types share the pthread types'
 * layout in glibc), only through the public, intercepted pthread entry
 * points. Nothing in it is specific to the plugin.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <threads.h>
#include <time.h>

/* glibc's mapping of pthread error codes to thrd_* results. */
static int map_err(int err) {
        switch (err) {
        case 0:
                return thrd_success;
        case ENOMEM:
                return thrd_nomem;
        case ETIMEDOUT:
                return thrd_timedout;
        case EBUSY:
                return thrd_busy;
        default:
                return thrd_error;
        }
}

typedef struct {
        thrd_start_t func;
        void *arg;
} start_t;

static void *trampoline(void *p) {
        start_t s = *(start_t *)p;
        free(p);
        return (void *)(intptr_t)s.func(s.arg);
}

int thrd_create(thrd_t *thr, thrd_start_t func, void *arg) {
        start_t *s = malloc(sizeof(*s));
        int err;

        if (!s)
                return thrd_nomem;
        s->func = func;
        s->arg  = arg;
        err     = pthread_create((pthread_t *)thr, NULL, trampoline, s);
        if (err)
                free(s);
        return map_err(err);
}

int thrd_join(thrd_t thr, int *res) {
        void *ret;
        int err = pthread_join((pthread_t)thr, &ret);
        if (!err && res)
                *res = (int)(intptr_t)ret;
        return map_err(err);
}

int thrd_detach(thrd_t thr) {
        return map_err(pthread_detach((pthread_t)thr));
}

_Noreturn void thrd_exit(int res) {
        pthread_exit((void *)(intptr_t)res);
}

int mtx_init(mtx_t *m, int type) {
        pthread_mutexattr_t attr;
        int err;

        pthread_mutexattr_init(&attr);
        if (type & mtx_recursive)
                pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
        err = pthread_mutex_init((pthread_mutex_t *)m, &attr);
        pthread_mutexattr_destroy(&attr);
        return map_err(err);
}

int mtx_lock(mtx_t *m) {
        return map_err(pthread_mutex_lock((pthread_mutex_t *)m));
}

int mtx_trylock(mtx_t *m) {
        return map_err(pthread_mutex_trylock((pthread_mutex_t *)m));
}

int mtx_timedlock(mtx_t *restrict m, const struct timespec *restrict ts) {
        return map_err(pthread_mutex_timedlock((pthread_mutex_t *)m, ts));
}

int mtx_unlock(mtx_t *m) {
        return map_err(pthread_mutex_unlock((pthread_mutex_t *)m));
}

void mtx_destroy(mtx_t *m) {
        pthread_mutex_destroy((pthread_mutex_t *)m);
}

int cnd_init(cnd_t *c) {
        return map_err(pthread_cond_init((pthread_cond_t *)c, NULL));
}

int cnd_signal(cnd_t *c) {
        return map_err(pthread_cond_signal((pthread_cond_t *)c));
}

int cnd_broadcast(cnd_t *c) {
        return map_err(pthread_cond_broadcast((pthread_cond_t *)c));
}

int cnd_wait(cnd_t *c, mtx_t *m) {
        return map_err(
            pthread_cond_wait((pthread_cond_t *)c, (pthread_mutex_t *)m));
}

int cnd_timedwait(cnd_t *restrict c,
                  mtx_t *restrict m,
                  const struct timespec *restrict ts) {
        return map_err(pthread_cond_timedwait((pthread_cond_t *)c,
                                              (pthread_mutex_t *)m, ts));
}

void cnd_destroy(cnd_t *c) {
        pthread_cond_destroy((pthread_cond_t *)c);
}

void call_once(once_flag *flag, void (*func)(void)) {
        pthread_once((pthread_once_t *)flag, func);
}
