/*
 * fuzz_key.c - libFuzzer target for key routing (bp_key_bucket) and the
 * escaping of untrusted bytes (bp_escape, bp_json_escape).
 *
 * Input: byte 0 picks one of the fixed bucket sets below (single and
 * multi-byte delimiters, UTF-8, self-overlapping delimiters, 64 buckets,
 * names of the longest length), byte 1 picks the escape limits, and the
 * rest is the record key.
 *
 * bp_key_bucket() must agree with a plain reference implementation that
 * scans the whole key, and must read no more than the longest name plus
 * the delimiter: it is also called on a heap block holding only that many
 * bytes while told the full key length, so AddressSanitizer reports any
 * read past the window. The escapes run into heap blocks of exactly the
 * given size and must produce the longest run of whole escape units that
 * fits, always NUL terminated.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp_config.h"
#include "bp_escape.h"
#include "bp_key.h"

#define CHECK(cond)                                                            \
        do {                                                                   \
                if (!(cond)) {                                                 \
                        fprintf(stderr, "fuzz_key: %s:%d: %s\n", __FILE__,     \
                                __LINE__, #cond);                              \
                        __builtin_trap();                                      \
                }                                                              \
        } while (0)

/* Bucket sets: { delimiter or NULL for the default "-", bucket list }. */
static const struct {
        const char *delimiter;
        const char *buckets;
} sets[] = {
    {NULL, "Platinum, Gold"},
    {"::", "critical, normal, bulk"},
    {"\xe2\x86\x92", "\xc3\x9c" "n\xc3\xaf" "c\xc3\xb8" "d\xc3\xa9, "
                     "\xe9\x87\x91, b"},
    {"ab", "a, b, ba, bb"},
    {"aa", "a, b, ba, aba"},
    {"0123456789abcdef", "x, 0123456789abcde, 0"},
    {"\x01", "\xff\xfe, \x80, \x7f"},
    {"<sep>", NULL}, /* 64 buckets, built below */
};
#define SET_CNT ((int)(sizeof(sets) / sizeof(sets[0])))

static bp_config_t configs[SET_CNT];

/* 64 names b0..b63; every 8th is padded to the 64 byte maximum. */
static void many_buckets(char *out, size_t size) {
        size_t at = 0;
        int i;
        out[0] = '\0';
        for (i = 0; i < BP_MAX_BUCKETS; i++) {
                char name[BP_MAX_NAME_LEN + 1];
                int n = snprintf(name, sizeof(name), "b%d", i);
                if (i % 8 == 7) {
                        memset(name + n, 'x', (size_t)(BP_MAX_NAME_LEN - n));
                        name[BP_MAX_NAME_LEN] = '\0';
                }
                at += (size_t)snprintf(out + at, size - at, "%s%s",
                                       i ? ", " : "", name);
                CHECK(at < size);
        }
}

static void configure(void) {
        static int done;
        char err[512], list[BP_MAX_VALUE_LEN + 1];
        int i;

        if (done)
                return;
        for (i = 0; i < SET_CNT; i++) {
                bp_config_init(&configs[i]);
                if (sets[i].delimiter)
                        CHECK(bp_config_set(&configs[i],
                                            "bucket.priority.delimiter",
                                            sets[i].delimiter, err,
                                            sizeof(err)) == BP_SET_OK);
                if (sets[i].buckets)
                        snprintf(list, sizeof(list), "%s", sets[i].buckets);
                else
                        many_buckets(list, sizeof(list));
                if (bp_config_set(&configs[i], "bucket.priority.buckets",
                                  list, err, sizeof(err)) != BP_SET_OK) {
                        fprintf(stderr, "fuzz_key: set %d: %s\n", i, err);
                        __builtin_trap();
                }
        }
        done = 1;
}

/* --- bp_key_bucket ---------------------------------------------------------- */

/* The specification, literally: bytes before the first delimiter (the
 * whole key if none), matched exactly against every name. */
static int reference_bucket(const bp_config_t *c, const uint8_t *key,
                            size_t len) {
        size_t i, prefix = len;
        int b;

        if (!key || len == 0)
                return BP_KEY_NONE;
        for (i = 0; i + c->delimiter_len <= len; i++)
                if (!memcmp(key + i, c->delimiter, c->delimiter_len)) {
                        prefix = i;
                        break;
                }
        for (b = 0; b < c->bucket_cnt; b++)
                if (c->buckets[b].name_len == prefix &&
                    !memcmp(c->buckets[b].name, key, prefix))
                        return b;
        return BP_KEY_UNKNOWN;
}

