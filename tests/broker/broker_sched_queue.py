"""broker_sched_queue.py - the broker suite's "sched_queue" scenario: one
Python consumer serving "critical, bulk" with the strict schedule and
bucket.priority.hold=queue, configured by a config dict, on a real Kafka
broker, under a bulk backlog and a stream of critical records; the
same consumer with bucket.priority.hold=pause (set explicitly) as the
control; and a rolling restart of a group of such consumers from pause to
queue (rolling_restart()).

Each run has a topic of its own (12 partitions, "critical, bulk" at
"30%, 70%", contiguous: critical 8-11, bulk 0-7). A Python producer
loading the plugin writes BACKLOG bulk records; the consumer process
(bp_queue_client.py consume) starts on them; once it holds the topic, a
second producer writes STREAM_RATE critical records a second for
STREAM_S seconds. The consumer spends WORK_US on each record and reads
until it has read every record once. Runs:

  queue-classic  Debian's python3-confluent-kafka (librdkafka 2.0.2),
                 classic group protocol;
  queue-kip848   the newest PyPI wheel (its own librdkafka),
                 group.protocol=consumer (KIP-848);
  pause-classic  the control: Debian's client with hold=pause.

Asserted, in every run: every record read (lost 0), none out of order
within its partition, and the strict measure of broker_sched.py (bulk
records delivered in a row while a critical partition has records not
delivered yet) at most STRICT_BOUND. With hold=queue: the records
librdkafka fetched at most FETCHED_MAX times those read (each fetched
once; the control fetches the bulk backlog again at every resume, and must
show more than CONTROL_FETCHED_MIN, or the measure could not fail).
About 90 s.

Then the rolling restart from pause to queue (rolling_restart(), about
16 s): a topic of its own with the suite's three buckets ("critical,
normal, bulk" at "20%, 30%, 50%", contiguous, 12 partitions); the C
producer (bp-broker-client) writes ROLL_BACKLOG bulk records, then
ROLL_RATE records a second of the three buckets in turn until the end.
Members of the list "critical, bulk", each a separate process of
Debian's python3-confluent-kafka (bp_queue_client.py member, classic
protocol, bucket.priority.hold set explicitly in each):

  1. "roll-pause" (hold=pause) and "roll-queue1" (hold=queue) start
     together; once the two hold every critical and bulk partition
     between them, both read for ROLL_OVERLAP_S;
  2. roll-pause is stopped (SIGTERM: close, commit) and "roll-queue2"
     (hold=queue) starts in its place; once the two queue members hold
     every critical and bulk partition, they read for ROLL_AFTER_S;
  3. the producer stops; the members read the rest and are stopped.

Asserted: every critical and bulk record delivered is read (lost 0);
within each member's holding of a partition, its records in offset order
(a queue member also never delivers a record twice in a row; the pause
member's such records are reported, as docs/reliability.md allows: a
record handed out by poll() while the scheduler thread pauses its
partition is fetched again from its own offset on resume, 1 to 12 a run
here, on librdkafka 2.0.2 and 2.16 alike); no
member reads a record of a normal partition or of a key of another bucket
than its partition's; each member read records while the other member of its
stage was in the group; every member closes (exit 0, close() returned);
the hold each member ran with shows: roll-pause paused bulk (its
bp_consumer_bucket_stats pauses) and did not log the plugin's "wait in
queues" line, the queue members logged it and paused nothing. Records
read twice (at-least-once around the handover) are reported.

Then the growth (growth(), about 10 s): a topic of its own, the suite's
three buckets, stable layout, GROW_FROM partitions; the C producer writes
ROLL_RATE records a second of the three buckets in turn. Two members of
"critical, bulk" in groups of their own, Debian's client, with
bucket.priority.hold left out (queue, both schedules' default): one
strict, one weighted. Once both hold every critical and bulk partition,
the topic grows to GROW_TO; once both hold every critical and bulk
partition of the grown topic, they read GROW_READ_S more, the producer
stops. Asserted, for each member: every critical and bulk record read
(lost 0), records of the new partitions among them, none out of order,
nothing of a normal partition or of another bucket's key, no pause for
strict and none of bulk for weighted, a clean close.

Then the backlog (backlog(), about 10 s): a consumer of "critical, bulk"
configured by a dict meets a backlog of both buckets at a cold start (3
runs) and at a restart from its commits (3 runs), Debian's client on the
classic protocol and the PyPI wheel on KIP-848 (bp_backlog_client.py).
Asserted: at most BACKLOG_AHEAD bulk records handed out before the last
critical one in every run, every record read, none out of order. (The
plugin before its start gate handed out 46 to 7 971 bulk records first
at a restart here, 0 at a cold start on this one broker.)
"""
import json
import os
import statistics
import subprocess
import time

