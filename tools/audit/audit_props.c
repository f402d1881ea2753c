/*
 * audit_props.c - reading the clients' properties file.
 */
#include "audit_props.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp_escape.h"

/* Largest properties file accepted. */
#define AUDIT_PROPS_MAX (1024 * 1024)

static char *dup_range(const char *s, size_t len) {
        char *d = malloc(len + 1);
        if (d) {
                memcpy(d, s, len);
                d[len] = '\0';
        }
        return d;
}

static int add(audit_props_t *p, const char *name, size_t name_len,
               const char *value, size_t value_len, int line) {
        audit_prop_t *grown =
            realloc(p->items, (size_t)(p->cnt + 1) * sizeof(*grown));
        if (!grown)
                return -1;
        p->items = grown;
        grown[p->cnt].name  = dup_range(name, name_len);
        grown[p->cnt].value = dup_range(value, value_len);
        grown[p->cnt].line  = line;
        if (!grown[p->cnt].name || !grown[p->cnt].value) {
                free(grown[p->cnt].name);
                free(grown[p->cnt].value);
                return -1;
        }
        p->cnt++;
        return 0;
}

static void trim(const char **s, size_t *len) {
        while (*len && (**s == ' ' || **s == '\t'))
                (*s)++, (*len)--;
        while (*len && ((*s)[*len - 1] == ' ' || (*s)[*len - 1] == '\t' ||
                        (*s)[*len - 1] == '\r'))
                (*len)--;
}

int audit_props_parse(const char *path, const char *text, audit_props_t *out,
                      char *err, size_t err_size) {
        const char *line = text, *end, *eq, *name, *value;
        size_t len, name_len, value_len;
        char shown[4 * 60 + 4];
        int no = 0;

        while (*line) {
                end = strchr(line, '\n');
                len = end ? (size_t)(end - line) : strlen(line);
                no++;
                trim(&line, &len);
                if (len && line[0] != '#' && line[0] != '!') {
                        eq = memchr(line, '=', len);
                        if (!eq || eq == line) {
                                bp_escape(line, len, 60, shown, sizeof(shown));
                                snprintf(err, err_size,
                                         "%s:%d: expected name=value, got "
                                         "\"%s\"",
                                         path, no, shown);
                                return -1;
                        }
                        name      = line;
                        name_len  = (size_t)(eq - line);
                        value     = eq + 1;
                        value_len = len - name_len - 1;
                        trim(&name, &name_len);
                        trim(&value, &value_len);
                        if (add(out, name, name_len, value, value_len, no)) {
                                snprintf(err, err_size, "out of memory");
                                return -1;
                        }
                }
                if (!end)
                        break;
                line = end + 1;
        }
        return 0;
}

int audit_props_load(const char *path, audit_props_t *out, char *err,
                     size_t err_size) {
        FILE *f = fopen(path, "rb");
        char *text;
        size_t n;
        int rc;

        if (!f) {
                snprintf(err, err_size, "--config %s: cannot open: %s", path,
                         strerror(errno));
                return -1;
        }
        text = malloc(AUDIT_PROPS_MAX + 1);
        if (!text) {
                fclose(f);
                snprintf(err, err_size, "out of memory");
                return -1;
        }
        n = fread(text, 1, AUDIT_PROPS_MAX + 1, f);
        rc = ferror(f);
        fclose(f);
        if (rc || n > AUDIT_PROPS_MAX || memchr(text, '\0', n)) {
                snprintf(err, err_size,
                         "--config %s: %s", path,
                         rc ? "read error"
                            : n > AUDIT_PROPS_MAX
                                  ? "larger than 1 MiB; not a properties file"
                                  : "contains NUL bytes; not a properties "
                                    "file");
                free(text);
                return -1;
        }
        text[n] = '\0';
        rc      = audit_props_parse(path, text, out, err, err_size);
        free(text);
        return rc;
}

int audit_props_set(audit_props_t *p, const char *name, const char *value) {
        int i;
        for (i = p->cnt - 1; i >= 0; i--) /* the value in force: the last */
                if (!strcmp(p->items[i].name, name)) {
                        char *v = dup_range(value, strlen(value));
                        if (!v)
                                return -1;
                        free(p->items[i].value);
                        p->items[i].value = v;
                        p->items[i].line  = 0;
                        return 0;
                }
        return add(p, name, strlen(name), value, strlen(value), 0);
}

const char *audit_props_get(const audit_props_t *p, const char *name) {
        int i;
        for (i = p->cnt - 1; i >= 0; i--)
                if (!strcmp(p->items[i].name, name))
                        return p->items[i].value;
        return NULL;
}

void audit_props_free(audit_props_t *p) {
        int i;
        for (i = 0; i < p->cnt; i++) {
                free(p->items[i].name);
                free(p->items[i].value);
        }
        free(p->items);
        p->items = NULL;
        p->cnt   = 0;
}
