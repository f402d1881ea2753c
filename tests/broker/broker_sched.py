"""broker_sched.py - the broker suite's "scheduler" scenario: one consumer
serving the bucket list "critical, bulk" on a real Kafka broker, with
bucket.priority.schedule strict and then weighted, under a deep bulk
backlog and through a rebalance; a plain consumer is the control. The
real-broker counterpart of tests/mock/test_mock_scheduler.c, judged the same way.

The records are judged inside the consumer processes (bp-broker-sched,
bp_sched_client.c), from librdkafka's own cached high watermarks and
positions: at every record delivered, the consumer's critical lag; a run
of bulk records delivered while it stays above the threshold (0) is an
"episode" (it ends at the first record delivered with the lag back at 0;
the mock test ends it only at a bulk record, which can merge the episodes
of two critical records). Weighted: the critical share of the records
delivered while both buckets have records waiting, per window of WINDOW.
This file writes the records, starts and stops the processes, splits their
judged figures into phases, accounts for every record id
(broker_suite.Ledger) and asserts:

  control   a plain consumer (no plugin) of the topic under the bulk
            backlog and a critical stream: worst episode above
            CONTROL_FACTOR x STRICT_BOUND, i.e. the measure can fail;
  strict    one list consumer, then a second one joins the list's group
            (rebalance), then leaves (rebalance): at least 99% of all
            episodes at most STRICT_TYPICAL bulk records, and every
            episode of either consumer, in every phase, at most
            STRICT_BOUND;
  weighted  the same phases with critical and bulk backlogs, holding by
            queue as by default: the critical share in every window within
            SHARE +- WINDOW_TOLERANCE points, overall within SHARE +-
            OVERALL_TOLERANCE; critical paused, bulk (the lowest) never;
  each run  every record id delivered is read (lost 0; duplicates counted),
            each record on a partition of its key's bucket, and the phases
            really happened (both buckets read in each, the bulk backlog
            outlasting them, the second consumer reading both buckets).

Each run has a topic of its own (12 partitions, contiguous layout:
critical 8-11, bulk 0-7); bulk ids start at 0, critical ids at
CRITICAL_BASE. Run time about 50 s; it runs alone (RUN_SERIAL).
"""
import json
import os
import signal
import statistics
import subprocess
import time

BUCKETS = "critical, bulk"
ALLOCATION = "30%, 70%"
LAYOUT = "contiguous"
PARTITIONS = 12
CRITICAL_BASE = 1000000

# The strict bounds, in bulk records one consumer delivers while its
# critical lag is above the threshold (one episode). The application
# spends at least WORK_US_STRICT on each record, so N records take at least
# N x 100 us.
#  - Typical: the scheduler decides within a millisecond of a delivery
#    (BP_SCHED_WAKE_MIN_US) and pauses (docs/consumer-several-buckets.md, "The bound"),
#    which waits for librdkafka's broker thread, about another millisecond
#    when that thread is idle, a few more when it is enqueueing a fetch
#    response: 4 ms, at most 40 records, for at least 99% of the episodes.
#    Measured on a 2-core VM with the broker on it (librdkafka 2.0.2 and
#    2.15.1): median 2 or 3; 98.4% to 100% within 20 records (the lower
#    figures since a resumed bucket is fetched in two steps, its lead
#    partition first: more fetch responses for a pause to land on), 99.8%
#    and more within 40.
#  - Every episode: a decision at the 10 ms tick (BP_SCHED_TICK_MS) at the
#    latest, then rd_kafka_pause_partitions() waits for librdkafka's broker
#    thread, which may be enqueueing a whole fetch response: a resumed
#    bulk bucket is fetched again up to max.partition.fetch.bytes (1 MB) a
#    partition, about 36 000 records here, 10-20 ms of that thread on that
#    VM (debug=fetch). 30 ms: at most 300 records. Measured: worst 12 to
#    49 a run; once 196 (30 ms), with an earlier scheduler.
# The mock-cluster test holds every episode to 50: its fetches are small.
STRICT_TYPICAL = 40
STRICT_TYPICAL_SHARE = 0.99
STRICT_BOUND = 300
# The control's worst episode must exceed this many times the bound.
CONTROL_FACTOR = 5
STREAM_RATE = 100         # critical records a second, one at a time
WORK_US_STRICT = 100      # the application's work per record
WORK_US_WEIGHTED = 50

