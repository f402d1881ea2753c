#!/usr/bin/env python3
"""client_matrix.py - runs one librdkafka-based client, through its adapter,
against bp-mock-cluster and checks that the plugin routes its records and
gives its consumers only their bucket's partitions. Python 3 stdlib only.

  client_matrix.py --adapter "CMD ..." --plugin PATH --mock-cluster PATH
                   [--expect works|creation-error:SUBSTRING|
                             unmapped-stopped:ENV_VAR]
                   [--modes produce,consume] [--reference-python PATH]

An adapter is run as
  CMD produce BOOTSTRAP PLUGIN
  CMD consume BOOTSTRAP PLUGIN GROUP BUCKET [NAME=VALUE ...]
  CMD version
  CMD mock-cluster TOPIC:PARTITIONS ...   (optional)
and configures its client as its users do with bootstrap.servers,
plugin.library.paths=PLUGIN, bucket.priority.topic=orders,
bucket.priority.buckets=Platinum, Gold and
bucket.priority.allocation=70%, 30% (consume adds group.id=GROUP,
bucket.priority.bucket=BUCKET and auto.offset.reset=earliest, then each
NAME=VALUE), in that order. Topic orders has 12 partitions: Platinum 0-7,
Gold 8-11.
  version: prints 'librdkafka X.Y.Z', the library the client runs on.
  mock-cluster: serves like bp-mock-cluster, in the client's own
    librdkafka (kip848_matrix.py --own-mock).
  produce: stdin lines are keys ('-' = NULL key), value 'v'; after EOF it
    flushes (30 s at most) and prints 'delivered KEY PARTITION' or
    'failed KEY ERROR' per record; exit 0.
  consume: subscribes to orders; prints 'assigned P,P,...' (sorted, maybe
    empty) whenever its assignment as the client sees it changes, and
    'record PARTITION KEY' per record ('-' = NULL key); at stdin EOF it
    closes its consumer and exits 0.
  Either: a client that cannot be created prints 'error TEXT', exit 3.

Scenarios (--expect works): produce (keys Platinum-0..59, Gold-0..59,
Silver-0..9 of no bucket, 10 NULL keys: routing and round robin), then
consume (consumer A of Gold alone, then B joins the same group, then a
second batch), then several (consumer C of "Platinum, Gold" with
bucket.priority.hold=queue reads a third batch on every partition, each
partition in order, and closes) and several-weighted (consumer D the same
with bucket.priority.schedule=weighted and the hold left out, a fourth
batch), each check printed as 'ok   SCENARIO: ...' or
'FAIL SCENARIO: ...'. --expect creation-error:SUBSTRING: every mode must
print 'error ...' containing SUBSTRING and exit 3. --expect
unmapped-stopped:ENV_VAR (consume): the adapter, run with ENV_VAR=1,
subscribes a consumer that takes rebalances as events it does not map; the
plugin must log it at creation, pause it at its first record (at most one
read) and let it close. Ends with the line
'N passed, N failed'; exit status 1 when a check failed.
"""
import argparse
import atexit
import collections
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
import uuid

TOPIC = "orders"
PLATINUM = frozenset(range(0, 8))
GOLD = frozenset(range(8, 12))
PRODUCE_TIMEOUT = 90      # the adapter's 30 s flush, plus start and exit
READ_TIMEOUT = 60         # for consumers to read what they are owed
# For A and B to settle after B joined: the mock cluster's coordinator holds
# a rebalance of a live group for session.timeout.ms - 1 s (librdkafka's
# rdkafka_mock_cgrp.c), 44 s with the default the adapters keep; librdkafka
# 2.0.2's follower sometimes gets "Invalid request" from the mock's
# SyncGroup and joins again, another hold: 180 s covers four rounds.
JOIN_TIMEOUT = 180
EXIT_TIMEOUT = 30         # for a consumer to exit once its stdin closed
HERE = os.path.dirname(os.path.abspath(__file__))


def bucket_of(partition):
    return "Platinum" if partition in PLATINUM else \
        "Gold" if partition in GOLD else "none"


