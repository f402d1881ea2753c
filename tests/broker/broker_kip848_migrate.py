"""broker_kip848_migrate.py - a bucket consumer group moved from the classic
protocol to the consumer protocol (KIP-848) and back, the way Kafka's
online migration works (group.consumer.migration.policy, bidirectional by
default): members restarted one by one, under a producer writing 1000
records/s. The kip848_migrate scenario of broker_suite.py.

Each bucket's group has two members, A (C, bp-broker-client) and B (Python,
the PyPI wheel), both configured by properties only (-X
group.protocol=consumer, a config dict entry). Every member is restarted in
turn, all buckets at once:

  classic A + classic B                       (classic group)
  A restarted with group.protocol=consumer     (the broker converts the
                                               group; B stays classic)
  B restarted with group.protocol=consumer     (consumer group)
  A restarted classic                          (mixed again; A classic)
  B restarted classic                          (the broker converts back)

Each restart is a stop (SIGTERM: the member leaves) and a start: a state
with one member, then one with two. In every state the scenario samples
every 0.5 s which member holds which partition of its bucket (for a member
that keeps and pauses: the assigned partitions of its bucket) and which
member read which of them in the last 2 s, until the state settles: each
bucket partition held and read by exactly one member of its bucket, none
read by another. It reports per state how long that took and the worst
seen meanwhile (bucket partitions unread, partitions read by two members),
and fails when a state does not settle within 60 s. At the end: 0 lost, 0
read by another bucket, 0 'foreign', lag 0 per bucket group.

Skipped (exit 77) when bp-broker-client runs a librdkafka older than 2.12.
"""
import os
import time

import broker_kip848 as k

PARTS = 12
LAYOUT = "stable"
CONSUMER = ["group.protocol=consumer"]
WINDOW_MS = 2000
SETTLE_S = 60


class Readers:
    """Who read which partition when: a second tail on each member's
    record file (the ledger keeps its own)."""

    def __init__(self, s):
        self.s = s
        self.tails = {}
        self.last = {}           # (member name, partition) -> ms

    def update(self, members):
        for c in members:
            t = self.tails.setdefault(c.name, self.s.Tail(c.out))
            for line in t.lines():
                w = line.split()
                self.last[(c.name, int(w[1]))] = int(w[4])

    def recent(self, c, now_ms):
        return frozenset(p for (n, p), ms in self.last.items()
                         if n == c.name and ms >= now_ms - WINDOW_MS)


def observe(s, ledger, readers, members, layout, since_ms):
    """One sample: per bucket, the partitions held by none, held by two,
    read by none, read by two (in the last WINDOW_MS), read outside the
    bucket; and whether the bucket is settled."""
    ledger.update()
    readers.update(members)
    now = s.now_ms()
    out = {}
    for b in s.BUCKETS:
        live = [c for c in members if c.bucket == b and c.alive()]
        mine = frozenset(layout[b])
        holds = [k.held(c, layout) for c in live]
        reads = [readers.recent(c, now) for c in live]
        holders = {p: sum(p in h for h in holds) for p in mine}
        reading = {p: sum(p in r for r in reads) for p in mine}
        outside = frozenset().union(*reads) - mine if reads else frozenset()
        old_enough = now - since_ms >= WINDOW_MS
        # two members, every bucket at least two partitions: range and
        # roundrobin both give each member a share (one still joining
        # holds nothing yet)
        settled = bool(live) and old_enough and not outside and all(
            holds) and all(
            holders[p] == 1 and reading[p] == 1 for p in mine) and all(
            r == h for r, h in zip(reads, holds))
        out[b] = {"unheld": sorted(p for p in mine if not holders[p]),
                  "held_twice": sorted(p for p in mine if holders[p] > 1),
                  "unread": sorted(p for p in mine if not reading[p]),
                  "read_twice": sorted(p for p in mine if reading[p] > 1),
                  "outside": sorted(outside), "settled": settled,
                  "holds": {c.name: sorted(h) for c, h in zip(live, holds)},
                  "paused": {c.name: len(c.current) - len(h)
                             for c, h in zip(live, holds)}}
    return out


