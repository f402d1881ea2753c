/*
 * audit_change_report.h - the "layout change" part of bp-audit's report
 * and of its JSON document (audit_change.h holds the judgement).
 */
#ifndef AUDIT_CHANGE_REPORT_H
#define AUDIT_CHANGE_REPORT_H

#include <stdio.h>

#include "audit_model.h"

/** The section (nothing when no change is configured). */
void audit_change_print_text(FILE *f, const audit_t *a);

/** "change": {...}, or "change": null. */
void audit_change_print_json(FILE *f, const audit_t *a);

#endif /* AUDIT_CHANGE_REPORT_H */
