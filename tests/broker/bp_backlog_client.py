#!/usr/bin/env python3
"""bp_backlog_client.py - a Python consumer of several buckets meeting a
backlog of every bucket at once, configured by plain config dicts as a
Python user writes them (the counterpart of tests/kit/tk_backlog.c for
confluent-kafka-python): used by the broker suite's sched_queue scenario
(broker_sched_queue.py, Kafka 4.x) and by test_python_backlog (the mock
cluster).

Each of --runs runs has a topic of its own, "<prefix>-<run>" (created
with --create, else it must exist with --partitions partitions); a
producer loading the plugin writes --bulk "bulk-<id>" records, then
--critical "critical-<id>" records; then (cold) a consumer of the bucket
list "critical, bulk" with --schedule and bucket.priority.hold left to its
default starts on them, or (restart) a first consumer of the group reads
a small first backlog, commits and closes, the backlog is written and a
second one starts. It reads until every record was read, spending
--work-us of busy work on each. One JSON line a run on stdout:

  ahead        bulk records handed out before the last critical record
  first_share  the critical share of the first 2 000 records handed out
  missing      records written and never read
  reordered    records handed out behind a later offset of their partition

and a last line {"summary": ...} with the lists. Run it with the
interpreter whose confluent_kafka is to be tested (Debian's
python3-confluent-kafka, or the venv of tests/clients/prepare-wheel.sh).

  bp_backlog_client.py --bootstrap B --plugin PATH --prefix T [--runs N]
      [--create] [--partitions P] [--critical C] [--bulk N]
      [--moment cold|restart] [--schedule strict|weighted] [--work-us W]
      [--timeout S] [-X name=value]...
"""
import argparse
import json
import sys
import time

from confluent_kafka import Consumer, KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic

WINDOW = 2000


def bucket_conf(a, topic):
    return {"bootstrap.servers": a.bootstrap,
            "plugin.library.paths": a.plugin,
            "bucket.priority.topic": topic,
            "bucket.priority.buckets": "critical, bulk",
            "bucket.priority.allocation": "25%, 75%"}


def produce(a, topic, bucket, first, count):
    p = Producer(dict(bucket_conf(a, topic), **{"linger.ms": 5}))
    failed = []

    def on_dr(err, msg):
        if err:
            failed.append(err)
    for i in range(first, first + count):
        while True:
            try:
                p.produce(topic, key="%s-%d" % (bucket, i), value=b"x",
                          on_delivery=on_dr)
                break
            except BufferError:
                p.poll(0.01)
        p.poll(0)
    if p.flush(60) or failed:
        raise SystemExit("producer: %d records failed: %s"
                         % (len(failed), failed[:1]))


def consumer(a, topic, group):
    conf = dict(bucket_conf(a, topic), **{
        "bucket.priority.bucket": "critical, bulk",
        "bucket.priority.schedule": a.schedule,
        "group.id": group,
        "auto.offset.reset": "earliest"})
    for x in a.X:
        k, _, v = x.partition("=")
        conf[k] = v
    c = Consumer(conf)
    c.subscribe([topic])
    return c


def busy(us):
    end = time.perf_counter() + us / 1e6
    while time.perf_counter() < end:
        pass


def read(a, c, want, judge):
    """Polls c until every id in want was read; judge(bucket, msg) for
    each record handed out."""
    left = set(want)
    deadline = time.time() + a.timeout
    while left and time.time() < deadline:
        m = c.poll(0.1)
        if m is None or m.error():
            continue
        bucket, _, i = m.key().decode().rpartition("-")
        judge(bucket, m)
        left.discard((bucket, int(i)))
        if a.work_us:
            busy(a.work_us)
    return len(left)


def one_run(a, topic):
    group = topic + "-app"
    first = 0
    if a.moment == "restart":
        produce(a, topic, "bulk", 0, 100)
        produce(a, topic, "critical", 0, 20)
        c = consumer(a, topic, group)
        want = {("bulk", i) for i in range(100)} | \
               {("critical", i) for i in range(20)}
        if read(a, c, want, lambda b, m: None):
            raise SystemExit("restart: the first backlog was not read")
        c.commit(asynchronous=False)
        c.close()
        first = 1000
    produce(a, topic, "bulk", first, a.bulk)
    produce(a, topic, "critical", first, a.critical)
    want = {("bulk", first + i) for i in range(a.bulk)} | \
           {("critical", first + i) for i in range(a.critical)}
    st = {"handed": 0, "critical_first": 0, "bulk_seen": 0,
          "critical_read": 0, "ahead": 0, "reordered": 0}
    seen, last = set(), {}

    def judge(bucket, m):
        key = (bucket, int(m.key().decode().rpartition("-")[2]))
        if st["handed"] < WINDOW and bucket == "critical":
            st["critical_first"] += 1
        st["handed"] += 1
        if key in seen:
            return
        seen.add(key)
        if m.offset() < last.get(m.partition(), -1):
            st["reordered"] += 1
        last[m.partition()] = max(m.offset(), last.get(m.partition(), -1))
        if bucket == "bulk":
            st["bulk_seen"] += 1
        elif key in want:
            st["critical_read"] += 1
            if st["critical_read"] == a.critical:
                st["ahead"] = st["bulk_seen"]
    c = consumer(a, topic, group)
    missing = read(a, c, want, judge)
    c.close()
    return {"topic": topic, "ahead": st["ahead"],
            "first_share": round(st["critical_first"] /
                                 max(min(st["handed"], WINDOW), 1), 4),
            "missing": missing, "reordered": st["reordered"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bootstrap", required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--create", action="store_true")
    ap.add_argument("--partitions", type=int, default=8)
    ap.add_argument("--critical", type=int, default=300)
    ap.add_argument("--bulk", type=int, default=30000)
    ap.add_argument("--moment", choices=("cold", "restart"), default="cold")
    ap.add_argument("--schedule", choices=("strict", "weighted"),
                    default="strict")
    ap.add_argument("--work-us", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("-X", action="append", default=[])
    a = ap.parse_args()
    runs = []
    # Kept for the whole run: an AdminClient destroyed before its futures
    # resolve fails them with _DESTROY.
    admin = AdminClient({"bootstrap.servers": a.bootstrap}) if a.create \
        else None
    for k in range(a.runs):
        topic = "%s-%d" % (a.prefix, k)
        if a.create:
            fs = admin.create_topics([NewTopic(topic, a.partitions, 1)])
            try:
                fs[topic].result(30)
            except KafkaException as e:
                raise SystemExit("create %s: %s" % (topic, e))
        r = one_run(a, topic)
        runs.append(r)
        print(json.dumps(r), flush=True)
    print(json.dumps({"summary": {
        "ahead": [r["ahead"] for r in runs],
        "first_share": [r["first_share"] for r in runs],
        "missing": sum(r["missing"] for r in runs),
        "reordered": sum(r["reordered"] for r in runs)}}), flush=True)


if __name__ == "__main__":
    sys.exit(main())
