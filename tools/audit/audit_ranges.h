/*
 * audit_ranges.h - partition lists written as ranges ("0-3,8,10-11"), as
 * both parts of bp-audit's readable report (audit_report.c and
 * audit_change_report.c) print them.
 */
#ifndef AUDIT_RANGES_H
#define AUDIT_RANGES_H

#include <stddef.h>
#include <stdint.h>

/** Writes \p p[0..n-1] as ranges ("0-3,8,10-11"; "-" when empty) into
 *  \p buf, truncated to fit. */
void audit_format_ranges(char *buf, size_t size, const int32_t *p,
                         int32_t n);

#endif /* AUDIT_RANGES_H */
