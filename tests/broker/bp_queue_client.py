#!/usr/bin/env python3
"""bp_queue_client.py - the client processes of the broker suite's
sched_queue scenario (broker_sched_queue.py), written with
confluent-kafka-python and configured by plain config dicts as a Python
user writes them:

  consume   one consumer serving the bucket list "critical, bulk" with the
            strict schedule and bucket.priority.hold as given (queue, or
            pause for the control);
  produce   a producer loading the plugin: --count bulk records
            ("bulk-<id>", 100-byte values) as fast as it can, or
            --rate critical records a second for --seconds ("critical-<id>",
            the value its send time in ms);
  member    one member of a group of list consumers (the rolling restart
            and the growth of broker_sched_queue.py): serves --bucket (a
            list) of --buckets with the strict schedule (contiguous
            layout; -X changes either) and bucket.priority.hold as given
            ("default" leaves it out), until SIGTERM, writing each record read as
            bp-broker-client consume does, so the suite's ledger reads it.

Run it with the interpreter whose confluent_kafka is to be tested
(Debian's python3-confluent-kafka, or the venv of
tests/clients/prepare-wheel.sh with the newest PyPI wheel).

The consumer reads until it has read --expect distinct records (or --timeout
seconds), spending --work-us of busy work on each, and prints one JSON
line on stdout:

  read         records delivered (duplicates included)
  distinct     distinct record ids delivered
  fetched      records librdkafka fetched from the brokers (its
               statistics' rxmsgs: a record fetched again counts again)
  reordered    records delivered behind a later offset of their partition
  worst_episode, episodes
               bulk records delivered in a row while a critical partition
               it holds had records it had not delivered (cached high
               watermark above its position): the strict measure of
               broker_sched.py, judged here in the client
  critical_delays_ms
               per critical record, ms from its send (its value) to poll()
  assigned_ms  when it first held every partition (for the stream)

Its stderr carries librdkafka's log and the plugin's.

  bp_queue_client.py consume --bootstrap B --plugin PATH --topic T
      --group G --hold queue|pause --expect N [--work-us W] [--timeout S]
      [-X name=value]...
  bp_queue_client.py produce --bootstrap B --plugin PATH --topic T
      (--count N | --rate R --seconds S) [--first-id I]

The member reads until SIGTERM/SIGINT (or --timeout seconds), spending
--work-us on each record, then closes and prints one JSON line. Its files:

  <out>         "<id> <partition> <offset> <key bucket> <ms>" per record
                read (keys "<bucket>-<id>", as bp-broker-client produce
                writes them), written and flushed before the record's
                offset is stored for commit (enable.auto.offset.store=false,
                auto commit every second and at close): at-least-once
  <out>.assign  "<ms> <p,p,...>" ("-" when empty) per change of
                assignment(), looked at every 100 ms; "<ms> closed" after
                close() returned
  stdout        {"read", "errors", "fetched" (rxmsgs), "reordered",
                "redelivered", "close_ms", "buckets": {name: {"delivered",
                "pauses", "paused_ms"}}}: reordered counts records delivered
                behind a later offset of their partition, redelivered
                records delivered again right after themselves, both within
                one holding of the partition (on_assign/on_revoke start a
                new one: the group's commit may be behind what was read);
                buckets is the plugin's bp_consumer_bucket_stats() through
                ctypes (the same plugin file the client loaded: one copy),
                null when the plugin does not know the handle

  bp_queue_client.py member --bootstrap B --plugin PATH --topic T
      --buckets "a, b, c" --allocation "x%, y%, z%" --bucket "a, c"
      --group G --hold queue|pause|default --out FILE [--work-us W] [--timeout S]
      [-X name=value]...
"""
import argparse
import ctypes
import json
import signal
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition

CRITICAL = range(8, 12)  # "critical, bulk" at "30%, 70%", contiguous
PARTITIONS = 12


def bucket_conf(a):
    return {
        "bootstrap.servers": a.bootstrap,
        "plugin.library.paths": a.plugin,
        "bucket.priority.topic": a.topic,
        "bucket.priority.buckets": a.buckets,
        "bucket.priority.allocation": a.allocation,
        "bucket.priority.layout": "contiguous",
    }


