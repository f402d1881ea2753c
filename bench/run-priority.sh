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
#   BP_PRIO_KIP848=PREFIX  also the KIP-848 part on the broker: builds a
#                        second tree (BUILD_DIR-kip848) against the
#                        librdkafka installed in PREFIX (2.12 or later; 1
#                        means ~/.cache/bucket-priority/librdkafka-2.15.1-ssl,
#                        made by tests/matrix/build-librdkafka.sh) and runs
#                        designs (b) and (c) on the classic protocol and on
#                        group.protocol=consumer side by side, with a
#                        rebalance of the critical group (broker-kip848.txt)
#   BP_PRIO_KIP848_ARGS  that part's options (default: --designs bc
#                        --group-protocol classic,consumer --rebalance 10,20)
#   BP_PRIO_SKIP_CLASSIC=1  leave out the classic broker part (with
#                        BP_PRIO_KIP848 set and BP_PRIO_SKIP_MOCK=1: only
#                        the KIP-848 part runs)
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

kip848=${BP_PRIO_KIP848:-}
[ "$kip848" = 1 ] && kip848=$HOME/.cache/bucket-priority/librdkafka-2.15.1-ssl
build848=$build-kip848

# build DIR [PKG_CONFIG_PATH]: bp-bench-priority and the plugin in DIR.
build() {
  echo "=== build ($1, RelWithDebInfo${2:+, librdkafka from $2})"
  PKG_CONFIG_PATH=${2:-${PKG_CONFIG_PATH:-}} cmake -S "$root" -B "$1" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBP_BUILD_BENCH=ON \
    -DBP_BUILD_TESTS=OFF >/dev/null
  cmake --build "$1" -j "$(nproc 2>/dev/null || echo 2)" \
    --target bp-bench-priority bucketpriority >/dev/null
}

if [ "${BP_PRIO_SKIP_BUILD:-0}" != 1 ]; then
  build "$build"
  if [ -n "$kip848" ]; then
    pc=$(ls -d "$kip848"/lib*/pkgconfig 2>/dev/null | head -1)
    [ -n "$pc" ] || { echo "no lib*/pkgconfig under $kip848" >&2; exit 1; }
    build "$build848" "$pc"
  fi
fi
bench=$build/bin/bp-bench-priority
if [ -n "$kip848" ]; then
  # The binary must load PREFIX's librdkafka (the build's RUNPATH), or the
  # KIP-848 designs would be skipped.
  got=$(ldd "$build848/bin/bp-bench-priority" |
        awk '$1 == "librdkafka.so.1" { print $3 }')
  case $(readlink -f "$got") in
    "$(readlink -f "$kip848")"/*) ;;
    *) echo "$build848/bin/bp-bench-priority loads $got, not $kip848's" >&2
       exit 1 ;;
  esac
fi
mkdir -p "$out"
rm -f "$out"/mock.* "$out"/broker.* "$out"/broker-kip848.*
failed=0 missed=0

# The 1-minute load average every 10 s while a part runs (the machine has
# few cores and may be shared: the figures say how busy it was).
sample_load() {
  while :; do
    cut -d' ' -f1 /proc/loadavg
    sleep 10
  done
}

# part NAME ARGS...: one run of the benchmark ($bench), its table kept in
# NAME.txt.
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
  if [ "${BP_PRIO_SKIP_CLASSIC:-0}" != 1 ]; then
    part broker --brokers "$bootstrap" "$@"
  fi
  if [ -n "$kip848" ]; then
    # shellcheck disable=SC2086 # the options are words
    bench=$build848/bin/bp-bench-priority part broker-kip848 \
      --brokers "$bootstrap" \
      ${BP_PRIO_KIP848_ARGS:---designs bc --group-protocol classic,consumer --rebalance 10,20} \
      "$@"
  fi
  if [ -z "${BP_BROKER_BOOTSTRAP:-}" ]; then
    tests/broker/kafka.sh stop --dir "$broker_dir" >/dev/null 2>&1 || true
    trap - EXIT
  fi
fi

for name in mock broker broker-kip848; do
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
