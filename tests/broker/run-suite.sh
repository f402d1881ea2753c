#!/usr/bin/env bash
# run-suite.sh - the real-broker suite in one command: builds the plain
# tree, starts a one-node Kafka with kafka.sh (unless BP_BROKER_BOOTSTRAP
# already names one), runs `ctest -L broker` and prints every scenario's
# figures, then stops the broker it started.
#
#   tests/broker/run-suite.sh [BUILD_DIR] [extra ctest args, e.g. -R growth]
#
# BUILD_DIR defaults to build/test-plain (tests/run-all.sh's plain pass).
# The broker runs in BUILD_DIR/broker (logs kept there); scenario files and
# figures are in BUILD_DIR/tests/broker/work/<scenario>/.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
build="${1:-$root/build/test-plain}"
[[ $# -gt 0 ]] && shift
jobs=$(nproc 2>/dev/null || echo 2)

echo "=== broker suite: configure and build ($build)"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "$jobs" >/dev/null
if [[ ! -x "$build/bin/bp-broker-client" ]]; then
    echo "run-suite.sh: $build has no bp-broker-client:" \
         "is add_subdirectory(broker) in tests/CMakeLists.txt?" >&2
    exit 1
fi

if [[ -z "${BP_BROKER_BOOTSTRAP:-}" ]]; then
    broker_dir="$build/broker"
    trap 'tests/broker/kafka.sh stop --dir "$broker_dir" || true' EXIT
    BP_BROKER_BOOTSTRAP=$(tests/broker/kafka.sh start --dir "$broker_dir")
    export BP_BROKER_BOOTSTRAP
fi
echo "=== broker suite: ctest -L broker against $BP_BROKER_BOOTSTRAP"
rm -rf "$build/tests/broker/work"
start=$SECONDS
rc=0
(cd "$build" && ctest -L broker --output-on-failure "$@") || rc=$?
echo "=== broker suite: figures ($((SECONDS - start)) s)"
cat "$build"/tests/broker/work/*/report.txt 2>/dev/null || true
exit $rc
