/*
 * demo_plugin.c - dlopen()s the plugin the clients load, for its stats.
 */
#include "demo_plugin.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int demo_plugin_open(demo_plugin_t *pl, const char *path, char *err,
                     size_t err_size) {
        memset(pl, 0, sizeof(*pl));
        pl->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!pl->handle) {
                snprintf(err, err_size, "%s", dlerror());
                return -1;
        }
        *(void **)&pl->version      = dlsym(pl->handle, "bp_version");
        *(void **)&pl->stats        = dlsym(pl->handle, "bp_stats");
        *(void **)&pl->bucket_stats = dlsym(pl->handle, "bp_bucket_stats");
        *(void **)&pl->consumer_bucket_stats =
            dlsym(pl->handle, "bp_consumer_bucket_stats");
        if (!pl->version || !pl->stats || !pl->bucket_stats ||
            !dlsym(pl->handle, "conf_init")) {
                snprintf(err, err_size,
                         "%s is not the bucket-priority plugin (no "
                         "conf_init/bp_stats)",
                         path);
                demo_plugin_close(pl);
                return -1;
        }
        return 0;
}

void demo_plugin_close(demo_plugin_t *pl) {
        if (pl->handle)
                dlclose(pl->handle);
        memset(pl, 0, sizeof(*pl));
}