BACKLOG = 40000
STREAM_RATE = 100
STREAM_S = 6
WORK_US = 100
STRICT_BOUND = 300          # as broker_sched.py's
FETCHED_MAX = 1.05
CONTROL_FETCHED_MIN = 1.5
ROLL_BACKLOG = 6000         # bulk records before the members start
ROLL_RATE = 600             # records a second, critical, normal, bulk in turn
ROLL_OVERLAP_S = 6          # pause and queue member reading side by side
ROLL_AFTER_S = 6            # the two queue members after the restart
ROLL_WORK_US = 200
ROLL_LIST = "critical, bulk"
GROW_FROM, GROW_TO = 12, 24  # the growth part's partitions (stable)
GROW_READ_S = 4              # reading before and after the growth
QUEUE_LINE = "wait in queues of their own"   # the plugin's log, hold=queue
HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT = os.path.join(HERE, "bp_queue_client.py")
DEBIAN_PYTHON = "/usr/bin/python3"


def one_run(s, env, report, name, python, hold, extra=()):
    topic = "sched-queue-%s-%d" % (name, int(time.time()))
    env.admin("create", topic=topic, partitions=12)
    common = ["--bootstrap", env.bootstrap, "--plugin", env.plugin,
              "--topic", topic]
    r = subprocess.run([DEBIAN_PYTHON, CLIENT, "produce", "--count",
                        str(BACKLOG)] + common,
                       capture_output=True, text=True, timeout=180)
    if r.returncode:
        raise s.Failure("%s: backlog producer failed: %s"
                        % (name, r.stderr[-2000:]))
    err_path = os.path.join(env.workdir, name + ".log")
    expect = BACKLOG + STREAM_RATE * STREAM_S
    with open(err_path, "w") as err:
        cons = subprocess.Popen(
            [python, CLIENT, "consume", "--group", topic, "--hold", hold,
             "--expect", str(expect), "--work-us", str(WORK_US),
             "--timeout", "150"] + common + list(extra),
            stdout=subprocess.PIPE, stderr=err, text=True)
        first = cons.stdout.readline()     # {"assigned_ms": ...}
        if not first:
            cons.wait(30)
            raise s.Failure("%s: the consumer ended before holding the "
                            "topic (log: %s)" % (name, err_path))
        stream = subprocess.run(
            [DEBIAN_PYTHON, CLIENT, "produce", "--rate", str(STREAM_RATE),
             "--seconds", str(STREAM_S), "--first-id", "1000000"] + common,
            capture_output=True, text=True, timeout=120)
        if stream.returncode:
            raise s.Failure("%s: stream producer failed: %s"
                            % (name, stream.stderr[-2000:]))
        out, _ = cons.communicate(timeout=200)
    got = json.loads(out.strip().splitlines()[-1])
    got["name"] = name
    got["expect"] = expect
    ds = sorted(got.pop("critical_delays_ms"))
    got["critical_p50_ms"] = round(statistics.median(ds), 1) if ds else None
    got["critical_p99_ms"] = round(ds[int(len(ds) * 0.99)], 1) if ds else None
    got["fetched_per_read"] = round(got["fetched"] / max(got["read"], 1), 2)
    report.add("%s (hold=%s): read %d of %d, fetched %d (%.2fx), %d out of "
               "order, worst episode %d bulk records (%d episodes), critical "
               "delay p50 %s ms p99 %s ms"
               % (name, hold, got["distinct"], expect, got["fetched"],
                  got["fetched_per_read"], got["reordered"],
                  got["worst_episode"], got["episodes"],
                  got["critical_p50_ms"], got["critical_p99_ms"]),
               **{name.replace("-", "_"): got})
    if got["distinct"] != expect:
        report.error("%s: %d of %d records read (log: %s)"
                     % (name, got["distinct"], expect, err_path))
    if got["reordered"]:
        report.error("%s: %d records out of order within their partition"
                     % (name, got["reordered"]))
    if got["worst_episode"] > STRICT_BOUND:
        report.error("%s: %d bulk records delivered in a row while critical "
                     "records waited (bound %d)"
                     % (name, got["worst_episode"], STRICT_BOUND))
    return got


