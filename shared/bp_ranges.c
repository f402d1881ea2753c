/*
 * bp_ranges.c - partition lists written as ranges (see bp_list.h).
 */
#include "bp_list.h"

#include <stdio.h>

void bp_ranges_format(char *buf, size_t size, const int32_t *p, int32_t n) {
        size_t at = 0;
        int32_t i, j;
        buf[0] = '\0';
        if (n == 0)
                snprintf(buf, size, "-");
        for (i = 0; i < n && at < size; i = j + 1) {
                j = i;
                while (j + 1 < n && p[j + 1] == p[j] + 1)
                        j++;
                at += (size_t)snprintf(buf + at, size - at, "%s%d",
                                       i ? "," : "", (int)p[i]);
                if (j > i && at < size)
                        at += (size_t)snprintf(buf + at, size - at, "-%d",
                                               (int)p[j]);
        }
}
