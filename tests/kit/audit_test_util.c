/*
 * audit_test_util.c - helpers of bp-audit's unit tests.
 */
#include "audit_test_util.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "audit/audit_report.h"

void cfg_set(bp_config_t *c, const char *name, const char *value) {
        char err[512];
        if (bp_config_set(c, name, value, err, sizeof(err)) != BP_SET_OK)
                fail_msg("%s: %s", name, err);
}

int count_kind(const audit_t *a, audit_finding_kind_t k) {
        int i, n = 0;
        for (i = 0; i < a->finding_cnt; i++)
                n += a->findings[i].kind == k;
        return n;
}

void reports(const audit_t *a, char **text, char **json) {
        size_t size;
        FILE *f = open_memstream(text, &size);
        assert_non_null(f);
        audit_print_text(f, a, NULL);
        fclose(f);
        f = open_memstream(json, &size);
        assert_non_null(f);
        audit_print_json(f, a, NULL);
        fclose(f);
}

void expect_in(const char *hay, const char *needle) {
        if (!strstr(hay, needle))
                fail_msg("\"%s\" not in:\n%s", needle, hay);
}
