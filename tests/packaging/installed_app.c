/*
 * installed_app.c - a C user's program against an installed bucket-priority
 * (tests/packaging/test_install.sh: `cmake --install` into a prefix;
 * tests/packaging/test_deb.sh: the Debian packages): built with the
 * installed header through pkg-config or find_package(BucketPriority), it
 * loads the plugin by its bare name, sees a bad value refused naming the
 * property, checks that the library running is the one whose header it was
 * built with, and prints that version. Exit 0 when all hold.
 */
#include <bucket_priority.h>
#include <stdio.h>
#include <string.h>

int main(void) {
        char err[512];
        rd_kafka_conf_t *conf = rd_kafka_conf_new();

        if (rd_kafka_conf_set(conf, "plugin.library.paths", "libbucketpriority",
                              err, sizeof(err)) != RD_KAFKA_CONF_OK) {
                fprintf(stderr, "plugin not loaded: %s\n", err);
                return 1;
        }
        if (rd_kafka_conf_set(conf, "bucket.priority.allocation", "70%, 20%",
                              err, sizeof(err)) != RD_KAFKA_CONF_INVALID ||
            !strstr(err, "bucket.priority.allocation")) {
                fprintf(stderr, "a bad allocation was not refused: %s\n", err);
                return 1;
        }
        rd_kafka_conf_destroy(conf);
        if (strcmp(bp_version(), BP_VERSION_STR)) {
                fprintf(stderr, "bp_version() %s, header %s\n", bp_version(),
                        BP_VERSION_STR);
                return 1;
        }
        printf("%s\n", bp_version());
        return 0;
}
