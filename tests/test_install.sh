#!/usr/bin/env bash
# test_install.sh - installs the build into a scratch prefix and proves the
# installed pieces work for a user: a CMake project with
# find_package(BucketPriority), a compile with pkg-config, and the plugin
# loaded by its bare name through plugin.library.paths.
# Usage: test_install.sh BUILD_DIR SCRATCH_DIR
set -euo pipefail
build=$1 scratch=$2
prefix="$scratch/prefix"
rm -rf "$scratch" && mkdir -p "$scratch/app"
cmake --install "$build" --prefix "$prefix" >/dev/null

cat > "$scratch/app/main.c" <<'C'
#include <bucket_priority.h>
#include <stdio.h>
#include <string.h>
int main(void) {
        char err[512];
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        if (rd_kafka_conf_set(conf, "plugin.library.paths", "libbucketpriority",
                              err, sizeof(err)) != RD_KAFKA_CONF_OK ||
            rd_kafka_conf_set(conf, "bucket.priority.allocation", "70, 20",
                              err, sizeof(err)) != RD_KAFKA_CONF_INVALID ||
            !strstr(err, "bucket.priority.allocation")) {
                fprintf(stderr, "plugin not working: %s\n", err);
                return 1;
        }
        rd_kafka_conf_destroy(conf);
        /* The library running is the one whose header was compiled. */
        if (strcmp(bp_version(), BP_VERSION_STR)) {
                fprintf(stderr, "bp_version() %s, header %s\n", bp_version(),
                        BP_VERSION_STR);
                return 1;
        }
        printf("bucket-priority %s\n", bp_version());
        return 0;
}
C
cat > "$scratch/app/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.16)
project(app C)
find_package(BucketPriority 0.1 REQUIRED)
add_executable(app main.c)
target_link_libraries(app PRIVATE BucketPriority::bucketpriority)
CM
cmake -S "$scratch/app" -B "$scratch/app/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$scratch/app/build" >/dev/null
libdir=$(dirname "$(find "$prefix" -name 'libbucketpriority.so' | head -1)")
LD_LIBRARY_PATH="$libdir" "$scratch/app/build/app"

# Keep the caller's PKG_CONFIG_PATH: it may name the librdkafka under test.
export PKG_CONFIG_PATH="$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
cc "$scratch/app/main.c" $(pkg-config --cflags --libs bucketpriority) -o "$scratch/app2"
shown=$(LD_LIBRARY_PATH="$libdir:$(pkg-config --variable=libdir rdkafka)" "$scratch/app2")
echo "$shown"
# One version everywhere: the header's (bp_version()) is pkg-config's.
[ "$shown" = "bucket-priority $(pkg-config --modversion bucketpriority)" ] ||
        { echo "pkg-config says $(pkg-config --modversion bucketpriority)" >&2; exit 1; }
"$prefix/bin/bp-layout" --buckets "a, b" --allocation "50, 50" --partitions 2 >/dev/null
"$prefix/bin/bp-audit" --help | grep -q -- "--config app.properties"
echo "install test passed"
