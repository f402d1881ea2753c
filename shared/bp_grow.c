/*
 * bp_grow.c - growing an array whose new elements start zeroed.
 */
#include "bp_list.h"

#include <stdlib.h>
#include <string.h>

int bp_grow(void **arr, int32_t *cap, int32_t need, size_t elem) {
        int32_t n = *cap ? *cap : 16;
        void *p;
        if (need <= *cap)
                return 0;
        while (n < need)
                n *= 2;
        if (!(p = realloc(*arr, (size_t)n * elem)))
                return -1;
        memset((char *)p + (size_t)*cap * elem, 0,
               (size_t)(n - *cap) * elem);
        *arr = p;
        *cap = n;
        return 0;
}
