/*
 * demo_time.c - the monotonic clock, sleeps and the per-record processing
 * cost pacer of bp-demo.
 */
#include "demo_time.h"

#include <errno.h>
#include <time.h>

int64_t demo_now_us(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void demo_sleep_until_us(int64_t deadline_us) {
        struct timespec ts = {.tv_sec  = deadline_us / 1000000,
                              .tv_nsec = (deadline_us % 1000000) * 1000};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
               EINTR)
                ;
}

void demo_sleep_us(int64_t us) {
        if (us > 0)
                demo_sleep_until_us(demo_now_us() + us);
}

void demo_pacer_charge(demo_pacer_t *p, int64_t cost_us) {
        int64_t now = demo_now_us();

        if (cost_us <= 0)
                return;
        if (p->next_us < now - 1000)
                p->next_us = now - 1000;
        p->next_us += cost_us;
        if (p->next_us - now > 1000)
                demo_sleep_until_us(p->next_us);
}
