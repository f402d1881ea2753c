/*
 * bp_test_run.c - running a command line tool of the project (bp-layout,
 * bp-audit) as a child process and capturing what it printed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "bp_test_run.h"

extern char **environ;

/* Reads all of \p f (from the start) into \p buf, NUL terminated. */
static void slurp(FILE *f, char *buf, size_t size) {
        size_t n;
        rewind(f);
        n      = fread(buf, 1, size - 1, f);
        buf[n] = '\0';
        fclose(f);
}

void bp_test_run(run_t *r, const char *bin_env, const char *const *args) {
        const char *bin = getenv(bin_env);
        char *argv[MAX_ARGS + 2];
        posix_spawn_file_actions_t fa;
        FILE *out = tmpfile(), *err = tmpfile();
        pid_t pid;
        int status, i;

        if (!bin || !*bin)
                fail_msg("%s is not set (run through ctest)", bin_env);
        assert_non_null(out);
        assert_non_null(err);
        argv[0] = (char *)bin;
        for (i = 0; args[i]; i++) {
                assert_true(i < MAX_ARGS);
                argv[i + 1] = (char *)args[i];
        }
        argv[i + 1] = NULL;

        assert_int_equal(posix_spawn_file_actions_init(&fa), 0);
        posix_spawn_file_actions_adddup2(&fa, fileno(out), 1);
        posix_spawn_file_actions_adddup2(&fa, fileno(err), 2);
        assert_int_equal(posix_spawn(&pid, bin, &fa, NULL, argv, environ), 0);
        posix_spawn_file_actions_destroy(&fa);
        assert_int_equal(waitpid(pid, &status, 0), pid);

        r->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        slurp(out, r->out, sizeof(r->out));
        slurp(err, r->err, sizeof(r->err));
}

void expect_contains(const char *text, const char *what) {
        if (!strstr(text, what))
                fail_msg("\"%s\" not found in:\n%s", what, text);
}

void line_with(const char *text, const char *needle, char *line,
               size_t size) {
        const char *hit = strstr(text, needle), *start, *end;
        size_t len;
        if (!hit)
                fail_msg("no line with \"%s\" in:\n%s", needle, text);
        for (start = hit; start > text && start[-1] != '\n'; start--)
                ;
        end = strchr(hit, '\n');
        len = end ? (size_t)(end - start) : strlen(start);
        assert_true(len < size);
        memcpy(line, start, len);
        line[len] = '\0';
}

