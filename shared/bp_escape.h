/*
 * bp_escape.h - safe, bounded rendering of untrusted bytes (record keys,
 * configuration values) for error messages.
 */
#ifndef BP_ESCAPE_H
#define BP_ESCAPE_H

#include <stddef.h>

/**
 * Writes at most \p max bytes of \p data into \p out as printable text:
 * printable ASCII as is, backslash and double quote escaped, anything else
 * as \xNN, and "..." appended when \p data was longer than \p max.
 * \p out is always NUL terminated (when \p out_size > 0). NULL data
 * renders as "(null)".
 */
void bp_escape(const void *data,
               size_t len,
               size_t max,
               char *out,
               size_t out_size);

/** Size of the buffer bp_shown_value() writes: 80 bytes as \xNN, "...". */
#define BP_SHOWN_VALUE_SIZE (4 * 80 + 4)

/**
 * A configuration value as error messages show it: escaped, cut to 80
 * bytes; NULL (librdkafka's form of "") as empty. Returns \p out, which
 * holds BP_SHOWN_VALUE_SIZE bytes.
 */
const char *bp_shown_value(const char *value, char *out);

/**
 * Writes \p len bytes of \p s into \p out as the inside of a JSON string
 * (quote, backslash and control bytes escaped). Truncates to fit
 * \p out_size, always NUL terminated when \p out_size > 0.
 */
void bp_json_escape(const char *s, size_t len, char *out, size_t out_size);

#endif /* BP_ESCAPE_H */
