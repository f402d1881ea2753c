#!/usr/bin/env bash
# test_deb.sh - tests the Debian packages as a user gets them (as root):
# lintian; no build-machine path in them; installed with apt/dpkg; then,
# from a scratch folder away from the source tree, a C program through
# pkg-config, a CMake project through find_package(BucketPriority),
# Debian's python3-confluent-kafka, kcat and the PyPI confluent-kafka
# wheel loading libbucketpriority by name (and from /usr/lib/<multiarch>) and routing on librdkafka's mock
# cluster, a python3-confluent-kafka consumer of the bucket list
# "Platinum, Gold" with bucket.priority.hold=queue from a config dict
# (list_queue.py: every record of both buckets read once, each partition
# in order, nothing of a third bucket, a clean close), bp-layout/bp-audit
# from /usr/bin and their man pages; last, dpkg --purge leaves no file
# behind. The packages are purged on any exit,
# since other tests load the plugin from the build tree.
# Usage: tests/packaging/test_deb.sh DIR_WITH_DEBS
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 DIR_WITH_DEBS" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "test_deb: needs root (dpkg -i)" >&2; exit 2; }
src=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(cd "$1" && pwd)
shopt -s nullglob
debs=("$dir"/*.deb)
[ ${#debs[@]} -gt 0 ] || { echo "test_deb: no .deb in $dir" >&2; exit 2; }
# What the checks use, from Debian (installed when missing).
need=()
for tool in lintian:lintian kcat:kcat man:man-db cc:gcc cmake:cmake \
            pkg-config:pkgconf readelf:binutils file:file; do
        command -v "${tool%%:*}" >/dev/null || need+=("${tool#*:}")
done
/usr/bin/python3 -c 'import confluent_kafka' 2>/dev/null || need+=(python3-confluent-kafka)
if [ ${#need[@]} -gt 0 ]; then
        echo "test_deb: installing ${need[*]}"
        apt-get install -y --no-install-recommends "${need[@]}" >/dev/null
fi
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
libdir=/usr/lib/$multiarch
# With merged /usr, the loader may name it /lib/<multiarch>: the same folder.
libdir_re="(/usr)?/lib/$multiarch"
pkgs=()
for f in "${debs[@]}"; do pkgs+=("$(dpkg-deb -f "$f" Package)"); done
# is_on PACKAGE: dpkg has it in any state but not-installed
is_on() {
        dpkg-query -W -f '${db:Status-Status}' "$1" 2>/dev/null |
                grep -Eq '^(installed|unpacked|half-installed|half-configured|triggers-awaited|triggers-pending|config-files)$'
}
for p in "${pkgs[@]}"; do
        if is_on "$p"; then
                echo "test_deb: $p is installed already; purge it first" >&2
                exit 2
        fi
done

work=$(mktemp -d /tmp/test-deb.XXXXXX)
pypid=
cleanup() {
        local installed=()
        [ -z "$pypid" ] || kill "$pypid" 2>/dev/null || true
        for p in "${pkgs[@]}"; do is_on "$p" && installed+=("$p"); done
        if [ ${#installed[@]} -gt 0 ]; then
                echo "test_deb: purging ${installed[*]}"
                dpkg --purge "${installed[@]}" >/dev/null || true
        fi
        rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok      $1"; }
bad() { failed=$((failed + 1)); echo "FAILED  $1"; }
check() { # description, command...
        local what=$1; shift
        if "$@"; then ok "$what"; else bad "$what"; fi
}

echo "== artefacts (name, bytes, sha256)"
for f in "${debs[@]}"; do
        printf '  %-45s %8s  %s\n' "$(basename "$f")" "$(stat -c %s "$f")" \
                "$(sha256sum "$f" | cut -d' ' -f1)"
done
version=$(dpkg-deb -f "${debs[0]}" Version)
upstream=${version%-*}
echo "== version $version (upstream $upstream)"

echo "== lintian (errors fail; warnings and overrides shown)"
for f in "${debs[@]}"; do
        if lintian --fail-on error "$f" >"$work/lintian.out" 2>&1; then
                ok "lintian $(basename "$f"): no error ($(grep -c '^W:' "$work/lintian.out" || true) warnings)"
        else
                bad "lintian $(basename "$f")"
        fi
        grep -E '^[EW]:' "$work/lintian.out" | sed 's/^/    /' || true
done

echo "== contents: no build-machine path, no RPATH/RUNPATH, stripped"
mkdir "$work/x"
for f in "${debs[@]}"; do dpkg-deb -x "$f" "$work/x"; done
check "no file names the source tree ($src)" \
        bash -c '! grep -rlF -- "$1" "$2"' _ "$src" "$work/x"
elfs=$(find "$work/x" -type f -exec sh -c 'head -c4 "$1" | grep -q ELF' _ {} \; -print)
[ -n "$elfs" ] || bad "ELF files found in the packages"
for e in $elfs; do
        rel=${e#"$work/x"}
        check "$rel: no RPATH/RUNPATH" bash -c '! readelf -d "$1" | grep -Eq "RPATH|RUNPATH"' _ "$e"
        check "$rel: stripped" bash -c 'file -b "$1" | grep -q ", stripped"' _ "$e"
done
check "the plugin in $libdir with its unversioned name" \
        test -L "$work/x$libdir/libbucketpriority.so"

echo "== install"
if ! apt-get install -y --no-install-recommends "${debs[@]}" >"$work/apt.log" 2>&1; then
        cat "$work/apt.log"
        bad "apt-get install the packages"
        echo "$passed passed, $failed failed"
        exit 1
fi
ok "apt-get install ${pkgs[*]}"
for p in "${pkgs[@]}"; do dpkg -L "$p" >"$work/files.$p"; done
check "ldconfig -p lists libbucketpriority.so.0 in $libdir" \
        bash -c 'ldconfig -p | grep -Eq "libbucketpriority\.so\.0 .*=> $1/libbucketpriority\.so\.0$"' _ "$libdir_re"

# Everything from here runs in the scratch folder, without LD_LIBRARY_PATH
# or PKG_CONFIG_PATH that could point at a build tree.
cd "$work"
unset LD_LIBRARY_PATH PKG_CONFIG_PATH LD_PRELOAD CMAKE_PREFIX_PATH

echo "== C program through pkg-config"
cp "$src/tests/packaging/installed_app.c" app.c
if cc app.c $(pkg-config --cflags --libs bucketpriority) -o app-pc 2>cc.log; then
        ok "cc app.c \$(pkg-config --cflags --libs bucketpriority)"
        shown=$(./app-pc) || true
        check "bp_version() = BP_VERSION_STR = pkg-config --modversion = $upstream" \
                test "$shown" = "$(pkg-config --modversion bucketpriority)" -a "$shown" = "$upstream"
else
        cat cc.log; bad "cc with pkg-config"
fi

echo "== CMake project with find_package(BucketPriority)"
mkdir cm
cp app.c cm/
cat >cm/CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.16)
project(app C)
find_package(BucketPriority 0.1 REQUIRED)
add_executable(app app.c)
target_link_libraries(app PRIVATE BucketPriority::bucketpriority)
CM
if cmake -S cm -B cm/build >cm.log 2>&1 && cmake --build cm/build >>cm.log 2>&1; then
        ok "cmake find_package(BucketPriority) and build"
        check "the CMake-built program runs ($upstream)" test "$(cm/build/app)" = "$upstream"
else
        cat cm.log; bad "cmake find_package(BucketPriority)"
fi

echo "== Debian python3-confluent-kafka on the mock cluster"
cat >produce.py <<'PY'
# Produces 20 Platinum-<tag>N and 20 Gold-<tag>N records to "orders"
# through the plugin loaded by its bare name, then prints each key's
# partition ("routed KEY P") and the plugin file mapped ("plugin PATH").
# Usage: python3 produce.py BOOTSTRAP TAG, or produce.produce() from mock.py.
import sys
import confluent_kafka

def produce(bootstrap, tag):
    got = {}
    def report(e, m):
        got[m.key().decode()] = "error" if e else m.partition()
    p = confluent_kafka.Producer({
        "bootstrap.servers": bootstrap,
        "plugin.library.paths": "libbucketpriority",
        "bucket.priority.topic": "orders",
        "bucket.priority.buckets": "Platinum, Gold",
        "bucket.priority.allocation": "70%, 30%"})
    for i in range(20):
        for b in ("Platinum", "Gold"):
            p.produce("orders", key="%s-%s%d" % (b, tag, i), value=b"v",
                      on_delivery=report)
    p.flush(30)
    for k in sorted(got):
        print("routed", k, got[k])
    with open("/proc/self/maps") as maps:
        for path in sorted({l.split()[-1] for l in maps if "libbucketpriority" in l}):
            print("plugin", path)
    sys.stdout.flush()

if __name__ == "__main__":
    produce(sys.argv[1], sys.argv[2])
PY
cp "$src/tests/packaging/mock_host.py" mock_host.py
cat >mock.py <<'PY'
# Hosts librdkafka's mock cluster (orders: 6 partitions) in the librdkafka
# confluent_kafka runs on, routes keys through the plugin loaded by name,
# reads them back with a Gold consumer, prints the bootstrap, the routing,
# what the consumer got and the plugin's path, then serves the cluster (for
# kcat) until stdin closes.
import os, sys, time
import confluent_kafka

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mock_host import mock_cluster  # copied next to this file

keep, bootstrap = mock_cluster("orders", 6)
print("bootstrap", bootstrap, flush=True)

import produce
produce.produce(bootstrap, "")
# The consumer quick start (README.md), by name: in group orders-app.Gold,
# assigned Gold's partitions 4-5 only, reading the 20 Gold records.
c = confluent_kafka.Consumer({
    "bootstrap.servers": bootstrap,
    "plugin.library.paths": "libbucketpriority",
    "bucket.priority.bucket": "Gold",
    "bucket.priority.topic": "orders",
    "bucket.priority.buckets": "Platinum, Gold",
    "bucket.priority.allocation": "70%, 30%",
    "group.id": "orders-app",
    "auto.offset.reset": "earliest"})
assigned, read = set(), []
c.subscribe(["orders"],
            on_assign=lambda cons, ps: assigned.update(p.partition for p in ps))
deadline = time.time() + 30
while time.time() < deadline and len(read) < 20:
    m = c.poll(0.5)
    if m is not None and not m.error():
        read.append(m.partition())
for _ in range(4):  # anything more than the 20 would show here
    m = c.poll(0.5)
    if m is not None and not m.error():
        read.append(m.partition())
print("consumer assigned", ",".join(map(str, sorted(assigned))))
print("consumer read", len(read), ",".join(map(str, sorted(set(read)))))
c.close()
try:
    confluent_kafka.Producer({"plugin.library.paths": "libbucketpriority",
                              "bucket.priority.allocation": "70, 20"})
    print("refused no")
except confluent_kafka.KafkaException as e:
    print("refused", "bucket.priority.allocation" in str(e))
print("ready", flush=True)
sys.stdin.read()
PY
# routes FILE: every "routed KEY P" line has Platinum keys on 0-3 and Gold on 4-5
routes_ok() {
        awk '$1 == "routed" { n++; split($2, k, "-");
                if (k[1] == "Platinum" && $3 ~ /^[0-3]$/) good++;
                else if (k[1] == "Gold" && $3 ~ /^[45]$/) good++;
                else print "    misrouted:", $0 }
             END { exit !(n == 40 && good == n) }' "$1"
}
mkfifo py.in
/usr/bin/python3 mock.py <py.in >py.out 2>py.err &
pypid=$!
exec 7>py.in
for _ in $(seq 100); do grep -q '^ready' py.out && break; sleep 0.2; done
bootstrap=$(awk '$1 == "bootstrap" { print $2 }' py.out)
check "python3: 40 records routed (Platinum-* on 0-3, Gold-* on 4-5)" routes_ok py.out
check "python3: the plugin mapped from $libdir only" \
        bash -c 'grep "^plugin " "$1" | grep -q . && ! grep "^plugin " "$1" | grep -Ev " $2/libbucketpriority\.so"' _ py.out "$libdir_re"
check "python3: a bad allocation refused with the property's name" grep -qx 'refused True' py.out
check "python3: a Gold consumer by name is assigned 4,5 only and reads the 20 Gold records there" \
        bash -c 'grep -qx "consumer assigned 4,5" "$1" && grep -qx "consumer read 20 4,5" "$1" || { grep "^consumer" "$1"; false; }' _ py.out

echo "== kcat on the same mock cluster ($bootstrap)"
if [ -n "$bootstrap" ]; then
        for i in $(seq 0 19); do printf 'Platinum-k%d:v\nGold-k%d:v\n' "$i" "$i"; done >keys.txt
        LD_DEBUG=libs kcat -P -b "$bootstrap" -t orders -K: \
                -X plugin.library.paths=libbucketpriority \
                -X bucket.priority.topic=orders \
                -X "bucket.priority.buckets=Platinum, Gold" \
                -X "bucket.priority.allocation=70%, 30%" <keys.txt 2>kcat.err ||
                { grep -v '^ *[0-9]*:' kcat.err; bad "kcat -P with the plugin"; }
        check "kcat: the plugin loaded from $libdir (LD_DEBUG=libs)" \
                grep -Eq "calling init: $libdir_re/libbucketpriority\.so" kcat.err
        check "kcat: no other libbucketpriority loaded" \
                bash -c '! grep "calling init: .*libbucketpriority" "$1" | grep -Ev "init: $2/"' _ kcat.err "$libdir_re"
        # read back without the plugin; kcat's keys end -kN (python's -N)
        kcat -C -b "$bootstrap" -t orders -e -q -f 'routed %k %p\n' 2>/dev/null |
                grep -- '-k[0-9]' >kcat.out || true
        check "kcat: 40 records routed (Platinum-* on 0-3, Gold-* on 4-5)" routes_ok kcat.out
        echo "== the PyPI confluent-kafka wheel on the same mock cluster"
        # Its own librdkafka, looking a bare name up through the system
        # loader: the package's ldconfig cache entry is what it finds.
        if wheel_python=$("$src/tests/clients/prepare-wheel.sh"); then
                "$wheel_python" -I produce.py "$bootstrap" w >wheel.out 2>wheel.err ||
                        bad "the wheel's producer: $(tail -3 wheel.err)"
                check "PyPI wheel: 40 records routed by the plugin loaded by name" routes_ok wheel.out
                check "PyPI wheel: the plugin mapped from $libdir only" \
                        bash -c 'grep "^plugin " "$1" | grep -q . && ! grep "^plugin " "$1" | grep -Ev " $2/libbucketpriority\.so"' _ wheel.out "$libdir_re"
        else
                bad "a venv with the PyPI confluent-kafka wheel (tests/clients/prepare-wheel.sh)"
        fi
else
        bad "the mock cluster's bootstrap (python3: $(tail -3 py.err))"
fi
exec 7>&-
wait "$pypid" || bad "python3 mock.py exited with an error: $(tail -3 py.err)"

echo "== Debian python3-confluent-kafka: a consumer of a bucket list, hold=queue"
# tests/packaging/list_queue.py on a mock cluster of its own: "Platinum,
# Gold" of "Platinum, Gold, Silver", bucket.priority.hold=queue set in the
# config dict, the plugin loaded by name. Its figures are shown.
cp "$src/tests/packaging/list_queue.py" list_queue.py
check "python3: a consumer of \"Platinum, Gold\" with hold=queue (plugin by name) reads every record of both buckets once, each partition in order, no Silver, closes" \
        bash -c 'timeout 120 /usr/bin/python3 -I list_queue.py plain libbucketpriority >list_queue.out 2>&1
                 rc=$?; sed "s/^/    /" list_queue.out | tail -20; [ $rc -eq 0 ]'
check "python3 list consumer: the plugin mapped from $libdir only" \
        bash -c 'grep "^plugin " "$1" | grep -q . && ! grep "^plugin " "$1" | grep -Ev " $2/libbucketpriority\.so"' _ list_queue.out "$libdir_re"

echo "== bp-layout and bp-audit from /usr/bin, man pages"
check "command -v bp-layout is /usr/bin/bp-layout" test "$(command -v bp-layout)" = /usr/bin/bp-layout
check "bp-layout prints Platinum 0-3, Gold 4-5" bash -c \
        'out=$(/usr/bin/bp-layout --buckets "Platinum, Gold" --allocation "70%, 30%" --partitions 6) &&
         grep -Eq "Platinum .* 0-3$" <<<"$out" && grep -Eq "Gold .* 4-5$" <<<"$out"'
check "bp-layout --version is 'bp-layout $upstream'" \
        test "$(/usr/bin/bp-layout --version)" = "bp-layout $upstream"
check "bp-audit --help names --config" bash -c '/usr/bin/bp-audit --help | grep -q -- "--config app.properties"'
check "bp-audit --version starts 'bp-audit $upstream'" \
        bash -c '/usr/bin/bp-audit --version | grep -q "^bp-audit $1\b"' _ "$upstream"
for page in bp-layout bp-audit; do
        check "man page $page(1) installed" \
                test -f "/usr/share/man/man1/$page.1.gz"
        if command -v man >/dev/null; then
                check "man -w $page finds it" test "$(man -w "$page" 2>/dev/null)" = "/usr/share/man/man1/$page.1.gz"
        fi
done

echo "== dpkg --purge leaves nothing behind"
dpkg --purge "${pkgs[@]}" >"$work/purge.log" 2>&1 || { cat "$work/purge.log"; bad "dpkg --purge"; }
left=$(cat "$work"/files.* | sort -u | while read -r f; do
        # shared directories (/usr/lib, ...) stay; ours must go
        if [ -d "$f" ]; then
                case $f in *ucket*riority*|*bucketpriority*) echo "$f" ;; esac
        elif [ -e "$f" ] || [ -L "$f" ]; then echo "$f"; fi
done)
check "no file of the packages is left" test -z "$left"
[ -z "$left" ] || sed 's/^/    left: /' <<<"$left"
check "ldconfig -p no longer lists libbucketpriority" bash -c '! ldconfig -p | grep -q libbucketpriority'

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
