#!/usr/bin/env bash
# kcat_adapter.sh - client matrix adapter for kcat (Debian's kcat 1.7.1),
# configured the way kcat users do: -X properties on the command line.
# Protocol: see client_matrix.py.
#
#   kcat_adapter.sh produce BOOTSTRAP PLUGIN
#   kcat_adapter.sh consume BOOTSTRAP PLUGIN GROUP BUCKET [NAME=VALUE ...]
#   kcat_adapter.sh version
#
# NAME=VALUE: more -X properties for the consumer, after the others
# (-X group.protocol=consumer). version: 'librdkafka X.Y.Z' from kcat -V.
# produce: stdin keys become 'KEY<TAB>v' lines for kcat -P -K '\t' -Z; a
#   '-' key becomes an empty key, which -Z sends as a NULL key. kcat prints
#   no key in its delivery reports: with -v -v -v it prints "Message
#   delivered to partition P (offset O)" per record (and "Delivery failed
#   for message: ERROR" without key or offset). So after kcat exits, the
#   adapter reads the topic back with a plain kcat -C (no plugin) and joins
#   partition+offset to the key to print 'delivered KEY PARTITION'; input
#   keys left over are printed as 'failed KEY ERROR'.
# consume: kcat -G GROUP ... -f 'record %p %K %k\n' orders; its rebalance
#   lines on stderr ("assigned: orders [8], ...", "revoked: ...", and the
#   incremental forms) become 'assigned P,P,...' lines. When stdin closes,
#   kcat gets SIGTERM, on which it closes its consumer and exits 0.
# A kcat that fails before creating its client ("% ERROR: ..." on stderr)
# gives 'error TEXT' and exit 3; a kcat killed by a signal kills this
# script with the same signal, so the driver sees the crash.
set -uo pipefail