def produce(a):
    failed = []

    def on_delivery(err, _msg):
        if err:
            failed.append(err)

    p = Producer(dict(bucket_conf(a), **{"linger.ms": 1 if a.rate else 20}))
    if a.rate:
        start = time.time()
        for i in range(int(a.rate * a.seconds)):
            due = start + i / a.rate
            while time.time() < due:
                p.poll(min(0.005, max(0, due - time.time())))
            p.produce(a.topic, key="critical-%d" % (a.first_id + i),
                      value="%.3f" % (time.time() * 1000),
                      on_delivery=on_delivery)
            p.poll(0)
    else:
        value = b"b" * 100
        for i in range(a.count):
            while True:
                try:
                    p.produce(a.topic, key="bulk-%d" % (a.first_id + i),
                              value=value, on_delivery=on_delivery)
                    break
                except BufferError:
                    p.poll(0.05)
    left = p.flush(60)
    print(json.dumps({"failed": len(failed) + left}), flush=True)
    return 1 if failed or left else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=("consume", "produce", "member"))
    for name in ("--bootstrap", "--plugin", "--topic"):
        ap.add_argument(name, required=True)
    ap.add_argument("--buckets", default="critical, bulk")
    ap.add_argument("--allocation", default="30%, 70%")
    ap.add_argument("--bucket", default="critical, bulk")
    ap.add_argument("--out")
    ap.add_argument("--group")
    ap.add_argument("--hold")
    ap.add_argument("--expect", type=int)
    ap.add_argument("--work-us", type=int, default=100)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("-X", action="append", default=[])
    ap.add_argument("--count", type=int, default=0)
    ap.add_argument("--rate", type=float, default=0)
    ap.add_argument("--seconds", type=float, default=0)
    ap.add_argument("--first-id", type=int, default=0)
    a = ap.parse_args()
    return {"produce": produce, "consume": consume, "member": member}[a.mode](a)


def consume(a):
    fetched = [0]

    def on_stats(text):
        fetched[0] = json.loads(text).get("rxmsgs", fetched[0])

    conf = dict(bucket_conf(a), **{
        "bucket.priority.bucket": "critical, bulk",
        "bucket.priority.schedule": "strict",
        "bucket.priority.hold": a.hold,
        "group.id": a.group,
        "auto.offset.reset": "earliest",
        "statistics.interval.ms": 200,
        "stats_cb": on_stats,
    })
    for kv in a.X:
        k, v = kv.split("=", 1)
        conf[k] = v
    c = Consumer(conf)
    c.subscribe([a.topic])

    seen, last_offset = set(), {}
    read = reordered = episode = worst = episodes = 0
    delays, assigned_ms = [], None
    critical_tps = [TopicPartition(a.topic, p) for p in CRITICAL]
    deadline = time.time() + a.timeout
    while len(seen) < a.expect and time.time() < deadline:
        m = c.poll(0.1)
        if assigned_ms is None and len(c.assignment()) == PARTITIONS:
            assigned_ms = int(time.time() * 1000)
            print(json.dumps({"assigned_ms": assigned_ms}), flush=True)
        if m is None or m.error():
            continue
        read += 1
        seen.add(m.key())
        p, off = m.partition(), m.offset()
        if off < last_offset.get(p, -1):
            reordered += 1
        last_offset[p] = off
        if p in CRITICAL:
            delays.append(time.time() * 1000 - float(m.value()))
            if episode:
                episodes += 1
            episode = 0
        else:
            # Does a critical partition hold records not delivered yet?
            # Judged once this consumer has a position there.
            behind = False
            for tp in c.position(critical_tps):
                if tp.offset >= 0:
                    _, high = c.get_watermark_offsets(tp, cached=True)
                    behind = behind or high > tp.offset
            if behind:
                episode += 1
                worst = max(worst, episode)
            elif episode:
                episodes += 1
                episode = 0
        until = time.perf_counter() + a.work_us / 1e6
        while time.perf_counter() < until:
            pass
    # one more statistics interval, so that rxmsgs counts every fetch
    end = time.time() + 0.6
    while time.time() < end:
        c.poll(0.1)
    c.close()
    print(json.dumps({
        "read": read, "distinct": len(seen), "fetched": fetched[0],
        "reordered": reordered, "worst_episode": worst,
        "episodes": episodes, "critical_delays_ms": delays,
        "assigned_ms": assigned_ms}), flush=True)
    return 0


class BucketStats(ctypes.Structure):
    """bp_consumer_bucket_stats_t (include/bucket_priority.h)."""
    _fields_ = [("name", ctypes.c_char_p), ("rank", ctypes.c_int),
                ("delivered", ctypes.c_uint64), ("lag", ctypes.c_int64),
                ("lag_unknown", ctypes.c_int32),
                ("partitions", ctypes.c_int32), ("paused", ctypes.c_int),
                ("pauses", ctypes.c_uint64), ("paused_ms", ctypes.c_uint64)]


