#!/usr/bin/env bash
# test_wheel.sh - tests the built Python wheel as a user gets it:
#
#   tests/packaging/test_wheel.sh dist/bucket_priority-*.whl
#
# Installs the wheel into a fresh venv in a temporary directory (pip pulls
# the PyPI confluent-kafka wheel), and runs everything from there, with the
# source tree and its build folder out of reach: the README's producer and
# consumer quick starts through the bucket_priority helpers on librdkafka's
# mock cluster, a consumer of the bucket list "Platinum, Gold" with
# bucket.priority.hold=queue through the helpers (list_queue.py: every
# record of both buckets read once, each partition in order, nothing of a
# third bucket, a clean close), the helpers' refusal of a bad value,
# bp-layout and bp-audit from the venv, auditwheel's tag, the same plugin
# file in Debian's python3-confluent-kafka (the quick starts and the list
# consumer), and the artefact itself (no RPATH, no path of the build
# machine, its size). Needs PyPI (pip's cache is used) and, for the Debian
# checks, /usr/bin/python3 with python3-confluent-kafka.
set -euo pipefail

if [ $# -ne 1 ] || [ ! -f "$1" ]; then
    echo "usage: $0 WHEEL_FILE" >&2
    exit 2
fi
wheel=$(readlink -f "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)   # only to check it is out of reach
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bp-test-wheel.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
unset PYTHONPATH PYTHONHOME PYTHONSTARTUP PYTHONUSERBASE VIRTUAL_ENV

passed=0
failed=0
# check DESCRIPTION COMMAND...: runs it, prints ok or FAIL and its output.
check() {
    local what=$1
    shift
    if "$@" >"$tmp/out" 2>&1; then
        echo "ok   $what"
        sed 's/^/     | /' "$tmp/out" | tail -12
        passed=$((passed + 1))
    else
        echo "FAIL $what"
        sed 's/^/     | /' "$tmp/out" | tail -40
        failed=$((failed + 1))
    fi
}

echo "wheel: $(basename "$wheel")"
echo "size:  $(stat -c %s "$wheel") bytes"
echo "sha256: $(sha256sum "$wheel" | cut -d' ' -f1)"

base_python=/usr/bin/python3
[ -x "$base_python" ] || base_python=$(command -v python3)
"$base_python" -m venv "$tmp/venv"
py=(/usr/bin/env -u PYTHONPATH "$tmp/venv/bin/python" -I)
echo "installing into a fresh venv ($("${py[@]}" -c 'import sys; print(sys.version.split()[0])'))"
"${py[@]}" -m pip install --quiet --disable-pip-version-check "$wheel"
"${py[@]}" -c 'import confluent_kafka as c, bucket_priority as b; print("confluent-kafka", c.version()[0] if isinstance(c.version(), tuple) else c.version(), "librdkafka", c.libversion()[0], "bucket-priority", b.__version__)'

# The quick starts of the README, as one script for both Pythons:
#   quickstart.py helpers             through bucket_priority's helpers
#   quickstart.py plain PLUGIN_PATH   the README's properties, by path
cp "$root/tests/packaging/mock_host.py" "$tmp/mock_host.py"
cat >"$tmp/quickstart.py" <<'EOF'
"""The README's producer and consumer quick starts on librdkafka's mock
cluster (hosted through ctypes in the librdkafka confluent_kafka runs on):
6 partitions, Platinum, Gold = 70%, 30%."""
import os
import sys
import time

import confluent_kafka
from confluent_kafka import Consumer, Producer, TopicPartition

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mock_host import mock_cluster  # noqa: E402 (copied next to this file)

TOPIC, GROUP = "orders", "orders-app"
mode = sys.argv[1]


if mode == "helpers":
    import bucket_priority
    producer_conf = bucket_priority.producer_properties(
        TOPIC, ["Platinum", "Gold"], ["70%", "30%"])
    consumer_conf = bucket_priority.consumer_properties(
        TOPIC, "Platinum, Gold", "70%, 30%", bucket="Gold")
    assert list(producer_conf)[0] == "plugin.library.paths"
    assert producer_conf["plugin.library.paths"] == bucket_priority.library_path()
else:
    plugin = sys.argv[2]
    common = {"plugin.library.paths": plugin,
              "bucket.priority.topic": TOPIC,
              "bucket.priority.buckets": "Platinum, Gold",
              "bucket.priority.allocation": "70%, 30%"}
    producer_conf = dict(common)
    consumer_conf = {"plugin.library.paths": plugin, "bucket.priority.bucket": "Gold"}
    consumer_conf.update(common)

keep, bootstrap = mock_cluster(TOPIC, 6)
print("librdkafka %s, mock cluster %s" % (confluent_kafka.libversion()[0], bootstrap))

# Producer quick start: where each key lands, from the delivery reports.
producer_conf.update({"bootstrap.servers": bootstrap, "log_level": "4"})
producer = Producer(producer_conf)
landed = {"Platinum": set(), "Gold": set()}
errors = []


def report(err, msg):
    if err is not None:
        errors.append(str(err))
    else:
        landed[msg.key().decode().split("-")[0]].add(msg.partition())


for i in range(24):
    for bucket in ("Platinum", "Gold"):
        producer.produce(TOPIC, key="%s-%d" % (bucket, 1000 + i), value=b"x",
                         on_delivery=report)
assert producer.flush(30) == 0, "records left unsent"
assert not errors, errors
print("producer: Platinum -> %s, Gold -> %s" % (sorted(landed["Platinum"]), sorted(landed["Gold"])))
assert landed["Platinum"] == {0, 1, 2, 3}, landed
assert landed["Gold"] == {4, 5}, landed

# Consumer quick start: a Gold consumer in group orders-app.
consumer_conf.update({"bootstrap.servers": bootstrap, "group.id": GROUP,
                      "auto.offset.reset": "earliest", "log_level": "4",
                      "enable.auto.commit": "false"})
consumer = Consumer(consumer_conf)
assigned = []
consumer.subscribe([TOPIC], on_assign=lambda c, ps: assigned.append(
    sorted(tp.partition for tp in ps if tp.topic == TOPIC)))
read = []
deadline = time.time() + 60
while len(read) < 24 and time.time() < deadline:
    msg = consumer.poll(0.5)
    if msg is None or msg.error():
        continue
    read.append((msg.partition(), msg.key().decode()))
consumer.commit(asynchronous=False)
consumer.close()
print("consumer: assignments %s, %d records from partitions %s" % (
    assigned, len(read), sorted({p for p, _ in read})))
assert assigned and assigned[-1] == [4, 5], assigned
assert len(read) == 24 and all(p in (4, 5) and k.startswith("Gold-") for p, k in read), read

# The group it committed in: orders-app.Gold, not orders-app.
def committed(group):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group})
    offsets = c.committed([TopicPartition(TOPIC, 4), TopicPartition(TOPIC, 5)], timeout=20)
    c.close()
    return sum(max(tp.offset, 0) for tp in offsets)


