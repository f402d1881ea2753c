#!/usr/bin/env bash
# run-priority.sh - the priority benchmark in one command: builds
# bp-bench-priority (RelWithDebInfo, a build tree of its own), runs it on
# librdkafka's embedded mock cluster, then starts a one-node Kafka broker
# with tests/broker/kafka.sh (a cluster directory of its own), runs it
# against that broker, stops the broker and prints both tables.
#
#   bench/run-priority.sh [extra bp-bench-priority options, e.g. --rounds 1]
#
# Each part runs BP_PRIO_ROUNDS rounds (default 3: the order of the designs
# rotates, the table shows medians, so one noisy design run on a shared
# machine does not decide a ratio).
# Environment:
#   BUILD_DIR            build tree (default build/bench-priority)
#   BP_PRIO_OUT          outputs: logs, tables, JSON, SVG
#                        (default BUILD_DIR/results)
#   BP_PRIO_BROKER_DIR   kafka.sh cluster directory (default BUILD_DIR/broker)
#   BP_PRIO_ROUNDS       rounds per part (default 3)
#   BP_PRIO_SKIP_BUILD=1 use BUILD_DIR as it is
#   BP_PRIO_SKIP_MOCK=1, BP_PRIO_SKIP_BROKER=1   leave a part out
#   BP_BROKER_BOOTSTRAP  use this running broker instead of starting one
# A round takes about 2.5 minutes with the default load. The exit status is
# the worst of the parts (0 all checks and targets met, 3 a target missed,
# 1 a check failed, see bp-bench-priority --help).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${BUILD_DIR:-build/bench-priority}
case $build in /*) ;; *) build=$root/$build ;; esac
out=${BP_PRIO_OUT:-$build/results}
case $out in /*) ;; *) out=$root/$out ;; esac
broker_dir=${BP_PRIO_BROKER_DIR:-$build/broker}
case $broker_dir in /*) ;; *) broker_dir=$root/$broker_dir ;; esac

if [ "${BP_PRIO_SKIP_BUILD:-0}" != 1 ]; then
  echo "=== build ($build, RelWithDebInfo)"
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DBP_BUILD_BENCH=ON -DBP_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" \
    --target bp-bench-priority bucketpriority >/dev/null
fi
bench=$build/bin/bp-bench-priority
mkdir -p "$out"
rm -f "$out"/mock.* "$out"/broker.*
failed=0 missed=0

# The 1-minute load average every 10 s while a part runs (the machine has
# few cores and may be shared: the figures say how busy it was).
sample_load() {
  while :; do
    cut -d' ' -f1 /proc/loadavg
    sleep 10
  done
}

# part NAME ARGS...: one run of the benchmark, its table kept in NAME.txt.
part() {
  local name=$1 rc=0 sampler
  shift
  echo "=== $name: $bench $*"
  sample_load >"$out/$name.load" &
  sampler=$!
  "$bench" --rounds "${BP_PRIO_ROUNDS:-3}" --svg "$out/$name.svg" \
    --json "$out/$name.json" "$@" \
    >"$out/$name.txt" 2>"$out/$name.log" || rc=$?
  kill "$sampler" 2>/dev/null || true
  wait "$sampler" 2>/dev/null || true
  awk -v cores="$(nproc)" '{ s += $1; if ($1 > m) m = $1; n++ }
    END { if (n) printf "machine load during the run: 1-min load average " \
          "mean %.2f, max %.2f (%d samples, %d cores)\n", s / n, m, n, cores }' \
    "$out/$name.load" | tee -a "$out/$name.txt"
  echo "    exit $rc; progress in $out/$name.log"
  case $rc in 0) ;; 3) missed=1 ;; *) failed=1 ;; esac
  return 0
}

if [ "${BP_PRIO_SKIP_MOCK:-0}" != 1 ]; then
  part mock "$@"
fi

if [ "${BP_PRIO_SKIP_BROKER:-0}" != 1 ]; then
  bootstrap=${BP_BROKER_BOOTSTRAP:-}
  if [ -z "$bootstrap" ]; then
    echo "=== broker: tests/broker/kafka.sh start --dir $broker_dir"
    trap 'tests/broker/kafka.sh stop --dir "$broker_dir" >/dev/null 2>&1 || true' EXIT
    bootstrap=$(tests/broker/kafka.sh start --dir "$broker_dir")
  fi
  part broker --brokers "$bootstrap" "$@"
  if [ -z "${BP_BROKER_BOOTSTRAP:-}" ]; then
    tests/broker/kafka.sh stop --dir "$broker_dir" >/dev/null 2>&1 || true
    trap - EXIT
  fi
fi

for name in mock broker; do
  [ -f "$out/$name.txt" ] || continue
  echo
  echo "=============================== $name"
  cat "$out/$name.txt"
done
echo
echo "outputs (table, progress log, JSON, SVG) in $out"
[ $failed = 1 ] && exit 1
[ $missed = 1 ] && exit 3
exit 0