def member_class(s):
    """bp_queue_client.py member as a consumer of the suite's ledger
    (s.Consumer's files and assignment tracking)."""
    class Member(s.Consumer):
        def __init__(self, env, name, topic, group, hold, extra=()):
            self.bucket = ROLL_LIST
            self.hold = hold
            self.topic = topic
            self.out = os.path.join(env.workdir, name + ".read")
            args = [DEBIAN_PYTHON, CLIENT, "member",
                    "--bootstrap", env.bootstrap, "--plugin", env.plugin,
                    "--topic", topic, "--buckets", ", ".join(s.BUCKETS),
                    "--allocation", s.ALLOCATION, "--bucket", ROLL_LIST,
                    "--group", group, "--hold", hold, "--out", self.out,
                    "--work-us", str(ROLL_WORK_US), "--timeout", "300"]
            for x in extra:
                args += ["-X", x]
            s.Proc.__init__(self, env, name, args)
            self.tail = s.Tail(self.out)
            self.assign_tail = s.Tail(self.out + ".assign")
            self.assignments = []
            self.current = frozenset()

        def reads(self):
            """[(id, partition, offset, key bucket, ms)] in the order read."""
            with open(self.out) as f:
                return [(int(w[0]), int(w[1]), int(w[2]), w[3], int(w[4]))
                        for w in (line.split() for line in f) if len(w) == 5]

        def logged(self, text):
            with open(self.log_path, errors="replace") as f:
                return any(text in line for line in f)
    return Member


