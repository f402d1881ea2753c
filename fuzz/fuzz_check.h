/*
 * fuzz_check.h - what the fuzz_config target's files share: the check
 * that traps on a violated invariant, and the layout checks
 * (fuzz_layouts.c) the driver (fuzz_config.c) runs.
 */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bp_config.h"
#include "bp_layout.h"

/* The largest partition count an input asks for. */
#define MAX_P 2048

/* A violated invariant: named on stderr, then a trap (libFuzzer keeps the
 * input). */
#define CHECK(cond)                                                            \
        do {                                                                   \
                if (!(cond)) {                                                 \
                        fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,    \
                                #cond);                                        \
                        __builtin_trap();                                      \
                }                                                              \
        } while (0)

/* Whether \p buf holds a NUL within its \p size bytes. */
static inline int fuzz_terminated(const char *buf, size_t size) {
        return memchr(buf, '\0', size) != NULL;
}

/* Both layouts of \p base (complete) at each of the \p count_cnt
 * partition counts, and its layout change's plan if it has one, checked
 * with error buffers of \p errsz bytes. */
void fuzz_check_layouts(const bp_config_t *base, const int32_t *counts,
                        int count_cnt, size_t errsz);

#endif /* FUZZ_CHECK_H */
