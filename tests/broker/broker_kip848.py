"""broker_kip848.py - bucket consumers on the next generation consumer group
protocol (KIP-848, group.protocol=consumer) against Kafka 4.4: the kip848
scenario of broker_suite.py.

Two consumers per bucket, one C (bp-broker-client consume, the plugin's own
rebalance callback) and one Python on the PyPI wheel (bp_wheel_consumer.py,
its own on_assign/on_revoke, the wheel's librdkafka), both configured by
properties only with -X group.protocol=consumer (set after the bucket, as a
dict or a command line does), no session or heartbeat setting (the broker
owns them). Under a producer writing 1000 records/s: members join, the
Python member of one bucket leaves (SIGTERM), the C member of another is
killed (SIGKILL), two new members restore two per bucket, then the topic
grows from 12 to 24 partitions (the stable layout moves none between
buckets): every new partition is written and read by its bucket's members.

In every settled state, for each bucket: its members hold (acknowledge) the
broker's whole assignment of the topic, each partition once; the bucket's
partitions are held by exactly one member each (the rest are kept paused);
the spread between members is reported beside what Kafka's range assignor
gives (contiguous blocks, the first P % n members one larger) and asserted
within 1 wherever that shape allows it. At the end: 0 lost, 0 records read
by another bucket or outside the reader's partitions, 0 'foreign' counted
by the plugin, lag 0 per bucket group.

Skipped (exit 77) when bp-broker-client runs a librdkafka older than 2.12
(Debian's 2.0.2): the plugin refuses group.protocol=consumer there.
"""
import subprocess
import time

PARTS = 12
GROWN = 24
LAYOUT = "stable"
KIP848 = ["group.protocol=consumer"]
MIN_VERSION = (2, 12, 0)


def client_version(env):
    r = subprocess.run([env.client, "version"], capture_output=True,
                       text=True, timeout=30)
    return r.stdout.strip()


def version_tuple(v):
    return tuple(int(x) for x in v.split("-")[0].split(".")[:3])


def require_kip848(s, env):
    """The librdkafka bp-broker-client runs; skips the scenario (77) when
    it is older than 2.12, where the plugin refuses the protocol."""
    v = client_version(env)
    if not v or version_tuple(v) < MIN_VERSION:
        raise s.Skip("bp-broker-client runs librdkafka %s: "
                     "group.protocol=consumer needs 2.12 or later"
                     % (v or "(unknown)"))
    return v


def require_kip848_clients(s, env, report):
    """require_kip848(), then reports the version and makes the wheel's
    venv (the Python members)."""
    v = require_kip848(s, env)
    report.add("C consumers on librdkafka %s" % v, c_librdkafka=v)
    s.prepare_wheel_env(env, report)


def range_counts(bucket_parts, members, parts):
    """How many of the bucket's partitions each of n members holds under
    Kafka's range assignor (one topic of `parts` partitions: contiguous
    blocks, the first parts % n members one partition larger), sorted."""
    q, r = divmod(parts, members)
    counts, at = [], 0
    for i in range(members):
        size = q + (1 if i < r else 0)
        counts.append(len(set(range(at, at + size)) & set(bucket_parts)))
        at += size
    return sorted(counts)


def owner_of(layout, p):
    return [b for b, ps in layout.items() if p in ps][0]


def held(c, layout):
    return frozenset(c.current) & frozenset(layout[c.bucket])


def settled(s, ledger, members, layout, parts):
    """Every bucket's live members each hold a part of the topic, together
    the whole topic once and the bucket's partitions once; returns {bucket:
    sorted counts} or None."""
    ledger.update()
    counts = {}
    for b in s.BUCKETS:
        live = [c for c in members if c.bucket == b and c.alive()]
        if not live:
            return None
        sets = [c.current for c in live]
        # range gives every member a block (parts >= members): a member
        # still joining holds nothing yet
        if not all(sets) or sum(len(x) for x in sets) != parts or \
                frozenset().union(*sets) != frozenset(range(parts)):
            return None
        mine = [held(c, layout) for c in live]
        if frozenset().union(*mine) != frozenset(layout[b]):
            return None
        counts[b] = sorted(len(x) for x in mine)
    return counts


def state(s, env, report, ledger, members, layout, what, t0, timeout=120,
          parts=PARTS):
    counts = s.wait_until(
        "the bucket groups to settle (%s)" % what, timeout,
        lambda: settled(s, ledger, members, layout, parts))
    took = time.time() - t0
    shown = []
    for b in s.BUCKETS:
        live = [c for c in members if c.bucket == b and c.alive()]
        model = range_counts(layout[b], len(live), parts)
        spread = counts[b][-1] - counts[b][0]
        shown.append("%s %s (range gives %s)" % (b, counts[b], model))
        if spread > 1 and model[-1] - model[0] <= 1:
            report.error("%s: bucket %s spread %d between its members %s, "
                         "where range allows 1" % (what, b, spread,
                                                   counts[b]))
    report.add("%s: settled in %.1f s; bucket partitions per member: %s; "
               "members: %s" % (
                   what, took, ", ".join(shown),
                   "; ".join("%s %s+%d paused" % (
                       c.name, sorted(held(c, layout)),
                       len(c.current) - len(held(c, layout)))
                       for c in members if c.alive())))
    return took


