#!/usr/bin/env bash
# build-librdkafka.sh - builds the newest librdkafka of the version matrix
# (2.15.1) from the source shipped in the npm package
# @confluentinc/kafka-javascript@1.10.1 (deps/librdkafka), and installs it
# into a cache outside the source tree:
#   ${BP_LIBRDKAFKA_CACHE:-$HOME/.cache/bucket-priority/librdkafka-2.15.1-ssl}
# Idempotent: when the prefix already holds the library, its pkg-config file
# and the stamp of a finished install, nothing is fetched or built.
# The last line printed on stdout is the prefix; everything else goes to
# stderr (the build log to $prefix.build.log).
#
# Why mklove's ./configure and not CMake: the npm package leaves out
# librdkafka's packaging/ folder, which its CMakeLists.txt includes
# (packaging/cmake/parseversion.cmake, the Find modules, config.h.in,
# rdkafka.pc.in), so a CMake configure fails at once. ./configure + make is
# what the npm package itself builds with, and it writes rdkafka.pc.
#
# Only the C library is built (not librdkafka++, the examples or the tests)
# with OpenSSL (TLS, SASL SCRAM and OAUTHBEARER: the secured broker
# scenarios, tests/broker/broker_secure.py) and every other optional
# dependency turned off (SASL/GSSAPI, libcurl, zstd, external lz4; lz4 and
# the regex engine are built in): nothing beyond a C compiler, make,
# pkg-config, zlib, OpenSSL's headers and npm is needed. (The prefix ends
# in -ssl: an earlier build without OpenSSL stays where it was.)
set -euo pipefail

version=2.15.1
npm_pkg=@confluentinc/kafka-javascript@1.10.1
home=${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}
prefix=${BP_LIBRDKAFKA_CACHE:-$home/.cache/bucket-priority/librdkafka-$version-ssl}
jobs=${BP_JOBS:-$(nproc 2>/dev/null || echo 2)}
stamp="$prefix/.bp-installed-$version"

log() { echo "build-librdkafka: $*" >&2; }

if [ -f "$stamp" ] && [ -f "$prefix/lib/pkgconfig/rdkafka.pc" ] &&
   [ -e "$prefix/lib/librdkafka.so.1" ]; then
        log "librdkafka $version already installed in $prefix"
        echo "$prefix"
        exit 0
fi

# Never wipe a folder this script did not make.
if [ -d "$prefix" ] && [ -n "$(ls -A "$prefix")" ] &&
   [ ! -f "$prefix/.bp-building" ] &&
   ! compgen -G "$prefix/.bp-installed-*" >/dev/null; then
        log "$prefix exists, is not empty and was not made by this script:" \
            "remove it or set BP_LIBRDKAFKA_CACHE"
        exit 1
fi

# Build tools from Debian, installed when missing (root or sudo).
# shellcheck source=../kit/apt-ensure.sh
. "$(dirname "$0")/../kit/apt-ensure.sh"
apt_ensure build-librdkafka cc=build-essential make=make \
        pkg-config=pkg-config npm=npm python3=python3 zlib1g-dev libssl-dev

start=$(date +%s)
work=$(mktemp -d "${TMPDIR:-/tmp}/bp-librdkafka.XXXXXX")
trap 'rm -rf "$work"' EXIT

log "fetching $npm_pkg"
(cd "$work" && npm pack --silent "$npm_pkg" >/dev/null 2>&1) || {
        log "npm pack $npm_pkg failed"; exit 1; }
tar -xzf "$work"/confluentinc-kafka-javascript-*.tgz -C "$work" \
        package/deps/librdkafka
src="$work/package/deps/librdkafka"
got=$(sed -n 's/^#define RD_KAFKA_VERSION *0x\([0-9a-f]*\).*/\1/p' \
        "$src/src/rdkafka.h")
if [ "$got" != "020f01ff" ]; then
        log "unexpected RD_KAFKA_VERSION 0x$got in $npm_pkg (want 0x020f01ff)"
        exit 1
fi

rm -rf "$prefix"
mkdir -p "$prefix"
touch "$prefix/.bp-building"
buildlog="$prefix.build.log"
log "configuring (log: $buildlog)"
(cd "$src" && ./configure --prefix="$prefix" --libdir="$prefix/lib" \
        --no-download --no-cache \
        --enable-ssl --disable-gssapi --disable-curl --disable-zstd \
        --disable-lz4-ext --enable-zlib ) >"$buildlog" 2>&1 || {
        tail -40 "$buildlog" >&2; log "configure failed"; exit 1; }
log "building with make -j$jobs"
(cd "$src" && make -j"$jobs" -C src && make -C src install) \
        >>"$buildlog" 2>&1 || {
        tail -40 "$buildlog" >&2; log "build failed"; exit 1; }

# Check what was installed: the library reports 2.15.1, pkg-config finds it.
[ -f "$prefix/lib/pkgconfig/rdkafka.pc" ] || {
        log "no rdkafka.pc in $prefix/lib/pkgconfig"; exit 1; }
pcver=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --modversion rdkafka)
[ "$pcver" = "$version" ] || { log "rdkafka.pc says $pcver"; exit 1; }
cat >"$work/v.c" <<'C'
#include <librdkafka/rdkafka.h>
#include <stdio.h>
int main(void) {
        char f[512]; size_t n = sizeof(f);
        rd_kafka_conf_t *c = rd_kafka_conf_new();
        rd_kafka_conf_get(c, "builtin.features", f, &n);
        printf("%s %s\n", rd_kafka_version_str(), f);
        return 0;
}
C
cc "$work/v.c" -I"$prefix/include" -L"$prefix/lib" -lrdkafka \
        -Wl,-rpath,"$prefix/lib" -o "$work/v"
read -r runver features < <("$work/v")
[ "$runver" = "$version" ] || { log "library reports $runver"; exit 1; }
case ",$features," in
*,ssl,*sasl_scram,*|*,sasl_scram,*ssl,*) ;;
*) log "built without TLS or SCRAM: builtin.features $features"; exit 1 ;;
esac

rm -f "$prefix/.bp-building"
touch "$stamp"
log "librdkafka $runver installed in $prefix in $(( $(date +%s) - start )) s"
echo "$prefix"
