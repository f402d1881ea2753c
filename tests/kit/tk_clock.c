/*
 * tk_clock.c - the test kit's clocks: monotonic (ns, us, ms), wall clock
 * (ms), and sleeping on the monotonic clock.
 */
#include "testkit.h"

#include <errno.h>
#include <time.h>

int64_t tk_now_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t tk_now_us(void) {
        return tk_now_ns() / 1000;
}

int64_t tk_now_ms(void) {
        return tk_now_ns() / 1000000;
}

int64_t tk_wall_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void tk_sleep_until_us(int64_t deadline_us) {
        struct timespec ts = {.tv_sec  = (time_t)(deadline_us / 1000000),
                              .tv_nsec = (long)(deadline_us % 1000000) * 1000};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
               EINTR)
                ;
}

void tk_sleep_us(int64_t us) {
        if (us > 0)
                tk_sleep_until_us(tk_now_us() + us);
}
