/*
 * bp_registry.c - an open addressing table from handle address to client.
 *
 * Readers never lock: a slot's client is published before its key (release)
 * and read after it (acquire). Writers (rare: first record of a topic
 * handle, client creation and destruction) serialise on a mutex, so a key is
 * never inserted twice and deleted slots (tombstones) can be reused.
 */
#include "bp_registry.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define SLOTS 16384 /* power of two; live clients + topic handles */
#define TOMBSTONE ((const void *)1)

typedef struct slot {
        _Atomic(const void *) key;
        _Atomic(struct bp_client *) client;
} slot_t;

static slot_t table[SLOTS];
static pthread_mutex_t writers = PTHREAD_MUTEX_INITIALIZER;

static size_t home_of(const void *handle) {
        uint64_t h = (uint64_t)(uintptr_t)handle;
        h ^= h >> 29;
        h *= 0x9e3779b97f4a7c15ull;
        return (size_t)(h >> 40) & (SLOTS - 1);
}

struct bp_client *bp_registry_find(const void *handle) {
        size_t i = home_of(handle), n;
        const void *key;

        for (n = 0; n < SLOTS; n++, i = (i + 1) & (SLOTS - 1)) {
                key = atomic_load_explicit(&table[i].key,
                                           memory_order_acquire);
                if (key == handle)
                        return atomic_load_explicit(&table[i].client,
                                                    memory_order_relaxed);
                if (!key)
                        return NULL;
        }
        return NULL;
}

int bp_registry_add(const void *handle, struct bp_client *client) {
        size_t i = home_of(handle), n, free_slot = SLOTS;
        const void *key;
        int rc = -1;

        pthread_mutex_lock(&writers);
        for (n = 0; n < SLOTS; n++, i = (i + 1) & (SLOTS - 1)) {
                key = atomic_load_explicit(&table[i].key,
                                           memory_order_relaxed);
                if (key == handle) {
                        atomic_store_explicit(&table[i].client, client,
                                              memory_order_release);
                        rc = 0;
                        goto done;
                }
                if (key == TOMBSTONE && free_slot == SLOTS)
                        free_slot = i;
                if (!key) {
                        if (free_slot == SLOTS)
                                free_slot = i;
                        break;
                }
        }
        if (free_slot != SLOTS) {
                atomic_store_explicit(&table[free_slot].client, client,
                                      memory_order_relaxed);
                atomic_store_explicit(&table[free_slot].key, handle,
                                      memory_order_release);
                rc = 0;
        }
done:
        pthread_mutex_unlock(&writers);
        return rc;
}

void bp_registry_remove_client(const struct bp_client *client) {
        size_t i;

        pthread_mutex_lock(&writers);
        for (i = 0; i < SLOTS; i++) {
                const void *key = atomic_load_explicit(&table[i].key,
                                                       memory_order_relaxed);
                if (key && key != TOMBSTONE &&
                    atomic_load_explicit(&table[i].client,
                                         memory_order_relaxed) == client)
                        atomic_store_explicit(&table[i].key, TOMBSTONE,
                                              memory_order_release);
        }
        pthread_mutex_unlock(&writers);
}
