/*
 * audit_test_util.h - what bp-audit's unit tests (test_audit,
 * test_audit_change, test_audit_kip848) share: setting a bucket.priority
 * property, counting findings of a kind, both reports into memory, and a
 * text that must appear in one.
 */
#ifndef AUDIT_TEST_UTIL_H
#define AUDIT_TEST_UTIL_H

#include "audit/audit_model.h"

/** bp_config_set() that fails the test unless the value is accepted. */
void cfg_set(bp_config_t *c, const char *name, const char *value);

/** How many of \p a's findings are of kind \p k. */
int count_kind(const audit_t *a, audit_finding_kind_t k);

/** Both reports of \p a (no growth), into \p text and \p json; the caller
 *  frees them. */
void reports(const audit_t *a, char **text, char **json);

/** Fails the test, showing \p hay, unless \p needle is in it. */
void expect_in(const char *hay, const char *needle);

#endif /* AUDIT_TEST_UTIL_H */
