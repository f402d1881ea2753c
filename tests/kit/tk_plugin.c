/*
 * tk_plugin.c - where the built plugin is: $BP_PLUGIN_PATH (ctest sets it
 * to the build's libbucketpriority.so), else the caller's default.
 */
#include "testkit.h"

#include <stdlib.h>

const char *tk_plugin_path(const char *fallback) {
        const char *p = getenv("BP_PLUGIN_PATH");
        return p && *p ? p : fallback;
}
