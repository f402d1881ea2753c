#!/usr/bin/env python3
"""broker_suite.py - end-to-end and fault scenarios of bucket-priority
against a real Apache Kafka (ctest label "broker").

Each scenario starts producers and consumers as separate processes
(bp-broker-client: C, librdkafka, the plugin loaded by plugin.library.paths),
accounts for every record by id from their output files, and fails unless
no delivered record is lost. Duplicates are counted and reported. Figures
(lost, duplicates, growth and takeover times) are printed at the end and
kept in WORKDIR/<scenario>/report.txt and figures.json, next to every
process's output (*.dr, *.read, *.read.assign, *.log) for diagnosis.

  buckets            three buckets, 100 000 keyed records, 2 consumer
                     processes per bucket: every record read by its bucket
  growth_stable      6 -> 12 -> 24 partitions while producing and consuming,
  growth_contiguous  consumers with auto.offset.reset=latest: time until
                     every new partition is written and read by its bucket;
                     with contiguous, partitions that moved to another
                     bucket are taken over where the old bucket's group
                     stopped (start-offset rule 2), not read again
  growth_stable_wheel  growth_stable with consumers written in Python on the
                     newest PyPI confluent-kafka wheel (its own librdkafka,
                     tests/clients/prepare-wheel.sh; bp_wheel_consumer.py),
                     configured by properties only
  consumer_kill      SIGKILL one consumer of two buckets mid-stream
  broker_restart     single-node cluster of its own, broker killed
                     (SIGKILL) and restarted, then stopped (SIGTERM) and
                     restarted, idempotent producer with acks=all
  failover           3-node cluster of its own, RF 3: the leader of a
                     critical-bucket partition killed, then restarted
  scheduler          one consumer serving the bucket list "critical, bulk"
                     (strict and weighted) under a deep bulk backlog,
                     through a rebalance, against a plain consumer
                     (broker_sched.py)
  sched_queue        one Python consumer of "critical, bulk" with
                     bucket.priority.hold=queue (classic and KIP-848) and
                     the hold=pause control; then a rolling restart of a
                     group of such consumers from pause to queue under
                     load (broker_sched_queue.py)
  change             a live layout change by the procedure of
                     docs/layout-change.md under load: allocation (both
                     layouts), a bucket added, one removed, and the naive
                     rollout caught (broker_change.py)
  kip848             consumers on group.protocol=consumer (KIP-848), C and
                     Python wheel, two per bucket through joins, a leave
                     and a SIGKILL under load: keep-and-pause, balance per
                     state (broker_kip848.py; skipped before librdkafka
                     2.12)
  audit_kip848       bp-audit on live KIP-848 bucket groups (C and Python
                     members): held, not read, healthy; a bucket without
                     members; on librdkafka 2.0.2 not checked, not a fault
                     (broker_audit_kip848.py; skipped before 2.12)
  kip848_migrate     bucket groups moved from the classic protocol to
                     KIP-848 and back, members restarted one by one under
                     load: each state's figures (broker_kip848_migrate.py;
                     skipped before librdkafka 2.12)
  operations         docs/operations.md's lag per bucket and
                     docs/layout-change.md's renaming a bucket's group with
                     its offsets, with the commands the docs show
                     (broker_ops.py)

The scenarios use the broker named by BP_BROKER_BOOTSTRAP, except
broker_restart and failover, which start their own clusters with kafka.sh
(in WORKDIR) and stop them at the end. All exit 77 (ctest: skipped) when
BP_BROKER_BOOTSTRAP is not set.

Only the Python standard library is used (Debian's /usr/bin/python3).
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time

SKIP = 77
BUCKETS = ["critical", "normal", "bulk"]
ALLOCATION = "20%, 30%, 50%"
GROWTH_TARGET_S = 15.0

T_START = time.time()


def log(msg):
    print("[%6.1fs] %s" % (time.time() - T_START, msg), flush=True)


def now_ms():
    return int(time.time() * 1000)


class Skip(Exception):
    """The scenario cannot run here (the reason says why): exit 77."""


class Failure(Exception):
    pass


# ----------------------------------------------------------------- files --

class Tail:
    """Reads the complete lines appended to a file since the last call."""

    def __init__(self, path):
        self.path = path
        self.pos = 0
        self.partial = b""

    def lines(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.pos)
                data = f.read()
        except FileNotFoundError:
            return []
        self.pos += len(data)
        data = self.partial + data
        parts = data.split(b"\n")
        self.partial = parts.pop()
        return [p.decode("utf-8", "replace") for p in parts if p]


# ------------------------------------------------------------- processes --

ALL_PROCS = []

# the clients' error callback: "<ms> <client>: client error: <code>: ..."
ALL_BROKERS_DOWN = re.compile(r"(\d+) .*client error: .*_ALL_BROKERS_DOWN")


class Proc:
    """A child process with its stdout (summary) and stderr (log) in files."""

    def __init__(self, env, name, args):
        self.name = name
        self.base = os.path.join(env.workdir, name)
        self.summary_path = self.base + ".summary"
        self.log_path = self.base + ".log"
        with open(self.summary_path, "wb") as so, open(self.log_path, "wb") as se:
            self.p = subprocess.Popen(args, stdout=so, stderr=se,
                                      stdin=subprocess.DEVNULL)
        self.killed = False
        self.stopping = False
        ALL_PROCS.append(self)

    def alive(self):
        return self.p.poll() is None

    def stop(self, timeout=60):
        """SIGTERM, wait; SIGKILL if it does not exit. Returns exit code."""
        self.stopping = True
        if self.alive():
            self.p.send_signal(signal.SIGTERM)
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            log("%s did not stop within %ds; SIGKILL" % (self.name, timeout))
            self.p.kill()
            self.p.wait()
            raise Failure("%s did not stop on SIGTERM" % self.name)

    def kill(self):
        self.killed = True
        self.p.kill()
        self.p.wait()

    def died(self):
        """How it ended when it ended by itself with a failure (a crash,
        an abort): "<name> exited with <status>: <last log line>", else
        None."""
        code = self.p.poll()
        if code in (None, 0) or self.killed or self.stopping:
            return None
        try:
            with open(self.log_path, errors="replace") as f:
                last = ([ln.strip() for ln in f if ln.strip()] or [""])[-1]
        except FileNotFoundError:
            last = ""
        how = ("signal %d" % -code) if code < 0 else ("code %d" % code)
        return "%s exited with %s: %s" % (self.name, how, last)

    def logged_since(self, pattern, ms):
        """True when its log has a line matching pattern (a re whose group
        1 is the line's wall-clock ms) written at or after ms."""
        try:
            with open(self.log_path, errors="replace") as f:
                return any(int(m.group(1)) >= ms
                           for m in map(pattern.match, f) if m)
        except FileNotFoundError:
            return False

    def summary(self):
        with open(self.summary_path) as f:
            return f.read().strip()

    def summary_fields(self):
        """'a 1 b 2' -> {'a': '1', 'b': '2'}"""
        w = self.summary().split()
        return dict(zip(w[0::2], w[1::2]))


class Env:
    def __init__(self, a, bootstrap):
        self.client = a.client
        self.plugin = a.plugin
        self.layout_bin = a.layout_bin
        self.audit_bin = a.audit_bin
        self.change_plan_bin = a.change_plan_bin
        self.kafka_sh = a.kafka_sh
        self.sched_client = a.sched_client
        self.prepare_wheel = a.prepare_wheel
        self.wheel_python = None     # set by scenario_growth_wheel
        self.workdir = a.workdir
        self.bootstrap = bootstrap
        self.layouts = {}

    def common(self, topic, layout, bootstrap=None, buckets=None,
               allocation=None):
        return ["--bootstrap", bootstrap or self.bootstrap,
                "--plugin", self.plugin, "--topic", topic,
                "--buckets", buckets or ", ".join(BUCKETS),
                "--allocation", allocation or ALLOCATION,
                "--layout", layout]

    def layout(self, layout, partitions):
        """{bucket: [partitions]} from bp-layout --json."""
        key = (layout, partitions)
        if key not in self.layouts:
            out = subprocess.run(
                [self.layout_bin, "--buckets", ", ".join(BUCKETS),
                 "--allocation", ALLOCATION, "--partitions", str(partitions),
                 "--layout", layout, "--json"],
                check=True, capture_output=True, text=True).stdout
            self.layouts[key] = {b["name"]: list(b["partitions"])
                                 for b in json.loads(out)["buckets"]}
        return self.layouts[key]

    def owner(self, layout, partitions, p):
        for b, parts in self.layout(layout, partitions).items():
            if p in parts:
                return b
        return None

    def admin(self, what, bootstrap=None, **kw):
        args = [self.client, "admin", what, "--bootstrap",
                bootstrap or self.bootstrap]
        for k, v in kw.items():
            args += ["--" + k, str(v)]
        r = subprocess.run(args, capture_output=True, text=True, timeout=120)
        if r.returncode:
            raise Failure("admin %s failed: %s" % (what, r.stderr.strip()))
        return r.stdout.strip()

    def kafka(self, *args, timeout=180):
        r = subprocess.run([self.kafka_sh] + list(args), capture_output=True,
                           text=True, timeout=timeout)
        if r.returncode:
            raise Failure("kafka.sh %s failed:\n%s" % (" ".join(args),
                                                       r.stderr[-3000:]))
        return r.stdout.strip()


class Producer(Proc):
    """Record id N keyed to BUCKETS[N % 3]; with key_bucket, all to it
    (buckets and allocation: another bucket configuration)."""

    def __init__(self, env, name, topic, layout, start=0, count=None,
                 rate=None, extra=(), bootstrap=None, buckets=None,
                 allocation=None, key_bucket=None):
        self.out = os.path.join(env.workdir, name + ".dr")
        args = self.program(env) + ["produce"] + env.common(
            topic, layout, bootstrap, buckets, allocation)
        args += ["--out", self.out, "--start", str(start)]
        if key_bucket:
            args += ["--key-bucket", key_bucket]
        if count:
            args += ["--count", str(count)]
        if rate:
            args += ["--rate", str(rate)]
        for x in extra:
            args += ["-X", x]
        super().__init__(env, name, args)
        self.tail = Tail(self.out)

    @staticmethod
    def program(env):
        return [env.client]


class WheelProducer(Producer):
    """bp_wheel_producer.py under the venv of prepare-wheel.sh: a producer
    written with the PyPI confluent-kafka wheel, configured by a config
    dict only. Same options (no --count, --key-bucket), files and summary
    as bp-broker-client produce."""

    @staticmethod
    def program(env):
        return [env.wheel_python, os.path.join(
            os.path.dirname(os.path.abspath(__file__)),
            "bp_wheel_producer.py")]


FETCH_STATE = re.compile(
    r"Partition (\S+) \[(\d+)\] changed fetch state \S+ -> (\S+)")


class Consumer(Proc):
    """bp-broker-client consume: a C consumer of one bucket."""

    def __init__(self, env, name, topic, layout, bucket, group,
                 reset="earliest", session_ms=6000, extra=(), bootstrap=None,
                 buckets=None, allocation=None):
        self.bucket = bucket
        self.topic = topic
        self.out = os.path.join(env.workdir, name + ".read")
        args = self.program(env) + ["consume"] + env.common(
            topic, layout, bootstrap, buckets, allocation)
        args += ["--bucket", bucket, "--group", group, "--out", self.out,
                 "--reset", reset, "--session-ms", str(session_ms)]
        debug = [d for d in os.environ.get("BP_BROKER_CONSUMER_DEBUG",
                                           "").split(",") if d]  # cgrp,...
        if reset == "latest" and not {"topic", "all"} & set(debug):
            # librdkafka's "topic" debug logs each partition's fetch state:
            # "active" once "latest" is resolved (see starts_unresolved)
            debug.append("topic")
        if debug:
            extra = list(extra) + ["debug=" + ",".join(debug)]
        for x in extra:
            args += ["-X", x]
        super().__init__(env, name, args)
        self.tail = Tail(self.out)
        self.assign_tail = Tail(self.out + ".assign")
        self.assignments = []        # [(ms, frozenset)]
        self.current = frozenset()
        self.log_tail = Tail(self.log_path)
        self.fetch_state = {}        # partition -> librdkafka's fetch state

    def update_assignment(self):
        for line in self.assign_tail.lines():
            ms, parts = line.split(" ", 1)
            s = frozenset() if parts in ("-", "closed") else \
                frozenset(int(x) for x in parts.split(","))
            self.assignments.append((int(ms), s))
            self.current = s
        if not self.alive():
            self.current = frozenset()
        return self.current

    def starts_unresolved(self):
        """The partitions it holds that it does not fetch yet: their start
        offset (e.g. auto.offset.reset=latest, a ListOffsets request after
        the assignment) is not resolved. Read from librdkafka's lines
        "Partition T [p] changed fetch state offset-wait -> active" (debug
        "topic", set for consumers with reset latest; the same text in
        librdkafka 2.0.2 to 2.16)."""
        for line in self.log_tail.lines():
            m = FETCH_STATE.search(line)
            if m and m.group(1) == self.topic:
                self.fetch_state[int(m.group(2))] = m.group(3)
        return sorted(p for p in self.update_assignment()
                      if self.fetch_state.get(p) != "active")

    def first_assigned_ms(self, p, after_ms):
        """When this consumer was first assigned partition p after a time."""
        for ms, s in self.assignments:
            if ms >= after_ms and p in s:
                return ms
        return None

    @staticmethod
    def program(env):
        return [env.client]

    def problems(self):
        """What went wrong in the process itself, once it stopped."""
        return []


class WheelConsumer(Consumer):
    """bp_wheel_consumer.py under the venv of prepare-wheel.sh: a consumer
    written with the PyPI confluent-kafka wheel (its own librdkafka),
    configured by a config dict only, with on_assign/on_revoke of its own.
    Same options, files and summary as bp-broker-client consume; its
    summary adds "plugin_stats ok" once bp_stats() answered for it."""

    @staticmethod
    def program(env):
        return [env.wheel_python, os.path.join(
            os.path.dirname(os.path.abspath(__file__)),
            "bp_wheel_consumer.py")]

    def problems(self):
        if self.killed:
            return []
        out = []
        if self.p.returncode != 0:
            out.append("exit %s" % self.p.returncode)
        if self.summary_fields().get("plugin_stats") != "ok":
            out.append("summary \"%s\" (no plugin statistics)"
                       % self.summary())
        return ["%s: %s (log %s)" % (self.name, ", ".join(out), self.log_path)
                ] if out else []


class SchedConsumer(Consumer):
    """bp-broker-sched (bp_sched_client.c): a consumer of the bucket list
    "critical, bulk" with schedule strict or weighted, or with schedule
    None a plain consumer without the plugin, that judges every record it
    delivers (judge strict or weighted) and writes its episodes and windows
    to <out>.judge; its summary (stdout) is one JSON object."""

    def __init__(self, env, name, topic, group, critical, judge,
                 schedule=None, buckets=None, allocation=None, work_us=0,
                 window=2000, extra=()):
        self.bucket = buckets if schedule else "plain"
        self.out = os.path.join(env.workdir, name + ".read")
        args = [env.sched_client, "--bootstrap", env.bootstrap,
                "--topic", topic, "--group", group, "--out", self.out,
                "--critical", ",".join(str(p) for p in critical),
                "--judge", judge, "--work-us", str(work_us),
                "--window", str(window)]
        if schedule:
            args += ["--plugin", env.plugin, "--buckets", buckets,
                     "--allocation", allocation, "--schedule", schedule]
        if os.environ.get("BP_BROKER_CONSUMER_DEBUG"):
            extra = list(extra) + ["debug=" +
                                   os.environ["BP_BROKER_CONSUMER_DEBUG"]]
        for x in extra:
            args += ["-X", x]
        Proc.__init__(self, env, name, args)
        self.tail = Tail(self.out)
        self.assign_tail = Tail(self.out + ".assign")
        self.judge_tail = Tail(self.out + ".judge")
        self.assignments = []
        self.current = frozenset()
        self.episodes = []     # (start ms, end ms, bulk records, max lag)
        self.windows = []      # (ms, critical, records)

    def update_judged(self):
        for line in self.judge_tail.lines():
            w = line.split()
            if w[0] == "E":
                self.episodes.append(tuple(int(x) for x in w[1:]))
            elif w[0] == "W":
                self.windows.append(tuple(int(x) for x in w[1:]))

    def figures(self):
        """The JSON summary written when it stopped."""
        return json.loads(self.summary())


# ---------------------------------------------------------------- ledger --

class Ledger:
    """Every delivered and every read record, by id."""

    def __init__(self, producers, consumers):
        self.producers = producers
        self.consumers = consumers
        self.delivered = {}      # id -> (partition, ms)
        self.dr_dup = 0          # delivery reports twice for one id
        self.reads = {}          # id -> [(consumer, partition, offset, key bucket, ms)]
        self.pending = set()     # delivered, not read yet
        self.first_dr = {}       # partition -> ms of the first delivery report
        self.first_dr_by = {}    # producer name -> {partition: ms}
        self.drs = []            # (ms, partition) in file order
        self.read_ms = {}        # (partition, consumer bucket) -> [ms]

    def add_consumer(self, c):
        self.consumers.append(c)

    def update(self):
        for pr in self.producers:
            for line in pr.tail.lines():
                i, p, _off, ms = (int(x) for x in line.split())
                if i in self.delivered:
                    self.dr_dup += 1
                    continue
                self.delivered[i] = (p, ms)
                self.drs.append((ms, p))
                if p not in self.first_dr:
                    self.first_dr[p] = ms
                self.first_dr_by.setdefault(pr.name, {}).setdefault(p, ms)
                if i not in self.reads:
                    self.pending.add(i)
        for c in self.consumers:
            for line in c.tail.lines():
                w = line.split()
                i, p, off, kb, ms = int(w[0]), int(w[1]), int(w[2]), w[3], int(w[4])
                self.reads.setdefault(i, []).append((c, p, off, kb, ms))
                self.read_ms.setdefault((p, c.bucket), []).append(ms)
                self.pending.discard(i)
            c.update_assignment()

    def first_read(self, p, bucket, after_ms):
        """ms of the first read of partition p by a consumer of bucket at
        or after after_ms, or None."""
        return min((ms for ms in self.read_ms.get((p, bucket), ())
                    if ms >= after_ms), default=None)

    def duplicates(self):
        extra = sum(len(v) - 1 for v in self.reads.values() if len(v) > 1)
        ids = sum(1 for v in self.reads.values() if len(v) > 1)
        return extra, ids

    def wait_all_read(self, timeout):
        """Until every delivered record has been read."""
        deadline = time.time() + timeout
        while True:
            self.update()
            if not self.pending:
                return True
            if time.time() > deadline:
                return False
            time.sleep(0.5)


def write_properties(env, path, topic, buckets, allocation, layout, group):
    """The clients' properties file, as bp-audit --config reads it."""
    with open(path, "w") as f:
        f.write("# the clients' properties file\n"
                "bootstrap.servers=%s\n"
                "plugin.library.paths=%s\n"
                "bucket.priority.topic=%s\n"
                "bucket.priority.buckets=%s\n"
                "bucket.priority.allocation=%s\n"
                "bucket.priority.layout=%s\n"
                "group.id=%s\n" % (env.bootstrap, env.plugin, topic, buckets,
                                   allocation, layout, group))
    return path


def wait_until(what, timeout, cond, interval=0.25, missing=None):
    """Polls cond() until it returns something true, and returns that.
    After timeout seconds fails naming what did not happen, with
    missing() (what is still lacking), when given, appended."""
    deadline = time.time() + timeout
    while True:
        r = cond()
        if r:
            return r
        if time.time() > deadline:
            raise Failure("timed out after %ds waiting for %s%s"
                          % (timeout, what,
                             "; still missing: %s" % missing() if missing
                             else ""))
        time.sleep(interval)


def quiet_window(seconds, why):
    """A fixed wait where no condition can stand in for it: proving that
    something does NOT happen (e.g. no late duplicate arrives) takes a
    window of time in which it could have happened. why: what it proves."""
    log("quiet window of %.1f s: %s" % (seconds, why))
    time.sleep(seconds)


def groups_settled(env, ledger, consumers, layout, partitions):
    """Every bucket's live consumers hold exactly its partitions, disjoint,
    within one partition of each other."""
    ledger.update()
    want = env.layout(layout, partitions)
    for b in BUCKETS:
        live = [c for c in consumers if c.bucket == b and c.alive()]
        sets = [c.current for c in live]
        union = frozenset().union(*sets) if sets else frozenset()
        if union != frozenset(want[b]) or sum(len(s) for s in sets) != len(union):
            return False
        sizes = [len(s) for s in sets]
        if max(sizes) - min(sizes) > 1:
            return False
    return True


class GroupCommits:
    """The offsets each bucket group (group.id + "." + bucket) has committed
    on its bucket's partitions, as the broker's group coordinator holds
    them (bp-broker-client admin lag). The consumers commit what they have
    written down every second (auto.commit.interval.ms=1000)."""

    def __init__(self, env, topic, group, layout, bootstrap=None):
        self.env = env
        self.topic = topic
        self.group = group
        self.layout = layout
        self.bootstrap = bootstrap
        self.last_error = None

    def read(self):
        """{bucket: {partition: committed offset}} of every partition its
        group committed (one that moved to another bucket too), or None
        while the broker does not answer."""
        got = {}
        for b in BUCKETS:
            try:
                text = self.env.admin("lag", bootstrap=self.bootstrap,
                                      topic=self.topic,
                                      group="%s.%s" % (self.group, b))
            except (Failure, subprocess.TimeoutExpired) as e:
                self.last_error = str(e)
                return None
            got[b] = {}
            for line in text.splitlines():
                p, committed, _end = (int(x) for x in line.split())
                got[b][p] = committed
        return got

    def snapshot(self, timeout=60):
        """read(), waiting while the broker cannot answer (e.g. the group
        coordinator of a restarted broker still loading)."""
        return wait_until("the broker to answer with the bucket groups' "
                          "committed offsets", timeout,
                          self.read, 0.5,
                          missing=lambda: self.last_error)

    def wait(self, partitions, what, since=None, timeout=60):
        """Until every bucket group has committed an offset on each
        partition of its bucket, above the one in since ({bucket:
        {partition: offset}}, a snapshot()) where given. what: the
        condition in words, for the log and the failure."""
        since = since or {}
        want = self.env.layout(self.layout, partitions)
        lacking = []

        def committed():
            got = self.read()
            if got is None:
                lacking[:] = ["no answer from the broker (%s)"
                              % self.last_error]
                return False
            lacking[:] = [
                "%s.%s on %s" % (self.group, b, ps) for b in BUCKETS
                for ps in [[p for p in want[b] if got[b].get(p, -1) <=
                            since.get(b, {}).get(p, -1)]] if ps]
            return not lacking
        t0 = time.time()
        wait_until(what, timeout, committed, 0.5,
                   missing=lambda: "; ".join(lacking))
        log("%s: done in %.1f s" % (what, time.time() - t0))

    def wait_progress(self, partitions, what, timeout=60):
        """Until every bucket group commits on each partition of its bucket
        an offset above the one committed now."""
        self.wait(partitions, what, since=self.snapshot(), timeout=timeout)


# ----------------------------------------------------------------- checks --

class Report:
    def __init__(self, scenario):
        self.scenario = scenario
        self.lines = []
        self.errors = []
        self.figures = {"scenario": scenario}

    def add(self, text, **figures):
        self.lines.append(text)
        self.figures.update(figures)
        log(text)

    def error(self, text):
        self.errors.append(text)
        log("ERROR: " + text)


def verify(env, ledger, report, layout, counts, allow_moves=False,
           foreign_ok=False):
    """Zero lost, no failed delivery, every record routed to and read by its
    bucket. counts: the partition counts the topic had. allow_moves: a
    record may be read by another bucket when its partition moved between
    the two buckets (contiguous layout, topic grew)."""
    ledger.update()
    for pr in ledger.producers:
        f = pr.summary_fields()
        if pr.p.returncode != 0 or f.get("failed") != "0" or \
                f.get("enqueue_failed") != "0" or f.get("fatal") != "none":
            report.error("producer %s: exit %s, summary \"%s\" (log %s)"
                         % (pr.name, pr.p.returncode, pr.summary(), pr.log_path))
    lost = sorted(ledger.pending)
    unexpected = sorted(i for i in ledger.reads if i not in ledger.delivered)
    extra, dup_ids = ledger.duplicates()
    owners = [{p: b for b, ps in env.layout(layout, n).items() for p in ps}
              for n in counts]

    def explained(p, a, b):
        """partition p belonged to bucket a under one count and to b under
        another."""
        seen = set(o.get(p) for o in owners)
        return a in seen and b in seen

    misrouted = 0            # delivered to a partition not of its bucket
    for i, (p, _ms) in ledger.delivered.items():
        kb = BUCKETS[i % len(BUCKETS)]
        if not any(o.get(p) == kb for o in owners):
            misrouted += 1
    wrong_bucket = moved_reads = wrong_partition = 0
    per_bucket = {b: 0 for b in BUCKETS}
    for i, rs in ledger.reads.items():
        for c, p, _off, kb, _ms in rs:
            per_bucket[c.bucket] += 1
            if not any(o.get(p) == c.bucket for o in owners):
                wrong_partition += 1
            if kb != c.bucket:
                if allow_moves and explained(p, kb, c.bucket):
                    moved_reads += 1
                else:
                    wrong_bucket += 1
    foreign = 0
    for c in ledger.consumers:
        if not c.killed:
            foreign += int(c.summary_fields().get("foreign", "0"))
    report.add("records delivered %d, distinct read %d, lost %d, "
               "duplicates %d (ids read more than once: %d)"
               % (len(ledger.delivered), len(ledger.reads), len(lost), extra,
                  dup_ids),
               delivered=len(ledger.delivered), lost=len(lost),
               duplicates=extra, duplicate_ids=dup_ids)
    report.add("reads per consumer bucket: " +
               ", ".join("%s %d" % (b, per_bucket[b]) for b in BUCKETS))
    report.add("misrouted deliveries %d, reads by another bucket %d, reads "
               "outside the consumer's partitions %d, plugin 'foreign' "
               "count %d%s"
               % (misrouted, wrong_bucket, wrong_partition, foreign,
                  ", reads by the new owner of a moved partition %d"
                  % moved_reads if allow_moves else ""),
               misrouted=misrouted, wrong_bucket=wrong_bucket,
               wrong_partition=wrong_partition, foreign=foreign,
               moved_reads=moved_reads)
    if lost:
        by_p = {}
        for i in lost:
            by_p.setdefault(ledger.delivered[i][0], []).append(i)
        report.error("%d records lost, by partition: %s; e.g. ids %s"
                     % (len(lost), {p: len(v) for p, v in sorted(by_p.items())},
                        lost[:10]))
    if unexpected:
        report.error("%d records read that were never delivered, e.g. %s"
                     % (len(unexpected), unexpected[:10]))
    if ledger.dr_dup:
        report.error("%d ids had two delivery reports" % ledger.dr_dup)
    if misrouted:
        report.error("%d records delivered outside their bucket" % misrouted)
    if wrong_bucket:
        report.error("%d records read by a consumer of another bucket"
                     % wrong_bucket)
    if wrong_partition:
        report.error("%d reads from partitions outside the consumer's bucket"
                     % wrong_partition)
    if foreign and not foreign_ok:
        report.error("the plugin's safety net counted %d foreign records"
                     % foreign)
    if allow_moves:
        check_takeover(ledger, report, owners)


def check_takeover(ledger, report, owners):
    """Start-offset rule 2 (docs/consumer.md): a partition that moved to
    another bucket is taken over where the old bucket's group stopped,
    read from the sibling group's commits. Had the new owner started at
    the beginning instead, every record the old bucket read there would be
    read again: at most half of them may be (at-least-once around the
    move), and the old bucket must have read enough for this to mean
    something."""
    last = owners[-1]
    moved = set(p for p in last
                if len(set(o[p] for o in owners if p in o)) > 1)
    old_read = again = 0
    for _i, rs in ledger.reads.items():
        rs = [(c, p) for c, p, _off, _kb, _ms in rs if p in moved]
        if not rs:
            continue
        if any(c.bucket != last[p] for c, p in rs):
            old_read += 1
            again += len(set(c.bucket for c, _p in rs)) > 1
    report.add("moved partitions %s: %d records read by their old bucket, "
               "%d of them read again by the new one"
               % (sorted(moved), old_read, again),
               takeover_old_read=old_read, takeover_read_again=again)
    if old_read < 20:
        report.error("only %d records of moved partitions were read by their "
                     "old bucket: the takeover from the sibling group "
                     "(start-offset rule 2) was not exercised" % old_read)
    elif again * 2 > old_read:
        report.error("%d of the %d records the old bucket read on moved "
                     "partitions were read again by the new one: the new "
                     "owner did not start where the sibling group stopped"
                     % (again, old_read))


def stop_all(procs):
    for pr in procs:
        if pr.alive():
            pr.p.send_signal(signal.SIGTERM)
    for pr in procs:
        if not pr.killed:
            pr.stop(60)


def start_consumers(env, ledger, topic, layout, group, per_bucket,
                    consumer_cls=Consumer, **kw):
    cs = []
    for b in BUCKETS:
        for k in range(per_bucket.get(b, 1) if isinstance(per_bucket, dict)
                       else per_bucket):
            c = consumer_cls(env, "consumer-%s-%d" % (b, k + 1), topic,
                             layout, b, group, **kw)
            cs.append(c)
            ledger.add_consumer(c)
    return cs


def settle(env, ledger, consumers, layout, partitions, report, what="groups"):
    t0 = time.time()
    wait_until("%s to settle at %d partitions" % (what, partitions), 90,
               lambda: groups_settled(env, ledger, consumers, layout,
                                      partitions))
    log("%s settled at %d partitions in %.1f s: %s" % (
        what, partitions, time.time() - t0,
        "; ".join("%s %s" % (c.name, sorted(c.current)) for c in consumers
                  if c.alive())))


def drain_and_stop(ledger, producers, consumers, report, timeout=90):
    for pr in producers:
        rc = pr.stop(330)
        log("%s stopped (exit %d): %s" % (pr.name, rc, pr.summary()))
    t0 = time.time()
    ok = ledger.wait_all_read(timeout)
    log("all delivered records read in %.1f s after the producer stopped"
        % (time.time() - t0) if ok else
        "%d records still unread after %ds" % (len(ledger.pending), timeout))
    # Every record is read; a duplicate (a record read again, e.g. after a
    # rebalance from an older committed offset) can still be on its way, and
    # only a window of time can show that none comes.
    quiet_window(1.0, "late duplicates, if any, show up in the count")
    stop_all(consumers)
    ledger.update()
    for c in consumers:
        if not c.killed:
            log("%s: %s" % (c.name, c.summary()))


IDEMPOTENT = ["enable.idempotence=true", "acks=all"]


def start_stream(env, topic, group, layout, parts, per_bucket, report,
                 bootstrap=None, producer_extra=()):
    """Consumers of a brand-new group (per_bucket: a count, or {bucket:
    count}) settled on the topic, then a producer writing 1000 records/s,
    until every bucket group has committed on each of its partitions: the
    state a fault is injected into. Returns (ledger, consumers, producer,
    GroupCommits)."""
    ledger = Ledger([], [])
    consumers = start_consumers(env, ledger, topic, layout, group,
                                per_bucket, session_ms=6000,
                                bootstrap=bootstrap)
    settle(env, ledger, consumers, layout, parts, report)
    pr = Producer(env, "producer", topic, layout, rate=1000,
                  extra=producer_extra, bootstrap=bootstrap)
    ledger.producers.append(pr)
    commits = GroupCommits(env, topic, group, layout, bootstrap)
    commits.wait(parts, "every bucket group to read and commit on each of "
                 "its %d partitions" % parts)
    return ledger, consumers, pr, commits


def finish(env, ledger, report, producer, consumers, topic, group, layout,
           parts, bootstrap=None):
    """Stops the producer and, once every record is read, the consumers;
    then checks the records and the groups' committed lag."""
    drain_and_stop(ledger, [producer], consumers, report)
    verify(env, ledger, report, layout, [parts])
    check_lag(env, report, topic, group, layout, parts, bootstrap=bootstrap)


def check_lag(env, report, topic, group, layout, partitions, bootstrap=None):
    """After the consumers closed, every bucket group's committed offsets
    are at the end of its bucket's partitions (lag 0 in the standard
    tools). Offsets a group committed for partitions that later moved to
    another bucket (contiguous layout) stay behind: reported, not failed."""
    lags, stale = [], []
    want = env.layout(layout, partitions)
    for b in BUCKETS:
        g = "%s.%s" % (group, b)
        lag = stale_lag = 0
        stale_parts = []
        for line in env.admin("lag", bootstrap=bootstrap, topic=topic,
                              group=g).splitlines():
            p, committed, end = (int(x) for x in line.split())
            if p in want[b]:
                lag += end - committed
            else:
                stale_lag += end - committed
                stale_parts.append(p)
        lags.append("%s %d" % (g, lag))
        if lag:
            report.error("group %s ends with lag %d on its own partitions"
                         % (g, lag))
        if stale_parts:
            stale.append("%s: %d on partitions %s" % (g, stale_lag,
                                                      sorted(stale_parts)))
    report.add("committed lag per bucket group after close: " + ", ".join(lags))
    if stale:
        report.add("stale committed offsets on partitions that moved to "
                   "another bucket (standard tools show this as lag): "
                   + "; ".join(stale))


# -------------------------------------------------------------- scenarios --

def unique(name):
    return "bp-%s-%d-%d" % (name.replace("_", "-"), os.getpid(),
                            int(time.time()) % 100000)


def scenario_buckets(env, report):
    """Three buckets, 100 000 keyed records, two consumer processes per
    bucket: every record read by a consumer of its own bucket only."""
    topic, group, layout, parts, n = unique("buckets"), unique("app"), \
        "contiguous", 12, 100000
    env.admin("create", topic=topic, partitions=parts)
    report.add("topic %s: %d partitions, %s layout %s" % (
        topic, parts, layout, env.layout(layout, parts)))
    ledger = Ledger([], [])
    consumers = start_consumers(env, ledger, topic, layout, group, 2)
    settle(env, ledger, consumers, layout, parts, report)
    t0 = time.time()
    pr = Producer(env, "producer", topic, layout, count=n)
    ledger.producers.append(pr)
    rc = pr.p.wait(300)
    t_prod = time.time() - t0
    log("producer done (exit %d) in %.1f s: %s" % (rc, t_prod, pr.summary()))
    if not ledger.wait_all_read(120):
        log("%d records unread after 120 s" % len(ledger.pending))
    t_all = time.time() - t0
    report.add("%d records produced in %.1f s, all read %.1f s after the "
               "first was produced" % (n, t_prod, t_all),
               produce_s=round(t_prod, 1), consume_s=round(t_all, 1))
    # Each consumer holds half of its bucket, and only its bucket.
    held = "; ".join("%s %s" % (c.name, sorted(c.current)) for c in consumers)
    if not groups_settled(env, ledger, consumers, layout, parts):
        report.error("assignments at the end are not the bucket layout: "
                     + held)
    report.add("assignments at the end: " + held)
    drain_and_stop(ledger, [], consumers, report)
    # The groups settled before the first record: every partition is read
    # by exactly one consumer, of its bucket.
    readers = {}
    for rs in ledger.reads.values():
        for c, p, _o, _kb, _ms in rs:
            readers.setdefault(p, set()).add(c.name)
    shared = {p: sorted(v) for p, v in readers.items() if len(v) > 1}
    if shared:
        report.error("partitions read by more than one consumer: %s" % shared)
    report.add("every partition read by exactly one consumer: %s" % (
        "yes" if not shared else "no"))
    if len(ledger.delivered) != n:
        report.error("%d of %d records delivered" % (len(ledger.delivered), n))
    verify(env, ledger, report, layout, [parts])
    check_lag(env, report, topic, group, layout, parts)


def scenario_growth(env, report, layout, consumer_cls=Consumer,
                    name=None):
    """6 -> 12 -> 24 partitions while producing and consuming; consumers of
    a brand-new group with auto.offset.reset=latest (consumer_cls: which
    consumer program, the C client or the Python wheel's)."""
    topic, group = unique(name or "growth-" + layout), unique("app")
    steps = [6, 12, 24]
    env.admin("create", topic=topic, partitions=steps[0])
    report.add("topic %s, %s layout, %d partitions: %s"
               % (topic, layout, steps[0], env.layout(layout, steps[0])))
    ledger = Ledger([], [])
    consumers = start_consumers(env, ledger, topic, layout, group, 2,
                                consumer_cls=consumer_cls, reset="latest")
    settle(env, ledger, consumers, layout, steps[0], report)
    # A brand-new group resolves "latest" with a ListOffsets request after
    # the assignment: records written before that answer are skipped by
    # definition (the plugin respects auto.offset.reset in a new group).
    # Wait for the answers; growth is what this scenario tests.
    t_resolve = time.time()
    wait_until("every consumer to resolve \"latest\" on the partitions it "
               "holds (librdkafka fetch state active)", 60,
               lambda: not any(c.starts_unresolved() for c in consumers),
               missing=lambda: "; ".join(
                   "%s %s" % (c.name, c.starts_unresolved())
                   for c in consumers if c.starts_unresolved()))
    log("every consumer fetches from \"latest\" on its partitions (%.1f s)"
        % (time.time() - t_resolve))
    # Two producers: one with the plugin's defaults (metadata refreshed
    # every 5 s: the "written" figure), one refreshing every second, so that
    # records reach new partitions before the consumers are assigned them:
    # the records auto.offset.reset=latest would skip (KAFKA-12261).
    pr = Producer(env, "producer", topic, layout, rate=600)
    fast = Producer(env, "producer-fast-refresh", topic, layout, rate=400,
                    start=10000000,
                    extra=["topic.metadata.refresh.interval.ms=1000"])
    ledger.producers += [pr, fast]
    # Before a growth every group has committed on its partitions: the
    # rebalance that follows restarts them from their committed offsets.
    commits = GroupCommits(env, topic, group, layout)
    commits.wait(steps[0], "every bucket group to commit on each of its "
                 "%d partitions" % steps[0])
    early_total = 0
    for old, new in zip(steps, steps[1:]):
        before = commits.snapshot()
        t0 = int(env.admin("grow", topic=topic, partitions=new))
        new_parts = list(range(old, new))
        moved = [p for p in range(old) if env.owner(layout, old, p) !=
                 env.owner(layout, new, p)]
        log("grew %s to %d partitions (acknowledged at %d); new %s, moved %s"
            % (topic, new, t0, new_parts, moved))

        def done():
            ledger.update()
            return all(p in ledger.first_dr_by.get(pr.name, {}) and
                       ledger.first_read(p, env.owner(layout, new, p), t0)
                       for p in new_parts + moved)

        def partial():
            return ("not yet written: %s; not yet read by their bucket: %s"
                    % ([p for p in new_parts
                        if p not in ledger.first_dr_by.get(pr.name, {})],
                       [p for p in new_parts + moved if not ledger.first_read(
                           p, env.owner(layout, new, p), t0)]))
        try:
            wait_until("new partitions to be written and read", 60, done, 0.5)
        except Failure:
            report.error("growth %d->%d %s: %s" % (old, new, layout,
                                                   partial()))
            break
        written = max(ledger.first_dr_by[pr.name][p] for p in new_parts) - t0
        written_fast = max(ledger.first_dr_by[fast.name][p]
                           for p in new_parts) - t0
        read = max(ledger.first_read(p, env.owner(layout, new, p), t0)
                   for p in new_parts) - t0
        takeover = (max(ledger.first_read(p, env.owner(layout, new, p), t0)
                        for p in moved) - t0) if moved else None
        settle(env, ledger, consumers, layout, new, report)
        # Records written to a new partition before the consumer that reads
        # it was assigned: auto.offset.reset=latest would skip them.
        early = 0
        for p in new_parts:
            owner = env.owner(layout, new, p)
            ta = min([t for t in (c.first_assigned_ms(p, t0) for c in consumers
                                  if c.bucket == owner) if t is not None]
                     or [0])
            early += sum(1 for ms, dp in ledger.drs if dp == p and ms < ta)
        key = "growth_%d_%d" % (old, new)
        report.add("growth %d->%d %s: all new partitions written+read in "
                   "%.1f s (written in %.1f s, %.1f s by the 1 s-refresh "
                   "producer; read in %.1f s; target <= %.0f s)%s; %d records "
                   "reached new partitions before their consumer was "
                   "assigned (latest would skip them)"
                   % (old, new, layout, max(read, written) / 1000,
                      written / 1000, written_fast / 1000,
                      read / 1000, GROWTH_TARGET_S,
                      "; moved partitions %s read by their new bucket in "
                      "%.1f s" % (moved, takeover / 1000) if moved else "",
                      early),
                   **{key + "_written_s": written / 1000,
                      key + "_read_s": read / 1000,
                      key + "_moved_read_s": takeover and takeover / 1000,
                      key + "_early_records": early})
        if read / 1000 > GROWTH_TARGET_S:
            msg = ("growth %d->%d %s took %.1f s, above the %.0f s target"
                   % (old, new, layout, read / 1000, GROWTH_TARGET_S))
            if os.environ.get("BP_BROKER_STRICT_TIMING", "1") == "1":
                report.error(msg)
            else:
                log("WARNING: " + msg)
        early_total += early
        # records flow in the new layout: read and committed by their
        # bucket on every partition (before the next growth, or the end)
        commits.wait(new, "every bucket group to commit on each of its %d "
                     "partitions since the growth" % new, since=before)
    if not early_total and not report.errors:
        # What the scenario is for: without such records the start-offset
        # rule for new partitions (docs/consumer.md, rule 3) went untested.
        report.error("no record reached a new partition before its consumer "
                     "was assigned, so the start-offset rule for new "
                     "partitions was not exercised")
    drain_and_stop(ledger, [pr, fast], consumers, report)
    for c in consumers:
        for problem in c.problems():
            report.error(problem)
    verify(env, ledger, report, layout, steps,
           allow_moves=(layout == "contiguous"),
           foreign_ok=(layout == "contiguous"))
    check_lag(env, report, topic, group, layout, steps[-1])


def prepare_wheel_env(env, report):
    """Makes (once, cached) the venv with the newest PyPI confluent-kafka
    wheel and sets env.wheel_python; reports its versions."""
    if env.wheel_python:
        return
    if not env.prepare_wheel:
        raise Failure("--prepare-wheel (tests/clients/prepare-wheel.sh) "
                      "is required for this scenario")
    t0 = time.time()
    r = subprocess.run([env.prepare_wheel], capture_output=True, text=True,
                       timeout=480)
    if r.returncode or not r.stdout.strip():
        raise Failure("prepare-wheel.sh failed (exit %d): no venv with the "
                      "PyPI confluent-kafka (python3-venv installed? PyPI "
                      "reachable?)\n%s" % (r.returncode, r.stderr[-3000:]))
    env.wheel_python = r.stdout.strip().splitlines()[-1]
    v = subprocess.run(
        [env.wheel_python, "-c", "import confluent_kafka as c; "
         "v = c.version(); v = v[0] if isinstance(v, tuple) else v; "
         "print(v, c.libversion()[0], c.__file__)"],
        capture_output=True, text=True, timeout=60)
    if v.returncode:
        raise Failure("%s cannot import confluent_kafka: %s"
                      % (env.wheel_python, v.stderr.strip()))
    version, libversion, where = v.stdout.split()
    report.add("Python consumers: confluent-kafka %s (librdkafka %s inside, "
               "%s), venv ready in %.1f s"
               % (version, libversion, os.path.dirname(where),
                  time.time() - t0),
               wheel_version=version, wheel_librdkafka=libversion)


def scenario_growth_wheel(env, report):
    """growth_stable with every consumer a Python program on the newest
    PyPI confluent-kafka wheel (its own librdkafka), configured by a config
    dict only: the plugin maps in front of the client's own rebalance
    callback, and its start-offset rules apply to partitions added under
    load. The producers stay the C client."""
    prepare_wheel_env(env, report)
    scenario_growth(env, report, "stable", consumer_cls=WheelConsumer,
                    name="growth-stable-wheel")


def scenario_consumer_kill(env, report):
    """SIGKILL one consumer of the critical and one of the bulk bucket
    mid-stream: the other consumer of each bucket takes its partitions."""
    topic, group, layout, parts = unique("kill"), unique("app"), "stable", 12
    env.admin("create", topic=topic, partitions=parts)
    report.add("topic %s, %s layout, %d partitions: %s"
               % (topic, layout, parts, env.layout(layout, parts)))
    ledger, consumers, pr, commits = start_stream(env, topic, group, layout,
                                                  parts, 2, report)
    victims = [c for c in consumers if c.name in ("consumer-critical-1",
                                                   "consumer-bulk-1")]
    held = {c.name: sorted(c.current) for c in victims}
    t_kill = now_ms()
    for c in victims:
        c.kill()
    log("SIGKILLed %s" % held)
    at_kill = commits.snapshot()
    for v in victims:
        survivor = [c for c in consumers if c.bucket == v.bucket
                    and c is not v][0]
        want = frozenset(env.layout(layout, parts)[v.bucket])

        def took_over():
            ledger.update()
            return survivor.current == want and all(
                ledger.first_read(p, v.bucket, t_kill) for p in held[v.name])
        wait_until("%s to take over %s" % (survivor.name, held[v.name]), 60,
                   took_over, 0.5)
        t_assign = min(ms for ms, s in survivor.assignments
                       if ms >= t_kill and s == want) - t_kill
        t_read = max(ledger.first_read(p, v.bucket, t_kill)
                     for p in held[v.name]) - t_kill
        report.add("%s (held %s) killed: %s assigned all of %s's partitions "
                   "%s after %.1f s, read from the taken-over ones after "
                   "%.1f s (session.timeout.ms 6000)"
                   % (v.name, held[v.name], survivor.name, v.bucket,
                      sorted(want), t_assign / 1000, t_read / 1000),
                   **{"takeover_%s_assign_s" % v.bucket: t_assign / 1000,
                      "takeover_%s_read_s" % v.bucket: t_read / 1000})
    commits.wait(parts, "every bucket group to commit on each of its "
                 "partitions since the kill (the survivors on the ones they "
                 "took over)", since=at_kill)
    settle(env, ledger, consumers, layout, parts, report)
    finish(env, ledger, report, pr, consumers, topic, group, layout, parts)


class OwnCluster:
    """A cluster of the scenario's own, stopped whatever happens."""

    def __init__(self, env, nodes):
        self.env = env
        self.dir = os.path.join(env.workdir, "cluster%d" % nodes)
        self.nodes = nodes

    def __enter__(self):
        # a cluster left in this directory by a run that was killed (e.g. a
        # ctest timeout: the JVMs are not children of this process)
        subprocess.run([self.env.kafka_sh, "stop", "--dir", self.dir],
                       capture_output=True, timeout=120)
        t0 = time.time()
        self.bootstrap = self.env.kafka("start", "--nodes", str(self.nodes),
                                        "--dir", self.dir)
        log("started a %d-node cluster in %.1f s: %s (logs %s/logs)"
            % (self.nodes, time.time() - t0, self.bootstrap, self.dir))
        return self

    def __exit__(self, *exc):
        try:
            self.env.kafka("stop", "--dir", self.dir, timeout=120)
            log("stopped the %d-node cluster" % self.nodes)
        except Exception as e:     # never mask the scenario's own failure
            log("stopping the cluster failed: %s" % e)
        return False

    def kafka(self, *args):
        return self.env.kafka(*(list(args) + ["--dir", self.dir]))


def resumed_after(ledger, t_ms, bucket=None):
    """True once a record delivered after t_ms has been read (by bucket)."""
    ledger.update()
    for i, (_p, ms) in ledger.delivered.items():
        if ms > t_ms and i in ledger.reads and (
                bucket is None or BUCKETS[i % len(BUCKETS)] == bucket):
            return min(r[4] for r in ledger.reads[i])
    return None


def scenario_broker_restart(env, report):
    """The single broker killed and restarted, then stopped and restarted,
    with an idempotent acks=all producer and consumers running."""
    layout, parts = "contiguous", 6
    with OwnCluster(env, 1) as cl:
        topic, group = unique("restart"), unique("app")
        env.admin("create", bootstrap=cl.bootstrap, topic=topic,
                  partitions=parts)
        ledger, consumers, pr, commits = start_stream(
            env, topic, group, layout, parts, 1, report,
            bootstrap=cl.bootstrap, producer_extra=IDEMPOTENT)
        for how in ("SIGKILL", "SIGTERM"):
            t_down = now_ms()
            if how == "SIGKILL":
                cl.kafka("kill-node", "1")
            else:
                cl.kafka("stop")
            clients = [pr] + consumers
            t_seen = time.time()
            wait_until("the producer and every consumer to see the broker "
                       "gone (librdkafka's _ALL_BROKERS_DOWN)", 60,
                       lambda: all(c.logged_since(ALL_BROKERS_DOWN, t_down)
                                   for c in clients),
                       missing=lambda: [c.name for c in clients if not
                                        c.logged_since(ALL_BROKERS_DOWN,
                                                       t_down)])
            log("every client reports all brokers down (%.1f s); restarting "
                "the broker" % (time.time() - t_seen))
            cl.kafka("restart-node", "1")
            t_up = now_ms()
            if cl.kafka("bootstrap") != cl.bootstrap:
                raise Failure("the restarted broker has another address")
            t_res = wait_until("reads to resume", 90,
                               lambda: resumed_after(ledger, t_up), 0.5)
            report.add("broker %s at +0 s, back at +%.1f s; records "
                       "delivered after the restart read %.1f s after it"
                       % (how, (t_up - t_down) / 1000, (t_res - t_up) / 1000),
                       **{"restart_%s_down_s" % how: (t_up - t_down) / 1000,
                          "restart_%s_resume_s" % how: (t_res - t_up) / 1000})
            commits.wait_progress(parts, "every bucket group to commit on "
                                  "each of its partitions after the %s "
                                  "restart" % how)
        finish(env, ledger, report, pr, consumers, topic, group, layout,
               parts, bootstrap=cl.bootstrap)


def scenario_failover(env, report):
    """3 nodes, RF 3: the leader of the critical bucket's partition killed
    while producing and consuming; restarted after."""
    layout, parts = "contiguous", 6
    with OwnCluster(env, 3) as cl:
        topic, group = unique("failover"), unique("app")
        env.admin("create", bootstrap=cl.bootstrap, topic=topic,
                  partitions=parts, rf=3)
        crit = env.layout(layout, parts)["critical"][0]
        ledger, consumers, pr, commits = start_stream(
            env, topic, group, layout, parts,
            {"critical": 2, "normal": 1, "bulk": 1}, report,
            bootstrap=cl.bootstrap, producer_extra=IDEMPOTENT)
        leader = int(env.admin("leader", bootstrap=cl.bootstrap, topic=topic,
                               partition=crit))
        t_kill = now_ms()
        cl.kafka("kill-node", str(leader))
        log("killed node %d, leader of critical partition %d" % (leader, crit))
        figures = {}
        for b in BUCKETS:
            t = wait_until("%s reads to resume" % b, 90,
                           lambda: resumed_after(ledger, t_kill + 500, b), 0.5)
            figures[b] = (t - t_kill) / 1000
        new_leader = int(env.admin("leader", bootstrap=cl.bootstrap,
                                   topic=topic, partition=crit))
        report.add("node %d (leader of critical partition %d) SIGKILLed; new "
                   "leader node %d; records delivered after the kill read "
                   "again after: %s"
                   % (leader, crit, new_leader,
                      ", ".join("%s %.1f s" % (b, figures[b]) for b in BUCKETS)),
                   killed_node=leader, new_leader=new_leader,
                   **{"failover_resume_%s_s" % b: figures[b] for b in BUCKETS})
        if new_leader == leader or new_leader < 0:
            report.error("partition %d has no new leader" % crit)
        commits.wait_progress(parts, "every bucket group to commit on each "
                              "of its partitions with node %d down" % leader)
        cl.kafka("restart-node", str(leader))
        t_up = now_ms()
        wait_until("reads after the restart", 60,
                   lambda: resumed_after(ledger, t_up + 500, "critical"), 0.5)
        report.add("node %d restarted; critical records still flowing" % leader)
        commits.wait_progress(parts, "every bucket group to commit on each "
                              "of its partitions after node %d's restart"
                              % leader)
        finish(env, ledger, report, pr, consumers, topic, group, layout,
               parts, bootstrap=cl.bootstrap)


def scenario_operations(env, report):
    """The procedures of docs/operations.md and docs/layout-change.md that
    need a broker, run with the commands the docs show: see broker_ops.py."""
    import broker_ops
    broker_ops.run(sys.modules[__name__], env, report)


def scenario_scheduler(env, report):
    """One consumer serving "critical, bulk", strict and weighted: see
    broker_sched.py, which uses this module's processes and ledger."""
    import broker_sched
    broker_sched.run(sys.modules[__name__], env, report)


def scenario_sched_queue(env, report):
    """One Python consumer serving "critical, bulk" with
    bucket.priority.hold=queue, classic and KIP-848, the pause control, and
    a rolling restart of a group of such consumers from pause to queue:
    see broker_sched_queue.py."""
    import broker_sched_queue
    broker_sched_queue.run(sys.modules[__name__], env, report)


def scenario_change(env, report):
    """A live layout change by the procedure of docs/layout-change.md, four
    variants and the naive rollout: see broker_change.py."""
    import broker_change
    broker_change.run(sys.modules[__name__], env, report)


def scenario_kip848(env, report):
    """Bucket consumers on group.protocol=consumer (KIP-848), C and
    Python, through joins, a leave and a SIGKILL: see broker_kip848.py."""
    import broker_kip848
    broker_kip848.run(sys.modules[__name__], env, report)


def scenario_kip848_migrate(env, report):
    """A bucket group moved classic -> consumer protocol -> classic,
    members restarted one by one under load: see
    broker_kip848_migrate.py."""
    import broker_kip848_migrate
    broker_kip848_migrate.run(sys.modules[__name__], env, report)


def scenario_audit(env, report):
    """bp-audit on a healthy deployment and with planted faults: see
    broker_audit.py."""
    import broker_audit
    broker_audit.run(sys.modules[__name__], env, report)


def scenario_audit_kip848(env, report):
    """bp-audit on bucket groups of the consumer protocol (KIP-848): see
    broker_audit_kip848.py."""
    import broker_audit_kip848
    broker_audit_kip848.run(sys.modules[__name__], env, report)


SCENARIOS = {
    "audit": scenario_audit,
    "audit_kip848": scenario_audit_kip848,
    "change": scenario_change,
    "buckets": scenario_buckets,
    "growth_stable": lambda e, r: scenario_growth(e, r, "stable"),
    "growth_contiguous": lambda e, r: scenario_growth(e, r, "contiguous"),
    "growth_stable_wheel": scenario_growth_wheel,
    "consumer_kill": scenario_consumer_kill,
    "broker_restart": scenario_broker_restart,
    "failover": scenario_failover,
    "scheduler": scenario_scheduler,
    "sched_queue": scenario_sched_queue,
    "operations": scenario_operations,
    "kip848": scenario_kip848,
    "kip848_sched": lambda e, r: __import__("broker_kip848_sched").run(sys.modules[__name__], e, r),
    "kip848_migrate": scenario_kip848_migrate,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("scenario", choices=sorted(SCENARIOS))
    ap.add_argument("--client", required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--layout-bin", required=True)
    ap.add_argument("--kafka-sh", required=True)
    ap.add_argument("--sched-client",
                    help="bp-broker-sched, for the scheduler scenario")
    ap.add_argument("--prepare-wheel",
                    help="tests/clients/prepare-wheel.sh, for "
                    "growth_stable_wheel")
    ap.add_argument("--audit-bin", help="bp-audit, for the audit scenario")
    ap.add_argument("--change-plan-bin",
                    help="bp-change-plan, for the change scenario")
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()

    bootstrap = os.environ.get("BP_BROKER_BOOTSTRAP")
    if not bootstrap:
        print("SKIP: BP_BROKER_BOOTSTRAP is not set (start a broker with "
              "tests/broker/kafka.sh start)")
        return SKIP
    a.workdir = os.path.join(os.path.abspath(a.workdir), a.scenario)
    os.makedirs(a.workdir, exist_ok=True)
    for f in os.listdir(a.workdir):
        path = os.path.join(a.workdir, f)
        if os.path.isfile(path):
            os.unlink(path)
    env = Env(a, bootstrap)
    report = Report(a.scenario)
    log("scenario %s, broker %s, files in %s" % (a.scenario, bootstrap,
                                                 a.workdir))
    try:
        SCENARIOS[a.scenario](env, report)
    except Skip as e:
        for p in ALL_PROCS:
            if p.alive():
                p.kill()
        print("SKIP: %s" % e)
        return SKIP
    except Failure as e:
        report.error(str(e))
        # a client that crashed is the cause to name, not the wait it broke
        for how in filter(None, (p.died() for p in ALL_PROCS)):
            report.error(how)
    except Exception as e:   # a bug of the suite itself: still report it
        import traceback
        traceback.print_exc()
        report.error("%s: %s" % (type(e).__name__, e))
    finally:
        # no process of ours outlives the scenario
        for p in ALL_PROCS:
            if p.alive():
                log("killing leftover %s" % p.name)
                p.kill()
    return finish_report(report, a.workdir, "broker_" + a.scenario)


def finish_report(report, workdir, name):
    """Writes figures.json and report.txt into workdir, prints the report;
    returns the exit status (1 when an error was reported)."""
    report.figures["seconds"] = round(time.time() - T_START, 1)
    report.figures["passed"] = not report.errors
    with open(os.path.join(workdir, "figures.json"), "w") as f:
        f.write(json.dumps(report.figures) + "\n")
    text = "==== %s: %s in %.1f s\n" % (
        name, "FAILED" if report.errors else "PASSED", time.time() - T_START)
    text += "".join("   %s\n" % line for line in report.lines)
    text += "".join("   ERROR: %s\n" % e for e in report.errors)
    with open(os.path.join(workdir, "report.txt"), "w") as f:
        f.write(text)
    print("\n" + text, end="")
    return 1 if report.errors else 0


if __name__ == "__main__":
    sys.exit(main())
