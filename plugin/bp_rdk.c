/*
 * bp_rdk.c - binds the plugin's table of librdkafka functions (bp_rdk.h) to
 * the librdkafka copy that loaded the plugin, found from the address
 * conf_init() returns to, and refuses a second, different copy.
 */
#define BP_RDK_NO_MACROS
#include "bp_rdk.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

bp_rdk_t bp_rdk;

static pthread_mutex_t bind_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int bound;
static const void *bound_base; /* Load address of the bound copy. */
static char bound_name[64];    /* Its file name, for messages. */

int bp_rdk_bound(void) {
        return atomic_load_explicit(&bound, memory_order_acquire);
}

/* The last path component, for short messages. */
static const char *base_name(const char *path) {
        const char *slash = path ? strrchr(path, '/') : NULL;
        return slash ? slash + 1 : path && path[0] ? path : "the program";
}

/* Looks every function up in \p handle (RTLD_DEFAULT allowed) into \p t.
 * Returns the name of the first required one missing, or NULL. */
static const char *resolve(void *handle, bp_rdk_t *t) {
        memset(t, 0, sizeof(*t));
#define BP_RDK_LOOKUP(name)                                                    \
        if (!(*(void **)&t->name = dlsym(handle, #name)))                      \
                return #name;
        BP_RDK_REQUIRED(BP_RDK_LOOKUP)
#undef BP_RDK_LOOKUP
#define BP_RDK_LOOKUP_OPTIONAL(name) *(void **)&t->name = dlsym(handle, #name);
        BP_RDK_OPTIONAL(BP_RDK_LOOKUP_OPTIONAL)
#undef BP_RDK_LOOKUP_OPTIONAL
        return NULL;
}

/* Installs \p t as the table of the copy loaded at \p base. Called with
 * bind_lock held. */
static void install(const bp_rdk_t *t, const void *base, const char *file) {
        bp_rdk     = *t;
        bound_base = base;
        snprintf(bound_name, sizeof(bound_name), "%s", base_name(file));
        atomic_store_explicit(&bound, 1, memory_order_release);
}

/* Checks that the copy at \p base is the bound one. */
static int same_copy(const void *base, const char *file, char *errstr,
                     size_t errstr_size) {
        if (base == bound_base)
                return 0;
        snprintf(errstr, errstr_size,
                 "bucket-priority: already bound to librdkafka %.30s; "
                 "a second copy (%.30s) is not supported",
                 bound_name, base_name(file));
        return -1;
}

int bp_rdk_bind_caller(const void *caller, char *errstr, size_t errstr_size) {
        Dl_info who, found;
        void *handle;
        bp_rdk_t t;
        const char *missing;
        int r = -1;

        if (!caller || !dladdr(caller, &who) || !who.dli_fbase) {
                snprintf(errstr, errstr_size,
                         "bucket-priority: cannot tell which librdkafka "
                         "loaded it");
                return -1;
        }
        pthread_mutex_lock(&bind_lock);
        if (atomic_load_explicit(&bound, memory_order_relaxed)) {
                r = same_copy(who.dli_fbase, who.dli_fname, errstr,
                              errstr_size);
                pthread_mutex_unlock(&bind_lock);
                return r;
        }
        /* A shared librdkafka is found by its path; a program that links
         * librdkafka statically is the main program (the global scope). */
        handle = dlopen(who.dli_fname, RTLD_NOLOAD | RTLD_NOW);
        if (!handle)
                handle = dlopen(NULL, RTLD_NOW);
        missing = handle ? resolve(handle, &t) : "dlopen";
        if (missing && (!handle || !dlsym(handle, "rd_kafka_version")))
                snprintf(errstr, errstr_size,
                         "bucket-priority: librdkafka not exported; Go: use "
                         "-tags dynamic or -ldflags "
                         "'-extldflags=-Wl,--export-dynamic'");
        else if (missing)
                snprintf(errstr, errstr_size,
                         "bucket-priority: %.40s lacks %.40s: "
                         "librdkafka >= 2.0.2 needed",
                         base_name(who.dli_fname), missing);
        else if (!dladdr(*(void **)&t.rd_kafka_conf_set, &found) ||
                 found.dli_fbase != who.dli_fbase)
                snprintf(errstr, errstr_size,
                         "bucket-priority: cannot reach the librdkafka in "
                         "%.40s (symbols not exported?)",
                         base_name(who.dli_fname));
        else {
                install(&t, who.dli_fbase, who.dli_fname);
                r = 0;
        }
        pthread_mutex_unlock(&bind_lock);
        return r;
}

int bp_rdk_bind_default(char *errstr, size_t errstr_size) {
        Dl_info found;
        bp_rdk_t t;
        const char *missing;
        int r = 0;

        if (bp_rdk_bound())
                return 0;
        pthread_mutex_lock(&bind_lock);
        if (!atomic_load_explicit(&bound, memory_order_relaxed)) {
                missing = resolve(RTLD_DEFAULT, &t);
                if (missing || !dladdr(*(void **)&t.rd_kafka_conf_set,
                                       &found)) {
                        snprintf(errstr, errstr_size,
                                 "bucket-priority: no librdkafka in this "
                                 "process (%.40s not found)",
                                 missing ? missing : "rd_kafka_conf_set");
                        r = -1;
                } else {
                        install(&t, found.dli_fbase, found.dli_fname);
                }
        }
        pthread_mutex_unlock(&bind_lock);
        return r;
}
