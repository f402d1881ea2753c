#!/usr/bin/env bash
# run-suite.sh - runs the test suite against a librdkafka installed in PREFIX
# (one column of the version matrix; build-librdkafka.sh makes 2.15.1):
#   tests/matrix/run-suite.sh PREFIX [extra ctest args...]
#   tests/matrix/run-suite.sh          # builds/reuses 2.15.1 first
# Configures the project in build/test-rdkafka-<version>/ with
# PKG_CONFIG_PATH pointing at PREFIX, builds it, checks that every binary
# and the plugin resolve librdkafka.so.1 to PREFIX (CMake's build RUNPATH,
# no environment needed), then runs ctest.
#
# ctest runs with LD_LIBRARY_PATH=PREFIX/lib as well, for the processes we
# do not link ourselves: Debian's python3-confluent-kafka (test_python_
# producer), linked to Debian's librdkafka, would otherwise load 2.0.2 and
# test the plugin against that, not against PREFIX. With it, the unmodified
# Python client runs on PREFIX's librdkafka, which is checked and printed.
# If the interpreter still reports another version, that test is excluded.
#
# BP_MATRIX_PASSES="plain valgrind asan" (default "plain") adds the memcheck
# and sanitizer passes of tests/run-all.sh, in build/test-rdkafka-<v>-<pass>.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
jobs=$(nproc 2>/dev/null || echo 2)

log() { echo "run-suite: $*" >&2; }

if [ $# -ge 1 ]; then
        prefix=$(cd "$1" && pwd)
        shift
else
        prefix=$(tests/matrix/build-librdkafka.sh | tail -1)
fi

tests/install-deps.sh

# Where the library and its pkg-config file are: lib, lib64 or multiarch.
pcdir="" libdir=""
multiarch=$(cc -print-multiarch 2>/dev/null || true)
for d in lib lib64 ${multiarch:+lib/$multiarch}; do
        if [ -f "$prefix/$d/pkgconfig/rdkafka.pc" ]; then
                pcdir="$prefix/$d/pkgconfig" libdir="$prefix/$d"
                break
        fi
done
[ -n "$pcdir" ] || { log "no rdkafka.pc under $prefix/lib*"; exit 1; }
export PKG_CONFIG_PATH="$pcdir"
version=$(pkg-config --modversion rdkafka)
[ "$(pkg-config --variable=libdir rdkafka)" = "$libdir" ] || {
        log "pkg-config finds rdkafka outside $prefix"; exit 1; }

# What the library in PREFIX reports at run time.
probe_dir="$root/build/test-rdkafka-$version-probe"
mkdir -p "$probe_dir"
cat >"$probe_dir/version.c" <<'C'
#include <librdkafka/rdkafka.h>
#include <stdio.h>
int main(void) { printf("%s\n", rd_kafka_version_str()); return 0; }
C
cc "$probe_dir/version.c" $(pkg-config --cflags --libs rdkafka) \
        -Wl,-rpath,"$libdir" -o "$probe_dir/version"
runtime=$("$probe_dir/version")
[ "$runtime" = "$version" ] || {
        log "$libdir/librdkafka.so.1 reports $runtime, rdkafka.pc $version"
        exit 1; }

# Every binary we build must load PREFIX's librdkafka.so.1, not Debian's.
# Except the client matrix's C++ adapter: PREFIX has no librdkafka++, so it
# links Debian's, and runs on PREFIX's librdkafka.so.1 through
# LD_LIBRARY_PATH like the other clients of the matrix.
check_runpath() { # build dir
        local f got bad=0
        for f in "$1"/bin/* "$1"/lib/libbucketpriority.so; do
                [ -f "$f" ] && [ -x "$f" ] || continue
                [ "${f##*/}" = bp-cpp-adapter ] && continue
                got=$(ldd "$f" 2>/dev/null |
                      awk '$1 == "librdkafka.so.1" { print $3 }')
                [ -n "$got" ] || continue
                if [ "$(readlink -f "$got")" != \
                     "$(readlink -f "$libdir/librdkafka.so.1")" ]; then
                        log "$f loads $got, not $libdir/librdkafka.so.1"
                        bad=1
                fi
        done
        return $bad
}

run_pass() { # pass name, cmake args...
        local pass=$1; shift
        local dir="$root/build/test-rdkafka-$version"
        local exclude=() list py
        [ "$pass" = plain ] || dir="$dir-$pass"
        # A cache configured against another prefix keeps its pkg-config
        # results: start that one afresh.
        if [ -f "$dir/CMakeCache.txt" ] &&
           ! grep -qx "RDKAFKA_LIBDIR:INTERNAL=$libdir" "$dir/CMakeCache.txt"
        then
                rm -rf "$dir"
        fi
        echo "=== librdkafka $version, $pass: configure and build ($dir)"
        cmake -S "$root" -B "$dir" -DBP_WERROR=ON "$@" >/dev/null
        cmake --build "$dir" -j "$jobs" >/dev/null
        check_runpath "$dir"

        list=$(cd "$dir" && ctest -N)
        if grep -q ' test_python_producer$' <<<"$list"; then
                py=$(LD_LIBRARY_PATH="$libdir" /usr/bin/python3 -c \
                     'import confluent_kafka; print(confluent_kafka.libversion()[0])' \
                     2>/dev/null || echo none)
                if [ "$py" = "$version" ]; then
                        echo "=== python3-confluent-kafka runs on librdkafka $py"
                else
                        echo "=== python3-confluent-kafka runs on librdkafka" \
                             "$py, not $version: test_python_producer left out"
                        exclude=(-E '^test_python_producer$')
                fi
        fi
        echo "=== librdkafka $version, $pass: ctest (tests run against" \
             "librdkafka $runtime from $libdir)"
        (cd "$dir" && LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
                ctest --output-on-failure -j "$jobs" "${exclude[@]}" \
                ${BP_CTEST_ARGS:-} "${ctest_args[@]}")
}

ctest_args=("$@")
for pass in ${BP_MATRIX_PASSES:-plain}; do
        case $pass in
        plain) run_pass plain -DCMAKE_BUILD_TYPE=RelWithDebInfo ;;
        valgrind) run_pass valgrind -DCMAKE_BUILD_TYPE=Debug -DBP_VALGRIND=ON ;;
        asan)
                ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
                UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
                        run_pass asan -DCMAKE_BUILD_TYPE=Debug -DBP_SANITIZE=ON
                ;;
        *) log "unknown pass '$pass' (plain, valgrind, asan)"; exit 2 ;;
        esac
done
echo "=== librdkafka $version: all passes succeeded"
