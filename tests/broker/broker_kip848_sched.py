"""broker_kip848_sched.py - consumers of several buckets (the scheduler,
bucket.priority.bucket = "critical, bulk", strict) on the next generation
consumer group protocol (KIP-848, group.protocol=consumer) against Kafka
4.4: the kip848_sched scenario of broker_suite.py.

The topic has the suite's three buckets (critical, normal, bulk; stable
layout, 12 partitions); the list members serve two of them, so each holds
normal partitions it must keep paused, and a single-bucket member of
normal (C, same protocol) reads the rest, so that every record has a
reader. Members of the list's group, all configured by properties only
with group.protocol=consumer set after the bucket:

  sched-1  bp-broker-sched (C): judges strict priority from inside, at
           every record (the measure of broker_sched.py)
  py-2     bp_wheel_consumer.py on the PyPI wheel: a config dict, its own
           on_assign/on_revoke and librdkafka
  c-3      bp-broker-client consume (C, the plugin's own callback)

A bulk and a critical backlog are written first; sched-1 starts alone on
them, then a producer writes 1000 records/s (a third per bucket), py-2
joins, c-3 joins, py-2 leaves (SIGTERM), c-3 is killed (SIGKILL: the
broker's session timeout, 45 s, decides). Asserted:

  - in every settled state the list members hold the whole topic between
    them, each partition once; in the window after it, every critical and
    bulk partition is read by exactly one member, the one holding it;
  - no record of a partition outside a member's buckets is read, none of
    another bucket's key, 0 'foreign' counted by the plugin;
  - strict: sched-1 reads the critical backlog before all but a few bulk
    records (at most BACKLOG_BULK_BEFORE), and every episode (bulk records
    read while its critical lag is above 0) is at most STRICT_BOUND;
    its statistics show bulk paused, critical never, lag 0 at the end;
  - 0 lost; lag 0 in both groups after close.

Then broker_sched.py's weighted part runs again on this protocol
("kip848-weighted": two buckets, stable layout, a critical and a bulk
backlog, one C member judging shares from inside, a second joining and
leaving), holding
by queue as the weighted schedule does by default: critical's share per
window and overall, critical paused and bulk never, 0 lost.

Skipped (exit 77) when bp-broker-client runs a librdkafka older than 2.12
(Debian's 2.0.2): the plugin refuses group.protocol=consumer there. About
110-140 s, most of it the session timeout after the kill, and about 40 s
for the weighted part.
"""
import json
import os
import statistics
import time

import broker_kip848
import broker_sched

PARTS = 12
LAYOUT = "stable"
LIST = "critical, bulk"
KIP848 = ["group.protocol=consumer"]
# The weighted part's members: broker_sched.py's settings that apply to
# this protocol (the session and heartbeat are the broker's).
KIP848_WEIGHTED = ["auto.commit.interval.ms=1000"] + KIP848
BULK_BASE, CRITICAL_BASE = 2000000, 3000000
BULK_BACKLOG, CRITICAL_BACKLOG = 40000, 3000
# sched-1's bulk records read before the last record of the critical
# backlog: the scheduler pauses bulk before the first assignment (unknown
# critical lag counts as lag), so only what slips through at the turns.
BACKLOG_BULK_BEFORE = 400
# The strict bounds of broker_sched.py (every episode; most episodes).
STRICT_BOUND = 300
STRICT_TYPICAL = 40
WORK_US = 200  # sched-1's work per record: the backlog lasts a while
PHASE_S = 6