in_bucket_group, in_plain_group = committed(GROUP + ".Gold"), committed(GROUP)
print("committed offsets: %s.Gold %d, %s %d" % (GROUP, in_bucket_group, GROUP, in_plain_group))
assert in_bucket_group == 24 and in_plain_group == 0
print("quick starts routed and read as the README says")
EOF

# Out of reach: the module comes from the venv, nothing from the source tree.
check "bucket_priority imported from the venv, source tree not on sys.path" \
    "${py[@]}" -c "
import sys, bucket_priority
root, venv = sys.argv[1], sys.argv[2]
assert bucket_priority.__file__.startswith(venv), bucket_priority.__file__
assert not [p for p in sys.path if p.startswith(root)], sys.path
print(bucket_priority.__file__)" "$root" "$tmp/venv"

check "README producer and consumer quick starts via the helpers (wheel confluent-kafka, mock cluster)" \
    timeout 120 "${py[@]}" "$tmp/quickstart.py" helpers

# A consumer of a bucket list holding lower buckets in queues
# (bucket.priority.hold=queue, set explicitly): tests/packaging/list_queue.py,
# copied next to the quick starts (it imports nothing from the source tree).
cp "$root/tests/packaging/list_queue.py" "$tmp/list_queue.py"
check "a consumer of \"Platinum, Gold\" with hold=queue via the helpers reads every record of both buckets once, each partition in order, no Silver, closes (wheel confluent-kafka, mock cluster)" \
    timeout 120 "${py[@]}" "$tmp/list_queue.py" helpers
check "the same with schedule=weighted and the hold left out (queue, its default): every record read, Gold (the lowest bucket) never paused, no Silver (wheel confluent-kafka, mock cluster)" \
    env LIST_SCHEDULE=weighted timeout 120 "${py[@]}" "$tmp/list_queue.py" helpers

