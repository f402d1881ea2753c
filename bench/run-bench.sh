#!/usr/bin/env bash
# run-bench.sh - builds the producer benchmarks (RelWithDebInfo) and prints
# their figures:
#   1. instructions per record (callgrind) of the bucket partitioner, round
#      robin and hash within the bucket, against librdkafka's
#      rd_kafka_msg_partitioner_murmur2_random on the same keys;
#   2. what the plugin adds per record on the producing thread: the whole
#      rd_kafka_producev() with and without the plugin, its on_send
#      interceptor, the partitioner inside producev(), and the instructions
#      of the whole process (every thread) per record;
#   3. producer throughput to the embedded mock cluster with and without the
#      plugin, side by side in one run.
# Callgrind figures: with --toggle-collect only the named function (and
# what it calls) is counted, over N calls or records, so the one-off costs
# inside it (lazy symbol binding, the first layout) weigh < 0.01 Ir per
# record; the partitioner runs are repeated three times and the median is
# kept, because glibc's string functions cost a few instructions more or
# less with the alignment of librdkafka's heap-allocated topic name, which
# varies from run to run. Whole-process figures (no toggle) are the
# difference of two runs (P1 and P2 records) divided by P2 - P1, which
# cancels start-up and shutdown.
#
# Usage: bench/run-bench.sh            (from anywhere in the work tree)
# It builds in a tree of its own, build/bench-release (RelWithDebInfo), so
# that it never changes the build type of build/ itself.
# Environment: BUILD_DIR (default build/bench-release), BP_BENCH_OUT
#   (default build/bench/results: callgrind outputs, logs, summary.txt),
#   BP_BENCH_ROUNDS (15), BP_BENCH_RECORDS (200000), BP_BENCH_SKIP_BUILD=1
#   to use BUILD_DIR as it is.
set -euo pipefail
shopt -s inherit_errexit # errors inside $(...) stop the script too
cd "$(dirname "$0")/.."
root=$PWD
build=${BUILD_DIR:-build/bench-release}
case $build in /*) ;; *) build=$root/$build ;; esac
out=${BP_BENCH_OUT:-build/bench/results}
case $out in /*) ;; *) out=$root/$out ;; esac
rounds=${BP_BENCH_ROUNDS:-15}
records=${BP_BENCH_RECORDS:-200000}
# Partitioner calls per run; records through producev() of the two runs.
n=1000000 repeats=3
p1=20000 p2=100000

for tool in cmake valgrind callgrind_annotate awk; do
  command -v $tool >/dev/null ||
    { echo "run-bench.sh: $tool is missing (apt-get install valgrind cmake)" >&2; exit 2; }
done

if [ "${BP_BENCH_SKIP_BUILD:-0}" != 1 ]; then
  echo "=== build ($build, RelWithDebInfo)"
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DBP_BUILD_BENCH=ON -DBP_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" \
    --target bp-bench-partitioner bp-bench-throughput bucketpriority >/dev/null
fi
bin=$build/bin
mkdir -p "$out"
rm -f "$out"/*.cg "$out"/*.log

# callgrind_ir NAME TOGGLE-FN|- BENCH-ARGS...: Ir collected (inside
# TOGGLE-FN, or the whole process with -); callgrind output kept in $out.
callgrind_ir() {
  local name=$1 fn=$2; shift 2
  local opts=(--tool=callgrind --callgrind-out-file="$out/$name.cg")
  [ "$fn" = - ] || opts+=(--toggle-collect="$fn")
  if ! valgrind "${opts[@]}" "$bin/bp-bench-partitioner" "$@" \
      >"$out/$name.log" 2>&1; then
    echo "run-bench.sh: bp-bench-partitioner $* failed under callgrind:" >&2
    tail -20 "$out/$name.log" >&2
    exit 1
  fi
  awk -v f="$fn" '/^summary:/ { s = $2 } END {
    if (!s) { print "run-bench.sh: nothing collected in " f \
      " (renamed or inlined?)" > "/dev/stderr"; exit 1 }
    print s }' "$out/$name.cg"
}

# per_call NAME TOGGLE-FN MODE N: Ir per call, Ir / N, median of $repeats
# runs (all the runs' figures go to $out/NAME.runs).
per_call() {
  local name=$1 fn=$2 mode=$3 count=$4 i
  for i in $(seq 1 "$repeats"); do
    callgrind_ir "$name.$i" "$fn" "$mode" "$count"
  done | awk -v n="$count" '{ printf "%.1f\n", $1 / n }' | sort -n \
    >"$out/$name.runs"
  awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }' "$out/$name.runs"
}

# per_record_diff NAME TOGGLE-FN MODE A B: (Ir(B) - Ir(A)) / (B - A).
per_record_diff() {
  local name=$1 fn=$2 mode=$3 a=$4 b=$5 ia ib
  ia=$(callgrind_ir "$name.$a" "$fn" "$mode" "$a")
  ib=$(callgrind_ir "$name.$b" "$fn" "$mode" "$b")
  awk -v ia="$ia" -v ib="$ib" -v a="$a" -v b="$b" \
    'BEGIN { printf "%.1f\n", (ib - ia) / (b - a) }'
}

# spread NAME: "min-max" of the repeated runs, or "" when all agree.
spread() {
  awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (lo != hi) printf "runs %s-%s", lo, hi }' \
    "$out/$1.runs"
}

ratio() { awk -v x="$1" -v y="$2" 'BEGIN { printf "%.3f\n", x / y }'; }
verdict() { # value op target
  awk -v v="$1" -v t="$3" -v op="$2" 'BEGIN {
    ok = (op == "<=") ? v <= t : v >= t
    printf "%s (target %s %sx)\n", ok ? "met" : "MISSED", op, t }'
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
echo "=== 1. partitioner, callgrind, $repeats runs x $n calls per partitioner"
rr=$(per_call part-rr bp_partitioner bucket-roundrobin $n)
hash=$(per_call part-hash bp_partitioner bucket-hash $n)
m2r=$(per_call part-m2r rd_kafka_msg_partitioner_murmur2_random \
  murmur2_random $n)
rr_ratio=$(ratio "$rr" "$m2r")
hash_ratio=$(ratio "$hash" "$m2r")

echo "=== 1b. partitioner, wall clock, side by side in one process (noisy)"
"$bin/bp-bench-partitioner" time 9 2000000 | tee "$out/partitioner-time.txt"

echo "=== 2. per record through producev(), callgrind ($p2 records; whole process: $p2 - $p1)"
pv_plugin=$(repeats=1 per_call prod-plugin bench_produce_loop produce-plugin $p2)
pv_plain=$(repeats=1 per_call prod-plain bench_produce_loop produce-plain $p2)
on_send=$(repeats=1 per_call prod-onsend on_send produce-plugin $p2)
in_pv_bp=$(repeats=1 per_call prod-bp bp_partitioner produce-plugin $p2)
in_pv_cr=$(repeats=1 per_call prod-cr rd_kafka_msg_partitioner_consistent_random \
  produce-plain $p2)
all_plugin=$(per_record_diff all-plugin - produce-plugin $p1 $p2)
all_plain=$(per_record_diff all-plain - produce-plain $p1 $p2)

echo "=== 3. throughput, $rounds rounds x $records records"
"$bin/bp-bench-throughput" "$rounds" "$records" | tee "$out/throughput.txt"
tp_ratio=$(awk '/^median/ { sub(/x$/, "", $5); print $5 }' "$out/throughput.txt")
cpu_ratio=$(awk '/^median/ { sub(/x$/, "", $9); print $9 }' "$out/throughput.txt")

{
  echo
  echo "Partitioner, instructions per call (callgrind, inclusive):"
  printf '  %-34s %8s %10s\n' "partitioner" "Ir/call" "ratio"
  printf '  %-34s %8s %9sx  %s\n' "murmur2_random (librdkafka)" "$m2r" \
    "1.000" "$(spread part-m2r)"
  printf '  %-34s %8s %9sx  %s %s\n' "bucket, within=roundrobin" "$rr" \
    "$rr_ratio" "$(verdict "$rr_ratio" "<=" 1.0)" "$(spread part-rr)"
  printf '  %-34s %8s %9sx  %s %s\n' "bucket, within=hash" "$hash" \
    "$hash_ratio" "$(verdict "$hash_ratio" "<=" 1.3)" "$(spread part-hash)"
  echo "  (median of $repeats callgrind runs of $n calls each)"
  echo
  echo "Per record through rd_kafka_producev() (callgrind):"
  printf '  %-46s %9s %9s\n' "" "without" "with"
  printf '  %-46s %9s %9s\n' "producev(), producing thread, inclusive" \
    "$pv_plain" "$pv_plugin"
  printf '  %-46s %9s %9s\n' "  of which the partitioner" "$in_pv_cr" "$in_pv_bp"
  printf '  %-46s %9s %9s\n' "  of which the plugin's on_send interceptor" "-" \
    "$on_send"
  printf '  %-46s %9s %9s\n' "whole process, every thread" "$all_plain" \
    "$all_plugin"
  awk -v a="$pv_plain" -v b="$pv_plugin" -v s="$on_send" -v p="$in_pv_bp" \
      -v c="$in_pv_cr" -v x="$all_plain" -v y="$all_plugin" 'BEGIN {
    d = b - a
    printf "  plugin adds %.1f Ir per record on the producing thread (%+.1f%%):\n", d, 100 * d / a
    printf "    on_send %.1f, partitioner %+.1f (bucket %.1f vs default consistent_random %.1f),\n", s, p - c, p, c
    printf "    rest %.1f (librdkafka calling the interceptor chain, other differences)\n", d - s - (p - c)
    printf "  whole process: %+.1f Ir per record (%+.1f%%)\n", y - x, 100 * (y - x) / x }'
  echo
  echo "Throughput (median of $rounds rounds x $records records):"
  echo "  records/s with/without: ${tp_ratio}x  $(verdict "$tp_ratio" ">=" 0.97)"
  echo "  CPU per record with/without: ${cpu_ratio}x"
  echo "  per-round ratios: $(awk '/^range/ { print $3 }' "$out/throughput.txt")" \
    "(records/s), $(awk '/^range/ { print $5 }' "$out/throughput.txt") (CPU)"
  echo "  load average before / after: $load_before / $(cut -d' ' -f1-3 \
    /proc/loadavg 2>/dev/null || echo "?") on $(nproc 2>/dev/null || echo "?") cores"
  echo
  echo "Files: $out"
} | tee "$out/summary.txt"
