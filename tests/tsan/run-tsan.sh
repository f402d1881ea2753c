#!/usr/bin/env bash
# tests/tsan/run-tsan.sh [TEST...] - ThreadSanitizer on the multi-threaded
# tests: builds the project with -fsanitize=thread in build/test-tsan and
# runs each TEST (default: test_partitioner_threads) TSAN_REPEAT times
# (default 3; thread interleavings differ from run to run). Any TSan report
# fails the run; the logs stay in build/test-tsan/tsan-<test>-<n>.log.
#
# Debian's librdkafka is not built with TSan and starts its threads with
# C11 thrd_create(), which the TSan runtimes of GCC 12 and Clang 14 do not
# intercept; c11threads_shim.so (preloaded) routes librdkafka's C11
# threads, mutexes and condition variables through the intercepted pthread
# calls. tsan.supp suppresses reports inside librdkafka only, never in the
# plugin's own code.
#
# Environment: CC (compiler, default cc), TSAN_REPEAT, TSAN_OPTIONS_EXTRA.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
dir="$root/build/test-tsan"
here="$root/tests/tsan"
jobs=$(nproc 2>/dev/null || echo 2)
repeat=${TSAN_REPEAT:-3}
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(test_partitioner_threads)

echo "=== tsan: configure and build ($dir)"
cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DBP_WERROR=ON \
  "-DCMAKE_C_FLAGS=-fsanitize=thread -g -O1" \
  -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread \
  -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread >/dev/null
for t in "${tests[@]}"; do
  cmake --build "$dir" -j "$jobs" --target "$t" >/dev/null
done
cmake --build "$dir" -j "$jobs" --target bucketpriority >/dev/null
"${CC:-cc}" -std=c11 -Wall -Wextra -Werror -O1 -g -fPIC -shared \
  "$here/c11threads_shim.c" -o "$dir/c11threads_shim.so" -lpthread

export BP_PLUGIN_PATH="$dir/lib/libbucketpriority.so"
export TSAN_OPTIONS="suppressions=$here/tsan.supp second_deadlock_stack=1 \
history_size=7 exitcode=66 ${TSAN_OPTIONS_EXTRA:-}"

status=0
for t in "${tests[@]}"; do
  for n in $(seq 1 "$repeat"); do
    log="$dir/tsan-$t-$n.log"
    echo "=== tsan: $t, run $n of $repeat"
    rc=0
    LD_PRELOAD="$dir/c11threads_shim.so" timeout 1800 "$dir/bin/$t" \
      >"$log" 2>&1 || rc=$?
    reports=$(grep -c '^WARNING: ThreadSanitizer' "$log" || true)
    if [ "$rc" != 0 ] || [ "$reports" != 0 ]; then
      grep -A40 '^WARNING: ThreadSanitizer' "$log" | head -120 || tail -40 "$log"
      echo "=== tsan: $t FAILED (exit $rc, $reports report(s); log $log)"
      status=1
      break
    fi
    echo "    passed, no TSan report"
  done
done
[ $status = 0 ] && echo "=== tsan: all runs clean"
exit $status
