/*
 * demo_run_story.h - the story told while a run measures: who serves
 * what, the campaign, login codes waiting, and flowing again.
 */
#ifndef DEMO_RUN_STORY_H
#define DEMO_RUN_STORY_H

#include "demo_run_state.h"

/** Tells who serves what and the login codes' rate, at t0. */
void demo_run_tell_intro(demo_run_state_t *r);

/** Tells, once each, what happened by \p t seconds: the campaign starts
 *  and is written, login codes wait 1 s and 5 s, then flow again; in the
 *  strict run, the scheduler's story. */
void demo_run_tell_timeline(demo_run_state_t *r, double t);

#endif /* DEMO_RUN_STORY_H */
