/*
 * bp_escape.c - bounded escaping of untrusted bytes for messages.
 */
#include "bp_escape.h"

#include <stdio.h>
#include <string.h>

static size_t append(char *out, size_t size, size_t at, const char *s) {
        size_t n = strlen(s);
        if (at + n >= size)
                return at; /* does not fit: stop growing, stay terminated */
        memcpy(out + at, s, n + 1);
        return at + n;
}

void bp_escape(const void *data,
               size_t len,
               size_t max,
               char *out,
               size_t out_size) {
        const unsigned char *p = data;
        size_t at = 0, i, shown;
        char one[8];

        if (out_size == 0)
                return;
        out[0] = '\0';
        if (!p) {
                append(out, out_size, 0, "(null)");
                return;
        }
        shown = len < max ? len : max;
        for (i = 0; i < shown; i++) {
                if (p[i] == '\\' || p[i] == '"')
                        snprintf(one, sizeof(one), "\\%c", p[i]);
                else if (p[i] >= 0x20 && p[i] < 0x7f)
                        snprintf(one, sizeof(one), "%c", p[i]);
                else
                        snprintf(one, sizeof(one), "\\x%02x", p[i]);
                size_t next = append(out, out_size, at, one);
                if (next == at)
                        return;
                at = next;
        }
        if (len > shown)
                append(out, out_size, at, "...");
}

void bp_json_escape(const char *s, size_t len, char *out, size_t out_size) {
        size_t at = 0, i;
        char one[8];

        if (out_size == 0)
                return;
        out[0] = '\0';
        for (i = 0; i < len; i++) {
                unsigned char ch = (unsigned char)s[i];
                if (ch == '"' || ch == '\\')
                        snprintf(one, sizeof(one), "\\%c", ch);
                else if (ch < 0x20)
                        snprintf(one, sizeof(one), "\\u%04x", ch);
                else
                        snprintf(one, sizeof(one), "%c", ch);
                size_t next = append(out, out_size, at, one);
                if (next == at)
                        return;
                at = next;
        }
}

const char *bp_shown_value(const char *value, char *out) {
        bp_escape(value ? value : "", value ? strlen(value) : 0, 80, out,
                  BP_SHOWN_VALUE_SIZE);
        return out;
}
