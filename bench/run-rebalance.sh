#!/usr/bin/env bash
# run-rebalance.sh - the rebalance benchmark in one command: builds the
# plugin (RelWithDebInfo, a build tree of its own), starts a one-node Kafka
# broker with tests/broker/kafka.sh (a cluster directory of its own) unless
# BP_BROKER_BOOTSTRAP names one, runs bench/rebalance/bench_rebalance.py
# (a bucket consumer against a plain consumer of a topic per class, at 2,
# 10 and 50 buckets of a 1 000-partition topic) and stops the broker.
#
#   bench/run-rebalance.sh [extra bench_rebalance.py options, e.g.
#                           --rounds 3 --buckets 50]
#
# Environment:
#   BUILD_DIR             build tree (default build/bench-rebalance)
#   BP_REBALANCE_OUT      the table and the JSON (default BUILD_DIR/results)
#   BP_REBALANCE_PLUGIN   measure this libbucketpriority.so instead of the
#                         build's (an older build, for a before/after)
#   BP_BROKER_BOOTSTRAP   use this running broker instead of starting one
# Needs Debian's python3-confluent-kafka (tests/install-deps.sh installs
# it); the members run under /usr/bin/python3.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${BUILD_DIR:-build/bench-rebalance}
case $build in /*) ;; *) build=$root/$build ;; esac
out=${BP_REBALANCE_OUT:-$build/results}
mkdir -p "$out"

plugin=${BP_REBALANCE_PLUGIN:-}
if [ -z "$plugin" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" -j "$(nproc)" --target bucketpriority >/dev/null
  plugin=$build/lib/libbucketpriority.so
fi
/usr/bin/python3 -c "import confluent_kafka" 2>/dev/null || {
  echo "run-rebalance.sh: Debian's python3-confluent-kafka is missing" \
       "(apt-get install python3-confluent-kafka)" >&2
  exit 1
}

bootstrap=${BP_BROKER_BOOTSTRAP:-}
if [ -z "$bootstrap" ]; then
  broker_dir=$build/broker
  echo "=== broker: tests/broker/kafka.sh start --dir $broker_dir"
  trap 'tests/broker/kafka.sh stop --dir "$broker_dir" >/dev/null 2>&1 || true' EXIT
  bootstrap=$(tests/broker/kafka.sh start --dir "$broker_dir")
fi

echo "=== bench_rebalance.py on $bootstrap, plugin $plugin"
/usr/bin/python3 bench/rebalance/bench_rebalance.py --brokers "$bootstrap" \
  --plugin "$plugin" --json "$out/rebalance.json" "$@" 2> "$out/members.log" |
  tee "$out/rebalance.txt"
echo "Files: $out"
