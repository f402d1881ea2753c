"""list_queue.py - a consumer of a bucket list with bucket.priority.hold=queue,
from an installed package, on librdkafka's mock cluster (hosted through
ctypes in the librdkafka confluent_kafka runs on). Used by test_wheel.sh
(the wheel's venv, the bucket_priority helpers) and test_deb.sh (Debian's
python3-confluent-kafka, the plugin loaded by name from the .deb):

  list_queue.py helpers          plugin path and checked values from the
                                 bucket_priority helpers (the wheel)
  list_queue.py plain PLUGIN     the properties written by hand, PLUGIN as
                                 plugin.library.paths (a name or a path)

  LIST_SCHEDULE=weighted in the environment runs the weighted schedule
  instead of strict (set explicitly), with bucket.priority.hold left out:
  queue, its default.

Topic "orders", 10 partitions, "Platinum, Gold, Silver" = "50%, 30%, 20%"
(contiguous: Platinum 0-4, Gold 5-7, Silver 8-9). A producer loading the
plugin writes 100 Platinum, 300 Gold and 100 Silver records; the consumer
of "Platinum, Gold" (strict with hold=queue, or weighted), configured by a
config dict, starts on them, and after its first record the producer
writes 100 Platinum, 100 Gold and 50 Silver more. The consumer reads until
it has every Platinum and Gold record, polls 2 s more, commits, closes.

Asserted: every record routed to its bucket's partitions; the consumer
assigned partitions 0-7; every Platinum and Gold record read exactly once
(none lost, none twice), each partition's records in offset order, no
record of a Silver partition or of a key of another bucket; the plugin's
statistics (bp_consumer_bucket_stats through ctypes): Platinum and Gold
delivered as read, Silver 0, no bucket ever paused (hold=queue pauses
nothing); the plugin logged that lower buckets wait in queues; close()
returned within 10 s, and group orders-app.Platinum+Gold committed the end
of every Platinum and Gold partition and nothing on Silver's. Prints one
line per figure, "plugin PATH" for each plugin file mapped, and
"list consumer ok" last. Exits non-zero on the first failed assertion.

Weighted: Platinum, ahead of its share while Gold waits, may be paused
(Gold, the lowest bucket, never is), and a record being delivered as its
partition is paused may come again (at least once): a record read twice is
allowed there only as a re-read of a Platinum partition, with Platinum
paused; nothing lost, none foreign, as above.
"""
import ctypes
import os
import sys
import tempfile
import time

import confluent_kafka
from confluent_kafka import Consumer, Producer, TopicPartition

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mock_host import mock_cluster  # noqa: E402 (copied next to this file)

TOPIC, GROUP, PARTITIONS = "orders", "orders-app", 10
BUCKETS, ALLOCATION = "Platinum, Gold, Silver", "50%, 30%, 20%"
LIST = "Platinum, Gold"
OWNER = {p: "Platinum" for p in range(0, 5)}
OWNER.update({p: "Gold" for p in range(5, 8)})
OWNER.update({p: "Silver" for p in range(8, 10)})
LISTED = ("Platinum", "Gold")
BEFORE = {"Platinum": 100, "Gold": 300, "Silver": 100}
DURING = {"Platinum": 100, "Gold": 100, "Silver": 50}
mode = sys.argv[1]
SCHEDULE = os.environ.get("LIST_SCHEDULE", "strict")
assert SCHEDULE in ("strict", "weighted"), SCHEDULE


class BucketStats(ctypes.Structure):
    """bp_consumer_bucket_stats_t (include/bucket_priority.h)."""
    _fields_ = [("name", ctypes.c_char_p), ("rank", ctypes.c_int),
                ("delivered", ctypes.c_uint64), ("lag", ctypes.c_int64),
                ("lag_unknown", ctypes.c_int32), ("partitions", ctypes.c_int32),
                ("paused", ctypes.c_int), ("pauses", ctypes.c_uint64),
                ("paused_ms", ctypes.c_uint64)]


def plugin_paths():
    with open("/proc/self/maps") as maps:
        return sorted({l.split()[-1] for l in maps if "libbucketpriority" in l})


