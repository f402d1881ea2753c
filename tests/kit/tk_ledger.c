/*
 * tk_ledger.c - the ledger of record ids: which ids were written, how
 * often each was read, which were never read, how many reads were
 * duplicates.
 */
#include "testkit.h"

#include <stdlib.h>
#include <string.h>

int tk_ledger_init(tk_ledger_t *lg, int n) {
        memset(lg, 0, sizeof(*lg));
        lg->reads   = calloc((size_t)n, sizeof(*lg->reads));
        lg->written = calloc((size_t)n, 1);
        if (!lg->reads || !lg->written) {
                free(lg->reads);
                free(lg->written);
                memset(lg, 0, sizeof(*lg));
                return -1;
        }
        lg->n = n;
        pthread_mutex_init(&lg->lock, NULL);
        return 0;
}

void tk_ledger_free(tk_ledger_t *lg) {
        if (!lg->n)
                return;
        pthread_mutex_destroy(&lg->lock);
        free(lg->reads);
        free(lg->written);
        memset(lg, 0, sizeof(*lg));
}

void tk_ledger_write(tk_ledger_t *lg, int id) {
        if (id < 0 || id >= lg->n)
                return;
        pthread_mutex_lock(&lg->lock);
        if (!lg->written[id]) {
                lg->written[id] = 1;
                lg->written_cnt++;
        }
        pthread_mutex_unlock(&lg->lock);
}

int tk_ledger_read(tk_ledger_t *lg, int id) {
        int first;
        if (id < 0 || id >= lg->n)
                return -1;
        if (lg->reads[id]++) {
                lg->duplicates++;
                return 0;
        }
        pthread_mutex_lock(&lg->lock);
        first = lg->written[id];
        pthread_mutex_unlock(&lg->lock);
        return first;
}

long tk_ledger_missing(tk_ledger_t *lg, int from, int to) {
        long missing = 0;
        int i;
        if (from < 0)
                from = 0;
        if (to > lg->n)
                to = lg->n;
        pthread_mutex_lock(&lg->lock);
        for (i = from; i < to; i++)
                missing += lg->written[i] && !lg->reads[i];
        pthread_mutex_unlock(&lg->lock);
        return missing;
}

void tk_ledger_reset_reads(tk_ledger_t *lg) {
        memset(lg->reads, 0, (size_t)lg->n * sizeof(*lg->reads));
        lg->duplicates = 0;
}
