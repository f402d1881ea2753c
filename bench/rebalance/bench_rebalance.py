#!/usr/bin/python3
"""bench_rebalance.py - what a rebalance costs a bucket consumer against a
plain consumer of a topic per class, side by side on one broker.

For each bucket count N (2, 10, 50 by default) the topic has P partitions
(1 000) split into N equal buckets; the bucket design's consumers read
bucket b0 of it (P/N partitions) through the plugin, in group G.b0, while
the N-1 sibling groups G.b1... have committed offsets on their own
partitions (as running sibling buckets have). The baseline reads a topic of
P/N partitions with no plugin. Every member is a Python consumer
(Debian's python3-confluent-kafka, a config dict) in its own process
(rebalance_member.py). One round, for each design in turn:

  first   member A subscribes: time to its first assignment;
  join    member B subscribes, some time later: from A's revocation (the
          rebalance as A sees it start) until A and B both hold their
          share;
  leave   B closes: from A's revocation until A holds every partition.

A learns of a join or a leave at its next heartbeat
(heartbeat.interval.ms=1000 here): that wait is the group protocol's, the
same for both designs, and it is what makes a join timed from B's
subscribe noisy (it depends on where B starts in A's heartbeat interval
and on how long B's process takes to start, which differs between the
designs). So the join and leave are timed from A's revocation, the work
the plugin can add to; "as seen" adds the mean wait, half an interval, to
both designs. (Timed from B's subscribe and B's close too, in --json.)

Figures are medians over the rounds, both designs measured alternately in
each round. Usage:

  bench_rebalance.py --brokers HOST:PORT --plugin /path/libbucketpriority.so
                     [--buckets 2,10,50] [--partitions 1000] [--rounds 5]
                     [--json FILE]
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
import uuid

from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

HERE = os.path.dirname(os.path.abspath(__file__))
MEMBER = os.path.join(HERE, "rebalance_member.py")
TIMEOUT = 60.0
HEARTBEAT_MS = 1000


def ensure_topic(admin, name, partitions):
    md = admin.list_topics(timeout=10)
    if name in md.topics and not md.topics[name].error:
        have = len(md.topics[name].partitions)
        if have != partitions:
            sys.exit("topic %s has %d partitions, not %d"
                     % (name, have, partitions))
        return
    fs = admin.create_topics([NewTopic(name, partitions, 1)])
    fs[name].result()
    for _ in range(100):
        md = admin.list_topics(name, timeout=10)
        t = md.topics.get(name)
        if t and not t.error and len(t.partitions) == partitions:
            return
        time.sleep(0.1)
    sys.exit("topic %s not ready" % name)


def equal_buckets(n, partitions):
    names = ["b%d" % i for i in range(n)]
    # equal shares in whole percents that add up to 100
    base = 100 // n
    alloc = [base] * n
    for i in range(100 - base * n):
        alloc[i] += 1
    size = partitions // n
    parts = {names[i]: list(range(i * size, (i + 1) * size))
             for i in range(n)}
    return names, alloc, parts


def commit_siblings(brokers, topic, group, names, parts):
    """Each sibling group G.<bucket> commits offset 0 on its partitions."""
    for name in names[1:]:
        c = Consumer({"bootstrap.servers": brokers,
                      "group.id": "%s.%s" % (group, name),
                      "enable.auto.commit": False})
        c.commit(offsets=[TopicPartition(topic, p, 0) for p in parts[name]],
                 asynchronous=False)
        c.close()


class Member:
    def __init__(self, conf, topic):
        self.proc = subprocess.Popen(
            [sys.executable, MEMBER, json.dumps(conf), topic],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.events = []
        self.revoked = None

    def next_event(self, kind):
        """Reads lines until one of kind; returns its fields as floats."""
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("member exited (%s)" % self.proc.wait())
            f = line.split()
            self.events.append(f)
            if f[0] == "revoked":
                self.revoked = float(f[1])
            if f[0] == kind:
                return [float(x) for x in f[1:]]

    def assigned_until(self, count):
        """Waits for an assignment of count partitions; returns its time."""
        while True:
            t, n = self.next_event("assigned")
            if int(n) == count:
                return t

    def leave(self):
        self.proc.stdin.close()
        fields = self.next_event("closed")
        self.proc.wait(timeout=TIMEOUT)
        return fields[0]


def one_round(topic, base_conf, total, heartbeat_s, rng):
    """first, join, leave, and join and leave from A's revocation, in
    seconds, for one design. B starts, and leaves, at a random point of
    A's heartbeat interval: A learns of a rebalance at its next heartbeat,
    the same wait for both designs on average."""
    a = Member(base_conf, topic)
    t0 = a.next_event("subscribing")[0]
    first = a.assigned_until(total) - t0
    time.sleep(rng.uniform(0, heartbeat_s))
    b = Member(base_conf, topic)
    t1 = b.next_event("subscribing")[0]
    half_b = total // 2
    tb = b.assigned_until(half_b)
    ta = a.assigned_until(total - half_b)
    join = max(ta, tb) - t1
    join_rebalance = max(ta, tb) - a.revoked
    time.sleep(rng.uniform(0, heartbeat_s))
    b.proc.stdin.close()
    t2 = b.next_event("closing")[0]
    ta = a.assigned_until(total)
    leave = ta - t2
    leave_rebalance = ta - a.revoked
    b.proc.wait(timeout=TIMEOUT)
    a.leave()
    return first, join, leave, join_rebalance, leave_rebalance


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--brokers", required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--buckets", default="2,10,50")
    ap.add_argument("--partitions", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json")
    args = ap.parse_args()

    admin = AdminClient({"bootstrap.servers": args.brokers})
    bucket_topic = "rb-bucket-%d" % args.partitions
    ensure_topic(admin, bucket_topic, args.partitions)
    common = {"bootstrap.servers": args.brokers,
              "heartbeat.interval.ms": HEARTBEAT_MS,
              "session.timeout.ms": 10000,
              "auto.offset.reset": "earliest"}
    if os.environ.get("BP_BENCH_LOG_LEVEL"):
        common["log_level"] = int(os.environ["BP_BENCH_LOG_LEVEL"])
    results = []
    rng = random.Random(args.seed)
    print("medians of %d rounds, bucket vs plain; a rebalance's work from"
          " A's revocation to settled;" % args.rounds)
    print("as a member sees it: that work plus the wait for A's next"
          " heartbeat, %.1f s on average" % (HEARTBEAT_MS / 2000.0))
    print("%7s  %-26s %-26s %-26s %-24s %-24s" % (
        "buckets", "first assignment", "join: rebalance work",
        "leave: rebalance work", "join as seen", "leave as seen"))
    for n in [int(x) for x in args.buckets.split(",")]:
        names, alloc, parts = equal_buckets(n, args.partitions)
        per_bucket = len(parts[names[0]])
        plain_topic = "rb-plain-%d" % per_bucket
        ensure_topic(admin, plain_topic, per_bucket)
        rows = {"bucket": [], "plain": []}
        for r in range(args.rounds):
            tag = uuid.uuid4().hex[:8]
            group = "rb-%d-%s" % (n, tag)
            commit_siblings(args.brokers, bucket_topic, group, names, parts)
            bucket_conf = dict(common)
            bucket_conf.update({
                "group.id": group,
                "plugin.library.paths": args.plugin,
                "bucket.priority.bucket": names[0],
                "bucket.priority.topic": bucket_topic,
                "bucket.priority.buckets": ", ".join(names),
                "bucket.priority.allocation": ", ".join(
                    "%d%%" % a for a in alloc)})
            plain_conf = dict(common)
            plain_conf["group.id"] = "rb-plain-%d-%s" % (n, tag)
            order = [("bucket", bucket_topic, bucket_conf),
                     ("plain", plain_topic, plain_conf)]
            if r % 2:
                order.reverse()
            for name, topic, conf in order:
                rows[name].append(one_round(topic, conf, per_bucket,
                                            HEARTBEAT_MS / 1000.0, rng))
        med = {k: [statistics.median(x[i] for x in v) for i in range(5)]
                 for k, v in rows.items()}
        half = HEARTBEAT_MS / 2000.0
        cells = []
        for i in (0, 3, 4):
            cells.append("%.3f vs %.3f s (%+.0f ms)" % (
                med["bucket"][i], med["plain"][i],
                1000 * (med["bucket"][i] - med["plain"][i])))
        for i in (3, 4):
            b, p = half + med["bucket"][i], half + med["plain"][i]
            cells.append("%.3f vs %.3f s (%.2fx)" % (b, p, b / p))
        print("%7d  %-26s %-26s %-26s %-24s %-24s" % (n, *cells),
              flush=True)
        results.append({"buckets": n, "partitions": args.partitions,
                        "rounds": rows, "median": med})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