SHARE = 30.0              # critical's allocation among the listed buckets
WINDOW = 2000
WINDOW_TOLERANCE = 10.0
OVERALL_TOLERANCE = 5.0

# Backlogs. The control's outlasts its phase; the others are topped up
# while the phases run, by TOPUP records whenever fewer than TOPUP of the
# bucket's records are unread, so that they never run out (asserted) and
# the drain after the phases stays short whatever the consumers' pace.
CONTROL_BULK = 30000
STRICT_BULK = 40000
WEIGHTED_BULK = 20000
WEIGHTED_CRITICAL = 6000
TOPUP = {"bulk": 6000, "critical": 2000}

CONSUMER_SETTINGS = ["fetch.wait.max.ms=100",   # docs/consumer-several-buckets.md advice
                     "session.timeout.ms=6000", "heartbeat.interval.ms=500",
                     "auto.commit.interval.ms=1000"]
# Weighted: the fetch wait the plugin gives the weighted schedule (20 ms).
WEIGHTED_SETTINGS = [x for x in CONSUMER_SETTINGS
                     if not x.startswith("fetch.wait.max.ms=")]


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else None


class Run:
    """One part of the scenario: its topic, processes, ledger, phases."""

    def __init__(self, s, env, report, name, extra=None, layout=LAYOUT):
        self.s, self.env, self.report, self.name = s, env, report, name
        self.layout = layout
        self.extra = CONSUMER_SETTINGS if extra is None else extra
        self.t0 = time.time()
        self.topic = s.unique("sched-" + name)
        env.admin("create", topic=self.topic, partitions=PARTITIONS)
        out = subprocess.run(
            [env.layout_bin, "--buckets", BUCKETS, "--allocation",
             ALLOCATION, "--partitions", str(PARTITIONS), "--layout", layout,
             "--json"], check=True, capture_output=True, text=True).stdout
        self.parts = {b["name"]: list(b["partitions"])
                      for b in json.loads(out)["buckets"]}
        self.ledger = s.Ledger([], [])
        self.consumers = []
        self.stream = None
        self.phases = []          # (name, start ms, end ms)
        self.stream_end = None
        self.next_id = {"bulk": 0, "critical": CRITICAL_BASE}
        self.topped = []          # buckets kept backlogged
        self.topups = 0

    def producer(self, what, key_bucket, start, **kw):
        pr = self.s.Producer(self.env, "%s-%s" % (self.name, what),
                             self.topic, self.layout, start=start,
                             buckets=BUCKETS, allocation=ALLOCATION,
                             key_bucket=key_bucket, **kw)
        self.ledger.producers.append(pr)
        return pr

    def backlog(self, key_bucket, count):
        """Writes count more records keyed to key_bucket; waits for them."""
        t = time.time()
        start = self.next_id[key_bucket]
        self.next_id[key_bucket] += count
        # small critical batches: left alone, a consumer reads the large
        # bulk batches far more often (as in the mock-cluster test)
        pr = self.producer("%s-backlog-%d" % (key_bucket, start), key_bucket,
                           start, count=count,
                           extra=["batch.num.messages=10"]
                           if key_bucket == "critical" else [])
        if pr.p.wait(180):
            raise self.s.Failure("%s failed: %s" % (pr.name, pr.summary()))
        self.s.log("%s: %d %s records written in %.1f s"
                   % (self.name, count, key_bucket, time.time() - t))

    def unread(self, bucket):
        crit = bucket == "critical"
        return sum(1 for i in self.ledger.pending
                   if (i >= CRITICAL_BASE) == crit)

    def consumer(self, k, schedule, judge, work_us):
        c = self.s.SchedConsumer(
            self.env, "%s-consumer-%d" % (self.name, k), self.topic,
            "%s-%s" % (self.topic, "app"), self.parts["critical"], judge,
            schedule=schedule, buckets=BUCKETS, allocation=ALLOCATION,
            work_us=work_us, window=WINDOW,
            # the layout is the plugin's: not for the control's plain
            # consumer
            extra=self.extra + (["bucket.priority.layout=" + self.layout]
                                if schedule else []))
        self.ledger.add_consumer(c)
        self.consumers.append(c)
        return c

    def update(self):
        self.ledger.update()
        for c in self.consumers:
            c.update_judged()
        for b in self.topped:
            if self.unread(b) < TOPUP[b]:
                self.topups += 1
                self.backlog(b, TOPUP[b])

    def reads(self, t0, bucket, consumer=None, t1=None):
        """Records of the key bucket read from t0 (to t1), by consumer."""
        n = 0
        for rs in self.ledger.reads.values():
            for c, _p, _o, kb, ms in rs:
                if kb == bucket and ms >= t0 and (t1 is None or ms < t1) \
                        and (consumer is None or c is consumer):
                    n += 1
        return n

    def wait(self, what, cond, timeout=90):
        def check():
            self.update()
            return cond()
        self.s.wait_until("%s: %s" % (self.name, what), timeout, check, 0.25)

    def holds_all(self, c):
        return lambda: c.current == frozenset(range(PARTITIONS))

    def split(self, a, b):
        """Both hold partitions, disjoint, together all of them."""
        def ok():
            return a.current and b.current and not a.current & b.current \
                and a.current | b.current == frozenset(range(PARTITIONS))
        return ok

    def phase(self, name, min_s, need, settled=None):
        """Runs a phase of at least min_s seconds (counted from when
        `settled` holds, if given) until need(start ms) holds."""
        t0 = self.s.now_ms()
        if settled:
            self.wait(name + ": group settled", settled, 60)
            self.s.log("%s: %s: settled in %.1f s: %s" % (
                self.name, name, (self.s.now_ms() - t0) / 1000,
                "; ".join("%s %s" % (c.name, sorted(c.current))
                          for c in self.consumers if c.alive())))
        t_min = time.time() + min_s
        self.wait(name, lambda: time.time() >= t_min and need(t0), 120)
        self.phases.append((name, t0, self.s.now_ms()))

    def rebalance_phases(self, schedule, judge, work_us, need, need_second):
        """One consumer, a second one joining, the second one leaving."""
        c1 = self.consumers[0]
        self.phase("one consumer", 5, need)
        c2 = self.consumer(2, schedule, judge, work_us)
        self.phase("second consumer in", 4,
                   lambda t0: need(t0) and need_second(c2),
                   settled=self.split(c1, c2))
        rc = c2.stop(60)
        if rc:
            self.report.error("%s exited %d (log %s)" % (c2.name, rc,
                                                         c2.log_path))
        self.phase("second consumer left", 4, need,
                   settled=self.holds_all(c1))

    def finish(self):
        """Ends the phases: stops the top-ups, the stream and the judging
        (SIGUSR1), waits until every record was read, stops the consumers,
        then checks the ledger. Returns the consumers' figures, by name."""
        self.topped = []
        if self.stream:
            rc = self.stream.stop(120)
            self.s.log("%s stopped (exit %d): %s" % (
                self.stream.name, rc, self.stream.summary()))
        for c in self.consumers:
            if c.alive():
                c.p.send_signal(signal.SIGUSR1)
        self.stream_end = self.s.now_ms()
        t = time.time()
        if not self.ledger.wait_all_read(150):
            self.s.log("%s: %d records unread after 150 s"
                       % (self.name, len(self.ledger.pending)))
        self.s.log("%s: all records read %.1f s after the stream stopped"
                   % (self.name, time.time() - t))
        # proving that no late duplicate comes takes a window of time
        self.s.quiet_window(1.0, "late duplicates, if any, show up in the "
                            "count")
        self.s.stop_all([c for c in self.consumers if c.alive()])
        self.update()
        figs = {}
        for c in self.consumers:
            if c.p.returncode:
                self.report.error("%s exited %d (log %s)" % (
                    c.name, c.p.returncode, c.log_path))
                continue
            figs[c.name] = c.figures()
            self.s.log("%s: %s" % (c.name, c.summary()))
        self.check_records(figs)
        return figs

    def check_records(self, figs):
        led, rep = self.ledger, self.report
        for pr in led.producers:
            f = pr.summary_fields()
            if pr.p.returncode or f.get("failed") != "0" or \
                    f.get("enqueue_failed") != "0":
                rep.error("%s: exit %s, summary \"%s\"" % (
                    pr.name, pr.p.returncode, pr.summary()))
        lost = sorted(led.pending)
        extra, dup_ids = led.duplicates()
        crit = set(self.parts["critical"])
        wrong = sum(1 for rs in led.reads.values()
                    for _c, p, _o, kb, _ms in rs
                    if (kb == "critical") != (p in crit))
        foreign = sum(f["foreign"] for f in figs.values())
        misplaced = sum(f["misplaced"] for f in figs.values())
        unexpected = sum(1 for i in led.reads if i not in led.delivered)
        rep.add("%s: records delivered %d, lost %d, duplicates %d (ids "
                "read more than once: %d), read outside their bucket's "
                "partitions %d, foreign %d"
                % (self.name, len(led.delivered), len(lost), extra, dup_ids,
                   wrong, foreign),
                **{self.name + "_delivered": len(led.delivered),
                   self.name + "_lost": len(lost),
                   self.name + "_duplicates": extra})
        if lost:
            rep.error("%s: %d records lost, e.g. ids %s"
                      % (self.name, len(lost), lost[:10]))
        if unexpected:
            rep.error("%s: %d ids read that were never delivered"
                      % (self.name, unexpected))
        if wrong or misplaced or foreign:
            rep.error("%s: records outside their bucket: %d read, %d "
                      "judged misplaced, %d foreign"
                      % (self.name, wrong, misplaced, foreign))

    def stream_delays(self, t0, t1):
        """ms from the delivery report to the first read, critical records
        acknowledged in [t0, t1)."""
        ds = []
        for i, (_p, ms) in self.ledger.delivered.items():
            if i >= CRITICAL_BASE and t0 <= ms < t1 and i in self.ledger.reads:
                ds.append(min(r[4] for r in self.ledger.reads[i]) - ms)
        return ds

    def check_phases_read(self, min_critical, min_bulk):
        """Each phase read both buckets; the backlog outlasted them."""
        for name, t0, t1 in self.phases:
            c, b = self.reads(t0, "critical", t1=t1), \
                self.reads(t0, "bulk", t1=t1)
            if c < min_critical or b < min_bulk:
                self.report.error("%s, %s: read %d critical and %d bulk "
                                  "records (want >= %d and >= %d)"
                                  % (self.name, name, c, b, min_critical,
                                     min_bulk))

    def check_stats(self, f, pauses_critical, pauses_bulk=True):
        """The first consumer's bucket statistics agree with what it
        delivered; drained at the end; which buckets were paused: strict
        by pausing, bulk; weighted by queue, critical (ahead of its share
        while bulk waited) and never bulk, the lowest bucket."""
        st = f["bucket_stats"]
        if not st or st[0]["name"] != "critical" or st[1]["name"] != "bulk":
            self.report.error("%s: bucket statistics %s" % (self.name, st))
            return
        ok = (st[0]["delivered"] == f["delivered_critical"] and
              st[1]["delivered"] == f["delivered_bulk"] and
              st[0]["lag"] == 0 and st[1]["lag"] == 0 and
              (st[1]["pauses"] > 0) == pauses_bulk and
              (st[0]["pauses"] > 0) == pauses_critical)
        self.report.add("%s: first consumer's bucket statistics: %s"
                        % (self.name, "; ".join(
                            "%s delivered %d, lag %d, paused %d times for "
                            "%.1f s" % (b["name"], b["delivered"], b["lag"],
                                        b["pauses"], b["paused_ms"] / 1000)
                            for b in st)))
        if not ok:
            self.report.error("%s: bucket statistics do not match (critical "
                              "paused expected: %s, bulk: %s)"
                              % (self.name, pauses_critical, pauses_bulk))