topic=orders
mode=${1:-}
if ! { [ "$mode" = produce ] && [ $# -eq 3 ]; } &&
   ! { [ "$mode" = consume ] && [ $# -ge 5 ]; } &&
   ! { [ "$mode" = version ] && [ $# -eq 1 ]; }; then
    echo "usage: $0 produce BOOTSTRAP PLUGIN | consume BOOTSTRAP PLUGIN GROUP BUCKET [NAME=VALUE ...] | version" >&2
    exit 2
fi
if ! command -v kcat >/dev/null; then
    echo "kcat_adapter: kcat not found (Debian package kcat)" >&2
    exit 127
fi
if [ "$mode" = version ]; then
    v=$(kcat -V 2>&1 | sed -n 's/.*[ (]librdkafka \([0-9][0-9.]*\).*/\1/p' | head -n 1)
    [ -n "$v" ] || { echo "kcat_adapter: no librdkafka version in kcat -V" >&2; exit 1; }
    echo "librdkafka $v"
    exit 0
fi
bootstrap=$2 plugin=$3
props=(-X "bootstrap.servers=$bootstrap" -X "plugin.library.paths=$plugin"
       -X "bucket.priority.topic=$topic"
       -X "bucket.priority.buckets=Platinum, Gold"
       -X "bucket.priority.allocation=70%, 30%")

work=$(mktemp -d "${TMPDIR:-/tmp}/kcat-adapter.XXXXXX")
trap 'rm -rf "$work"' EXIT

# die_like STATUS: a status above 128 from a signal is re-raised on this
# shell (after cleanup), so the crash is not turned into an exit code.
die_like() {
    local status=$1 sig
    if [ "$status" -gt 128 ] && [ "$status" -lt 160 ]; then
        sig=$((status - 128))
        rm -rf "$work"
        trap - EXIT
        trap - "$sig" 2>/dev/null
        kill -s "$sig" $$
    fi
    exit "$status"
}

# creation_error: the first "% ERROR: " line of kcat's stderr, if any.
creation_error() {
    sed -n 's/^% ERROR: //p' "$work/stderr" | head -n 1
}

if [ "$mode" = produce ]; then
    cat > "$work/keys"
    awk '{ if ($0 == "-") print "\tv"; else print $0 "\tv" }' "$work/keys" > "$work/input"
    # kcat waits for every delivery report without a bound: 35 s, then SIGINT
    # (kcat destroys its producer), 10 s more, then SIGKILL.
    timeout -k 10 -s INT 35 kcat -P -t "$topic" -K '\t' -Z -v -v -v "${props[@]}" \
        < "$work/input" 2> "$work/stderr"
    status=$?
    # 137: SIGKILL from timeout -k (a hang, reported below), not a crash.
    [ "$status" -eq 137 ] && status=124
    grep -v -e '^% Message delivered' -e '^% Enable message offset' \
        -e '^% Setting producer input buffer' "$work/stderr" >&2
    [ "$status" -gt 128 ] && [ "$status" -lt 160 ] && die_like "$status"
    sed -n 's/^% Message delivered to partition \([0-9]*\) (offset \([0-9]*\)).*/\1 \2/p' \
        "$work/stderr" > "$work/delivered"
    err=$(creation_error)
    if [ "$status" -ne 0 ] && [ -n "$err" ] && [ ! -s "$work/delivered" ]; then
        echo "error $err"
        exit 3
    fi
    failure=$(sed -n 's/^% Delivery failed for message: //p' "$work/stderr" | head -n 1)
    [ "$status" -eq 124 ] && failure="kcat did not finish within 35 s"
    [ "$status" -ne 0 ] && [ "$status" -ne 124 ] &&
        echo "kcat_adapter: kcat -P exited with status $status" >&2
    [ -n "$failure" ] || failure="no delivery report"
    # The records as stored: partition, offset, key length (-1 = NULL), key.
    if [ -s "$work/delivered" ]; then
        timeout 30 kcat -C -b "$bootstrap" -t "$topic" -o beginning -e -q \
            -f '%p %o %K %k\n' > "$work/stored" 2>> "$work/readback-stderr" ||
            echo "kcat_adapter: reading the topic back failed: $(cat "$work/readback-stderr")" >&2
    fi
    : >> "$work/stored"
    awk -v failure="$failure" '
        FILENAME == ARGV[1] {                  # stored: p o keylen key
            key = $0; sub(/^[^ ]* [^ ]* [^ ]* /, "", key)
            stored[$1 " " $2] = ($3 == "-1") ? "-" : key
            next
        }
        FILENAME == ARGV[2] {                  # delivered: p o
            if (($1 " " $2) in stored) {
                key = stored[$1 " " $2]
                printf "delivered %s %s\n", key, $1
                done[key]++
            } else
                printf "kcat_adapter: partition %s offset %s not found reading back\n", $1, $2 > "/dev/stderr"
            next
        }
        {                                      # keys, in input order
            if (done[$0] > 0) done[$0]--
            else printf "failed %s %s\n", $0, failure
        }' "$work/stored" "$work/delivered" "$work/keys"
    exit 0
fi

# consume
group=$4 bucket=$5
extra=()
for prop in "${@:6}"; do extra+=(-X "$prop"); done
mkfifo "$work/out" "$work/err"

# Line by line in bash: mawk would hold lines back (it reads pipes in blocks).
records() {
    local line part keylen key
    while IFS= read -r line; do
        [[ $line == "record "* ]] || continue
        read -r _ part keylen key <<< "$line"
        [ "$keylen" = -1 ] && key=-
        printf 'record %s %s\n' "$part" "$key"
    done
}

# partitions_of LINE: the partition numbers of "orders [N]" in LINE.
partitions_of() {
    local rest=$1
    while [[ $rest =~ $topic\ \[([0-9]+)\](.*)$ ]]; do
        echo "${BASH_REMATCH[1]}"
        rest=${BASH_REMATCH[2]}
    done
}

rebalances() {
    local line p shown= last= now
    local -A current=()
    while IFS= read -r line; do
        printf '%s\n' "$line" >> "$work/stderr"
        printf '%s\n' "$line" >&2
        case $line in
        "% Group "*" rebalanced "*": assigned: "*)
            current=()
            for p in $(partitions_of "$line"); do current[$p]=1; done ;;
        "% Group "*" rebalanced "*": revoked: "*)
            current=() ;;
        "% Group "*" rebalanced: incremental assignment of "*)
            for p in $(partitions_of "$line"); do current[$p]=1; done ;;
        "% Group "*" rebalanced: incremental revoke of "*)
            for p in $(partitions_of "$line"); do unset "current[$p]"; done ;;
        *) continue ;;
        esac
        now=$(printf '%s\n' "${!current[@]}" | sort -n | paste -sd, -)
        if [ -z "$shown" ] || [ "$now" != "$last" ]; then
            if [ -n "$now" ]; then echo "assigned $now"; else echo assigned; fi
        fi
        shown=1 last=$now
    done
}

records < "$work/out" &
out_pid=$!
rebalances < "$work/err" &
err_pid=$!

kcat "${props[@]}" -G "$group" -X "bucket.priority.bucket=$bucket" \
    -X auto.offset.reset=earliest "${extra[@]}" -u -f 'record %p %K %k\n' "$topic" \
    > "$work/out" 2> "$work/err" &
kcat_pid=$!
cat <&0 > /dev/null &
stdin_pid=$!

# Until kcat or stdin ends, polled: `wait -n` missed a kcat that had
# already exited (a refused configuration ends it at once) and waited for
# stdin instead, 30 s in client_kcat_kip848. Bash reaps its children as
# they exit, so kill -0 fails for one that ended.
while kill -0 "$kcat_pid" 2>/dev/null && kill -0 "$stdin_pid" 2>/dev/null; do
    sleep 0.05
done
if ! kill -0 "$kcat_pid" 2>/dev/null; then
    kill "$stdin_pid" 2>/dev/null      # kcat ended by itself
else
    kill -TERM "$kcat_pid"            # stdin closed: kcat closes its consumer
fi
wait "$kcat_pid"
status=$?
wait "$out_pid" "$err_pid"
if [ "$status" -gt 128 ] && [ "$status" -lt 160 ]; then
    die_like "$status"
fi
if [ "$status" -ne 0 ]; then
    err=$(creation_error)
    if [ -n "$err" ] && ! grep -q '^% Waiting for group rebalance' "$work/stderr"; then
        echo "error $err"
        exit 3
    fi
fi
exit "$status"