def bucket_stats(consumer):
    """{bucket: (delivered, pauses)} from the plugin loaded by the client:
    ctypes opens the same file (one copy, one state). The client's
    rd_kafka_t is the first field after the object header of
    confluent-kafka's Handle; the plugin looks it up in its table and
    answers -1 for a pointer it does not know."""
    paths = plugin_paths()
    assert len(paths) == 1, "plugin files mapped: %s" % paths
    lib = ctypes.CDLL(paths[0])
    lib.bp_consumer_bucket_stats.argtypes = [ctypes.c_void_p, ctypes.c_int,
                                             ctypes.POINTER(BucketStats)]
    lib.bp_consumer_bucket_stats.restype = ctypes.c_int
    rk = ctypes.c_void_p.from_address(id(consumer) + object.__basicsize__).value
    got, st = {}, BucketStats()
    while lib.bp_consumer_bucket_stats(rk, len(got), ctypes.byref(st)) == 0:
        got[st.name.decode()] = (st.delivered, st.pauses)
    assert got, "bp_consumer_bucket_stats() does not know this consumer"
    return got


if mode == "helpers":
    import bucket_priority
    producer_conf = bucket_priority.producer_properties(TOPIC, BUCKETS, ALLOCATION)
    consumer_conf = bucket_priority.consumer_properties(
        TOPIC, BUCKETS, ALLOCATION, bucket=LIST, schedule=SCHEDULE,
        **({"hold": "queue"} if SCHEDULE == "strict" else {}))
else:
    plugin = sys.argv[2]
    common = {"plugin.library.paths": plugin,
              "bucket.priority.topic": TOPIC,
              "bucket.priority.buckets": BUCKETS,
              "bucket.priority.allocation": ALLOCATION}
    producer_conf = dict(common)
    consumer_conf = {"plugin.library.paths": plugin,
                     "bucket.priority.bucket": LIST,
                     "bucket.priority.topic": TOPIC,
                     "bucket.priority.buckets": BUCKETS,
                     "bucket.priority.allocation": ALLOCATION,
                     "bucket.priority.schedule": SCHEDULE}
    if SCHEDULE == "strict":
        consumer_conf["bucket.priority.hold"] = "queue"
assert consumer_conf.get("bucket.priority.hold") == \
    ("queue" if SCHEDULE == "strict" else None), consumer_conf
assert consumer_conf["bucket.priority.bucket"] == LIST, consumer_conf

delivered = {}   # (partition, offset) -> key
errors = []


def report(err, msg):
    if err is not None:
        errors.append(str(err))
    else:
        delivered[(msg.partition(), msg.offset())] = msg.key().decode()


def produce(counts, first):
    for b, n in counts.items():
        for i in range(first, first + n):
            producer.produce(TOPIC, key="%s-%d" % (b, i), value=b"x", on_delivery=report)
    assert producer.flush(30) == 0, "records left unsent"
    assert not errors, errors


# The plugin logs to the process's stderr (fd 2): kept in a file to be
# searched, and shown again at the end.
log_file = tempfile.TemporaryFile()
saved_stderr = os.dup(2)
os.dup2(log_file.fileno(), 2)

try:
    keep, bootstrap = mock_cluster(TOPIC, PARTITIONS)
    print("librdkafka %s, mock cluster %s" % (confluent_kafka.libversion()[0], bootstrap))

    producer_conf.update({"bootstrap.servers": bootstrap, "linger.ms": 5})
    producer = Producer(producer_conf)
    produce(BEFORE, 0)
    consumer_conf.update({"bootstrap.servers": bootstrap, "group.id": GROUP,
                          "auto.offset.reset": "earliest", "enable.auto.commit": False})
    consumer = Consumer(consumer_conf)
    assigned = []
    consumer.subscribe([TOPIC], on_assign=lambda c, ps: assigned.append(
        sorted(tp.partition for tp in ps if tp.topic == TOPIC)))
    want = sum(BEFORE[b] + DURING[b] for b in LISTED)
    reads = []       # (partition, offset, key) in the order poll returned them
    deadline = time.time() + 60
    while len(reads) < want and time.time() < deadline:
        msg = consumer.poll(0.2)
        if msg is None or msg.error():
            continue
        reads.append((msg.partition(), msg.offset(), msg.key().decode()))
        if len(reads) == 1:
            produce(DURING, 1000)
    end = time.time() + 2   # anything beyond what was produced would come here
    while time.time() < end:
        msg = consumer.poll(0.2)
        if msg is not None and not msg.error():
            reads.append((msg.partition(), msg.offset(), msg.key().decode()))
    stats = bucket_stats(consumer)
    consumer.commit(asynchronous=False)
    t0 = time.time()
    consumer.close()
    close_s = time.time() - t0
    mapped = plugin_paths()