static void check_key(const bp_config_t *c, const uint8_t *key, size_t len) {
        size_t window = c->max_name_len + c->delimiter_len;
        uint8_t *exact, *head;
        int want = reference_bucket(c, key, len), got;

        exact = malloc(len ? len : 1);
        CHECK(exact);
        memcpy(exact, key, len);
        got = bp_key_bucket(c, exact, len);
        CHECK(got == BP_KEY_NONE || got == BP_KEY_UNKNOWN ||
              (got >= 0 && got < c->bucket_cnt));
        CHECK(got == want);
        CHECK((got == BP_KEY_NONE) == (len == 0));

        /* Bounded reads: only the window is there, the length says more. */
        if (len > window) {
                head = malloc(window);
                CHECK(head);
                memcpy(head, key, window);
                CHECK(bp_key_bucket(c, head, len) == want);
                free(head);
        }
        free(exact);

        CHECK(bp_key_bucket(c, NULL, len) == BP_KEY_NONE);
        CHECK(bp_key_bucket(c, key, 0) == BP_KEY_NONE);
}

/* --- escapes --------------------------------------------------------------- */

/* The escape unit of one byte, as bp_escape() documents it. */
static void escape_unit(uint8_t ch, char *u) {
        if (ch == '\\' || ch == '"')
                sprintf(u, "\\%c", ch);
        else if (ch >= 0x20 && ch < 0x7f)
                sprintf(u, "%c", ch);
        else
                sprintf(u, "\\x%02x", ch);
}

/* The JSON string unit of one byte. */
static void json_unit(uint8_t ch, char *u) {
        if (ch == '"' || ch == '\\')
                sprintf(u, "\\%c", ch);
        else if (ch < 0x20)
                sprintf(u, "\\u%04x", ch);
        else {
                u[0] = (char)ch;
                u[1] = '\0';
        }
}

/* Appends unit u if it fits with its NUL; returns 0 once one did not. */
static int take(char *want, size_t size, size_t *at, const char *u) {
        size_t n = strlen(u);
        if (*at + n >= size)
                return 0;
        memcpy(want + *at, u, n + 1);
        *at += n;
        return 1;
}

static void check_escape(const uint8_t *data, size_t len, size_t max,
                         size_t out_size) {
        char *out = malloc(out_size), *want = malloc(out_size + 1), u[8];
        size_t at = 0, i, shown = len < max ? len : max;
        int fits = 1;

        CHECK(out && want);
        memset(out, 0x5a, out_size);
        want[0] = '\0';
        bp_escape(data, len, max, out, out_size);
        CHECK(memchr(out, '\0', out_size));
        for (i = 0; i < shown && fits; i++) {
                escape_unit(data[i], u);
                fits = take(want, out_size, &at, u);
        }
        if (fits && len > shown)
                take(want, out_size, &at, "...");
        CHECK(!strcmp(out, want));
        for (i = 0; out[i]; i++)
                CHECK((unsigned char)out[i] >= 0x20 &&
                      (unsigned char)out[i] < 0x7f);

        /* NULL data renders as "(null)" when it fits. */
        bp_escape(NULL, len, max, out, out_size);
        CHECK(!strcmp(out, out_size > 6 ? "(null)" : ""));
        free(want);
        free(out);
}

static void check_json_escape(const uint8_t *data, size_t len,
                              size_t out_size) {
        char *out = malloc(out_size), *want = malloc(out_size + 1), u[8];
        char *s = malloc(len ? len : 1);
        size_t at = 0, i;

        CHECK(out && want && s);
        memcpy(s, data, len);
        memset(out, 0x5a, out_size);
        want[0] = '\0';
        bp_json_escape(s, len, out, out_size);
        CHECK(memchr(out, '\0', out_size));
        for (i = 0; i < len; i++) {
                json_unit(data[i], u);
                if (!take(want, out_size, &at, u))
                        break;
        }
        CHECK(!strcmp(out, want));
        for (i = 0; out[i]; i++)
                CHECK((unsigned char)out[i] >= 0x20);
        free(s);
        free(want);
        free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        const bp_config_t *c;
        const uint8_t *key;
        size_t len, max, out_size;

        configure();
        if (size < 2)
                return 0;
        c        = &configs[data[0] % SET_CNT];
        max      = (size_t)(data[1] & 0x1f) + 1;      /* 1..32 */
        out_size = (size_t)((data[1] >> 5) * 11) + 1; /* 1..78 */
        key      = data + 2;
        len      = size - 2;

        check_key(c, key, len);
        check_escape(key, len, max, out_size);
        check_escape(key, len, BP_KEY_PREVIEW_LEN, 4 * BP_KEY_PREVIEW_LEN + 8);
        check_json_escape(key, len, out_size);
        check_json_escape(key, len, 6 * len + 1); /* always fits */
        return 0;
}