def rolling_restart(s, env, report):
    """A rolling restart of a list group from hold=pause to hold=queue,
    under load: see the module's docstring."""
    t_start = time.time()
    Member = member_class(s)
    topic = "sched-queue-roll-%d" % int(time.time())
    env.admin("create", topic=topic, partitions=12)
    layout = env.layout("contiguous", 12)
    owner = {p: b for b, ps in layout.items() for p in ps}
    listed = frozenset(layout["critical"] + layout["bulk"])
    backlog = s.Producer(env, "roll-backlog", topic, "contiguous", start=0,
                         count=ROLL_BACKLOG, key_bucket="bulk")
    if backlog.p.wait(120):
        raise s.Failure("rolling restart: backlog producer failed (log %s)"
                        % backlog.log_path)
    stream = s.Producer(env, "roll-stream", topic, "contiguous",
                        start=1000000, rate=ROLL_RATE)
    ledger = s.Ledger([backlog, stream], [])
    group = topic
    old = Member(env, "roll-pause", topic, group, "pause")
    new1 = Member(env, "roll-queue1", topic, group, "queue")
    for m in (old, new1):
        ledger.add_consumer(m)

    def hold_all(members):
        """Each member holds partitions, all of them critical or bulk, and
        together every critical and bulk partition once."""
        ledger.update()
        sets = [m.current for m in members]
        union = frozenset().union(*sets)
        return all(sets) and union == listed and \
            sum(len(x) for x in sets) == len(union)

    def wait_holding(pair):
        s.wait_until("%s to hold every critical and bulk partition between "
                     "them" % " and ".join(m.name for m in pair), 60,
                     lambda: hold_all(pair),
                     missing=lambda: ", ".join(
                         "%s %s" % (m.name, sorted(m.current)) for m in pair))

    def read_between(m, t0, t1):
        return sum(1 for r in m.reads() if t0 <= r[4] <= t1)

    wait_holding([old, new1])
    t_both = s.now_ms()
    report.add("rolling restart: pause and queue member hold %s and %s "
               "(%.1f s after the start)"
               % (sorted(old.current), sorted(new1.current),
                  time.time() - t_start))
    time.sleep(ROLL_OVERLAP_S)
    t_stop = s.now_ms()
    rc = old.stop()
    new2 = Member(env, "roll-queue2", topic, group, "queue")
    ledger.add_consumer(new2)
    wait_holding([new1, new2])
    t_queue = s.now_ms()
    report.add("rolling restart: roll-pause stopped (exit %s); queue members "
               "hold %s and %s %.1f s later"
               % (rc, sorted(new1.current), sorted(new2.current),
                  (t_queue - t_stop) / 1000))
    time.sleep(ROLL_AFTER_S)
    t_end = s.now_ms()
    if stream.stop():
        report.error("rolling restart: stream producer: exit %s, summary "
                     "\"%s\"" % (stream.p.returncode, stream.summary()))

    def unread():
        ledger.update()
        return [i for i, (p, _ms) in ledger.delivered.items()
                if p in listed and i not in ledger.reads]
    try:
        s.wait_until("every critical and bulk record to be read", 60,
                     lambda: not unread(),
                     missing=lambda: "%d records" % len(unread()))
    except s.Failure as e:
        report.error("rolling restart: %s" % e)
    members = (old, new1, new2)
    exits = {m.name: m.stop() for m in (new1, new2)}
    exits[old.name] = rc
    ledger.update()

    # What each member read: order, buckets, the stages it read in.
    figures = {}
    for m in members:
        reads = m.reads()
        foreign = [r for r in reads
                   if r[1] not in listed or r[3] != owner.get(r[1])]
        summary = json.loads(m.summary().splitlines()[-1]) \
            if m.summary() else {}
        out_of_order = summary.get("reordered")
        redelivered = summary.get("redelivered")
        f = figures[m.name] = {
            "hold": m.hold, "read": len(reads),
            "critical": sum(1 for r in reads if owner[r[1]] == "critical"),
            "bulk": sum(1 for r in reads if owner[r[1]] == "bulk"),
            "out_of_order": out_of_order, "redelivered": redelivered,
            "foreign": len(foreign),
            "exit": exits[m.name], "close_ms": summary.get("close_ms"),
            "fetched": summary.get("fetched"),
            "stats": summary.get("buckets"),
            "queue_logged": m.logged(QUEUE_LINE)}
        pauses = {b: v["pauses"] for b, v in (f["stats"] or {}).items()}
        report.add("rolling restart: %s (hold=%s) read %d (critical %d, "
                   "bulk %d), fetched %s, %s out of order, %s delivered "
                   "again in place, %d foreign, pauses %s, queue line "
                   "logged %s, exit %s, close %s ms"
                   % (m.name, m.hold, f["read"], f["critical"], f["bulk"],
                      f["fetched"], out_of_order, redelivered, len(foreign),
                      pauses, f["queue_logged"], f["exit"], f["close_ms"]))
        if out_of_order is None or out_of_order:
            report.error("rolling restart: %s read %s records behind a "
                         "later offset of their partition"
                         % (m.name, out_of_order))
        # A record delivered again right after itself: seen with pausing
        # (librdkafka's pause, from the scheduler thread, takes the
        # resume offset before poll() has moved past the record it is
        # handing out); reported, not a failure of this part. A queue
        # member pauses nothing and must show none.
        if m.hold == "queue" and redelivered:
            report.error("rolling restart: %s delivered %d records again "
                         "right after themselves" % (m.name, redelivered))
        if foreign:
            report.error("rolling restart: %s read %d records outside "
                         "\"%s\" or of another bucket's key, e.g. %s"
                         % (m.name, len(foreign), ROLL_LIST, foreign[:3]))
        if f["exit"] != 0 or summary.get("close_ms") is None:
            report.error("rolling restart: %s did not close cleanly (exit "
                         "%s, summary \"%s\", log %s)"
                         % (m.name, f["exit"], m.summary(), m.log_path))
        if not f["stats"]:
            report.error("rolling restart: %s: no bp_consumer_bucket_stats "
                         "(log %s)" % (m.name, m.log_path))
        elif m.hold == "pause" and (pauses.get("bulk", 0) == 0 or
                                    f["queue_logged"]):
            report.error("rolling restart: %s should hold by pause: bulk "
                         "paused %s times, queue line logged %s"
                         % (m.name, pauses.get("bulk"), f["queue_logged"]))
        elif m.hold == "queue" and (any(pauses.values()) or
                                    not f["queue_logged"]):
            report.error("rolling restart: %s should hold by queue: pauses "
                         "%s, queue line logged %s"
                         % (m.name, pauses, f["queue_logged"]))
    # Both members of each stage read while the other was a member.
    for m, t0, t1 in ((old, t_both, t_stop), (new1, t_both, t_stop),
                      (new1, t_queue, t_end), (new2, t_queue, t_end)):
        n = read_between(m, t0, t1)
        if not n:
            report.error("rolling restart: %s read nothing between %d and "
                         "%d ms, while the other member of its stage was in "
                         "the group" % (m.name, t0, t1))
    lost = unread()
    extra, twice = ledger.duplicates()
    listed_delivered = sum(1 for p, _ in ledger.delivered.values()
                           if p in listed)
    report.add("rolling restart: %d critical and bulk records delivered, "
               "lost %d, read twice %d (%d extra reads), %.1f s"
               % (listed_delivered, len(lost), twice, extra,
                  time.time() - t_start),
               rolling_restart=dict(figures, lost=len(lost),
                                    delivered=listed_delivered,
                                    read_twice=twice,
                                    seconds=round(time.time() - t_start, 1)))
    if lost:
        report.error("rolling restart: %d critical and bulk records never "
                     "read, e.g. ids %s" % (len(lost), sorted(lost)[:5]))