def sched_member(s, env, name, topic, group, layout):
    """bp-broker-sched on the list, with broker_suite's SchedConsumer's
    files and figures, on a topic of more buckets than it serves."""
    c = s.SchedConsumer.__new__(s.SchedConsumer)
    c.bucket = LIST
    c.out = os.path.join(env.workdir, name + ".read")
    args = [env.sched_client, "--bootstrap", env.bootstrap,
            "--topic", topic, "--group", group, "--out", c.out,
            "--critical", ",".join(map(str, layout["critical"])),
            "--bulk", ",".join(map(str, layout["bulk"])),
            "--judge", "strict", "--work-us", str(WORK_US),
            "--plugin", env.plugin, "--buckets", ", ".join(s.BUCKETS),
            "--allocation", s.ALLOCATION, "--bucket", LIST,
            "--layout", LAYOUT, "--schedule", "strict",
            "-X", "auto.commit.interval.ms=1000"]
    for x in KIP848:
        args += ["-X", x]
    s.Proc.__init__(c, env, name, args)
    c.tail = s.Tail(c.out)
    c.assign_tail = s.Tail(c.out + ".assign")
    c.judge_tail = s.Tail(c.out + ".judge")
    c.assignments, c.current = [], frozenset()
    c.episodes, c.windows = [], []
    return c


def run(s, env, report):
    v = broker_kip848.require_kip848(s, env)
    if not env.sched_client:
        raise s.Failure("the kip848_sched scenario needs --sched-client")
    report.add("C members on librdkafka %s" % v, c_librdkafka=v)
    s.prepare_wheel_env(env, report)
    topic, group = s.unique("kip848-sched"), s.unique("app")
    env.admin("create", topic=topic, partitions=PARTS)
    layout = env.layout(LAYOUT, PARTS)
    mine = sorted(layout["critical"] + layout["bulk"])
    report.add("topic %s, %s layout, %d partitions: %s; list members of "
               "\"%s\" (group %s.critical+bulk), strict"
               % (topic, LAYOUT, PARTS, layout, LIST, group))
    ledger = s.Ledger([], [])

    t = time.time()
    for b, base, n in (("bulk", BULK_BASE, BULK_BACKLOG),
                       ("critical", CRITICAL_BASE, CRITICAL_BACKLOG)):
        pr = s.Producer(env, "%s-backlog" % b, topic, LAYOUT, start=base,
                        count=n, key_bucket=b)
        ledger.producers.append(pr)
        if pr.p.wait(180):
            raise s.Failure("%s failed: %s" % (pr.name, pr.summary()))
    report.add("backlogs written in %.1f s: %d bulk, %d critical records"
               % (time.time() - t, BULK_BACKLOG, CRITICAL_BACKLOG))

    members, phases = [], []   # list members; (name, settled ms, end ms)
    normal = s.Consumer(env, "c-normal", topic, LAYOUT, "normal", group,
                        session_ms=0, extra=KIP848)
    ledger.add_consumer(normal)

    def join(c):
        members.append(c)
        ledger.add_consumer(c)
        return c

    def settled():
        ledger.update()
        for c in members:
            if isinstance(c, s.SchedConsumer):
                c.update_judged()
        live = [c for c in members if c.alive()]
        sets = [c.current for c in live]
        return all(sets) and sum(len(x) for x in sets) == PARTS and \
            frozenset().union(*sets) == frozenset(range(PARTS)) and \
            normal.current == frozenset(range(PARTS))

    def state(what, t0, timeout=120):
        s.wait_until("the list members to settle (%s)" % what, timeout,
                     settled)
        t_set = s.now_ms()
        live = [c for c in members if c.alive()]
        report.add("%s: settled in %.1f s: %s" % (
            what, time.time() - t0, "; ".join(
                "%s %s+%d paused" % (c.name, sorted(c.current & set(mine)),
                                     len(c.current - set(mine)))
                for c in live)))
        holder = {p: c for c in live for p in c.current}
        time.sleep(PHASE_S)
        ledger.update()
        phases.append((what, t_set, s.now_ms(), holder))

    sched = join(sched_member(s, env, "sched-1", topic, group, layout))
    t0 = time.time()
    state("sched-1 alone on the backlogs", t0)
    stream = s.Producer(env, "producer", topic, LAYOUT, rate=1000)
    ledger.producers.append(stream)
    t0 = time.time()
    # The wheel takes records in batches (consume(), 0.1 s timeout): under
    # the steady critical stream its critical lag is above 0 nearly all
    # the time, and strict at threshold 0 then starves bulk, as documented
    # (measured: 0 bulk records in 17 s on 3 bulk partitions). A threshold
    # of 100 records, as docs/consumer-several-buckets.md advises, lets bulk progress.
    join(s.WheelConsumer(env, "py-2", topic, LAYOUT, LIST, group,
                         session_ms=0, extra=KIP848 + [
                             "bucket.priority.lag.threshold=100"]))
    state("py-2 (PyPI wheel) joined", t0)
    t0 = time.time()
    c3 = join(s.Consumer(env, "c-3", topic, LAYOUT, LIST, group,
                         session_ms=0, extra=KIP848))
    state("c-3 (C) joined", t0)
    t0 = time.time()
    rc = members[1].stop()
    if rc:
        report.error("py-2 exited %d on SIGTERM" % rc)
    state("py-2 left (SIGTERM)", t0)
    t0 = time.time()
    c3.kill()
    state("c-3 killed (SIGKILL; the session timeout decides)", t0,
          timeout=180)

    s.drain_and_stop(ledger, [stream], members + [normal], report)
    sched.update_judged()
    check_reads(s, report, ledger, layout, mine, members, normal, phases)
    check_strict(s, report, ledger, sched, phases)
    for c in members + [normal]:
        for p in c.problems():
            report.error(p)
    check_lag(env, report, topic, group, layout, mine)
    # stable: the broker hands out ranges of partitions; with the
    # contiguous layout one member would hold bulk partitions only
    broker_sched.run_weighted(s, env, report, "kip848-weighted",
                              KIP848_WEIGHTED, LAYOUT)


