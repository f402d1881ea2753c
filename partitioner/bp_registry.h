/*
 * bp_registry.h - finds the plugin state of a client from a librdkafka
 * handle (rd_kafka_t or rd_kafka_topic_t) with lock-free lookups.
 *
 * librdkafka's partitioner callback only receives the topic handle and an
 * application-owned opaque; the plugin must not trust the opaque, so every
 * topic handle is registered here (from the on_send interceptor, which runs
 * before the partitioner for every record) and looked up by address.
 */
#ifndef BP_REGISTRY_H
#define BP_REGISTRY_H

struct bp_client;

/**
 * Maps \p handle to \p client. Idempotent. Returns 0, or -1 if the table is
 * full (the caller reports it; records then fail rather than misroute).
 */
int bp_registry_add(const void *handle, struct bp_client *client);

/** The client registered for \p handle, or NULL. Lock-free. */
struct bp_client *bp_registry_find(const void *handle);

/** Forgets every handle that maps to \p client. */
void bp_registry_remove_client(const struct bp_client *client);

#endif /* BP_REGISTRY_H */
