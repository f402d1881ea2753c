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

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct bp_client;

/**
 * Maps \p handle to \p client. Idempotent. Returns 0, or -1 if the table is
 * full (the caller reports it; records then fail rather than misroute).
 */
int bp_registry_add(const void *handle, struct bp_client *client);

#define BP_REGISTRY_SLOTS 16384 /* power of two; clients + topic handles */

/* One slot of the table: here only so that lookups can be inlined. */
typedef struct bp_registry_slot {
        _Atomic(const void *) key;
        _Atomic(struct bp_client *) client;
} bp_registry_slot_t;

extern bp_registry_slot_t bp_registry_table[BP_REGISTRY_SLOTS];

static inline size_t bp_registry_home(const void *handle) {
        uint64_t h = (uint64_t)(uintptr_t)handle;
        h ^= h >> 29;
        h *= 0x9e3779b97f4a7c15ull;
        return (size_t)(h >> 40) & (BP_REGISTRY_SLOTS - 1);
}

/** The client registered for \p handle, or NULL. Lock-free. */
static inline struct bp_client *bp_registry_find(const void *handle) {
        size_t i = bp_registry_home(handle), n;
        const void *key;

        for (n = 0; n < BP_REGISTRY_SLOTS;
             n++, i = (i + 1) & (BP_REGISTRY_SLOTS - 1)) {
                key = atomic_load_explicit(&bp_registry_table[i].key,
                                           memory_order_acquire);
                if (key == handle)
                        return atomic_load_explicit(
                            &bp_registry_table[i].client,
                            memory_order_relaxed);
                if (!key)
                        return NULL;
        }
        return NULL;
}

/** Bumped whenever handles are forgotten, so that per-thread caches of
 *  lookups (bp_registry_find_cached()) never outlive a client. */
extern _Atomic unsigned bp_registry_generation;

/**
 * bp_registry_find() behind a one-entry cache per thread: the producing
 * thread asks for the same topic handle record after record. The cache
 * entry is dropped as soon as any client is forgotten (a destroyed client's
 * handle address may then name another client's topic).
 */
static inline struct bp_client *bp_registry_find_cached(const void *handle) {
        static __thread __attribute__((tls_model("initial-exec"))) struct {
                const void *handle;
                struct bp_client *client;
                unsigned generation;
        } last;
        unsigned gen = atomic_load_explicit(&bp_registry_generation,
                                            memory_order_acquire);

        if (__builtin_expect(last.handle == handle && last.generation == gen &&
                                 handle,
                             1))
                return last.client;
        last.client     = bp_registry_find(handle);
        last.handle     = last.client ? handle : NULL;
        last.generation = gen;
        return last.client;
}

/**
 * Calls \p fn for every registered handle until it returns non-zero, and
 * returns that client (or NULL). Holds the writers' lock: no client is
 * forgotten, hence freed, meanwhile. For rare look-ups only (by name).
 */
struct bp_client *bp_registry_search(int (*fn)(const void *handle,
                                               const struct bp_client *client,
                                               void *arg),
                                     void *arg);

/** Forgets every handle that maps to \p client. */
void bp_registry_remove_client(const struct bp_client *client);

#endif /* BP_REGISTRY_H */
