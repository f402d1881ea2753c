/*
 * demo_report.h - what bp-demo leaves behind: the side-by-side summary on
 * the terminal, the --json figures and the --report HTML page.
 */
#ifndef DEMO_REPORT_H
#define DEMO_REPORT_H

#include <stdio.h>

#include "demo_options.h"
#include "demo_run.h"

/** Prints the side-by-side table of the \p n runs in \p r and what they
 *  show compared with the shared run. */
void demo_report_summary(FILE *f, const demo_options_t *o,
                         const demo_result_t *r, int n, int color);

/**
 * Writes exactly {"runs":[{"mode":..,"critical_p50_ms":N,
 * "critical_p99_ms":N,"bulk_consumed":N,"lost":N,"workers":N},...]} to
 * \p path, the runs in order (shared, buckets, strict); the strict run's
 * object ends with "scheduler":{"critical":{"delivered":N,"pauses":N,
 * "paused_ms":N},"bulk":{...}}.
 * @returns 0, or -1 (errno set).
 */
int demo_report_json(const char *path, const demo_result_t *r, int n);

/** Writes the self-contained HTML report. @returns 0, or -1 (errno). */
int demo_report_html(const char *path, const demo_options_t *o,
                     const demo_result_t *r, int n);

#endif /* DEMO_REPORT_H */