def plist(partitions):
    return ",".join(str(p) for p in sorted(partitions)) or "(none)"


def signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return "signal %d" % number


# ---------------------------------------------------------------- processes

CHILDREN = []


class SetupError(Exception):
    """The harness cannot go on: a program does not run, no mock cluster."""


class Child:
    """A child process in its own session; its stdout lines are collected
    (with a condition to wait on), its stderr kept for diagnostics."""

    def __init__(self, name, argv):
        self.name = name
        self.argv = argv
        self.lines = []
        self.stderr = collections.deque(maxlen=300)
        self.cond = threading.Condition()
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE,
                                         start_new_session=True)
        except OSError as exc:
            raise SetupError("cannot run the %s: %s" % (name, exc))
        CHILDREN.append(self)
        self.readers = [
            threading.Thread(target=self._read, args=(self.proc.stdout, True),
                             daemon=True),
            threading.Thread(target=self._read, args=(self.proc.stderr, False),
                             daemon=True)]
        for reader in self.readers:
            reader.start()

    def _read(self, stream, is_stdout):
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            with self.cond:
                (self.lines if is_stdout else self.stderr).append(line)
                self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def send(self, lines):
        try:
            self.proc.stdin.write("".join(l + "\n" for l in lines).encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass

    def close_stdin(self):
        try:
            self.proc.stdin.close()
        except (BrokenPipeError, ValueError):
            pass

    def running(self):
        return self.proc.poll() is None

    def wait(self, timeout):
        """The exit status, or None when still running after timeout s; all
        its output has been collected when it returns a status."""
        try:
            status = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
        for reader in self.readers:
            reader.join(5)
        return status

    def kill(self):
        if self.running():
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.proc.kill()
            self.proc.wait()

    def wait_for(self, predicate, timeout):
        """Waits until predicate() holds or the child exited; returns
        predicate()."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while not predicate() and self.running():
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.cond.wait(min(left, 0.2))
            return predicate()

    def snapshot(self):
        with self.cond:
            return list(self.lines)


def describe_status(status):
    if status is None:
        return "still running"
    if status < 0:
        return "crashed with %s" % signal_name(-status)
    return "exit %d" % status


def cleanup():
    for child in CHILDREN:
        if child.running():
            child.close_stdin()
    deadline = time.monotonic() + 5
    for child in CHILDREN:
        while child.running() and time.monotonic() < deadline:
            time.sleep(0.05)
        child.kill()


def on_signal(number, _frame):
    sys.stderr.write("client_matrix: %s, stopping\n" % signal_name(number))
    sys.exit(2)


# ------------------------------------------------------------------ verdicts

class Verdicts:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.suspects = []    # children whose stderr is shown at the end

    def check(self, scenario, ok, text, children=()):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            for child in children:
                if child not in self.suspects:
                    self.suspects.append(child)
        print("%s %s: %s" % ("ok  " if ok else "FAIL", scenario, text),
              flush=True)
        return ok

    def note(self, scenario, text):
        print("     %s: %s" % (scenario, text), flush=True)

    def finish(self):
        """Shows the diagnostics and the totals; the exit status."""
        self.diagnostics()
        print("%d passed, %d failed" % (self.passed, self.failed),
              flush=True)
        return 1 if self.failed else 0

    def diagnostics(self):
        for child in self.suspects:
            tail = list(child.stderr)[-25:]
            print("--- %s (%s): %s; %s ---" % (
                child.name, describe_status(child.proc.poll()),
                shlex.join(child.argv),
                "last %d stderr lines" % len(tail) if tail else "no stderr"))
            for line in tail:
                print("    " + line)
        sys.stdout.flush()


# --------------------------------------------------------------- the cluster

def start_cluster(mock_argv):
    """mock_argv: bp-mock-cluster, or a command that serves like it."""
    cluster = Child("bp-mock-cluster", mock_argv + [TOPIC + ":12"])
    cluster.wait_for(lambda: cluster.lines, 20)
    lines = cluster.snapshot()
    if not lines or not lines[0].strip():
        raise SetupError("bp-mock-cluster printed no bootstrap address (%s): "
                         "%s" % (describe_status(cluster.proc.poll()),
                                 " / ".join(cluster.stderr)))
    return cluster, lines[0].strip()


def stop_cluster(cluster):
    cluster.close_stdin()
    if cluster.wait(10) is None:
        cluster.kill()


# ---------------------------------------------------------------- producing

class Production:
    """What one produce run of an adapter reported."""

    def __init__(self, child, keys, status):
        self.child = child
        self.keys = keys
        self.status = status
        self.delivered = {}     # key -> partition, NULL keys excluded
        self.failed = {}        # key -> error text, NULL keys excluded
        self.null_delivered = []  # partitions of the NULL-key records
        self.null_failed = []     # errors of the NULL-key records
        self.errors = []        # texts of 'error TEXT' lines
        self.duplicates = []
        self.unknown = []
        wanted = set(keys)
        for line in child.snapshot():
            word, _, rest = line.partition(" ")
            if word == "error":
                self.errors.append(rest)
                continue
            if word not in ("delivered", "failed"):
                continue
            key, _, arg = rest.partition(" ")
            if key not in wanted:
                self.unknown.append(line)
            elif word == "delivered" and not arg.isdigit():
                self.unknown.append(line)
            elif key == "-":
                if word == "delivered":
                    self.null_delivered.append(int(arg))
                else:
                    self.null_failed.append(arg)
            else:
                if key in self.delivered or key in self.failed:
                    self.duplicates.append(key)
                if word == "delivered":
                    self.delivered[key] = int(arg)
                else:
                    self.failed[key] = arg

    def ended_badly(self):
        """Why none of its reports can be trusted, or None."""
        if self.status is None:
            return "did not finish within %d s" % PRODUCE_TIMEOUT
        if self.status < 0:
            return describe_status(self.status)
        if self.errors:
            return "client creation failed (%s): error %s" % (
                describe_status(self.status), self.errors[0])
        if self.status != 0:
            return describe_status(self.status)
        return None

    def missing(self):
        """(key, reason) of every record not delivered."""
        named = [(k, self.failed.get(k, "no report")) for k in self.keys
                 if k != "-" and k not in self.delivered]
        nulls = self.keys.count("-")
        unreported = nulls - len(self.null_delivered) - len(self.null_failed)
        return named + [("-", e) for e in self.null_failed] + \
            [("-", "no report")] * max(0, unreported)

    def records(self):
        """The delivered records as a multiset of (partition, key)."""
        found = collections.Counter(
            (p, k) for k, p in self.delivered.items())
        found.update((p, "-") for p in self.null_delivered)
        return found


def produce(name, argv, bootstrap, plugin, keys):
    child = Child(name, argv + ["produce", bootstrap, plugin])
    child.send(keys)
    child.close_stdin()
    status = child.wait(PRODUCE_TIMEOUT)
    if status is None:
        child.kill()
    return Production(child, keys, status)


def batch1_keys():
    return (["Platinum-%d" % i for i in range(60)] +
            ["Gold-%d" % i for i in range(60)] +
            ["Silver-%d" % i for i in range(10)] + ["-"] * 10)


def batch2_keys():
    return (["Platinum-%d" % i for i in range(100, 160)] +
            ["Gold-%d" % i for i in range(100, 160)])


def some(items, limit=6):
    items = list(items)
    text = ", ".join(items[:limit])
    return text + (", ..." if len(items) > limit else "")


def produce_scenario(v, env):
    """Runs the adapter's producer on batch 1; returns its Production when
    every check passed, else None."""
    s = "produce"
    keys = batch1_keys()
    prod = produce("producer", env.adapter, env.bootstrap, env.plugin, keys)
    bad = prod.ended_badly()
    if bad:
        v.check(s, False, "adapter %s" % bad, [prod.child])
        return None
    missing = prod.missing()
    text = "all %d records delivered" % len(keys) if not missing else \
        "%d of %d records not delivered: %s" % (
            len(missing), len(keys), some("%s (%s)" % m for m in missing))
    if prod.duplicates:
        text += "; several reports for %s" % some(prod.duplicates)
    if prod.unknown:
        text += "; unexpected lines: %s" % some(prod.unknown)
    ok = v.check(s, not missing and not prod.duplicates and not prod.unknown,
                 text, [prod.child])

    def placed(what, got, allowed):
        wrong = [(k, p) for k, p in got if p not in allowed]
        if not got:
            text = "%s: none delivered" % what
        elif not wrong:
            text = "%s on partitions %s (%d records)" % (
                what, plist(allowed), len(got))
        else:
            text = "%d of %d %s outside partitions %s: %s" % (
                len(wrong), len(got), what, plist(allowed),
                some("%s on %d (bucket %s)" % (k, p, bucket_of(p))
                     for k, p in wrong))
        return v.check(s, bool(got) and not wrong, text, [prod.child])

    def keyed(prefix):
        return [(k, prod.delivered[k]) for k in keys
                if k.startswith(prefix) and k in prod.delivered]

    ok &= placed("Platinum keys", keyed("Platinum-"), PLATINUM)
    ok &= placed("Gold keys", keyed("Gold-"), GOLD)
    ok &= placed("unknown-bucket keys (Silver-*)", keyed("Silver-"), GOLD)
    ok &= placed("NULL keys", [("NULL key", p) for p in prod.null_delivered],
                 GOLD)
    for bucket, partitions, prefixes in (
            ("Platinum", PLATINUM, ("Platinum-",)),
            ("Gold", GOLD, ("Gold-", "Silver-"))):
        reached = {p for k, p in prod.delivered.items()
                   if k.startswith(prefixes)}
        if bucket == "Gold":
            reached |= set(prod.null_delivered)
        full = partitions <= reached
        ok &= v.check(
            s, full,
            "%s-bucket records reach every partition %s (round robin)" % (
                bucket, plist(partitions)) if full else
            "%s-bucket records reach only partitions %s of %s, never %s" % (
                bucket, plist(reached & partitions), plist(partitions),
                plist(partitions - reached)), [prod.child])
    return prod if ok else None


# ---------------------------------------------------------------- consuming

class Consumer(Child):
    def __init__(self, name, env, group, bucket, properties=()):
        super().__init__(name, env.adapter + ["consume", env.bootstrap,
                                              env.plugin, group, bucket] +
                         list(properties))
        self.short = name.split()[-1]

    def parsed(self, start=0):
        """(records: a list of (partition, key), assignments: a list of
        frozensets) from its stdout lines start..."""
        records, assignments = [], []
        for line in self.snapshot()[start:]:
            word, _, rest = line.partition(" ")
            if word == "record":
                part, _, key = rest.partition(" ")
                if part.isdigit():
                    records.append((int(part), key))
            elif word == "assigned":
                rest = rest.strip()
                try:
                    assignments.append(frozenset(
                        int(p) for p in rest.split(",")) if rest
                        else frozenset())
                except ValueError:
                    pass
        return records, assignments

    def ended(self):
        """Why it stopped early, once it has; else None."""
        status = self.proc.poll()
        if status is None:
            return None
        self.wait(5)
        errors = [l[6:] for l in self.snapshot() if l.startswith("error ")]
        return "%s stopped early (%s)%s" % (
            self.name, describe_status(status),
            ": error " + errors[0] if errors else "")


def covered(wanted, consumers):
    """The part of the multiset wanted that the consumers have read."""
    got = collections.Counter()
    for c in consumers:
        got.update(c.parsed()[0])
    return wanted & got


def wait_all(consumers, predicate, timeout):
    deadline = time.monotonic() + timeout
    while not predicate() and time.monotonic() < deadline and \
            all(c.running() for c in consumers):
        consumers[0].wait_for(predicate, min(0.5, max(
            0.0, deadline - time.monotonic())))
    return predicate()


def stopped(v, s, consumers):
    """Fails the scenario when a consumer stopped before its time."""
    for c in consumers:
        why = c.ended()
        if why:
            v.check(s, False, why, [c])
            return True
    return False


def foreign(records):
    return sorted({p for p, _ in records if p not in GOLD})


def partitions_missing(wanted, got):
    return plist({p for p, _ in (wanted - got)})


def latest_since(a, mark, b):
    """(A's last assignment from its stdout line mark on, B's last), None
    for one not printed."""
    after_a, all_b = a.parsed(mark)[1], b.parsed()[1]
    return (after_a[-1] if after_a else None, all_b[-1] if all_b else None)


def close_all(v, s, consumers):
    """Closes the consumers' stdin; each must exit 0."""
    for c in consumers:
        c.close_stdin()
    for c in consumers:
        status = c.wait(EXIT_TIMEOUT)
        if status is None:
            c.kill()
        v.check(s, status == 0,
                "%s exited 0 after its stdin closed" % c.short
                if status == 0 else
                "%s did not exit within %d s after its stdin closed" % (
                    c.short, EXIT_TIMEOUT) if status is None else
                "%s %s after its stdin closed" % (
                    c.short, describe_status(status)), [c])


def reference_batch(v, env, s):
    """The first batch, produced by the reference producer (on a fresh mock
    cluster if records were produced before); None after a failed check."""
    if env.used:    # a failed producer may have left stray records
        env.restart_cluster()
    v.note(s, "records come from the reference producer (Debian "
           "python3-confluent-kafka through the plugin)%s" % (
               " on a fresh mock cluster" if env.used else ""))
    batch1 = produce("reference producer", env.reference, env.bootstrap,
                     env.plugin, batch1_keys())
    bad = batch1.ended_badly()
    if bad or batch1.missing():
        v.check(s, False, "reference producer %s" % (
            bad or "did not deliver %s" % some(
                "%s (%s)" % m for m in batch1.missing())),
            [batch1.child])
        return None
    env.used = True
    return batch1


def consume_scenario(v, env, batch1):
    """Consumers A and B of bucket Gold in one group. batch1: the adapter's
    Production of the produce scenario, or None when the adapter cannot
    produce (then the reference producer produces both batches)."""
    s = "consume"
    producer, by = env.adapter, "the adapter"
    if batch1 is None:
        producer, by = env.reference, "the reference producer"
        batch1 = reference_batch(v, env, s)
        if batch1 is None:
            return
    env.used = True
    group = "matrix-%d-%s" % (os.getpid(), uuid.uuid4().hex[:8])
    gold1 = collections.Counter({r: n for r, n in batch1.records().items()
                                 if r[0] in GOLD})
    a = Consumer("consumer A", env, group, "Gold")
    wait_all([a], lambda: covered(gold1, [a]) == gold1, READ_TIMEOUT)
    if stopped(v, s, [a]):
        return
    got = covered(gold1, [a])
    records, assignments = a.parsed()
    n1 = sum(gold1.values())
    v.check(s, got == gold1,
            "A read all %d records of partitions 8-11" % n1 if got == gold1
            else "A read %d of %d records of partitions 8-11 within %d s "
            "(missing on partitions %s)" % (
                sum(got.values()), n1, READ_TIMEOUT,
                partitions_missing(gold1, got)), [a])
    bad = foreign(records)
    v.check(s, not bad, "A alone read no record of partitions 0-7"
            if not bad else "A read partition%s %s (bucket Platinum): %d "
            "records" % ("s" if len(bad) > 1 else "", plist(bad),
                         sum(1 for p, _ in records if p not in GOLD)), [a])
    outside = frozenset().union(*assignments) - GOLD
    v.check(s, bool(assignments) and not outside,
            "A printed no assignment" if not assignments else
            "A alone was assigned partitions of 8-11 only (%s)" % " then ".join(
                plist(x) for x in assignments) if not outside else
            "A was assigned partitions %s (bucket Platinum): assigned %s" % (
                plist(outside), plist(assignments[-1])), [a])

    mark = len(a.snapshot())
    b = Consumer("consumer B", env, group, "Gold")

    def latest():
        return latest_since(a, mark, b)

    def balanced():
        la, lb = latest()
        return bool(la) and bool(lb) and not la & lb and la | lb == GOLD

    wait_all([a, b], balanced, JOIN_TIMEOUT)
    if stopped(v, s, [a, b]):
        return
    la, lb = latest()
    v.check(s, balanced(),
            "after B joined: A has %s, B has %s" % (plist(la), plist(lb))
            if balanced() else
            "no disjoint split of 8-11 between A and B within %d s after B "
            "joined: A's last assignment since then %s, B's %s" % (
                JOIN_TIMEOUT, "none" if la is None else plist(la),
                "none" if lb is None else plist(lb)), [a, b])

    keys2 = batch2_keys()
    batch2 = produce("producer (batch 2)", producer, env.bootstrap,
                     env.plugin, keys2)
    bad, missing = batch2.ended_badly(), batch2.missing()
    v.check(s, not bad and not missing,
            "batch 2: %d records delivered by %s" % (len(keys2), by)
            if not bad and not missing else
            "batch 2 by %s: %s" % (by, bad or "%d records not delivered: %s"
                                   % (len(missing), some(
                                       "%s (%s)" % m for m in missing))),
            [batch2.child])
    gold2 = collections.Counter({r: n for r, n in batch2.records().items()
                                 if r[0] in GOLD})
    wait_all([a, b], lambda: covered(gold2, [a, b]) == gold2, READ_TIMEOUT)
    if stopped(v, s, [a, b]):
        return
    got = covered(gold2, [a, b])
    n2 = sum(gold2.values())
    v.check(s, bool(gold2) and got == gold2,
            "batch 2 put no record on partitions 8-11" if not gold2 else
            "A and B read all %d records of partitions 8-11 of batch 2" % n2
            if got == gold2 else
            "A and B read %d of %d records of partitions 8-11 of batch 2 "
            "within %d s (missing on partitions %s)" % (
                sum(got.values()), n2, READ_TIMEOUT,
                partitions_missing(gold2, got)), [a, b])
    in2 = set(keys2)
    pa = {p for p, k in a.parsed()[0] if k in in2}
    pb = {p for p, k in b.parsed()[0] if k in in2}
    v.check(s, not pa & pb,
            "in batch 2 A read partitions %s, B %s (disjoint)" % (
                plist(pa), plist(pb)) if not pa & pb else
            "in batch 2 A and B both read partitions %s (A %s, B %s)" % (
                plist(pa & pb), plist(pa), plist(pb)), [a, b])

    close_all(v, s, (a, b))
    for c in (a, b):
        records, assignments = c.parsed()
        bad = foreign(records)
        v.check(s, not bad, "%s never read a record of partitions 0-7" %
                c.short if not bad else
                "%s read partition%s %s (bucket Platinum): %d records in all"
                % (c.short, "s" if len(bad) > 1 else "", plist(bad),
                   sum(1 for p, _ in records if p not in GOLD)), [c])
        outside = frozenset().union(*assignments) - GOLD
        v.check(s, not outside,
                "%s was only ever assigned partitions of 8-11" % c.short
                if not outside else
                "%s was assigned partitions %s (bucket Platinum)" % (
                    c.short, plist(outside)), [c])


def several_scenario(v, env, weighted=False):
    """One consumer of both buckets ("Platinum, Gold", strict) holding the
    lower one back in a queue (bucket.priority.hold=queue), or with
    weighted the weighted schedule with the hold left out (queue, its
    default), configured the client's way, reads every record of a fresh
    batch on all 12 partitions, each partition's in the order written, and
    exits 0 once its stdin closes (the close runs through the plugin's
    queues)."""
    s = "several-weighted" if weighted else "several"
    first = 300 if weighted else 200
    keys = (["Platinum-%d" % i for i in range(first, first + 100)] +
            ["Gold-%d" % i for i in range(first, first + 100)])
    how = "weighted" if weighted else "hold=queue"
    batch = produce("reference producer (several)", env.reference,
                    env.bootstrap, env.plugin, keys)
    bad, missing = batch.ended_badly(), batch.missing()
    if bad or missing:
        v.check(s, False, "reference producer %s" % (
            bad or "did not deliver %d records" % len(missing)),
            [batch.child])
        return
    env.used = True
    want = batch.records()
    group = "matrix-several-%d-%s" % (os.getpid(), uuid.uuid4().hex[:8])
    c = Consumer("consumer D" if weighted else "consumer C", env, group,
                 "Platinum, Gold",
                 ["bucket.priority.schedule=weighted"] if weighted else
                 ["bucket.priority.hold=queue"])
    wait_all([c], lambda: covered(want, [c]) == want, READ_TIMEOUT)
    if stopped(v, s, [c]):
        return
    got = covered(want, [c])
    v.check(s, got == want,
            "%s (Platinum, Gold; %s) read all %d records on "
            "partitions %s" % (c.short, how, sum(want.values()),
                               plist({p for p, _ in want}))
            if got == want else
            "%s read %d of %d records within %d s (missing on partitions "
            "%s)" % (c.short, sum(got.values()), sum(want.values()),
                     READ_TIMEOUT, partitions_missing(want, got)), [c])
    written = {k: i for i, k in enumerate(keys)}
    seen, behind = {}, []
    for part, key in c.parsed()[0]:
        if key not in written:
            continue
        if written[key] < seen.get(part, -1):
            behind.append("%s on %d" % (key, part))
        seen[part] = max(seen.get(part, -1), written[key])
    v.check(s, not behind,
            "%s read each partition's records in the order written"
            % c.short if not behind else
            "%s read %d records behind a later one of their partition: %s"
            % (c.short, len(behind), some(behind)), [c])
    close_all(v, s, (c,))


# ------------------------------------------------- unmapped rebalance events

def unmapped_scenario(v, env, env_var):
    """A consumer of Gold whose client takes rebalances as events and that
    does not map them (the adapter run with env_var=1): the plugin says so
    at creation and, once the consumer is assigned the whole topic, pauses
    it at its first record. It must read at most one record and close."""
    s = "unmapped"
    batch1 = reference_batch(v, env, s)
    if batch1 is None:
        return
    os.environ[env_var] = "1"
    try:
        c = Consumer("consumer without the mapping", env,
                     "matrix-%d-%s" % (os.getpid(), uuid.uuid4().hex[:8]),
                     "Gold")
    finally:
        del os.environ[env_var]

    def logged(text):
        with c.cond:
            return any(text in line for line in c.stderr)

    paused = c.wait_for(lambda: logged("partitions are paused"),
                        READ_TIMEOUT)
    if paused:
        time.sleep(5)   # what it would read next, if it still read
    warned = logged("rebalances as events")
    if stopped(v, s, [c]):
        return
    records = c.parsed()[0]
    v.check(s, warned and paused,
            "the plugin logged at creation that the consumer cannot be "
            "mapped, and that its assignment is paused" if warned and paused
            else "no plugin log of %s within %d s" % (
                " and ".join(w for w, ok in (
                    ("'rebalances as events'", warned),
                    ("'partitions are paused'", paused)) if not ok),
                READ_TIMEOUT), [c])
    v.check(s, len(records) <= 1,
            "read %d record%s of the %d produced (at most one)" % (
                len(records), "" if len(records) == 1 else "s",
                sum(batch1.records().values())) if len(records) <= 1 else
            "read %d records (partitions %s) although paused" % (
                len(records), plist({p for p, _ in records})), [c])
    c.close_stdin()
    status = c.wait(EXIT_TIMEOUT)
    if status is None:
        c.kill()
    v.check(s, status == 0, "closed and exited 0" if status == 0 else
            "%s after its stdin closed" % (
                "still running %d s" % EXIT_TIMEOUT if status is None
                else describe_status(status)), [c])


# ----------------------------------------------------------- creation error

def creation_error_scenario(v, adapter, bootstrap, plugin, modes, substring):
    for mode in modes:
        if mode == "produce":
            child = Child("producer", adapter + ["produce", bootstrap, plugin])
            child.close_stdin()
        else:
            child = Child("consumer", adapter + [
                "consume", bootstrap, plugin,
                "matrix-%d-%s" % (os.getpid(), uuid.uuid4().hex[:8]), "Gold"])
        status = child.wait(EXIT_TIMEOUT)
        if status is None:
            child.close_stdin()
            status = child.wait(EXIT_TIMEOUT)
            child.kill()
            v.check(mode, False, "the client was created: still running "
                    "after %d s, expected 'error ...%s...' and exit 3"
                    % (EXIT_TIMEOUT, substring), [child])
            continue
        errors = [l[6:] for l in child.snapshot() if l.startswith("error ")]
        matching = [e for e in errors if substring in e]
        ok = status == 3 and bool(matching)
        v.check(mode, ok,
                "creation refused (exit 3): error %s" % matching[0] if ok else
                "%s, %s; expected 'error ...%s...' and exit 3" % (
                    describe_status(status),
                    "error " + errors[0] if errors else "no 'error' line",
                    substring), [child])


# --------------------------------------------------------------------- main

class Env:
    """The adapter, plugin and the mock cluster the scenarios share."""

    def __init__(self, args, mock_argv=None):
        self.adapter = shlex.split(args.adapter)
        self.reference = [args.reference_python,
                          os.path.join(HERE, "python_adapter.py")]
        self.plugin = args.plugin
        self.mock_argv = mock_argv or [args.mock_cluster]
        self.cluster, self.bootstrap = start_cluster(self.mock_argv)
        self.used = False       # records were produced to the cluster

    def restart_cluster(self):
        stop_cluster(self.cluster)
        self.cluster, self.bootstrap = start_cluster(self.mock_argv)
        self.used = False


def main():
    ap = argparse.ArgumentParser(
        description="Checks one Kafka client (through its adapter) with the "
        "bucket-priority plugin on bp-mock-cluster.")
    ap.add_argument("--adapter", required=True,
                    help="the adapter command, split like a shell does")
    ap.add_argument("--plugin", required=True,
                    help="libbucketpriority.so, given to plugin.library.paths")
    ap.add_argument("--mock-cluster", required=True,
                    help="the bp-mock-cluster executable")
    ap.add_argument("--expect", default="works",
                    help="works (default), creation-error:SUBSTRING or "
                    "unmapped-stopped:ENV_VAR")
    ap.add_argument("--modes", default="produce,consume",
                    help="produce,consume (default), produce or consume")
    ap.add_argument("--reference-python", default="/usr/bin/python3",
                    help="the interpreter of the reference producer "
                    "(python_adapter.py on Debian's python3-confluent-kafka)")
    args = ap.parse_args()
    modes = [m for m in args.modes.split(",") if m]
    if not shlex.split(args.adapter) or not modes or \
            any(m not in ("produce", "consume") for m in modes):
        ap.error("--adapter must name a command; --modes produce,consume")
    if args.expect != "works" and not args.expect.startswith(
            ("creation-error:", "unmapped-stopped:")):
        ap.error("--expect works|creation-error:SUBSTRING|"
                 "unmapped-stopped:ENV_VAR")

    atexit.register(cleanup)
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, on_signal)

    print("client_matrix: adapter %s, expect %s, modes %s, plugin %s" % (
        args.adapter, args.expect, ",".join(modes), args.plugin), flush=True)
    v = Verdicts()
    try:
        env = Env(args)
        if args.expect.startswith("unmapped-stopped:"):
            unmapped_scenario(v, env, args.expect[len("unmapped-stopped:"):])
        elif args.expect.startswith("creation-error:"):
            creation_error_scenario(v, env.adapter, env.bootstrap, env.plugin,
                                    modes,
                                    args.expect[len("creation-error:"):])
        else:
            batch1 = None
            if "produce" in modes:
                batch1 = produce_scenario(v, env)
                env.used = True
                if batch1 is None and "consume" in modes:
                    v.note("consume", "the adapter's producer failed a check")
            if "consume" in modes:
                consume_scenario(v, env, batch1)
                several_scenario(v, env)
                several_scenario(v, env, weighted=True)
        stop_cluster(env.cluster)
    except SetupError as exc:
        v.check("setup", False, str(exc))
    return v.finish()


if __name__ == "__main__":
    sys.exit(main())
