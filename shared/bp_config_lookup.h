/*
 * bp_config_lookup.h - finding a bucket of a configuration by its name.
 */
#ifndef BP_CONFIG_LOOKUP_H
#define BP_CONFIG_LOOKUP_H

#include <stddef.h>

#include "bp_config.h"

/** Index of the bucket named [name, name+len) in \p cfg, or -1. */
int bp_config_find_bucket(const bp_config_t *cfg,
                          const char *name,
                          size_t len);

#endif /* BP_CONFIG_LOOKUP_H */
