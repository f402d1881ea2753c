#!/usr/bin/env bash
# run-all.sh - the whole test suite, as README.md gives it: installs missing
# dependencies, then builds and runs the tests three ways:
#   1. a normal build: unit, integration and Python client tests, and the
#      broker suite against a real Kafka 4.x broker started here;
#   1b. the release artefacts (packaging/build-dist.sh: the wheel, the
#      Debian packages) installed and tested as users get them;
#   2. every C test under valgrind memcheck (any error or leak fails);
#   3. an AddressSanitizer + UndefinedBehaviorSanitizer build.
#   4. the normal build again against librdkafka 2.15.1 (tests/matrix/);
#   5. the libFuzzer targets for a bounded time (fuzz/run.sh);
#   6. the multi-threaded tests under ThreadSanitizer (tests/tsan/),
#      the scheduler's mock test once.
# Before them, the builds pass: Release, MinSizeRel and Debug with gcc and
# Release with clang, compiled with warnings as errors (BP_WERROR, on in
# every build here). Build trees go to build/test-* and build/build-*. Set
# BP_SKIP_BUILDS=1, BP_SKIP_VALGRIND=1, BP_SKIP_ASAN=1,
# BP_SKIP_MATRIX=1, BP_SKIP_FUZZ=1, BP_SKIP_TSAN=1, BP_SKIP_PACKAGES=1 or
# BP_SKIP_BROKER=1 to
# leave a pass out
# while developing; CI runs everything.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
jobs=$(nproc 2>/dev/null || echo 2)

tests/install-deps.sh

run_pass() { # name, extra cmake args...
  local name=$1; shift
  local dir="$root/build/test-$name"
  echo "=== $name: configure and build ($dir)"
  cmake -S "$root" -B "$dir" -DBP_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j "$jobs" >/dev/null
  echo "=== $name: ctest"
  (cd "$dir" && ctest --output-on-failure -j "$jobs" ${BP_CTEST_ARGS:-})
}

# A real Kafka broker (tests/broker/kafka.sh; jars cached outside the tree)
# for the broker suite, ctest label broker: registered in plain builds
# only, skipped unless BP_BROKER_BOOTSTRAP is set. Beside it, one secured
# broker (kafka.sh start --secure: SASL_SSL, users, ACLs) for
# broker_secure, named by BP_SECURE_BROKER_DIR. Both stay up for the
# matrix pass too and are stopped on exit. broker_secure also runs bp-audit
# on the matrix's librdkafka (BP_SECURE_NEWER_LIBRDKAFKA, built here
# first: cached). BP_SKIP_BROKER=1 leaves them out.
broker_dir="$root/build/broker"
secure_dir="$root/build/broker-secure"
broker_figures() { # the scenarios' figures in build tree $1, if they ran
  cat "$1"/tests/broker/work/*/report.txt 2>/dev/null || true
}
if [ "${BP_SKIP_BROKER:-0}" != 1 ]; then
  # a broker left by an interrupted run in this directory
  tests/broker/kafka.sh stop --dir "$broker_dir" >/dev/null 2>&1 || true
  tests/broker/kafka.sh stop --dir "$secure_dir" >/dev/null 2>&1 || true
  trap 'tests/broker/kafka.sh stop --dir "$broker_dir" || true
        tests/broker/kafka.sh stop --dir "$secure_dir" || true' EXIT
  BP_BROKER_BOOTSTRAP=$(tests/broker/kafka.sh start --dir "$broker_dir")
  export BP_BROKER_BOOTSTRAP
  tests/broker/kafka.sh start --secure --dir "$secure_dir" >/dev/null
  BP_SECURE_BROKER_DIR=$secure_dir
  BP_SECURE_NEWER_LIBRDKAFKA=$(tests/matrix/build-librdkafka.sh | tail -1)/lib
  export BP_SECURE_BROKER_DIR BP_SECURE_NEWER_LIBRDKAFKA
  rm -rf "$root"/build/test-*/tests/broker/work
fi

# Builds as users and packagers make them: each build type with gcc and a
# Release build with clang, warnings as errors (compile only, a few seconds
# each; the passes below test).
if [ "${BP_SKIP_BUILDS:-0}" != 1 ]; then
  for spec in gcc:Release gcc:MinSizeRel gcc:Debug clang:Release; do
    cc=${spec%%:*} type=${spec#*:}
    dir="$root/build/build-$cc-$type"
    echo "=== build: $type with $cc, warnings as errors ($dir)"
    CC=$cc cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE="$type" \
      -DBP_WERROR=ON >/dev/null
    cmake --build "$dir" -j "$jobs" >/dev/null
  done
fi

run_pass plain -DCMAKE_BUILD_TYPE=RelWithDebInfo
broker_figures "$root/build/test-plain"
# The release artefacts, built by packaging/build-dist.sh and tested as
# users install them (tests/packaging/run.sh): the wheel in a fresh venv,
# the Debian packages with dpkg (installed, then purged), no build path in
# them, the same bytes from a second build.
if [ "${BP_SKIP_PACKAGES:-0}" != 1 ]; then
  tests/packaging/run.sh
fi
if [ "${BP_SKIP_VALGRIND:-0}" != 1 ]; then
  run_pass valgrind -DCMAKE_BUILD_TYPE=Debug -DBP_VALGRIND=ON
fi
if [ "${BP_SKIP_ASAN:-0}" != 1 ]; then
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    run_pass asan -DCMAKE_BUILD_TYPE=Debug -DBP_SANITIZE=ON
fi
# The librdkafka version matrix: the plain suite again against the newest
# librdkafka we support (2.15.1), built once into a cache outside the tree
# (about 100 s on 2 cores; then free). BP_MATRIX_PASSES="plain valgrind
# asan" runs the other passes against it too.
if [ "${BP_SKIP_MATRIX:-0}" != 1 ]; then
  prefix=$(tests/matrix/build-librdkafka.sh | tail -1)
  tests/matrix/run-suite.sh "$prefix"
  for d in "$root"/build/test-rdkafka-*/; do broker_figures "$d"; done
fi
if [ "${BP_SKIP_FUZZ:-0}" != 1 ]; then
  echo "=== fuzz: ${BP_FUZZ_SECONDS:-30} s per target"
  fuzz/run.sh "${BP_FUZZ_SECONDS:-30}"
fi
if [ "${BP_SKIP_TSAN:-0}" != 1 ]; then
  echo "=== tsan"
  tests/tsan/run-tsan.sh
  # The scheduler's thread against the application's, once (about 90 s);
  # its timing bounds are asserted by the other passes.
  BP_TEST_NO_TIMING=1 TSAN_REPEAT=1 tests/tsan/run-tsan.sh test_mock_scheduler \
    test_mock_sched_queue
fi
echo "=== all test passes succeeded"