check "helper refuses allocation \"70%, 20%\" with ConfigError naming the property" \
    "${py[@]}" -c "
import bucket_priority
try:
    bucket_priority.producer_properties('orders', 'Platinum, Gold', '70%, 20%')
except bucket_priority.ConfigError as e:
    print('ConfigError:', e)
    assert isinstance(e, ValueError)
    assert 'bucket.priority.allocation' in str(e) and '70%, 20%' in str(e), e
    assert e.property == 'bucket.priority.allocation'
else:
    raise SystemExit('accepted a bad allocation')
try:
    bucket_priority.consumer_properties('orders', 'Platinum, Gold', '70%, 30%', bucket='Silver')
except bucket_priority.ConfigError as e:
    print('ConfigError:', e)
    assert 'bucket.priority.bucket' in str(e), e
else:
    raise SystemExit('accepted an unknown bucket')"

check "helper maps options (layout=stable, fallback_partitioner=discard) and types (py.typed)" \
    "${py[@]}" -c "
import os, bucket_priority as b
p = b.producer_properties('orders', 'Platinum, Gold', [70, 30], layout='stable', fallback_partitioner='discard')
assert p['bucket.priority.layout'] == 'stable' and p['bucket.priority.fallback.partitioner'] == 'discard', p
assert p['bucket.priority.allocation'] == '70, 30', p
assert os.path.isfile(os.path.join(os.path.dirname(b.__file__), 'py.typed'))
assert os.path.isabs(b.library_path()) and os.path.isfile(b.library_path())
print(p)"

check "bp-layout from the venv's bin prints the README's layout" \
    bash -c '"$1" --buckets "Platinum, Gold" --allocation "70%, 30%" --partitions 6 | tee /dev/stderr |
             grep -Eq "Platinum +70% +4 +0-3" && "$1" --buckets "Platinum, Gold" --allocation "70%, 30%" --partitions 6 |
             grep -Eq "Gold +30% +2 +4-5"' _ "$tmp/venv/bin/bp-layout"

check "bp-audit --help from the venv's bin" \
    bash -c '"$1" --help | tee /dev/stderr | grep -q "bp-audit --config"' _ "$tmp/venv/bin/bp-audit"

cat >"$tmp/scram.properties" <<'EOF'
bootstrap.servers=127.0.0.1:9
security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.username=alice
sasl.password=secret
bucket.priority.topic=orders
bucket.priority.buckets=Platinum, Gold
bucket.priority.allocation=70%, 30%
EOF
check "bp-audit with a SCRAM-SHA-512 config tries to connect (exit 3: not checked, broker down)" \
    bash -c 'set +e; "$1" --config "$2" --timeout 1500 2>&1; rc=$?; echo "exit $rc"; [ $rc -eq 3 ]' \
    _ "$tmp/venv/bin/bp-audit" "$tmp/scram.properties"

# A real SCRAM-SHA-512 login, on the secured broker tests/run-all.sh keeps
# up for the suite (BP_SECURE_BROKER_DIR): with the right password the
# broker answers the topic lookup (exit 2, no such topic: authenticated),
# with a wrong one bp-audit says authentication failed (exit 3). Debian's
# librdkafka 2.0.2 fails the first too (docs/security.md).
secure_json="${BP_SECURE_BROKER_DIR:-/nonexistent}/secure/secure.json"
if [ -f "$secure_json" ]; then
    "${py[@]}" - "$secure_json" "$tmp" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for name, password in (("right", j["users"]["admin"]), ("wrong", "wrong-password")):
    with open("%s/scram-%s.properties" % (sys.argv[2], name), "w") as f:
        f.write("bootstrap.servers=%s\nsecurity.protocol=SASL_SSL\n"
                "ssl.ca.location=%s\nsasl.mechanisms=SCRAM-SHA-512\n"
                "sasl.username=admin\nsasl.password=%s\n"
                "bucket.priority.topic=bp-wheel-no-such-topic\n"
                "bucket.priority.buckets=Platinum, Gold\n"
                "bucket.priority.allocation=70%%, 30%%\n"
                % (j["bootstrap"], j["ca"], password))
