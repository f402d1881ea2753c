"""broker_change.py - the broker suite's "change" scenario: a live layout
change under load, by the procedure of docs/layout-change.md ("Changing
allocations or buckets"), on a real broker.

Each variant runs on a topic of its own, 12 partitions, two producer
processes at 250 records/s each, unique ids, and two consumers per bucket
in separate processes: of each kind one C (bp-broker-client), one Python
on the PyPI confluent-kafka wheel configured by a config dict
(bp_wheel_producer.py, bp_wheel_consumer.py). The procedure's steps come from the plan
(bp-change-plan, shared/bp_change.c): each step rolls the producers or the
consumers one process at a time with the step's properties
(bucket.priority.next.* and next.step; the last consumer and producer
steps the next values as the main properties), and before a consumer step
the partitions whose reader changes are waited for until their old
reader's group has committed their end (drained).

  stable      critical, bulk 30/70 -> 50/50, stable layout (3 steps)
  contiguous  the same, contiguous: the blocks swap ends, critical keeps no
              partition (5 steps)
  add         critical, bulk 30/70 -> critical, bulk, batch 20/50/30
              (stable); batch's consumers start at the last consumer step,
              its keys come from the producers of the last step
  remove      critical, bulk, batch 20/50/30 -> critical, bulk 30/70
              (contiguous); batch's records go to bulk, its consumers stop
              at the last consumer step
  naive       contiguous 30/70 -> 50/50 the way docs/operations.md told it
              before: consumers, then producers, restarted with the new
              values, nothing in between. Must be caught: records read by
              the other bucket, and the consumers' log lines saying so.

Asserted per variant from the ledger: 0 acknowledged records lost, 0 read
by another bucket's consumers (a removed bucket's records may be read by
the bucket its keys go to after the change), every record read by its own
bucket, no failed delivery, no alarm line in the C consumers' logs;
duplicates counted (all within a bucket). Figures per variant and step:
records produced, seconds, drain waits.
"""
import json
import os
import subprocess
import time

RATE = 250           # records/s per producer, two producers
DWELL = 5.0          # seconds each step runs under load once rolled
PARTITIONS = 12
ALARMS = ("takes over", "reads with another layout", "names bucket")

VARIANTS = {
    "stable": dict(layout="stable", buckets="critical, bulk",
                   allocation="30%, 70%",
                   next={"allocation": "50%, 50%"}),
    "contiguous": dict(layout="contiguous", buckets="critical, bulk",
                       allocation="30%, 70%",
                       next={"allocation": "50%, 50%"}),
    "add": dict(layout="stable", buckets="critical, bulk",
                allocation="30%, 70%",
                next={"buckets": "critical, bulk, batch",
                      "allocation": "20%, 50%, 30%"}),
    "remove": dict(layout="contiguous", buckets="critical, bulk, batch",
                   allocation="20%, 50%, 30%",
                   next={"buckets": "critical, bulk",
                         "allocation": "30%, 70%"}),
}


def names(text):
    return [b.strip() for b in text.split(",")]


