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

#define SLOTS BP_REGISTRY_SLOTS
#define TOMBSTONE ((const void *)1)

bp_registry_slot_t bp_registry_table[SLOTS];
_Atomic unsigned bp_registry_generation;
static pthread_mutex_t writers = PTHREAD_MUTEX_INITIALIZER;

int bp_registry_add(const void *handle, struct bp_client *client) {
        size_t i = bp_registry_home(handle), n, free_slot = SLOTS;
        const void *key;
        int rc = -1;

        pthread_mutex_lock(&writers);
        for (n = 0; n < SLOTS; n++, i = (i + 1) & (SLOTS - 1)) {
                key = atomic_load_explicit(&bp_registry_table[i].key,
                                           memory_order_relaxed);
                if (key == handle) {
                        if (atomic_exchange_explicit(
                                &bp_registry_table[i].client, client,
                                memory_order_acq_rel) != client)
                                atomic_fetch_add_explicit(
                                    &bp_registry_generation, 1,
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
                atomic_store_explicit(&bp_registry_table[free_slot].client,
                                      client, memory_order_relaxed);
                atomic_store_explicit(&bp_registry_table[free_slot].key, handle,
                                      memory_order_release);
                rc = 0;
        }
done:
        pthread_mutex_unlock(&writers);
        return rc;
}

struct bp_client *bp_registry_search(int (*fn)(const void *handle,
                                               const struct bp_client *client,
                                               void *arg),
                                     void *arg) {
        struct bp_client *found = NULL, *client;
        const void *key;
        size_t i;

        pthread_mutex_lock(&writers);
        for (i = 0; i < SLOTS && !found; i++) {
                key = atomic_load_explicit(&bp_registry_table[i].key,
                                           memory_order_relaxed);
                if (!key || key == TOMBSTONE)
                        continue;
                client = atomic_load_explicit(&bp_registry_table[i].client,
                                              memory_order_relaxed);
                if (fn(key, client, arg))
                        found = client;
        }
        pthread_mutex_unlock(&writers);
        return found;
}

void bp_registry_remove_client(const struct bp_client *client) {
        size_t i;

        pthread_mutex_lock(&writers);
        for (i = 0; i < SLOTS; i++) {
                const void *key = atomic_load_explicit(
                    &bp_registry_table[i].key, memory_order_relaxed);
                if (key && key != TOMBSTONE &&
                    atomic_load_explicit(&bp_registry_table[i].client,
                                         memory_order_relaxed) == client)
                        atomic_store_explicit(&bp_registry_table[i].key,
                                              TOMBSTONE, memory_order_release);
        }
        atomic_fetch_add_explicit(&bp_registry_generation, 1,
                                  memory_order_release);
        pthread_mutex_unlock(&writers);
}