def episodes_text(run, eps):
    parts = []
    for name, t0, t1 in run.phases:
        e = [x[2] for x in eps if t0 <= x[0] < t1]
        parts.append("%s: %d episodes, %d above %d, worst %d"
                     % (name, len(e), sum(1 for x in e if x > STRICT_TYPICAL),
                        STRICT_TYPICAL, max(e, default=0)))
    return "; ".join(parts)


def delays_text(ds):
    if not ds:
        return "no critical record read"
    return "critical records read %d ms (median) / %d ms (p99) after their " \
        "delivery report" % (statistics.median(ds), pct(ds, 0.99))


def run_control(s, env, report):
    """A plain consumer: the critical stream waits behind the bulk backlog
    and the measure shows long episodes."""
    r = Run(s, env, report, "control")
    r.backlog("bulk", CONTROL_BULK)
    c = r.consumer(1, None, "strict", WORK_US_STRICT)
    r.wait("plain consumer assigned", r.holds_all(c), 60)
    r.stream = r.producer("stream", "critical", CRITICAL_BASE,
                          rate=STREAM_RATE)
    r.phase("one consumer", 4, lambda t0: r.reads(t0, "bulk") >= 2000)
    figs = r.finish()
    f = figs.get(c.name)
    if not f:
        return None
    eps = c.episodes
    ds = r.stream_delays(r.phases[0][1], r.stream_end)
    report.add("control (plain consumer, %d bulk records backlog, %d "
               "critical/s): %d episodes, worst %d bulk records (must be > "
               "%d); %s; %.1f s"
               % (CONTROL_BULK, STREAM_RATE, f["episodes"],
                  f["worst_episode"], CONTROL_FACTOR * STRICT_BOUND,
                  delays_text(ds), time.time() - r.t0),
               control_worst_episode=f["worst_episode"],
               control_episodes=f["episodes"],
               control_delay_median_ms=ds and statistics.median(ds))
    if f["worst_episode"] <= CONTROL_FACTOR * STRICT_BOUND:
        report.error("control: worst episode %d, not above %d: the measure "
                     "would not see a consumer without the scheduler"
                     % (f["worst_episode"], CONTROL_FACTOR * STRICT_BOUND))
    if len(eps) != f["episodes"]:
        report.error("control: %d episodes in the judge file, %d counted"
                     % (len(eps), f["episodes"]))
    return f