class Change:
    """One variant: its processes, its ledger and its plan."""

    def __init__(self, s, env, report, name, v):
        self.s, self.env, self.report, self.name, self.v = s, env, report, \
            name, v
        self.topic = s.unique("change-" + name)
        self.group = self.topic + "-app"
        self.ledger = s.Ledger([], [])
        self.producers, self.consumers = [], []
        self.serial = 0
        self.audits = []     # (step, bp-audit exit status) before consumer steps
        self.now_buckets = names(v["buckets"])
        self.next_buckets = names(v["next"].get("buckets", v["buckets"]))
        self.next_allocation = v["next"].get("allocation", v["allocation"])
        props = ["bucket.priority.buckets=" + v["buckets"],
                 "bucket.priority.allocation=" + v["allocation"],
                 "bucket.priority.layout=" + v["layout"]]
        props += ["bucket.priority.next.%s=%s" % kv for kv in
                  v["next"].items()]
        out = subprocess.run(
            [env.change_plan_bin, "--partitions", str(PARTITIONS)] + props,
            check=True, capture_output=True, text=True).stdout
        self.plan = json.loads(out)
        # id -> the bucket its key names, by producer id range
        self.key_bucket = {}

    # -- properties of each step --

    def next_x(self, step):
        x = ["bucket.priority.next.%s=%s" % kv for kv in self.v["next"].items()]
        return x + ["bucket.priority.next.step=%d" % step]

    def final(self):
        """The next values as the main properties."""
        return dict(buckets=", ".join(self.next_buckets),
                    allocation=self.next_allocation)

    # -- processes --

    def producer(self, step, wheel):
        """A producer at step (0: before the change; the last step: the
        next properties): C, or Python on the wheel."""
        self.serial += 1
        start = self.serial * 10_000_000
        last = step == self.plan["steps"]
        kw = self.final() if last else dict(buckets=self.v["buckets"],
                                            allocation=self.v["allocation"])
        extra = self.next_x(step) if 0 < step < self.plan["steps"] else []
        cls = self.s.WheelProducer if wheel else self.s.Producer
        pr = cls(self.env, "%s-producer-%s-%d" % (self.name,
                                                  "py" if wheel else "c",
                                                  self.serial),
                 self.topic, self.v["layout"], start=start, rate=RATE,
                 extra=extra, **kw)
        pr.wheel = wheel
        pr.start_id = start
        pr.key_names = names(kw["buckets"])
        self.producers.append(pr)
        self.ledger.producers.append(pr)
        return pr

    def consumer(self, bucket, wheel, step, final=False):
        """A consumer of bucket at step (0: before). At the last consumer
        step, as docs/layout-change.md says: the consumers of the buckets the
        change keeps keep the next.* lines with that step (so that the
        bucket a removed one merges into takes over from its group), those
        of a bucket it adds (final) get the next values as their main
        properties."""
        self.serial += 1
        kw = self.final() if final else dict(
            buckets=self.v["buckets"], allocation=self.v["allocation"])
        extra = self.next_x(step) if step > 0 and not final else []
        cls = self.s.WheelConsumer if wheel else self.s.Consumer
        c = cls(self.env, "%s-%s-%s-%d" % (self.name, bucket,
                                           "py" if wheel else "c",
                                           self.serial),
                self.topic, self.v["layout"], bucket, self.group,
                extra=extra, **kw)
        c.wheel = wheel
        self.consumers.append(c)
        self.ledger.add_consumer(c)
        return c

    def has_assignment(self, c):
        self.ledger.update()
        return bool(c.assignments)

    def roll_consumer(self, old, step, replace=True):
        old.stop(60)
        if not replace:
            return
        c = self.consumer(old.bucket, old.wheel, step)
        self.s.wait_until("%s to be assigned" % c.name, 60,
                          lambda: self.has_assignment(c))

    # -- the ledger --

    def bucket_of(self, i):
        for pr in self.producers:
            if pr.start_id <= i < pr.start_id + 10_000_000:
                return pr.key_names[i % len(pr.key_names)]
        return None

    def home(self, b):
        """The bucket that reads b's records after the change."""
        if b in self.next_buckets:
            return b
        return self.next_buckets[-1]  # the default fallback: the last

    def end_offsets(self):
        ends = {}
        self.ledger.update()
        for _i, (p, _ms) in self.ledger.delivered.items():
            ends[p] = ends.get(p, 0) + 1
        return ends

    def drained(self, step):
        """The partitions to drain before consumer step `step` whose old
        reader's group has not committed their end yet."""
        entry = self.plan["plan"][step - 1]
        before = self.plan["plan"][step - 2]["read"]
        reader = {p: b for b, ps in before.items() for p in ps}
        ends = self.end_offsets()
        waiting = []
        commits = {}
        for p in entry["drain"]:
            b = reader.get(p)
            if b is None or b.startswith("+") or not ends.get(p):
                continue
            if b not in commits:
                text = self.env.admin("lag", topic=self.topic,
                                      group="%s.%s" % (self.group, b))
                commits[b] = {int(w[0]): int(w[1]) for w in
                              (line.split() for line in text.splitlines())}
            if commits[b].get(p, -1) < ends[p]:
                waiting.append(p)
        return waiting

    def audit(self, step):
        """bp-audit --json with the clients' properties file and the
        change as options, as docs/layout-change.md runs it before a consumer
        step: (exit status, its change section or None)."""
        props = self.s.write_properties(
            self.env, os.path.join(self.env.workdir,
                                   "%s.properties" % self.name),
            self.topic, self.v["buckets"], self.v["allocation"],
            self.v["layout"], self.group)
        args = [self.env.audit_bin, "--config", props, "--json",
                "--timeout", "10000", "--next-step", str(step)]
        for k, v in self.v["next"].items():
            args += ["--next-" + k, v]
        r = subprocess.run(args, capture_output=True, text=True,
                           timeout=180)
        doc = json.loads(r.stdout) if r.returncode in (0, 1, 3, 4) else None
        self.audits.append((step, r.returncode))
        if r.returncode not in (0, 4):
            # kept for the reader of a failure: which finding, which group
            with open(os.path.join(self.env.workdir, "%s-audit-step%d-%d.json"
                                   % (self.name, step, len(self.audits))),
                      "w") as f:
                f.write(r.stdout + r.stderr)
        return r.returncode, doc["change"] if doc else None

    def audit_may_start(self, step):
        """As docs/layout-change.md runs it: the step starts once bp-audit
        says it may (exit 0); a fault it finds meanwhile (exit 1, a group
        still rebalancing after the last step) is waited out like a
        partition not drained, and fails the run if it lasts."""
        rc, change = self.audit(step)
        return rc == 0 and change is not None and \
            change.get("may_start") is True

    def wait_drained(self, step):
        """Until bp-audit says the step may start; then the ledger must
        agree (every partition to drain read to its end by its old
        reader's group) and no record may arrive there any more."""
        t0 = time.time()
        self.s.wait_until("bp-audit to say step %d may start (partitions %s "
                          "drained)" % (step,
                                        self.plan["plan"][step - 1]["drain"]),
                          90, lambda: self.audit_may_start(step), 0.5,
                          missing=lambda: "not drained by the ledger: %s"
                          % self.drained(step))
        if self.drained(step):
            raise self.s.Failure("step %d: bp-audit said it may start, but "
                                 "partitions %s hold records their old "
                                 "reader has not committed"
                                 % (step, self.drained(step)))
        # nothing more arrives there (no producer of an earlier step left)
        ends = self.end_offsets()
        self.s.quiet_window(1.0, "no record arrives on drained partitions")
        later = self.end_offsets()
        grew = [p for p in self.plan["plan"][step - 1]["drain"]
                if later.get(p, 0) != ends.get(p, 0)]
        if grew:
            raise self.s.Failure("step %d: records still arrive on drained "
                                 "partitions %s" % (step, grew))
        return time.time() - t0

    # -- the procedure --

    def settled(self, entry):
        """Each bucket's live consumers hold exactly the partitions the
        step gives it to read, each partition once."""
        self.ledger.update()
        for b, want in entry["read"].items():
            b = b.lstrip("+")
            live = [c for c in self.consumers if c.bucket == b and c.alive()]
            if not live:
                continue
            sets = [c.current for c in live]
            union = frozenset().union(*sets)
            if union != frozenset(want) or \
                    sum(len(x) for x in sets) != len(union):
                return False
        return True

    def settle(self, entry):
        self.s.wait_until(
            "every bucket's consumers to hold its partitions of step %d"
            % entry["step"], 90, lambda: self.settled(entry), 0.5,
            missing=lambda: "; ".join(
                "%s %s" % (c.name, sorted(c.current))
                for c in self.consumers if c.alive()))

    def start(self):
        s = self.s
        self.env.admin("create", topic=self.topic, partitions=PARTITIONS)
        for b in self.now_buckets:
            for wheel in (False, True):
                self.consumer(b, wheel, 0)
        # before the change every consumer reads as at step 1
        self.settle(dict(self.plan["plan"][0], step=0))
        for wheel in (False, True):
            self.producer(0, wheel)
        s.wait_until("records read by every bucket", 60,
                     lambda: self.read_by_every_bucket())

    def read_by_every_bucket(self):
        self.ledger.update()
        seen = set(c.bucket for rs in self.ledger.reads.values()
                   for c, *_ in rs)
        return set(self.now_buckets) <= seen

    def step(self, entry):
        k, kind = entry["step"], entry["kind"]
        t0 = time.time()
        delivered0 = len(self.ledger.delivered)
        drain_s = 0.0
        if kind == "producers":
            for pr in [p for p in self.producers if p.alive()]:
                pr.stop(120)
                self.producer(k, pr.wheel)
        else:
            drain_s = self.wait_drained(k)
            last_c = k == max(e["step"] for e in self.plan["plan"]
                              if e["kind"] == "consumers")
            for c in [c for c in self.consumers if c.alive()]:
                self.roll_consumer(c, k, replace=not last_c or
                                   c.bucket in self.next_buckets)
            if last_c:
                for b in self.next_buckets:
                    if b not in self.now_buckets:
                        for wheel in (False, True):
                            c = self.consumer(b, wheel, k, final=True)
                            self.s.wait_until(
                                "%s to be assigned" % c.name, 60,
                                lambda c=c: self.has_assignment(c))
            self.settle(entry)
        self.s.quiet_window(DWELL, "step %d runs under load" % k)
        self.ledger.update()
        return dict(step=k, kind=kind, drain_s=round(drain_s, 1),
                    seconds=round(time.time() - t0, 1),
                    records=len(self.ledger.delivered) - delivered0)

    def finish(self):
        s = self.s
        self.s.quiet_window(3.0, "the last producers write under load")
        s.drain_and_stop(self.ledger, [p for p in self.producers
                                        if p.alive()],
                         [c for c in self.consumers if c.alive()],
                         self.report)

    # -- the checks --

    def check(self, steps, naive=False):
        lg, rep = self.ledger, self.report
        lg.update()
        failed = [pr.name for pr in self.producers
                  if pr.summary_fields().get("failed") != "0"]
        lost = len(lg.pending)
        foreign = not_own = dup = merged_dup = 0
        foreign_ex = []
        for i in lg.delivered:
            kb = self.bucket_of(i)
            rs = lg.reads.get(i, [])
            ok_readers = {kb, self.home(kb)}
            bad = [c for c, *_ in rs if c.bucket not in ok_readers]
            foreign += len(bad) > 0
            if bad and len(foreign_ex) < 3:
                foreign_ex.append("%d (%s) read by %s" % (i, kb, bad[0].name))
            if rs and not any(c.bucket in ok_readers for c, *_ in rs):
                not_own += 1
            dup += max(0, len(rs) - 1)
            if len(set(c.bucket for c, *_ in rs)) > 1:
                merged_dup += 1
        alarms = []
        for c in self.consumers:
            if c.wheel:
                continue
            with open(c.log_path, errors="replace") as f:
                alarms += ["%s: %s" % (c.name, line.strip()[:200])
                           for line in f if any(a in line for a in ALARMS)]
        figures = dict(produced=len(lg.delivered), lost=lost,
                       other_bucket=foreign, duplicates=dup,
                       read_by_both_removed_and_home=merged_dup,
                       alarms=len(alarms), steps=steps)
        rep.add("change %s (%s, %s -> %s, %d steps): produced %d, lost %d, "
                "read by another bucket %d, duplicates %d (of them records read "
                "by two buckets: %d), alarm "
                "lines %d; steps %s" % (
                    self.name, self.v["layout"], self.v["allocation"],
                    self.next_allocation, self.plan["steps"],
                    len(lg.delivered), lost, foreign, dup, merged_dup,
                    len(alarms),
                    "; ".join("%d %s %.1f s (drain %.1f s) %d records" % (
                        st["step"], st["kind"], st["seconds"], st["drain_s"],
                        st["records"]) for st in steps)),
                **{"change_" + self.name: figures})
        last_audit = {}
        for step, rc in self.audits:
            last_audit[step] = rc
        if self.audits:
            rep.add("change %s: bp-audit before each consumer step, exit "
                    "statuses in order: %s" % (
                        self.name, ", ".join("step %d: %d" % a
                                             for a in self.audits)))
        if naive:
            return foreign, alarms
        bad = {k: rc for k, rc in last_audit.items() if rc != 0}
        if bad:
            rep.error("%s: bp-audit said the step may start but exited %s, "
                      "not 0" % (self.name, bad))
        if failed:
            rep.error("%s: failed deliveries in %s" % (self.name, failed))
        if lost:
            rep.error("%s: %d acknowledged records never read"
                      % (self.name, lost))
        if foreign:
            rep.error("%s: %d records read by another bucket, e.g. %s"
                      % (self.name, foreign, "; ".join(foreign_ex)))
        if not_own:
            rep.error("%s: %d records not read by their own bucket"
                      % (self.name, not_own))
        if alarms:
            rep.error("%s: the procedure raised alarms: %s"
                      % (self.name, alarms[:3]))
        if len(lg.delivered) < 20 * RATE:
            rep.error("%s: only %d records produced" % (self.name,
                                                        len(lg.delivered)))
        return foreign, alarms


