#!/usr/bin/env python3
"""kip848_matrix.py - the client matrix's check of the next generation
consumer group protocol (KIP-848): one client, through its adapter (the
protocol of client_matrix.py), with group.protocol=consumer set the way
its users set it. Python 3 stdlib only.

  kip848_matrix.py --adapter "CMD ..." --plugin PATH --mock-cluster PATH
                   [--own-mock] [--error-cut N]

It asks the adapter which librdkafka its client runs ('CMD version' prints
'librdkafka X.Y.Z') and expects what that version can do:

- 2.12 or later: on a mock cluster (topic orders, 12 partitions, Platinum
  0-7, Gold 8-11), the adapter's producer writes a batch; consumer A of
  Gold ('CMD consume ... Gold group.protocol=consumer') reads every record
  of 8-11 and none of 0-7 while it holds the whole topic (the broker's
  assignment is kept, the partitions outside Gold paused); consumer B
  joins the group: A and B settle on disjoint assignments covering the
  topic, so each Gold partition is held by exactly one of them, read every
  record of 8-11 of a second batch between them, each only on the Gold
  partitions it holds, and close with exit 0; neither ever reads a record
  of 0-7.
- older: creating that consumer fails cleanly ('error ...' and exit 3, no
  crash) with an error naming group.protocol, librdkafka 2.12 and the
  version the client runs (--error-cut N: a client that cuts error texts
  at N characters shows only what comes before).

The mock cluster is bp-mock-cluster (--mock-cluster), which must run a
librdkafka of 2.12 or later for the first case; --own-mock makes the
adapter host it instead ('CMD mock-cluster orders:12', same protocol as
bp-mock-cluster) in the client's own librdkafka, for clients that carry
their own (the PyPI wheel, Go's bundled build). Prints one 'ok'/'FAIL'
line per check and ends with 'N passed, N failed'; exit 1 when a check
failed.
"""
import argparse
import atexit
import collections
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import uuid

import client_matrix as cm

PROTOCOL = ["group.protocol=consumer"]
FIRST_VERSION = (2, 12, 0)
ALL = frozenset(range(12))
SETTLE_TIMEOUT = 60   # the mock's heartbeat interval is 3 s