def run_strict(s, env, report):
    r = Run(s, env, report, "strict")
    r.backlog("bulk", STRICT_BULK)
    c1 = r.consumer(1, "strict", "strict", WORK_US_STRICT)
    r.wait("first consumer assigned", r.holds_all(c1), 60)
    r.topped = ["bulk"]
    r.stream = r.producer("stream", "critical", CRITICAL_BASE,
                          rate=STREAM_RATE)
    r.rebalance_phases(
        "strict", "strict", WORK_US_STRICT,
        lambda t0: r.reads(t0, "critical") >= 200 and
        r.reads(t0, "bulk") >= 1000,
        lambda c2: r.reads(0, "critical", c2) >= 50 and
        r.reads(0, "bulk", c2) >= 500)
    figs = r.finish()
    if len(figs) != 2:
        return
    f1, f2 = figs[r.consumers[0].name], figs[r.consumers[1].name]
    eps = [e for c in r.consumers for e in c.episodes]
    lens = [e[2] for e in eps]
    worst = max(f1["worst_episode"], f2["worst_episode"])
    typical = sum(1 for x in lens if x <= STRICT_TYPICAL) / len(lens) \
        if lens else 0.0
    bulk_left = r.reads(r.stream_end, "bulk")
    ds = r.stream_delays(r.phases[0][1], r.stream_end)
    report.add("strict (%d bulk records backlog, topped up %d times, %d "
               "critical/s, %d us of work per record): %d+%d episodes, "
               "%.2f%% of them at most %d bulk records (want >= %.0f%%), "
               "median %g, worst %d (bound %d); %s; critical delivered "
               "%d+%d, bulk %d+%d; %d bulk records still to read when the "
               "stream stopped; %s; %.1f s"
               % (STRICT_BULK, r.topups, STREAM_RATE, WORK_US_STRICT,
                  f1["episodes"], f2["episodes"], 100 * typical,
                  STRICT_TYPICAL, 100 * STRICT_TYPICAL_SHARE,
                  statistics.median(lens) if lens else 0, worst,
                  STRICT_BOUND,
                  episodes_text(r, eps), f1["delivered_critical"],
                  f2["delivered_critical"], f1["delivered_bulk"],
                  f2["delivered_bulk"], bulk_left, delays_text(ds),
                  time.time() - r.t0),
               strict_worst_episode=worst,
               strict_episodes=f1["episodes"] + f2["episodes"],
               strict_typical_share=round(typical, 4),
               strict_delay_median_ms=ds and statistics.median(ds),
               strict_delay_p99_ms=pct(ds, 0.99))
    if len(lens) != f1["episodes"] + f2["episodes"]:
        report.error("strict: %d episodes in the judge files, %d counted"
                     % (len(lens), f1["episodes"] + f2["episodes"]))
    if worst > STRICT_BOUND:
        report.error("strict: an episode of %d bulk records, above the "
                     "bound %d: %s" % (worst, STRICT_BOUND,
                                       sorted(eps, key=lambda e: -e[2])[:5]))
    if lens and typical < STRICT_TYPICAL_SHARE:
        report.error("strict: only %.2f%% of the episodes within %d bulk "
                     "records (want >= %.0f%%): %s"
                     % (100 * typical, STRICT_TYPICAL,
                        100 * STRICT_TYPICAL_SHARE,
                        sorted(lens, reverse=True)[:20]))
    # The scenario happened: in every phase both buckets were read, the
    # bulk backlog outlasted the phases, critical records came while it
    # waited, and the second consumer read both buckets.
    r.check_phases_read(100, 500)
    if not bulk_left or not f1["critical_with_bulk_waiting"]:
        report.error("strict: the bulk backlog did not outlast the stream "
                     "(%d left) or no critical record came while it waited "
                     "(%d)" % (bulk_left, f1["critical_with_bulk_waiting"]))
    if not f2["delivered_critical"] or not f2["delivered_bulk"]:
        report.error("strict: the second consumer read %d critical and %d "
                     "bulk records" % (f2["delivered_critical"],
                                       f2["delivered_bulk"]))
    r.check_stats(f1, pauses_critical=False)


