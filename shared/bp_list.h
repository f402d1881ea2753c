/*
 * bp_list.h - walking the comma separated lists used by bucket.priority.*
 * properties ("Platinum, Gold", "70%, 30%").
 */
#ifndef BP_LIST_H
#define BP_LIST_H

#include <stddef.h>

/**
 * Returns the next item of the comma separated list at *cursor, with
 * surrounding spaces and tabs trimmed, and advances *cursor past it.
 * An empty item (",," or a trailing ",") is returned with *len 0 so the
 * caller can reject it. Returns 0 once the list is exhausted.
 */
int bp_list_next(const char **cursor, const char **item, size_t *len);

/** Trims spaces and tabs from both ends of [*s, *s + *len). */
void bp_trim(const char **s, size_t *len);

#endif /* BP_LIST_H */
