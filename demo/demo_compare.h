/*
 * demo_compare.h - what the runs show, in words: buckets vs shared (the
 * gain and its price), one strict worker vs shared (what its scheduler
 * kept, what one worker's capacity cost bulk). Written from the figures,
 * for the terminal summary (word-wrapped) and the HTML report.
 */
#ifndef DEMO_COMPARE_H
#define DEMO_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include "demo_options.h"
#include "demo_run.h"

/** Buckets vs shared into \p text (empty when either run is missing). */
void demo_compare_buckets(char *text, size_t size,
                          const demo_scenario_t *sc, const demo_result_t *r,
                          int n);

/** One strict worker vs shared into \p text (empty when either run is
 *  missing). */
void demo_compare_strict(char *text, size_t size,
                         const demo_scenario_t *sc, const demo_result_t *r,
                         int n);

/** Prints \p text word-wrapped at \p width columns; "19 379" and "12 ms"
 *  are never split. */
void demo_print_wrapped(FILE *f, const char *text, int width);

#endif /* DEMO_COMPARE_H */