PY
    check "bp-audit authenticates with SCRAM-SHA-512 to the secured Kafka 4.4 (exit 2: the broker answered, no such topic)" \
        bash -c 'set +e; "$1" --config "$2" --timeout 10000 2>&1; rc=$?; echo "exit $rc"; [ $rc -eq 2 ]' \
        _ "$tmp/venv/bin/bp-audit" "$tmp/scram-right.properties"
    check "bp-audit with a wrong SCRAM password: authentication failed (exit 3)" \
        bash -c 'set +e; out=$("$1" --config "$2" --timeout 10000 2>&1); rc=$?; echo "$out"; echo "exit $rc";
                 [ $rc -eq 3 ] && echo "$out" | grep -q "authentication failed"' \
        _ "$tmp/venv/bin/bp-audit" "$tmp/scram-wrong.properties"
    rm -f "$tmp"/scram-*.properties
else
    echo "skip a real SCRAM login: no secured broker (BP_SECURE_BROKER_DIR; tests/run-all.sh starts one)"
fi

# auditwheel from the build's tool venv, or a throwaway one.
auditwheel="${XDG_CACHE_HOME:-$HOME/.cache}/bucket-priority/wheel-tools/bin/auditwheel"
if [ ! -x "$auditwheel" ]; then
    "$base_python" -m venv "$tmp/tools"
    "$tmp/tools/bin/python" -m pip install --quiet --disable-pip-version-check auditwheel
    auditwheel="$tmp/tools/bin/auditwheel"
fi
# auditwheel_tag_ok: auditwheel show names manylinux_2_N with N <= 28.
auditwheel_tag_ok() {
    local shown tag
    shown=$("$auditwheel" show "$wheel" | tr -s " \n" " ")
    echo "$shown"
    tag=$(grep -Eo 'consistent with the following platform tag: "manylinux_2_[0-9]+_[a-z0-9_]+"' <<<"$shown" |
          grep -Eo 'manylinux_2_[0-9]+_[a-z0-9_]+') || return 1
    echo "tag: $tag"
    [ "$(cut -d_ -f3 <<<"$tag")" -le 28 ] && [[ "$(basename "$wheel")" == *"$tag"* ]]
}
check "auditwheel show names a manylinux tag of glibc 2.28 or older, the wheel's own" auditwheel_tag_ok

plugin=$("${py[@]}" -c 'import bucket_priority; print(bucket_priority.library_path())')
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -I -c 'import confluent_kafka' 2>/dev/null; then
    check "the wheel's plugin in Debian's python3-confluent-kafka $(/usr/bin/python3 -I -c 'import confluent_kafka as c; print(c.version()[0])') routes and reads (mock cluster)" \
        timeout 120 /usr/bin/env -u PYTHONPATH /usr/bin/python3 -I "$tmp/quickstart.py" plain "$plugin"
    check "the wheel's plugin in Debian's python3-confluent-kafka: a consumer of \"Platinum, Gold\" with hold=queue from a config dict reads both buckets, in order, no Silver, closes (mock cluster)" \
        timeout 120 /usr/bin/env -u PYTHONPATH /usr/bin/python3 -I "$tmp/list_queue.py" plain "$plugin"
else
    echo "FAIL Debian's /usr/bin/python3 with python3-confluent-kafka is not installed"
    failed=$((failed + 1))
fi

mkdir "$tmp/unpacked"
(cd "$tmp/unpacked" && "${py[@]}" -m zipfile -e "$wheel" .)
check "no RPATH or RUNPATH in the wheel's ELF files" \
    bash -c 'cd "$1"; n=0; for f in $(find . -type f); do
                 head -c4 "$f" | grep -q ELF || continue; n=$((n + 1))
                 echo "$f: $(readelf -d "$f" | grep -E "NEEDED" | grep -Eo "\[.*\]" | tr "\n" " ")"
                 if readelf -d "$f" | grep -Eq "RPATH|RUNPATH"; then echo "  has an RPATH"; exit 1; fi
             done; [ $n -eq 3 ]' _ "$tmp/unpacked"
check "no path of the build machine in the wheel ($root, its build/, \$HOME)" \
    bash -c 'cd "$1"; ! grep -rlaF -e "$2" -e "$2/build" -e "$3/" . ' _ "$tmp/unpacked" "$root" "$HOME"
check "no librdkafka in the wheel, the plugin and bp-audit library need none" \
    bash -c 'cd "$1"; ! find . -name "librdkafka*" | grep . &&
             ! readelf -d bucket_priority/lib/*.so | grep -q "librdkafka"' _ "$tmp/unpacked"

echo "wheel size $(stat -c %s "$wheel") bytes; unpacked:"
(cd "$tmp/unpacked" && find bucket_priority -type f -printf '  %8s %p\n' | sort -k2)
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