def check_reads(s, report, ledger, layout, mine, members, normal, phases):
    lost = sorted(ledger.pending)
    extra, dup_ids = ledger.duplicates()
    wrong = 0
    for rs in ledger.reads.values():
        for c, p, _o, kb, _ms in rs:
            if c is normal:
                wrong += p not in layout["normal"] or kb != "normal"
            else:
                wrong += p not in mine or kb not in ("critical", "bulk") or \
                    p not in layout[kb]
    foreign = 0
    for c in members + [normal]:
        if c.killed:
            continue
        if isinstance(c, s.SchedConsumer):
            f = c.figures()
            foreign += f["foreign"] + f["outside"] + f["misplaced"]
        else:
            foreign += int(c.summary_fields().get("foreign", 1))
    report.add("records delivered %d, lost %d, duplicates %d (ids read "
               "more than once: %d), read outside the reader's buckets %d, "
               "foreign/outside/misplaced counted by the members %d"
               % (len(ledger.delivered), len(lost), extra, dup_ids, wrong,
                  foreign),
               delivered=len(ledger.delivered), lost=len(lost),
               duplicates=extra, wrong=wrong, foreign=foreign)
    if lost:
        report.error("%d records lost, e.g. ids %s" % (len(lost), lost[:10]))
    if wrong or foreign:
        report.error("records outside their reader's buckets: %d read, %d "
                     "counted" % (wrong, foreign))
    # Per settled state: each critical and bulk partition read by exactly
    # one member, the one holding it, in the state's window.  And each
    # partition written to in the window read by its holder before the
    # next state settles (until the end for the last state): a strict
    # member rightly leaves bulk unread while it catches up on critical
    # records (after the SIGKILL, 45 s of a critical partition's records
    # at once), so the window alone is too short a test of liveness on a
    # loaded machine.
    for i, (what, t0, t1, holder) in enumerate(phases):
        until = phases[i + 1][1] if i + 1 < len(phases) else float("inf")
        readers = {p: set() for p in mine}
        served = set()
        for rs in ledger.reads.values():
            for c, p, _o, _kb, ms in rs:
                if c is normal or p not in readers:
                    continue
                if t0 + 1000 <= ms < t1:
                    readers[p].add(c)
                if t0 + 1000 <= ms < until and c is holder.get(p):
                    served.add(p)
        written = {p for p, ms in ledger.delivered.values()
                   if t0 <= ms < t1 - 1000}
        bad = {p: sorted(c.name for c in r) for p, r in readers.items()
               if r - {holder.get(p)} or (p in written and p not in served)}
        if bad:
            report.error("%s: partitions not read by exactly their holder "
                         "%s: %s" % (what, {p: holder[p].name for p in bad
                                            if p in holder}, bad))


