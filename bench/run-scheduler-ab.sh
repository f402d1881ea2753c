#!/usr/bin/env bash
# run-scheduler-ab.sh - two builds of the plugin side by side in
# bp-bench-scheduler: one round of A, then one round of B, PAIRS times, so
# that the machine's load moves both alike. Each round runs the same
# dedicated consumers as its baseline; the summary gives, per build, the
# medians of the queue setup's per-round ratios to dedicated (p50, p99,
# bulk/s), and the per-round figures.
#
# Usage: bench/run-scheduler-ab.sh A.so B.so PAIRS [bp-bench-scheduler options]
#   e.g. bench/run-scheduler-ab.sh /tmp/base/lib/libbucketpriority.so \
#          build/dev/lib/libbucketpriority.so 7 --brokers $B --work busy \
#          --work-us 200 --bulk 60000 --rate 100 --seconds 10
# Environment: BENCH_BIN (default build/dev/bin/bp-bench-scheduler),
#   AB_OUT (default build/bench/scheduler-ab: one log per round).
# The benchmark program does not link the library: each round's plugin is
# the one BP_PLUGIN_PATH names.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { sed -n 2,16p "$0"; exit 2; }
a=$1 b=$2 pairs=$3
shift 3
bin=${BENCH_BIN:-build/dev/bin/bp-bench-scheduler}
out=${AB_OUT:-build/bench/scheduler-ab}
mkdir -p "$out"
for f in "$a" "$b" "$bin"; do
  [ -e "$f" ] || { echo "run-scheduler-ab.sh: no $f" >&2; exit 2; }
done

# The ratio of setup S to dedicated in a round's log: p50 p99 bulk/s.
ratios() {
  awk -v s="$2" '$1 == 1 && $2 == "dedicated" { d50 = $3; d99 = $4; db = $9 }
                 $1 == 1 && $2 == s { q50 = $3; q99 = $4; qb = $9 }
                 END { if (d50 > 0 && q50 > 0)
                         printf "%.3f %.3f %.3f\n", q50 / d50, q99 / d99, qb / db }' "$1"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: >"$out/A.ratios"
: >"$out/B.ratios"
for i in $(seq 1 "$pairs"); do
  for side in A B; do
    plugin=$a
    [ $side = B ] && plugin=$b
    log="$out/$side.$i.log"
    BP_PLUGIN_PATH=$plugin "$bin" --rounds 1 "$@" >"$log" 2>&1 || {
      echo "run-scheduler-ab.sh: round $i of $side failed (log $log)" >&2
      exit 1
    }
    r=$(ratios "$log" queue)
    [ -n "$r" ] || { echo "run-scheduler-ab.sh: no queue figures in $log" >&2; exit 1; }
    echo "$r" >>"$out/$side.ratios"
    echo "pair $i $side: queue / dedicated p50 p99 bulk/s = $r"
  done
done
for side in A B; do
  f="$out/$side.ratios"
  printf '%s (%s): medians of %d rounds: p50 %.2fx, p99 %.2fx, bulk %.2fx\n' \
    "$side" "$([ $side = A ] && echo "$a" || echo "$b")" "$pairs" \
    "$(cut -d' ' -f1 "$f" | median)" "$(cut -d' ' -f2 "$f" | median)" \
    "$(cut -d' ' -f3 "$f" | median)"
done
