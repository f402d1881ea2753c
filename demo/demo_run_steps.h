/*
 * demo_run_steps.h - the operator's steps of a run on a real cluster
 * (--brokers): the topic grows, then a worker crashes.
 */
#ifndef DEMO_RUN_STEPS_H
#define DEMO_RUN_STEPS_H

#include "demo_run_state.h"

/** With --brokers, at \p t seconds: grows the topic once its time comes,
 *  then crashes a worker (restarting it in the strict run), narrated;
 *  nothing on the mock cluster. */
void demo_run_broker_steps(demo_run_state_t *r, double t);

#endif /* DEMO_RUN_STEPS_H */
