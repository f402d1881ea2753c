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

cp "$(dirname "$0")/installed_app.c" "$scratch/app/main.c"
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
[ "$shown" = "$(pkg-config --modversion bucketpriority)" ] ||
        { echo "pkg-config says $(pkg-config --modversion bucketpriority)" >&2; exit 1; }
"$prefix/bin/bp-layout" --buckets "a, b" --allocation "50, 50" --partitions 2 >/dev/null
grep -q -- "--config app.properties" <<<"$("$prefix/bin/bp-audit" --help)"
echo "install test passed"
