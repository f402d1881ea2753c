/*
 * audit_props.h - the properties file the clients use (name=value lines,
 * '#' or '!' comments), read by bp-audit, and which of its properties are
 * handed to librdkafka (connection and security settings only).
 */
#ifndef AUDIT_PROPS_H
#define AUDIT_PROPS_H

#include <stddef.h>

typedef struct audit_prop {
        char *name, *value;
        int line; /**< Line in the file; 0 for an option. */
} audit_prop_t;

typedef struct audit_props {
        audit_prop_t *items;
        int cnt;
} audit_props_t;

/**
 * Reads \p path into \p out (empty on entry). Returns 0, or -1 with \p err
 * naming the file, the line and what is wrong.
 */
int audit_props_load(const char *path, audit_props_t *out, char *err,
                     size_t err_size);

/**
 * Parses \p text (the contents of \p path, for messages) into \p out.
 * Returns 0, or -1 with \p err set.
 */
int audit_props_parse(const char *path, const char *text, audit_props_t *out,
                      char *err, size_t err_size);

/** Sets \p name (replacing a value from the file). 0, or -1 if out of
 *  memory. */
int audit_props_set(audit_props_t *p, const char *name, const char *value);

/** The value of \p name, or NULL. */
const char *audit_props_get(const audit_props_t *p, const char *name);

void audit_props_free(audit_props_t *p);

#endif /* AUDIT_PROPS_H */
