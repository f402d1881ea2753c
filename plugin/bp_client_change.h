/*
 * bp_client_change.h - the layout a client uses at a partition count: its
 * configuration's, or the one the step of a live layout change gives it.
 */
#ifndef BP_CLIENT_CHANGE_H
#define BP_CLIENT_CHANGE_H

#include "bp_client.h"

/**
 * The layout client \p c uses at \p partition_cnt: its configuration's, or
 * during a layout change the one its step gives it (producers: where each
 * bucket writes; consumers: what each bucket reads), logged with its
 * fingerprint. NULL with \p errstr when none can be computed
 * (plugin/bp_client_change.c).
 */
bp_layout_t *bp_client_compute_layout(bp_client_t *c,
                                      int32_t partition_cnt,
                                      char *errstr,
                                      size_t errstr_size);

/**
 * Sets c->change_home from the configuration, once, before the client's
 * threads run: for each bucket a layout change removes, the bucket that
 * reads its records after it (-1 for the others, and without a change).
 */
void bp_client_change_homes(bp_client_t *c);

#endif /* BP_CLIENT_CHANGE_H */