def bucket_stats(plugin, consumer):
    """{bucket: {delivered, pauses, paused_ms}} from the plugin's
    bp_consumer_bucket_stats(), or None. The client's rd_kafka_t is the
    first field after the object header of confluent-kafka's Handle; the
    plugin looks it up in its table and answers -1 for one it does not
    know."""
    try:
        lib = ctypes.CDLL(plugin)
        lib.bp_consumer_bucket_stats.argtypes = [
            ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(BucketStats)]
        lib.bp_consumer_bucket_stats.restype = ctypes.c_int
        rk = ctypes.c_void_p.from_address(id(consumer) +
                                          object.__basicsize__).value
    except (OSError, AttributeError, ValueError) as e:
        sys.stderr.write("bp_consumer_bucket_stats unavailable: %s\n" % e)
        return None
    got, st = {}, BucketStats()
    while rk and lib.bp_consumer_bucket_stats(rk, len(got),
                                              ctypes.byref(st)) == 0:
        got[st.name.decode()] = {"delivered": st.delivered,
                                 "pauses": st.pauses,
                                 "paused_ms": st.paused_ms}
    return got or None


def member(a):
    stop = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.append(1))
    fetched = [0]

    def on_stats(text):
        fetched[0] = json.loads(text).get("rxmsgs", fetched[0])

    def log(line):
        sys.stderr.write("%d %s\n" % (time.time() * 1000, line))
        sys.stderr.flush()

    conf = dict(bucket_conf(a), **{
        "bucket.priority.bucket": a.bucket,
        "bucket.priority.schedule": "strict",
        "group.id": a.group,
        "auto.offset.reset": "earliest",
        # at-least-once, as bp-broker-client: a record's offset is stored
        # only after its line is written
        "enable.auto.offset.store": False,
        "auto.commit.interval.ms": 1000,
        "session.timeout.ms": 6000,
        "heartbeat.interval.ms": 1000,
        "statistics.interval.ms": 500,
        "stats_cb": on_stats,
        "error_cb": lambda e: log("client error: %s" % e),
    })
    if a.hold != "default":   # default: the property left out
        conf["bucket.priority.hold"] = a.hold
    for kv in a.X:
        k, v = kv.split("=", 1)
        conf[k] = v
    out = open(a.out, "w")
    af = open(a.out + ".assign", "w")
    c = Consumer(conf)
    # Order is judged within each holding of a partition: a new assignment
    # starts it again from the group's commit (at-least-once, not order).
    last_offset = {}

    def spell(_c, _partitions):
        last_offset.clear()
    c.subscribe([a.topic], on_assign=spell, on_revoke=spell)
    read = errors = reordered = redelivered = 0
    last_assign, next_track = None, 0.0
    deadline = time.time() + a.timeout
    while not stop and time.time() < deadline:
        m = c.poll(0.1)
        if time.time() >= next_track:
            next_track = time.time() + 0.1
            now = ",".join(str(tp.partition)
                           for tp in c.assignment()) or "-"
            if now != last_assign:
                last_assign = now
                af.write("%d %s\n" % (time.time() * 1000, now))
                af.flush()
        if m is None:
            continue
        if m.error():
            if errors < 50:
                log("poll: %s" % m.error())
            errors += 1
            continue
        kb, _, rid = m.key().decode().rpartition("-")
        out.write("%s %d %d %s %d\n" % (rid, m.partition(), m.offset(), kb,
                                         time.time() * 1000))
        out.flush()
        c.store_offsets(m)
        read += 1
        p, off = m.partition(), m.offset()
        if off < last_offset.get(p, -1):
            reordered += 1
        elif off == last_offset.get(p, -1):
            redelivered += 1
        last_offset[p] = off
        until = time.perf_counter() + a.work_us / 1e6
        while time.perf_counter() < until:
            pass
    stats = bucket_stats(a.plugin, c)
    t0 = time.time()
    c.close()
    close_ms = int((time.time() - t0) * 1000)
    af.write("%d closed\n" % (time.time() * 1000))
    af.close()
    out.close()
    print(json.dumps({"read": read, "errors": errors, "fetched": fetched[0],
                      "reordered": reordered, "redelivered": redelivered,
                      "close_ms": close_ms, "buckets": stats}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
