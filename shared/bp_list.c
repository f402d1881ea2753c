/*
 * bp_list.c - comma separated list walking with whitespace trimming.
 */
#include "bp_list.h"

#include <string.h>

static int is_blank(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

void bp_trim(const char **s, size_t *len) {
        while (*len > 0 && is_blank((*s)[0])) {
                (*s)++;
                (*len)--;
        }
        while (*len > 0 && is_blank((*s)[*len - 1]))
                (*len)--;
}

int bp_list_next(const char **cursor, const char **item, size_t *len) {
        const char *start = *cursor;
        const char *comma;

        if (!start)
                return 0;
        comma = strchr(start, ',');
        *item = start;
        *len  = comma ? (size_t)(comma - start) : strlen(start);
        *cursor = comma ? comma + 1 : NULL;
        bp_trim(item, len);
        return 1;
}
