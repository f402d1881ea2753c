/*
 * bp_ranges.h - partition lists written as ranges ("0-3,8,10-11"), as the
 * plugin's log lines and bp-audit's reports show them.
 */
#ifndef BP_RANGES_H
#define BP_RANGES_H

#include <stddef.h>
#include <stdint.h>

/** Writes \p p[0..n-1] as ranges ("0-3,8,10-11"; "-" when empty) into
 *  \p buf, truncated to fit. */
void bp_ranges_format(char *buf, size_t size, const int32_t *p, int32_t n);

#endif /* BP_RANGES_H */
