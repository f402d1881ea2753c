#!/usr/bin/env bash
# run-backlog.sh - two builds of the plugin side by side in bp-bench-backlog:
# for each case, RUNS runs with plugin A, then RUNS with plugin B, so that
# both meet the machine in the same minute. A case is a consumer meeting a
# backlog of every bucket at one moment (a cold start, a restart from its
# commits, a member leaving, ...); a run counts the lower-bucket records
# handed out before the last record of a higher bucket's backlog. The
# summary gives each build's line per case (min, median, max of those
# counts; the weighted case's first-2000 critical share) and a plain
# consumer's as the control.
#
# Usage: bench/run-backlog.sh A.so B.so RUNS [bp-bench-backlog options]
#   e.g. bench/run-backlog.sh /tmp/base/lib/libbucketpriority.so \
#          build/lib/libbucketpriority.so 20
#        BENCH_BIN=build/r215/bin/bp-bench-backlog bench/run-backlog.sh \
#          /tmp/base/r215/lib/libbucketpriority.so \
#          build/r215/lib/libbucketpriority.so 20 --protocol consumer
# Environment: BENCH_BIN (default build/bin/bp-bench-backlog),
#   BACKLOG_OUT (default build/bench/backlog: one log per case and build),
#   BACKLOG_CASES (default "cold restart leave cold24 three pause weighted
#   plain"; the KIP-848 rounds of the docs used "cold restart leave weighted
#   plain").
# The options given after RUNS go to every run (--bootstrap for a broker,
# --protocol consumer for KIP-848, which needs librdkafka 2.12+).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { sed -n 2,25p "$0"; exit 2; }
a=$1 b=$2 runs=$3
shift 3
bin=${BENCH_BIN:-build/bin/bp-bench-backlog}
out=${BACKLOG_OUT:-build/bench/backlog}
cases=${BACKLOG_CASES:-cold restart leave cold24 three pause weighted plain}
mkdir -p "$out"
for f in "$a" "$b" "$bin"; do
  [ -e "$f" ] || { echo "run-backlog.sh: no $f" >&2; exit 2; }
done

# The options of case $1, one per line.
case_options() {
  case $1 in
    cold)     printf '%s\n' --moment cold ;;
    restart)  printf '%s\n' --moment restart ;;
    leave)    printf '%s\n' --moment leave ;;
    cold24)   printf '%s\n' --partitions 24 ;;
    three)    printf '%s\n' --buckets "critical, normal, bulk" \
                --allocation "20%, 30%, 50%" --records "300, 3000, 30000" ;;
    pause)    printf '%s\n' --hold pause ;;
    weighted) printf '%s\n' --schedule weighted --records "6000, 6000" \
                --work-us 100 ;;
    plain)    printf '%s\n' --schedule plain ;;
    *) echo "run-backlog.sh: unknown case $1" >&2; exit 2 ;;
  esac
}

summary=$out/summary.txt
{
  echo "bp-bench-backlog, $runs runs a case and build, $(date -u +%FT%TZ)"
  echo "A = $a"
  echo "B = $b"
  echo "options: $*"
} >"$summary"
for c in $cases; do
  mapfile -t opts < <(case_options "$c")
  builds="A B"
  [ "$c" = plain ] && builds="A" # no plugin: one build is the control
  for side in $builds; do
    so=$a
    [ "$side" = B ] && so=$b
    log=$out/$c-$side.log
    BP_PLUGIN_PATH=$so "$bin" --runs "$runs" "${opts[@]}" "$@" \
      >"$log" 2>"$log.err"
    line=$(grep '^ahead:' "$log" | tail -1)
    [ "$c" = plain ] && side=plain
    printf '%-9s %-5s %s\n' "$c" "$side" "$line" | tee -a "$summary"
  done
done
echo "run-backlog.sh: the logs and summary.txt are in $out"
