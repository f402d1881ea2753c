#!/usr/bin/env bash
# prepare.sh - installs node-rdkafka for the client matrix, built against the
# SYSTEM librdkafka (Debian librdkafka-dev, 2.0.2 on bookworm) instead of the
# copy node-rdkafka bundles (2.12.0 in 3.6.1), and prints on its last stdout
# line the directory to put on NODE_PATH. Everything else goes to stderr.
#
#   NODE_PATH=$(tests/clients/node/prepare.sh) node tests/clients/node/adapter.js ...
#
# Installed once, outside the source tree, under
#   ${XDG_CACHE_HOME:-$HOME/.cache}/bucket-priority/clients/node/
#     node-rdkafka-<version>-abi<node module ABI>-rdkafka-<system version>/
# keyed by everything the native addon depends on, so a new Node.js major or a
# librdkafka upgrade gets its own build. A flock on .lock in that folder makes
# concurrent runs wait for one another; an install is built in a temporary
# folder and renamed into place only once it passed its checks, so an
# interrupted run never leaves a half install that looks finished.
#
# Version: node-rdkafka 3.6.1 is the newest on npm (checked when this was
# written) and compiles and links against librdkafka 2.0.2 with
# BUILD_LIBRDKAFKA=0 (every rd_kafka_* and RdKafka:: symbol it needs resolves
# in the 2.0.2 libraries, `ldd -r`). It is pinned so the matrix is
# reproducible; BP_NODE_RDKAFKA_VERSION=<version> (or =latest, asked of the npm
# registry) tries another.
#
# Build: `npm install --ignore-scripts` fetches node-rdkafka and its two
# dependencies (nan, bindings), then npm's own node-gyp builds the addon with
# BUILD_LIBRDKAFKA=0 (links -lrdkafka -lrdkafka++ from the system) and
# --nodedir pointing at the installed Node.js headers, so nothing is
# downloaded from nodejs.org. The checks: the addon's librdkafka.so.1 (ldd) is
# the system library, no bundled librdkafka was built, and
# require('node-rdkafka').librdkafkaVersion equals `pkg-config --modversion
# rdkafka`.
set -euo pipefail

log() { echo "clients/node/prepare: $*" >&2; }
die() { log "$*"; exit 1; }

version=${BP_NODE_RDKAFKA_VERSION:-3.6.1}
home=${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}
cache=${XDG_CACHE_HOME:-$home/.cache}/bucket-priority/clients/node

# Build tools and the system librdkafka, from Debian when missing.
command -v node >/dev/null || die "node (Node.js) is not installed"
command -v npm >/dev/null || die "npm is not installed"
# shellcheck source=../../kit/apt-ensure.sh
. "$(dirname "$0")/../../kit/apt-ensure.sh"
apt_ensure clients/node/prepare c++=g++ make=make python3=python3 \
        pkg-config=pkg-config librdkafka-dev

sys_version=$(pkg-config --modversion rdkafka) ||
        die "pkg-config knows no rdkafka (librdkafka-dev)"
sys_libdir=$(pkg-config --variable=libdir rdkafka)
sys_lib=$(readlink -f "$sys_libdir/librdkafka.so.1")
[ -e "$sys_lib" ] || die "no $sys_libdir/librdkafka.so.1"

# Node.js headers of the running node (nodesource and Debian ship them in
# <prefix>/include/node); node-gyp would otherwise download them.
node_prefix=$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")
nodedir=${BP_NODE_DIR:-$node_prefix}
[ -f "$nodedir/include/node/common.gypi" ] ||
        die "no Node.js headers in $nodedir/include/node (install the" \
            "headers of node $(node -v), e.g. Debian libnode-dev, or set" \
            "BP_NODE_DIR to a folder holding include/node)"
node_gyp=$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js
[ -f "$node_gyp" ] || die "npm's bundled node-gyp is missing: $node_gyp"

if [ "$version" = latest ]; then
        version=$(npm view node-rdkafka version) ||
                die "cannot ask the npm registry for node-rdkafka's version"
fi
abi=$(node -p process.versions.modules)
dir="$cache/node-rdkafka-$version-abi$abi-rdkafka-$sys_version"
stamp="$dir/.bp-installed"