def check_strict(s, report, ledger, sched, phases):
    crit_ids = set(range(CRITICAL_BASE, CRITICAL_BASE + CRITICAL_BACKLOG))
    mine_reads = [(ms, i) for i, rs in ledger.reads.items()
                  for c, _p, _o, _kb, ms in rs if c is sched]
    mine_reads.sort()
    last_crit = max((ms for ms, i in mine_reads if i in crit_ids),
                    default=None)
    first = min((ms for ms, _i in mine_reads), default=None)
    bulk_before = sum(1 for ms, i in mine_reads
                      if BULK_BASE <= i < BULK_BASE + BULK_BACKLOG and
                      last_crit is not None and ms < last_crit)
    f = sched.figures()
    eps = [e[2] for e in sched.episodes]
    typical = sum(1 for x in eps if x <= STRICT_TYPICAL) / len(eps) \
        if eps else 1.0
    st = {b["name"]: b for b in (f["bucket_stats"] or [])}
    report.add("strict (sched-1, %d us of work per record): critical "
               "backlog of %d read in %.1f s from its first record, %d bulk "
               "records read before its last one (at most %d); %d episodes, "
               "%.1f%% of them at most %d bulk records, median %g, worst %d "
               "(bound %d); statistics: %s"
               % (WORK_US, CRITICAL_BACKLOG,
                  ((last_crit or 0) - (first or 0)) / 1000.0, bulk_before,
                  BACKLOG_BULK_BEFORE, len(eps), 100 * typical,
                  STRICT_TYPICAL, statistics.median(eps) if eps else 0,
                  f["worst_episode"], STRICT_BOUND, "; ".join(
                      "%s delivered %d lag %d pauses %d partitions %d"
                      % (b["name"], b["delivered"], b["lag"], b["pauses"],
                         b["partitions"]) for b in st.values())),
               backlog_bulk_before=bulk_before,
               strict_worst_episode=f["worst_episode"],
               strict_episodes=len(eps),
               strict_typical_share=round(typical, 4))
    if last_crit is None or bulk_before > BACKLOG_BULK_BEFORE:
        report.error("strict: %s bulk records read before the critical "
                     "backlog was (at most %d)"
                     % (bulk_before if last_crit else "all",
                        BACKLOG_BULK_BEFORE))
    if f["worst_episode"] > STRICT_BOUND:
        report.error("strict: an episode of %d bulk records (bound %d): %s"
                     % (f["worst_episode"], STRICT_BOUND,
                        sorted(sched.episodes, key=lambda e: -e[2])[:5]))
    if set(st) != {"critical", "normal", "bulk"} or \
            st["critical"]["pauses"] or not st["bulk"]["pauses"] or \
            st["critical"]["lag"] or st["bulk"]["lag"] or \
            st["normal"]["partitions"]:
        report.error("sched-1's bucket statistics: %s" % json.dumps(st))


def check_lag(env, report, topic, group, layout, mine):
    """After close, both groups committed up to the end of their
    partitions (lag 0 in the standard tools)."""
    shown = []
    for g, parts in (("%s.critical+bulk" % group, mine),
                     ("%s.normal" % group, layout["normal"])):
        lag, seen = 0, set()
        for line in env.admin("lag", topic=topic, group=g).splitlines():
            p, committed, end = (int(x) for x in line.split())
            if p in parts:
                lag += end - committed
                seen.add(p)
        shown.append("%s %d" % (g, lag))
        if lag or seen != set(parts):
            report.error("group %s: lag %d, committed on %s of %s"
                         % (g, lag, sorted(seen), sorted(parts)))
    report.add("committed lag after close: " + ", ".join(shown))
