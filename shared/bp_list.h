/*
 * bp_list.h - lists, read and written: the comma separated lists of the
 * bucket.priority.* properties ("Platinum, Gold", "70%, 30%") walked item
 * by item (bp_list.c), partition lists written as ranges ("0-3,8,10-11")
 * for log lines and reports (bp_ranges.c), and arrays grown with their
 * new elements zeroed (bp_grow.c).
 */
#ifndef BP_LIST_H
#define BP_LIST_H

#include <stddef.h>
#include <stdint.h>

/**
 * Returns the next item of the comma separated list at *cursor, with
 * surrounding spaces and tabs trimmed, and advances *cursor past it.
 * An empty item (",," or a trailing ",") is returned with *len 0 so the
 * caller can reject it. Returns 0 once the list is exhausted.
 */
int bp_list_next(const char **cursor, const char **item, size_t *len);

/** Trims spaces and tabs from both ends of [*s, *s + *len). */
void bp_trim(const char **s, size_t *len);

/*
 * bp_ranges.c: partition lists written as ranges ("0-3,8,10-11"), as the
 * plugin's log lines and bp-audit's reports show them.
 */

/** Writes \p p[0..n-1] as ranges ("0-3,8,10-11"; "-" when empty) into
 *  \p buf, truncated to fit. */
void bp_ranges_format(char *buf, size_t size, const int32_t *p, int32_t n);

/*
 * bp_grow.c: growing an array whose new elements start zeroed.
 */

/**
 * Makes \p *arr (of \p *cap elements of \p elem bytes) hold at least
 * \p need elements, doubling from 16, the new ones zeroed. Returns 0, or -1
 * when out of memory (the array is then unchanged).
 */
int bp_grow(void **arr, int32_t *cap, int32_t need, size_t elem);

#endif /* BP_LIST_H */
