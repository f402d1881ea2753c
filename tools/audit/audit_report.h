/*
 * audit_report.h - bp-audit's output: the readable report and the JSON
 * document (shape in docs/operations.md).
 */
#ifndef AUDIT_REPORT_H
#define AUDIT_REPORT_H

#include <stdio.h>

#include "audit_model.h"

/** bp-audit's exit statuses (audit_exit_status() gives one). */
typedef enum {
        AUDIT_HEALTHY     = 0, /**< everything checked, no fault */
        AUDIT_FAULTY      = 1, /**< a fault was found */
        AUDIT_BAD_INPUT   = 2, /**< options, properties, a missing topic */
        AUDIT_NOT_CHECKED = 3, /**< no fault, nothing to wait for, but a
                                *   check could not be made (authorization,
                                *   authentication, timeout, unsupported
                                *   request) */
        AUDIT_WAIT        = 4  /**< no fault, but a layout change's next
                                *   consumer step must wait */
} audit_status_t;

/** Number of findings that are faults (bp-audit exits 1 if any). */
int audit_fault_count(const audit_t *a);

/** Number of checks that could not be made (findings "unchecked"). */
int audit_unchecked_count(const audit_t *a);

/** The readable report; \p growth is the layout of the next growth
 *  (NULL if none). */
void audit_print_text(FILE *f, const audit_t *a, const bp_layout_t *growth);

/** The JSON document, on one line. */
void audit_print_json(FILE *f, const audit_t *a, const bp_layout_t *growth);

#endif /* AUDIT_REPORT_H */