def run_weighted(s, env, report, name="weighted", extra=None, layout=LAYOUT):
    """The weighted part; broker_kip848_sched.py runs it again on the
    consumer protocol (name, extra: its consumers' settings, layout)."""
    r = Run(s, env, report, name, WEIGHTED_SETTINGS if extra is None
            else extra, layout)
    r.backlog("bulk", WEIGHTED_BULK)
    r.backlog("critical", WEIGHTED_CRITICAL)
    r.topped = ["bulk", "critical"]
    c1 = r.consumer(1, "weighted", "weighted", WORK_US_WEIGHTED)

    def windows_since(t0, c=None):
        return sum(1 for k in ([c] if c else r.consumers)
                   for w in k.windows if w[0] >= t0)
    r.wait("first consumer assigned", r.holds_all(c1), 60)
    r.rebalance_phases("weighted", "weighted", WORK_US_WEIGHTED,
                       lambda t0: windows_since(t0) >= 2,
                       lambda c2: windows_since(0, c2) >= 1)
    end = r.s.now_ms()
    figs = r.finish()
    if len(figs) != 2:
        return
    crit_left, bulk_left = r.reads(end, "critical"), r.reads(end, "bulk")
    f1, f2 = figs[r.consumers[0].name], figs[r.consumers[1].name]
    wins = [w for c in r.consumers for w in c.windows]
    shares = [100.0 * w[1] / w[2] for w in wins]
    both = f1["both"] + f2["both"]
    overall = 100.0 * (f1["both_critical"] + f2["both_critical"]) / both \
        if both else 0.0
    per_phase = []
    for phase, t0, t1 in r.phases:
        ps = [100.0 * w[1] / w[2] for w in wins if t0 <= w[0] < t1]
        per_phase.append("%s: %d windows %s" % (
            phase, len(ps), "%.1f%%-%.1f%%" % (min(ps), max(ps)) if ps
            else "-"))
    report.add(name + " (%d bulk + %d critical records backlog, topped up "
               "%d times, %d us of work per record): critical %.1f%% of %d "
               "records delivered while both buckets waited (allocation "
               "%.0f%% +- %.0f); %d "
               "windows of %d (%d by the second consumer) between %.1f%% and "
               "%.1f%% (+- %.0f); %s; %d critical and %d bulk records still "
               "to read after the phases; %.1f s"
               % (WEIGHTED_BULK, WEIGHTED_CRITICAL, r.topups,
                  WORK_US_WEIGHTED, overall,
                  both, SHARE, OVERALL_TOLERANCE, len(wins), WINDOW,
                  f2["windows"], min(shares, default=0),
                  max(shares, default=0), WINDOW_TOLERANCE,
                  "; ".join(per_phase), crit_left, bulk_left,
                  time.time() - r.t0),
               weighted_share=round(overall, 2), weighted_windows=len(wins),
               weighted_min_share=min(shares, default=None),
               weighted_max_share=max(shares, default=None))
    if len(wins) < 6 or not f2["windows"]:
        report.error(name + ": %d windows, %d by the second consumer "
                     "(want >= 6 and >= 1)" % (len(wins), f2["windows"]))
    if abs(overall - SHARE) > OVERALL_TOLERANCE:
        report.error(name + ": critical share %.1f%% overall, outside "
                     "%.0f%% +- %.0f" % (overall, SHARE, OVERALL_TOLERANCE))
    bad = [round(x, 1) for x in shares if abs(x - SHARE) > WINDOW_TOLERANCE]
    if bad:
        report.error(name + ": windows outside %.0f%% +- %.0f: %s"
                     % (SHARE, WINDOW_TOLERANCE, bad))
    if not crit_left or not bulk_left:
        report.error(name + ": a backlog ran out during the phases "
                     "(critical left %d, bulk left %d)"
                     % (crit_left, bulk_left))
    r.check_phases_read(200, 200)
    r.check_stats(f1, pauses_critical=True, pauses_bulk=False)


def run(s, env, report):
    """s: the broker_suite module (processes, ledger, Failure)."""
    if not env.sched_client:
        raise s.Failure("the scheduler scenario needs --sched-client")
    report.add("topics of %d partitions, %s layout, buckets \"%s\" = \"%s\"; "
               "list consumers with %s (weighted: the plugin's fetch wait)"
               % (PARTITIONS, LAYOUT, BUCKETS, ALLOCATION,
                  ", ".join(CONSUMER_SETTINGS)))
    parts = os.environ.get("BP_BROKER_SCHED_PARTS",
                           "control strict weighted").split()
    for name, fn in (("control", run_control), ("strict", run_strict),
                     ("weighted", run_weighted)):
        if name in parts:
            fn(s, env, report)
        else:
            report.add("%s: left out (BP_BROKER_SCHED_PARTS)" % name)
