#!/usr/bin/env bash
# fuzz/run.sh [SECONDS] - builds the libFuzzer targets of fuzz/ with clang
# (AddressSanitizer + UndefinedBehaviorSanitizer) into build/fuzz/, replays
# every input in fuzz/regressions/<target>/, then fuzzes each target for
# SECONDS (default 30; 0 = build and replay only).
#
# Corpora grow in build/fuzz/corpus-<target>/, seeded from
# fuzz/seeds/<target>/. A crash, leak, timeout or violated invariant stops
# the run with a non-zero exit; the input is kept in
# build/fuzz/artifacts/<target>/ and the command that reproduces it is
# printed. Minimize it with
#   build/fuzz/<target> -minimize_crash=1 -runs=10000 <crash file>
# and add it to fuzz/regressions/<target>/ once the bug is fixed.
#
# Environment: FUZZ_TARGETS (default "fuzz_config fuzz_key"), FUZZ_CC
# (default: clang, else the newest clang-NN found), FUZZ_ARGS (extra
# libFuzzer flags, e.g. -use_value_profile=1).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seconds=${1:-30}
out="$root/build/fuzz"
targets=${FUZZ_TARGETS:-"fuzz_config fuzz_key"}

case $seconds in
  ''|*[!0-9]*) echo "usage: fuzz/run.sh [SECONDS]" >&2; exit 2 ;;
esac

# The shared/ sources a target needs (no librdkafka involved).
sources_of() {
  case $1 in
    fuzz_config) echo bp_config.c bp_config_next.c bp_config_lookup.c bp_change.c \
                      bp_fallback.c bp_list.c bp_escape.c bp_allocation.c \
                      bp_layout.c ;;
    fuzz_key) echo bp_key.c bp_config.c bp_config_next.c bp_config_lookup.c \
                   bp_fallback.c bp_list.c bp_escape.c bp_allocation.c ;;
    *) return 1 ;;
  esac
}
# The fuzz/ sources a target has beside its own .c file.
helpers_of() {
  case $1 in
    fuzz_config) echo fuzz_layouts.c ;;
  esac
}
# A target's own libFuzzer flags.
flags_of() {
  case $1 in
    fuzz_config) echo "-max_len=8192 -dict=$root/fuzz/fuzz_config.dict" ;;
    fuzz_key) echo "-max_len=4096" ;;
  esac
}

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else echo "fuzz/run.sh: need root (or sudo) to run: $*" >&2; return 1
  fi
}

find_cc() {
  local c
  if [ -n "${FUZZ_CC:-}" ]; then echo "$FUZZ_CC"; return; fi
  if command -v clang >/dev/null; then echo clang; return; fi
  for c in $(compgen -c clang- | grep -E '^clang-[0-9]+$' | sort -t- -k2 -rn); do
    echo "$c"; return
  done
}

# Does $cc link a libFuzzer + ASan + UBSan program?
cc_works() {
  local probe="$out/probe"
  mkdir -p "$out"
  printf '%s\n' '#include <stdint.h>' '#include <stddef.h>' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)' \
    '{ (void)d; (void)n; return 0; }' > "$probe.c"
  "$cc" -fsanitize=fuzzer,address,undefined "$probe.c" -o "$probe" \
    >/dev/null 2>&1
}

cc=$(find_cc || true)
if [ -z "$cc" ] || ! cc_works; then
  echo "=== fuzz: installing clang and its libFuzzer runtime (Debian)"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -qq
  as_root apt-get install -y -qq clang >/dev/null
  cc=$(find_cc)
  major=$("$cc" -dumpversion | cut -d. -f1)
  if ! cc_works; then
    as_root apt-get install -y -qq "libclang-rt-$major-dev" >/dev/null
  fi
  cc_works || { echo "fuzz/run.sh: $cc cannot build libFuzzer targets" >&2
                exit 1; }
fi
echo "=== fuzz: $("$cc" --version | head -1)"

# shellcheck disable=SC2054 # the commas belong to -fsanitize=
cflags=(-std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer
        -Wall -Wextra -ffp-contract=off
        -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
        -I"$root/shared")
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

status=0
summary=()
for t in $targets; do
  if ! names=$(sources_of "$t"); then
    echo "fuzz/run.sh: unknown target $t" >&2; exit 2
  fi
  srcs=()
  for s in $names; do srcs+=("$root/shared/$s"); done
  for s in $(helpers_of "$t"); do srcs+=("$root/fuzz/$s"); done
  echo "=== $t: build"
  "$cc" "${cflags[@]}" "$root/fuzz/$t.c" "${srcs[@]}" -lm -o "$out/$t"

  artifacts="$out/artifacts/$t"
  corpus="$out/corpus-$t"
  mkdir -p "$artifacts" "$corpus"
  # shellcheck disable=SC2207 # flags hold no spaces of their own
  extra=($(flags_of "$t") -timeout=25 -rss_limit_mb=2048
         -artifact_prefix="$artifacts/")

  regressions=()
  if [ -d "$root/fuzz/regressions/$t" ]; then
    while IFS= read -r -d '' f; do regressions+=("$f")
    done < <(find "$root/fuzz/regressions/$t" -type f ! -name '*.md' \
               -print0 | sort -z)
  fi
  if [ ${#regressions[@]} -gt 0 ]; then
    echo "=== $t: replay ${#regressions[@]} regression input(s)"
    if ! "$out/$t" "${extra[@]}" "${regressions[@]}" \
         > "$out/$t-regressions.log" 2>&1; then
      tail -40 "$out/$t-regressions.log"
      echo "=== $t: a regression input fails (log: $out/$t-regressions.log)"
      status=1
      continue
    fi
  fi

  [ "$seconds" -gt 0 ] || continue
  echo "=== $t: fuzz for ${seconds}s (corpus $corpus)"
  log="$out/$t.log"
  # shellcheck disable=SC2086
  if "$out/$t" "${extra[@]}" -max_total_time="$seconds" \
       -print_final_stats=1 ${FUZZ_ARGS:-} "$corpus" "$root/fuzz/seeds/$t" \
       > "$log" 2>&1; then
    execs=$(grep -h 'stat::number_of_executed_units' "$log" |
            awk '{s += $2} END {print s + 0}')
    inputs=$(find "$corpus" -type f | wc -l)
    summary+=("$t: $execs executions in ${seconds}s, no crash, corpus $inputs inputs")
  else
    tail -60 "$log"
    crash=$(find "$artifacts" -type f -printf '%T@ %p\n' | sort -rn |
            head -1 | cut -d' ' -f2-)
    echo "=== $t: FAILED (log: $log)"
    [ -n "$crash" ] && echo "    input kept: $crash" &&
      echo "    reproduce: $out/$t $crash"
    summary+=("$t: FAILED, input ${crash:-none}")
    status=1
  fi
done

for line in "${summary[@]}"; do echo "=== $line"; done
exit $status