finally:
    os.dup2(saved_stderr, 2)
    log_file.seek(0)
    log = log_file.read().decode("utf-8", "replace")
    if sys.exc_info()[0] is not None:
        sys.stderr.write(log[-4000:])

# Routing: every record on its bucket's partitions.
misrouted = [(p, k) for (p, _), k in delivered.items() if OWNER[p] != k.split("-")[0]]
print("produced %d records, misrouted %d" % (len(delivered), len(misrouted)))
assert len(delivered) == sum(BEFORE.values()) + sum(DURING.values()), len(delivered)
assert not misrouted, misrouted[:10]

expect = {pk for pk, k in delivered.items() if k.split("-")[0] in LISTED}
got = [(p, o) for p, o, _ in reads]
seen = set()
lost = expect - set(got)
twice = len(got) - len(set(got))
foreign = [(p, o, k) for p, o, k in reads
           if OWNER.get(p) not in LISTED or k.split("-")[0] != OWNER[p]]
last, out_of_order, reread = {}, 0, 0
for p, o, _ in reads:
    if o <= last.get(p, -1):
        if SCHEDULE == "weighted" and OWNER[p] == "Platinum" and (p, o) in seen:
            reread += 1   # paused as it was delivered: read again from there
        else:
            out_of_order += 1
    last[p] = o
    seen.add((p, o))
by_bucket = {b: sum(1 for p, _, _ in reads if OWNER.get(p) == b) for b in OWNER.values()}
first_platinum = next((i for i, (p, _, _) in enumerate(reads) if OWNER[p] == "Platinum"), None)
print("consumer %s (%s, holding by queue): assignments %s" % (LIST, SCHEDULE, assigned))
print("read %d of %d (Platinum %d, Gold %d, Silver %d): lost %d, read twice %d, "
      "out of order %d, foreign %d; first Platinum record at read #%s"
      % (len(reads), len(expect), by_bucket["Platinum"], by_bucket["Gold"],
         by_bucket["Silver"], len(lost), twice, out_of_order, len(foreign), first_platinum))
if SCHEDULE == "weighted":
    print("re-read after a pause of Platinum: %d" % reread)
print("bucket statistics (delivered, pauses): %s" % stats)
print("close() took %.2f s" % close_s)
for path in mapped:
    print("plugin", path)
assert assigned and assigned[-1] == list(range(0, 8)), assigned
assert not lost, sorted(lost)[:10]
assert out_of_order == 0 and not foreign, (out_of_order, foreign[:10])
if SCHEDULE == "strict":
    assert twice == 0, twice
    assert len(reads) == len(expect), (len(reads), len(expect))
    for b in LISTED:
        assert stats[b] == (BEFORE[b] + DURING[b], 0), (b, stats)
else:
    assert twice == reread and (reread == 0 or stats["Platinum"][1] > 0), (twice, reread, stats)
    assert len(reads) == len(expect) + reread, (len(reads), len(expect), reread)
    assert stats["Gold"] == (BEFORE["Gold"] + DURING["Gold"], 0), stats
    assert stats["Platinum"][0] == BEFORE["Platinum"] + DURING["Platinum"] + reread, stats
assert stats["Silver"] == (0, 0), stats
queue_line = [l for l in log.splitlines() if "BUCKETPRIO" in l and
              ("wait in queues" in l or "wait in a queue" in l)]
assert queue_line, "no 'wait in queues' line from the plugin in the log:\n" + log[-3000:]
print("logged:", queue_line[0].strip())
assert close_s < 10, close_s


def committed():
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": GROUP + ".Platinum+Gold"})
    tps = c.committed([TopicPartition(TOPIC, p) for p in range(PARTITIONS)], timeout=20)
    c.close()
    return {tp.partition: tp.offset for tp in tps}


ends = {p: 1 + max(o for (q, o) in delivered if q == p) for p in range(PARTITIONS)}
commits = committed()
print("committed in %s.Platinum+Gold: %s" % (GROUP, [commits[p] for p in range(PARTITIONS)]))
for p in range(PARTITIONS):
    if OWNER[p] in LISTED:
        assert commits[p] == ends[p], (p, commits[p], ends[p])
    else:
        assert commits[p] < 0, (p, commits[p])
print("list consumer ok")