def run(s, env, report):
    require_kip848_clients(s, env, report)
    topic, group = s.unique("kip848"), s.unique("app")
    env.admin("create", topic=topic, partitions=PARTS)
    layout = env.layout(LAYOUT, PARTS)
    report.add("topic %s, %s layout, %d partitions: %s; "
               "group.protocol=consumer, group.remote.assignor=range (set "
               "by the plugin)" % (topic, LAYOUT, PARTS, layout))
    ledger = s.Ledger([], [])
    pr = s.Producer(env, "producer", topic, LAYOUT, rate=1000)
    ledger.producers.append(pr)
    members = []

    def join(cls, b, name):
        c = cls(env, name, topic, LAYOUT, b, group, session_ms=0,
                extra=KIP848)
        members.append(c)
        ledger.add_consumer(c)
        return c

    figures = {}
    t0 = time.time()
    for b in s.BUCKETS:
        join(s.Consumer, b, "c-%s-1" % b)
    figures["join_s"] = state(s, env, report, ledger, members, layout,
                              "one C member per bucket joined", t0)
    t0 = time.time()
    for b in s.BUCKETS:
        join(s.WheelConsumer, b, "py-%s-1" % b)
    figures["second_join_s"] = state(
        s, env, report, ledger, members, layout,
        "a Python member joined each bucket", t0)

    leaver = [c for c in members if c.name == "py-%s-1" % s.BUCKETS[0]][0]
    t0 = time.time()
    rc = leaver.stop()
    if rc != 0:
        report.error("%s exited %d on SIGTERM" % (leaver.name, rc))
    figures["leave_s"] = state(
        s, env, report, ledger, members, layout,
        "the Python member of %s left (SIGTERM)" % s.BUCKETS[0], t0)

    victim = [c for c in members if c.name == "c-%s-1" % s.BUCKETS[2]][0]
    t0 = time.time()
    victim.kill()
    figures["kill_s"] = state(
        s, env, report, ledger, members, layout,
        "the C member of %s killed (SIGKILL; the broker's session "
        "timeout decides)" % s.BUCKETS[2], t0, timeout=180)

    t0 = time.time()
    join(s.WheelConsumer, s.BUCKETS[0], "py-%s-2" % s.BUCKETS[0])
    join(s.Consumer, s.BUCKETS[2], "c-%s-2" % s.BUCKETS[2])
    figures["rejoin_s"] = state(
        s, env, report, ledger, members, layout,
        "new members: two per bucket again", t0)
    # Growth under load: the broker hands the new partitions out with the
    # next heartbeats; each member pauses the new ones that are not its
    # bucket's and reads its bucket's from the start-offset rules.
    old_layout, t0 = layout, time.time()
    t_grow = int(env.admin("grow", topic=topic, partitions=GROWN))
    layout = env.layout(LAYOUT, GROWN)
    moved = [p for p in range(PARTS)
             if owner_of(old_layout, p) != owner_of(layout, p)]
    if moved:
        report.error("the %s layout moved partitions %s between buckets on "
                     "growth %d->%d" % (LAYOUT, moved, PARTS, GROWN))
    figures["growth_s"] = state(
        s, env, report, ledger, members, layout,
        "the topic grew %d->%d under load" % (PARTS, GROWN), t0,
        parts=GROWN)
    s.wait_until(
        "every new partition to be written and read by its bucket", 60,
        lambda: ledger.update() or all(
            ledger.first_read(p, owner_of(layout, p), t_grow)
            for p in range(PARTS, GROWN)),
        missing=lambda: "unread: %s" % [
            p for p in range(PARTS, GROWN)
            if not ledger.first_read(p, owner_of(layout, p), t_grow)])
    figures["growth_read_s"] = max(
        ledger.first_read(p, owner_of(layout, p), t_grow)
        for p in range(PARTS, GROWN)) / 1000.0 - t_grow / 1000.0
    report.add("settle times (s): " + ", ".join(
        "%s %.1f" % kv for kv in figures.items()),
        **{"kip848_" + k: round(x, 1) for k, x in figures.items()})

    s.drain_and_stop(ledger, [pr], members, report)
    for c in members:
        for p in c.problems():
            report.error(p)
    s.verify(env, ledger, report, LAYOUT, [PARTS, GROWN])
    s.check_lag(env, report, topic, group, LAYOUT, GROWN)
