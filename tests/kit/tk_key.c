/*
 * tk_key.c - the record keys of the tests, benchmarks and broker clients,
 * "<bucket>-<id>": the id and the bucket part.
 */
#include "testkit.h"

#include <string.h>

long tk_key_id(const void *key, size_t key_len, size_t *bucket_len) {
        const char *k = key ? key : "";
        size_t b      = key ? key_len : 0, i;
        long id       = 0;

        while (b > 0 && k[b - 1] != '-')
                b--;
        if (bucket_len)
                *bucket_len = b > 0 ? b - 1 : (key ? key_len : 0);
        if (b == 0 || b == key_len || key_len - b > 18)
                return -1;
        for (i = b; i < key_len; i++) {
                if (k[i] < '0' || k[i] > '9')
                        return -1;
                id = id * 10 + (k[i] - '0');
        }
        return id;
}

int tk_key_is_bucket(const void *key, size_t key_len, const char *bucket) {
        size_t n = strlen(bucket), bucket_len;
        tk_key_id(key, key_len, &bucket_len);
        return key && bucket_len == n && key_len > n &&
               !memcmp(key, bucket, n);
}
