/*
 * demo_time.c - the per-record processing cost pacer of bp-demo (its
 * clock and sleeps are the test kit's, see demo_time.h).
 */
#include "demo_time.h"

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