def growth(s, env, report):
    """Two list consumers holding by queue, as both schedules do by
    default, while their topic grows: see the module's docstring."""
    t_start = time.time()
    Member = member_class(s)
    topic = "sched-queue-grow-%d" % int(time.time())
    env.admin("create", topic=topic, partitions=GROW_FROM)
    before = env.layout("stable", GROW_FROM)
    after = env.layout("stable", GROW_TO)
    owner = {p: b for b, ps in after.items() for p in ps}
    listed = {n: frozenset(lay["critical"] + lay["bulk"])
              for n, lay in ((GROW_FROM, before), (GROW_TO, after))}
    stream = s.Producer(env, "grow-stream", topic, "stable", start=0,
                        rate=ROLL_RATE,
                        extra=["topic.metadata.refresh.interval.ms=1000"])
    members = []
    ledger = s.Ledger([stream], [])   # both groups read every record
    for schedule in ("strict", "weighted"):
        m = Member(env, "grow-" + schedule, topic, topic + "-" + schedule,
                   "default", ["bucket.priority.schedule=" + schedule,
                               "bucket.priority.layout=stable"])
        members.append(m)
        ledger.add_consumer(m)

    def holding(n):
        def ok():
            ledger.update()
            return all(m.current == listed[n] for m in members)
        s.wait_until("both members to hold every critical and bulk "
                     "partition of %d" % n, 90, ok,
                     missing=lambda: ", ".join(
                         "%s %s" % (m.name, sorted(m.current))
                         for m in members))

    holding(GROW_FROM)
    time.sleep(GROW_READ_S)
    t_grow = int(env.admin("grow", topic=topic, partitions=GROW_TO))
    holding(GROW_TO)
    report.add("growth: %s grew %d -> %d; both members hold the %d critical "
               "and bulk partitions %.1f s after the grow"
               % (topic, GROW_FROM, GROW_TO, len(listed[GROW_TO]),
                  (s.now_ms() - t_grow) / 1000))
    time.sleep(GROW_READ_S)
    if stream.stop():
        report.error("growth: stream producer: exit %s, summary \"%s\""
                     % (stream.p.returncode, stream.summary()))

    def unread(m):
        ledger.update()
        return [i for i, (p, _ms) in ledger.delivered.items()
                if p in listed[GROW_TO] and
                not any(r[0] is m for r in ledger.reads.get(i, ()))]
    try:
        s.wait_until("every critical and bulk record to be read by both "
                     "members", 60, lambda: not any(map(unread, members)),
                     missing=lambda: ", ".join(
                         "%s %d" % (m.name, len(unread(m))) for m in members))
    except s.Failure as e:
        report.error("growth: %s" % e)
    exits = {m.name: m.stop() for m in members}
    for m in members:
        reads = m.reads()
        new = [r for r in reads if r[1] >= GROW_FROM]
        foreign = [r for r in reads
                   if r[1] not in listed[GROW_TO] or r[3] != owner[r[1]]]
        summary = json.loads(m.summary().splitlines()[-1]) \
            if m.summary() else {}
        pauses = {b: v["pauses"]
                  for b, v in (summary.get("buckets") or {}).items()}
        lost = unread(m)
        report.add("growth: %s (hold left out) read %d, %d of them on the "
                   "new partitions, lost %d, %s out of order, %d foreign, "
                   "pauses %s, exit %s"
                   % (m.name, len(reads), len(new), len(lost),
                      summary.get("reordered"), len(foreign), pauses,
                      exits[m.name]))
        if lost:
            report.error("growth: %s never read %d records, e.g. ids %s"
                         % (m.name, len(lost), sorted(lost)[:5]))
        if not new:
            report.error("growth: %s read nothing of the new partitions"
                         % m.name)
        if summary.get("reordered") != 0:
            report.error("growth: %s read %s records behind a later offset "
                         "of their partition"
                         % (m.name, summary.get("reordered")))
        if foreign:
            report.error("growth: %s read %d records outside \"%s\" or of "
                         "another bucket's key, e.g. %s"
                         % (m.name, len(foreign), ROLL_LIST, foreign[:3]))
        # queue, both schedules' default: strict pauses nothing; weighted
        # never pauses bulk, the lowest bucket
        if not pauses or pauses.get("bulk") or \
                (m.name == "grow-strict" and any(pauses.values())):
            report.error("growth: %s should hold by queue: pauses %s (log "
                         "%s)" % (m.name, pauses, m.log_path))
        if exits[m.name] != 0 or summary.get("close_ms") is None:
            report.error("growth: %s did not close cleanly (exit %s, log %s)"
                         % (m.name, exits[m.name], m.log_path))
    report.add("growth: %.1f s" % (time.time() - t_start))


