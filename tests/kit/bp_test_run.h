/*
 * bp_test_run.h - runs a project tool as a child process (path from an
 * environment variable that ctest sets) for the command line tests.
 */
#ifndef BP_TEST_RUN_H
#define BP_TEST_RUN_H

#include <stddef.h>

#define OUT_SIZE 65536
/* Most arguments a run passes. */
#define MAX_ARGS 32

/* What one run of a tool produced. */
typedef struct {
        int exit_code; /* -1 if it did not exit normally */
        char out[OUT_SIZE];
        char err[OUT_SIZE];
} run_t;

/* Runs the program named by environment variable \p bin_env with the NULL
 * terminated \p args (cmocka test context: failures fail the test). */
void bp_test_run(run_t *r, const char *bin_env, const char *const *args);

/* Fails the test unless \p text contains \p what. */
void expect_contains(const char *text, const char *what);

/* The line of \p text that contains \p needle, copied into \p line. */
void line_with(const char *text, const char *needle, char *line,
               size_t size);

#endif /* BP_TEST_RUN_H */