def run_variant(s, env, report, name):
    ch = Change(s, env, report, name, VARIANTS[name])
    s.log("change %s: plan of %d steps%s" % (
        name, ch.plan["steps"],
        ", refused: " + ch.plan["refused"] if ch.plan["refused"] else ""))
    if ch.plan["refused"]:
        raise s.Failure("plan refused: " + ch.plan["refused"])
    ch.start()
    steps = [ch.step(e) for e in ch.plan["plan"]]
    ch.finish()
    ch.check(steps)


def audit_naive(s, env, ch):
    """bp-audit --json with the properties file of the new layout, after
    the naive rollout: its exit status and {finding kind: count}."""
    props = s.write_properties(env, os.path.join(env.workdir,
                                                 "naive-new.properties"),
                               ch.topic, ", ".join(ch.next_buckets),
                               ch.next_allocation, ch.v["layout"], ch.group)
    r = subprocess.run([env.audit_bin, "--config", props, "--json",
                        "--timeout", "10000"], capture_output=True, text=True,
                       timeout=180)
    found = {}
    if r.returncode in (0, 1):
        for f in json.loads(r.stdout)["findings"]:
            found[f["kind"]] = found.get(f["kind"], 0) + 1
    else:
        found["stderr"] = r.stderr.strip()[:300]
    return r.returncode, found