BACKLOG_CLIENT = os.path.join(HERE, "bp_backlog_client.py")
BACKLOG_AHEAD = 50          # bulk records before the last critical one


def backlog(s, env, report, name, python, runs, extra=()):
    """A consumer of "critical, bulk" configured by a dict meeting a
    backlog of both buckets (bp_backlog_client.py: 30 000 bulk, then 300
    critical records, 8 partitions at 25%/75%, hold left to its default):
    `runs` cold starts of new groups, then two restarts of groups that
    read, committed and closed first. Asserted in every run: at most
    BACKLOG_AHEAD bulk records handed out before the last critical one,
    every record read, none out of order."""
    t0 = time.time()
    got = {}
    for moment, n in (("cold", runs), ("restart", runs)):
        prefix = "backlog-%s-%s-%d" % (name, moment, int(time.time()))
        err_path = os.path.join(env.workdir, "%s-%s.log" % (name, moment))
        with open(err_path, "w") as err:
            r = subprocess.run(
                [python, BACKLOG_CLIENT, "--bootstrap", env.bootstrap,
                 "--plugin", env.plugin, "--prefix", prefix, "--create",
                 "--runs", str(n), "--moment", moment] +
                [w for x in extra for w in ("-X", x)],
                stdout=subprocess.PIPE, stderr=err, text=True, timeout=600)
        if r.returncode:
            raise s.Failure("backlog %s %s: the client failed (exit %d, "
                            "log %s)" % (name, moment, r.returncode,
                                         err_path))
        summary = json.loads(r.stdout.strip().splitlines()[-1])["summary"]
        got[moment] = summary
        if max(summary["ahead"]) > BACKLOG_AHEAD:
            report.error("backlog %s %s: %s bulk records handed out before "
                         "the last critical one (bound %d in every run)"
                         % (name, moment, summary["ahead"], BACKLOG_AHEAD))
        if summary["missing"] or summary["reordered"]:
            report.error("backlog %s %s: %d records missing, %d out of "
                         "order" % (name, moment, summary["missing"],
                                    summary["reordered"]))
    report.add("backlog %s: bulk records ahead of the last critical one, "
               "cold start %s, restart %s (%.1f s)"
               % (name, got["cold"]["ahead"], got["restart"]["ahead"],
                  time.time() - t0),
               **{"backlog_" + name.replace("-", "_"): got})


def run(s, env, report):
    queue = one_run(s, env, report, "queue-classic", DEBIAN_PYTHON, "queue")
    if queue["fetched_per_read"] > FETCHED_MAX:
        report.error("queue-classic: fetched %.2fx the records read (at "
                     "most %.2fx): what was fetched is fetched again"
                     % (queue["fetched_per_read"], FETCHED_MAX))
    s.prepare_wheel_env(env, report)
    kip = one_run(s, env, report, "queue-kip848", env.wheel_python, "queue",
                  ["-X", "group.protocol=consumer"])
    if kip["fetched_per_read"] > FETCHED_MAX:
        report.error("queue-kip848: fetched %.2fx the records read (at "
                     "most %.2fx)" % (kip["fetched_per_read"], FETCHED_MAX))
    control = one_run(s, env, report, "pause-classic", DEBIAN_PYTHON,
                      "pause")
    if control["fetched_per_read"] <= CONTROL_FETCHED_MIN:
        report.error("pause-classic: fetched only %.2fx the records read "
                     "(must be above %.2fx, or the measure could not see "
                     "records fetched again)"
                     % (control["fetched_per_read"], CONTROL_FETCHED_MIN))
    rolling_restart(s, env, report)
    growth(s, env, report)
    backlog(s, env, report, "classic", DEBIAN_PYTHON, 3)
    backlog(s, env, report, "kip848", env.wheel_python, 3,
            ["group.protocol=consumer"])
