/*
 * bp_grow.h - growing an array whose new elements start zeroed.
 */
#ifndef BP_GROW_H
#define BP_GROW_H

#include <stddef.h>
#include <stdint.h>

/**
 * Makes \p *arr (of \p *cap elements of \p elem bytes) hold at least
 * \p need elements, doubling from 16, the new ones zeroed. Returns 0, or -1
 * when out of memory (the array is then unchanged).
 */
int bp_grow(void **arr, int32_t *cap, int32_t need, size_t elem);

#endif /* BP_GROW_H */