def client_version(adapter):
    """(version tuple, text) the adapter's client runs, or raises
    SetupError."""
    try:
        done = subprocess.run(adapter + ["version"], capture_output=True,
                              text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise cm.SetupError("cannot run '%s version': %s" % (
            " ".join(adapter), exc))
    match = re.search(r"^librdkafka (\d+)\.(\d+)\.(\d+)\S*$", done.stdout,
                      re.M)
    if done.returncode != 0 or not match:
        raise cm.SetupError("'%s version' printed no 'librdkafka X.Y.Z' "
                            "(%s): %s" % (" ".join(adapter),
                                          cm.describe_status(done.returncode),
                                          (done.stdout + done.stderr)[-300:]))
    version = tuple(int(g) for g in match.groups())
    return version, "%d.%d.%d" % version


def refused_scenario(v, env, version_text, cut):
    """librdkafka < 2.12: the consumer must not be created, and say why.
    cut: the length at which the client cuts error texts, or None."""
    s = "kip848 refused"
    c = cm.Consumer("consumer A", env, "kip848-%s" % uuid.uuid4().hex[:8],
                    "Gold", PROTOCOL)
    status = c.wait(cm.EXIT_TIMEOUT)
    if status is None:
        c.close_stdin()
        status = c.wait(cm.EXIT_TIMEOUT)
        c.kill()
        v.check(s, False, "the consumer was created on librdkafka %s "
                "(still running after %d s): group.protocol=consumer was "
                "not refused" % (version_text, cm.EXIT_TIMEOUT), [c])
        return
    errors = [l[6:] for l in c.snapshot() if l.startswith("error ")]
    wanted = ["group.protocol", "librdkafka 2.12 or later",
              "runs librdkafka %s" % version_text]
    if cut and errors and len(errors[0]) >= cut:
        # Where the client cut the text, what fits before the cut.
        wanted = ['group.protocol: invalid value "consumer"', "KIP-848",
                  "needs librdkafka 2.1"]
        v.note(s, "the client cuts its error text at %d characters, "
               "before the version" % cut)
    named = [e for e in errors if all(w in e for w in wanted)]
    v.check(s, status == 3 and bool(named),
            "creation refused (exit 3): error %s" % named[0]
            if status == 3 and named else
            "%s, %s; expected exit 3 and an error naming %s" % (
                cm.describe_status(status),
                "error " + errors[0] if errors else "no 'error' line",
                ", ".join("'%s'" % w for w in wanted)), [c])


def produced(v, s, env, keys, what):
    """The adapter's producer writes keys; their Gold records as a
    multiset of (partition, key), or None after a failed check."""
    prod = cm.produce("producer (%s)" % what, env.adapter, env.bootstrap,
                      env.plugin, keys)
    bad, missing = prod.ended_badly(), prod.missing()
    gold = collections.Counter({r: n for r, n in prod.records().items()
                                if r[0] in cm.GOLD})
    ok = not bad and not missing and bool(gold)
    v.check(s, ok, "%s: %d records delivered, %d of them on 8-11" % (
        what, len(keys), sum(gold.values())) if ok else
        "%s: %s" % (what, bad or "%d records not delivered: %s" % (
            len(missing), cm.some("%s (%s)" % m for m in missing))
            if bad or missing else "no record on 8-11"), [prod.child])
    return gold if ok else None


def read_all(v, s, who, consumers, gold, what):
    """Waits until the consumers read the multiset gold; checks it."""
    cm.wait_all(consumers, lambda: cm.covered(gold, consumers) == gold,
                cm.READ_TIMEOUT)
    if cm.stopped(v, s, consumers):
        return False
    got = cm.covered(gold, consumers)
    return v.check(s, got == gold,
                   "%s read all %d records of 8-11 of %s" % (
                       who, sum(gold.values()), what) if got == gold else
                   "%s read %d of %d records of 8-11 of %s within %d s "
                   "(missing on partitions %s)" % (
                       who, sum(got.values()), sum(gold.values()), what,
                       cm.READ_TIMEOUT, cm.partitions_missing(gold, got)),
                   consumers)


def gold_text(held):
    return "Gold %s" % cm.plist(held & cm.GOLD) if held & cm.GOLD else \
        "no Gold"


def works_scenario(v, env):
    """librdkafka >= 2.12: consumers A and B of Gold on the protocol."""
    s = "kip848"
    gold1 = produced(v, s, env, cm.batch1_keys(), "batch 1")
    if gold1 is None:
        return
    group = "kip848-%d-%s" % (os.getpid(), uuid.uuid4().hex[:8])
    started = time.monotonic()
    a = cm.Consumer("consumer A", env, group, "Gold", PROTOCOL)
    if not read_all(v, s, "A alone", [a], gold1, "batch 1"):
        return
    v.note(s, "A read them %.1f s after it started" % (
        time.monotonic() - started))
    records, assignments = a.parsed()
    last = assignments[-1] if assignments else frozenset()
    v.check(s, last == ALL,
            "A alone holds the whole topic (%s): the broker's assignment "
            "kept" % cm.plist(last) if last == ALL else
            "A alone holds %s, not the whole topic 0-11 the broker "
            "assigns" % ("nothing" if not assignments else cm.plist(last)),
            [a])
    bad = cm.foreign(records)
    v.check(s, not bad, "A alone read no record of 0-7 (paused)"
            if not bad else "A alone read partitions %s of 0-7" %
            cm.plist(bad), [a])

    mark = len(a.snapshot())
    joined = time.monotonic()
    b = cm.Consumer("consumer B", env, group, "Gold", PROTOCOL)

    def latest():
        return cm.latest_since(a, mark, b)

    def settled():
        la, lb = latest()
        return bool(la) and bool(lb) and not la & lb and la | lb == ALL

    cm.wait_all([a, b], settled, SETTLE_TIMEOUT)
    if cm.stopped(v, s, [a, b]):
        return
    la, lb = latest()
    v.check(s, settled(),
            "%.1f s after B joined: A holds %s (%s), B holds %s (%s): each "
            "Gold partition held by one of them" % (
                time.monotonic() - joined, cm.plist(la), gold_text(la),
                cm.plist(lb), gold_text(lb)) if settled() else
            "A and B did not settle on disjoint assignments covering 0-11 "
            "within %d s after B joined: A's last since then %s, B's %s" % (
                SETTLE_TIMEOUT, "none" if la is None else cm.plist(la),
                "none" if lb is None else cm.plist(lb)), [a, b])
    if not settled():
        return

    keys2 = cm.batch2_keys()
    gold2 = produced(v, s, env, keys2, "batch 2")
    if gold2 is None or not read_all(v, s, "A and B", [a, b], gold2,
                                     "batch 2"):
        return
    in2 = set(keys2)
    pa = {p for p, k in a.parsed()[0] if k in in2}
    pb = {p for p, k in b.parsed()[0] if k in in2}
    own = pa <= la and pb <= lb and not pa & pb
    v.check(s, own, "in batch 2 A read partitions %s, B %s: each only "
            "what it holds" % (cm.plist(pa), cm.plist(pb)) if own else
            "in batch 2 A read partitions %s (holds %s), B %s (holds %s)" % (
                cm.plist(pa), cm.plist(la), cm.plist(pb), cm.plist(lb)),
            [a, b])

    cm.close_all(v, s, (a, b))
    for c in (a, b):
        bad = cm.foreign(c.parsed()[0])
        v.check(s, not bad, "%s never read a record of 0-7" % c.short
                if not bad else "%s read partitions %s of 0-7" % (
                    c.short, cm.plist(bad)), [c])


def main():
    ap = argparse.ArgumentParser(
        description="Checks one Kafka client's bucket consumers on "
        "group.protocol=consumer (KIP-848), or their clean refusal.")
    ap.add_argument("--adapter", required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--mock-cluster", required=True,
                    help="bp-mock-cluster (librdkafka 2.12+ for the check)")
    ap.add_argument("--own-mock", action="store_true",
                    help="the adapter hosts the mock cluster itself")
    ap.add_argument("--error-cut", type=int, metavar="N",
                    help="the client cuts error texts at N characters "
                    "(confluent-kafka-go 2.0.2: 127)")
    ap.add_argument("--reference-python", default="/usr/bin/python3",
                    help=argparse.SUPPRESS)
    args = ap.parse_args()

    atexit.register(cm.cleanup)
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, cm.on_signal)
    v = cm.Verdicts()
    try:
        adapter = shlex.split(args.adapter)
        version, text = client_version(adapter)
        works = version >= FIRST_VERSION
        print("kip848_matrix: adapter %s runs librdkafka %s: expecting %s%s"
              % (args.adapter, text, "bucket consumers on "
                 "group.protocol=consumer" if works else "a clean refusal",
                 " (the adapter hosts the mock cluster)"
                 if args.own_mock else ""), flush=True)
        env = cm.Env(args, adapter + ["mock-cluster"]
                     if args.own_mock else None)
        if works:
            works_scenario(v, env)
        else:
            refused_scenario(v, env, text, args.error_cut)
        cm.stop_cluster(env.cluster)
    except cm.SetupError as exc:
        v.check("setup", False, str(exc))
    return v.finish()


if __name__ == "__main__":
    sys.exit(main())
