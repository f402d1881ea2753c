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
            the value its send time in ms).

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
"""
import argparse
import json
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
        "bucket.priority.buckets": "critical, bulk",
        "bucket.priority.allocation": "30%, 70%",
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
    ap.add_argument("mode", choices=("consume", "produce"))
    for name in ("--bootstrap", "--plugin", "--topic"):
        ap.add_argument(name, required=True)
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
    return produce(a) if a.mode == "produce" else consume(a)


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


if __name__ == "__main__":
    sys.exit(main())