mkdir -p "$cache"
exec 9>"$cache/.lock"
if ! flock -n 9; then
        log "waiting for another prepare.sh (lock $cache/.lock)"
        flock -w 900 9 || die "lock $cache/.lock still held after 900 s"
fi

# The addon is checked on every run (cheap): a cache whose system library
# changed under it is rebuilt rather than trusted. The checks are about the
# build, so they run without LD_LIBRARY_PATH and LD_PRELOAD: a caller that
# points LD_LIBRARY_PATH at another librdkafka.so.1 (tests/matrix runs the
# clients on librdkafka 2.15.1 so) still gets the addon, which then loads
# that library at run time (said on stderr).
check() { # $1 = install folder; prints nothing, fails with a reason
        local pkg="$1/node_modules/node-rdkafka" addon linked got
        addon="$pkg/build/Release/node-librdkafka.node"
        [ -f "$addon" ] || { log "no addon $addon"; return 1; }
        if compgen -G "$pkg/build/deps/librdkafka*" >/dev/null; then
                log "a bundled librdkafka was built in $pkg/build/deps"
                return 1
        fi
        linked=$(env -u LD_LIBRARY_PATH -u LD_PRELOAD ldd "$addon" |
                 awk '$1 == "librdkafka.so.1" { print $3 }')
        if [ -z "$linked" ] ||
           [ "$(readlink -f "$linked")" != "$sys_lib" ]; then
                log "addon links librdkafka.so.1 => '${linked:-nothing}'," \
                    "not the system $sys_lib"
                return 1
        fi
        got=$(env -u LD_LIBRARY_PATH -u LD_PRELOAD NODE_PATH="$1/node_modules" \
                node -p "require('node-rdkafka').librdkafkaVersion") ||
                { log "require('node-rdkafka') failed"; return 1; }
        if [ "$got" != "$sys_version" ]; then
                log "node-rdkafka reports librdkafka $got, system has" \
                    "$sys_version"
                return 1
        fi
}

# Which librdkafka the addon loads in the caller's environment, when
# LD_LIBRARY_PATH or LD_PRELOAD changes it.
runtime_note() { # $1 = install folder
        local got
        [ -n "${LD_LIBRARY_PATH:-}${LD_PRELOAD:-}" ] || return 0
        got=$(NODE_PATH="$1/node_modules" node -p \
                "require('node-rdkafka').librdkafkaVersion" 2>/dev/null) ||
                { log "warning: node-rdkafka does not load with this" \
                      "LD_LIBRARY_PATH/LD_PRELOAD"; return 0; }
        [ "$got" = "$sys_version" ] ||
                log "note: LD_LIBRARY_PATH/LD_PRELOAD make it run on" \
                    "librdkafka $got (built on $sys_version)"
}

if [ -f "$stamp" ] && check "$dir"; then
        log "node-rdkafka $version (librdkafka $sys_version, system) in $dir"
        runtime_note "$dir"
        echo "$dir/node_modules"
        exit 0
fi

start=$(date +%s)
tmp="$dir.tmp.$$"
rm -rf "$tmp"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"
buildlog="$cache/node-rdkafka-$version.build.log"
log "installing node-rdkafka $version against the system librdkafka" \
    "$sys_version (log: $buildlog)"
echo '{ "private": true }' >"$tmp/package.json"
if ! (cd "$tmp" &&
      npm install --ignore-scripts --no-audit --no-fund --no-save \
              --no-package-lock "node-rdkafka@$version" &&
      cd node_modules/node-rdkafka &&
      BUILD_LIBRDKAFKA=0 node "$node_gyp" rebuild --nodedir="$nodedir" \
              --jobs="${BP_JOBS:-$(nproc 2>/dev/null || echo 2)}") >"$buildlog" 2>&1; then
        tail -n 30 "$buildlog" >&2
        die "node-rdkafka $version did not install/build against librdkafka" \
            "$sys_version (full log: $buildlog)"
fi
check "$tmp" || die "node-rdkafka $version failed its checks (log: $buildlog)"
echo "node-rdkafka $version librdkafka $sys_version $sys_lib" >"$tmp/.bp-installed"
rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT
log "installed in $(( $(date +%s) - start )) s: $dir"
runtime_note "$dir"
echo "$dir/node_modules"