def run_naive(s, env, report):
    """Consumers then producers restarted with the new values, no steps:
    records must end up read by the other bucket, and be named."""
    v = VARIANTS["contiguous"]
    ch = Change(s, env, report, "naive", v)
    ch.start()
    t0 = time.time()
    last_c = max(e["step"] for e in ch.plan["plan"] if e["kind"] ==
                 "consumers")
    for c in [c for c in ch.consumers if c.alive()]:
        c.stop(60)
        n = ch.consumer(c.bucket, c.wheel, last_c, final=True)
        s.wait_until("%s to be assigned" % n.name, 60,
                     lambda n=n: ch.has_assignment(n))
    for pr in [p for p in ch.producers if p.alive()]:
        pr.stop(120)
        ch.producer(ch.plan["steps"], pr.wheel)
    ch.finish()
    foreign, alarms = ch.check([dict(step=1, kind="everything",
                                     seconds=round(time.time() - t0, 1),
                                     drain_s=0, records=0)], naive=True)
    rc, found = audit_naive(s, env, ch)
    report.add("naive rollout, bp-audit with the new properties: exit %d, "
               "findings %s" % (rc, found), naive_audit_exit=rc)
    if rc != 1 or not (found.get("misrouted") or found.get("foreign_commit")):
        report.error("naive rollout: bp-audit found neither records in the "
                     "wrong bucket's partitions nor groups committing on "
                     "other buckets' partitions (exit %d, %s)" % (rc, found))
    report.add("naive rollout: %d records read by another bucket, named by "
               "%d log lines of the C consumers, e.g. %s"
               % (foreign, len(alarms), alarms[:1]),
               naive_other_bucket=foreign, naive_alarms=len(alarms))
    if foreign == 0:
        report.error("naive rollout: no record was read by another bucket; "
                     "the scenario did not reproduce the fault")
    if not alarms:
        report.error("naive rollout: %d records read by another bucket and "
                     "no consumer said so" % foreign)


def run(s, env, report):
    """s: the broker_suite module."""
    s.prepare_wheel_env(env, report)
    only = [x for x in os.environ.get("BP_CHANGE_VARIANTS", "").split(",")
            if x]
    for name in list(VARIANTS) + ["naive"]:
        if only and name not in only:
            continue
        if name == "naive":
            run_naive(s, env, report)
        else:
            run_variant(s, env, report, name)