def state(s, report, ledger, readers, members, layout, what, t0, figures):
    """Samples until every bucket settles (fails after SETTLE_S); reports
    the time and the worst figures seen meanwhile."""
    since = int(t0 * 1000)
    worst = {"unread": 0, "read_twice": 0, "held_twice": 0, "unheld": 0}
    secs = {"unread": 0.0, "read_twice": 0.0}
    while True:
        obs = observe(s, ledger, readers, members, layout, since)
        for key in worst:
            worst[key] = max(worst[key], sum(len(o[key])
                                             for o in obs.values()))
        if s.now_ms() - since >= WINDOW_MS:
            for key in secs:
                if any(o[key] for o in obs.values()):
                    secs[key] += 0.5
        if all(o["settled"] for o in obs.values()):
            break
        if time.time() - t0 > SETTLE_S:
            report.error("%s: not settled after %d s: %s" % (
                what, SETTLE_S, "; ".join(
                    "%s unheld %s held twice %s unread %s read twice %s "
                    "outside %s holds %s" % (
                        b, o["unheld"], o["held_twice"], o["unread"],
                        o["read_twice"], o["outside"], o["holds"])
                    for b, o in obs.items() if not o["settled"])))
            break
        time.sleep(0.5)
    took = time.time() - t0
    figures.append((what, round(took, 1), worst, secs))
    report.add("%s: settled in %.1f s; meanwhile at worst %d bucket "
               "partitions unread (%.1f s), %d read by two members within %d s "
               "(a hand-over; %.1f s), %d held by two; settled: %s" % (
                   what, took, worst["unread"], secs["unread"],
                   worst["read_twice"], WINDOW_MS // 1000, secs["read_twice"],
                   worst["held_twice"], "; ".join(
                       "%s %s" % (b, ", ".join(
                           "%s %s+%d paused" % (n, h, obs[b]["paused"][n])
                           for n, h in o["holds"].items()))
                       for b, o in obs.items())))


def run(s, env, report):
    k.require_kip848_clients(s, env, report)
    topic, group = s.unique("kip848-migrate"), s.unique("app")
    env.admin("create", topic=topic, partitions=PARTS)
    layout = env.layout(LAYOUT, PARTS)
    report.add("topic %s, %s layout, %d partitions: %s" % (
        topic, LAYOUT, PARTS, layout))
    ledger = s.Ledger([], [])
    readers = Readers(s)
    members, figures = [], []
    gen = {}

    def start(cls, b, role, protocol):
        gen[(b, role)] = gen.get((b, role), 0) + 1
        name = "%s-%s-%s-%d" % (role, protocol, b, gen[(b, role)])
        if protocol == "consumer":
            c = cls(env, name, topic, LAYOUT, b, group, session_ms=0,
                    extra=CONSUMER)
        else:
            c = cls(env, name, topic, LAYOUT, b, group)
        members.append(c)
        ledger.add_consumer(c)
        return c

    roles = {"A": s.Consumer, "B": s.WheelConsumer}
    kinds = {"A": "C", "B": "Python"}
    protocol = {"A": "classic", "B": "classic"}
    live = {}

    def shown(role):
        return "%s %s (%s)" % (protocol[role], role, kinds[role])

    t0 = time.time()
    for b in s.BUCKETS:
        for role in "AB":
            live[(b, role)] = start(roles[role], b, role, "classic")
    pr = s.Producer(env, "producer", topic, LAYOUT, rate=1000)
    ledger.producers.append(pr)
    state(s, report, ledger, readers, members, layout,
          "%s + %s" % (shown("A"), shown("B")), t0, figures)

    # Upgrade then downgrade, one member at a time.
    steps = [("A", "consumer"), ("B", "consumer"), ("A", "classic"),
             ("B", "classic")]
    for role, new_protocol in steps:
        other = "B" if role == "A" else "A"
        t0 = time.time()
        for b in s.BUCKETS:
            rc = live[(b, role)].stop()
            if rc != 0:
                report.error("%s exited %d on SIGTERM"
                             % (live[(b, role)].name, rc))
        state(s, report, ledger, readers, members, layout,
              "%s left: %s alone" % (shown(role), shown(other)), t0,
              figures)
        protocol[role] = new_protocol
        t0 = time.time()
        for b in s.BUCKETS:
            live[(b, role)] = start(roles[role], b, role, new_protocol)
        state(s, report, ledger, readers, members, layout,
              "%s + %s joined" % (shown(other), shown(role)), t0, figures)

    report.add("per state: (state, settle s, worst counts, seconds with "
               "unread / read-twice partitions)",
               migrate_states=figures)
    s.drain_and_stop(ledger, [pr], members, report)
    for c in members:
        for p in c.problems():
            report.error(p)
    extra, ids = ledger.duplicates()
    report.add("records read twice: %d (%d ids)" % (extra, ids),
               migrate_duplicates=extra)
    s.verify(env, ledger, report, LAYOUT, [PARTS])
    s.check_lag(env, report, topic, group, LAYOUT, PARTS)
