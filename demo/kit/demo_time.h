/*
 * demo_time.h - clocks for bp-demo: one monotonic microsecond clock that
 * every timestamp in the demo uses (producer, consumer, view) and sleeping,
 * both the test kit's (tests/kit/testkit.h), and the pacer that makes a
 * consumer pay a processing cost per record.
 */
#ifndef DEMO_TIME_H
#define DEMO_TIME_H

#include <stdint.h>

#include "testkit.h"

/** Microseconds on the monotonic clock (same in every thread). */
static inline int64_t demo_now_us(void) {
        return tk_now_us();
}

/** Sleeps \p us microseconds (nothing when \p us <= 0). */
static inline void demo_sleep_us(int64_t us) {
        tk_sleep_us(us);
}

/** Sleeps until demo_now_us() reaches \p deadline_us. */
static inline void demo_sleep_until_us(int64_t deadline_us) {
        tk_sleep_until_us(deadline_us);
}

/**
 * Simulated processing cost: each record handled costs cost_us of the
 * consumer's time, as if it called an SMS or e-mail provider. The pacer
 * keeps a schedule instead of sleeping per record (a sleep is ~60 us of
 * timer slack), so the rate is 1/cost_us exactly while idle time never
 * buys credit beyond a millisecond.
 */
typedef struct demo_pacer {
        int64_t next_us; /**< When the consumer is free again. */
} demo_pacer_t;

/** Charges one record of \p cost_us; sleeps when the debt exceeds 1 ms. */
void demo_pacer_charge(demo_pacer_t *p, int64_t cost_us);

#endif /* DEMO_TIME_H */
