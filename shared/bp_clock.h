/*
 * bp_clock.h - the monotonic clock every part of the project times with
 * (the scheduler's decisions, the safety net's metadata pace, the sibling
 * reads' log line, bp-audit's waits): CLOCK_MONOTONIC in microseconds and
 * milliseconds, never the wall clock.
 */
#ifndef BP_CLOCK_H
#define BP_CLOCK_H

#include <stdint.h>
#include <time.h>

/** Monotonic time in microseconds. */
static inline int64_t bp_clock_us(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/** Monotonic time in milliseconds. */
static inline int64_t bp_clock_ms(void) {
        return bp_clock_us() / 1000;
}

#endif /* BP_CLOCK_H */
