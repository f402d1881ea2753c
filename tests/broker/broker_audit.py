"""broker_audit.py - the broker suite's "audit" scenario: bp-audit against
a real Kafka broker, on a healthy deployment and with each fault planted
in turn. Three buckets (critical, normal, bulk = 20/30/50 % of 12
partitions, contiguous), consumers in separate processes
(bp-broker-client), bp-audit reading the same properties file the clients
would use. Asserted, from bp-audit's --json and exit status:

  missing     a topic that does not exist: exit 2, the topic named;
  no groups   the bucket groups not created yet: state Dead, no_consumer
              for every bucket, exit 1;
  healthy     300 records (100 per bucket) read and committed: exit 0, no
              finding at all, lag 0 per bucket, every
              partition read by exactly one member, every record's key in
              its bucket (in_bucket sums to 300); --watch 1 gives a
              document per round and exits 0 on SIGTERM, and on a
              terminal clears the screen before each report;
  no consumer both bulk consumers stopped, 90 more records (30 per
              bucket): bulk's lag exactly 30, critical's and normal's 0
              once read, the fault no_consumer for bulk, exit 1;
  misrouted   a producer without the plugin writes a critical, a normal
              and a bulk key to each of the 12 partitions: misrouted
              exactly 2 per partition (24), exit 1;
  plain       a consumer without the plugin joins the normal group:
              flagged not_bucket_consumer (once it committed), exit 1;
  two buckets a consumer of "critical, bulk" beside the bucket groups:
              its group <group.id>.critical+bulk found by listing, its
              reads the critical and bulk partitions, each flagged
              double_read;
  growth      the topic grown to 24 partitions (contiguous: 6-11 move to
              bulk): the old groups' commits there reported stale_commit;
              on the moved partitions the keys of their old bucket count
              as misrouted, and as old_layout with --grown-from 12 (then
              only the plain producer's other-bucket key, 1 per partition,
              stays misrouted).
"""
import json
import os
import pty
import select
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PLAIN = os.path.join(HERE, "bp_plain_client.py")


def audit(s, env, props, *extra):
    """Runs bp-audit --json; returns (exit code, document or None, stderr)."""
    r = subprocess.run([env.audit_bin, "--config", props, "--json",
                        "--timeout", "10000"] + list(extra),
                       capture_output=True, text=True, timeout=180)
    doc = json.loads(r.stdout) if r.returncode in (0, 1) else None
    return r.returncode, doc, r.stderr.strip()


def kinds(doc, kind):
    return [f for f in doc["findings"] if f["kind"] == kind]


def lag_of(doc):
    return {b["name"]: b["lag"] for b in doc["buckets"]}


def until(s, env, props, what, cond, timeout=90):
    """Audits until cond(rc, doc) holds; returns the last (rc, doc)."""
    deadline = time.time() + timeout
    while True:
        rc, doc, err = audit(s, env, props)
        if doc is not None and cond(rc, doc):
            return rc, doc
        if time.time() > deadline:
            raise s.Failure("bp-audit never showed %s within %d s; last "
                            "exit %d, %s" % (what, timeout, rc,
                                             json.dumps(doc)[:3000]
                                             if doc else err))
        time.sleep(2)


def watch_on_terminal(env, props):
    """Output of bp-audit --watch 1 on a pseudo-terminal, until it printed
    its second report (then SIGTERM)."""
    master, slave = pty.openpty()
    w = subprocess.Popen([env.audit_bin, "--config", props, "--watch", "1"],
                         stdout=slave, stderr=subprocess.DEVNULL)
    os.close(slave)
    out = b""
    deadline = time.time() + 90
    while out.count(b"healthy: 0 faults") < 2 and time.time() < deadline:
        if select.select([master], [], [], 1)[0]:
            try:
                out += os.read(master, 65536)
            except OSError:
                break
    w.terminate()
    w.wait(60)
    os.close(master)
    return out


def run(s, env, report):
    topic, group = s.unique("audit"), s.unique("app")
    layout, parts = "contiguous", 12
    props = s.write_properties(env, os.path.join(env.workdir,
                                                 "app.properties"),
                               topic, ", ".join(s.BUCKETS), s.ALLOCATION,
                               layout, group)
    want = env.layout(layout, parts)

    # -- a topic that does not exist
    rc, doc, err = audit(s, env, props)
    if rc != 2 or ("topic \"%s\"" % topic) not in err:
        report.error("missing topic: exit %d, stderr \"%s\"" % (rc, err))
    report.add("missing topic: exit %d, \"%s\"" % (rc, err))

    # -- groups that do not exist yet
    env.admin("create", topic=topic, partitions=parts)
    rc, doc, err = audit(s, env, props)
    states = [g["state"] for g in doc["groups"]] if doc else err
    nc = [f["bucket"] for f in kinds(doc, "no_consumer")] if doc else []
    report.add("before any consumer: exit %d, group states %s, no_consumer %s"
               % (rc, states, nc))
    if rc != 1 or states != ["Dead"] * 3 or nc != s.BUCKETS:
        report.error("groups not existing yet: exit %d, %s" % (rc, states))

    # -- healthy
    ledger = s.Ledger([], [])
    consumers = s.start_consumers(env, ledger, topic, layout, group,
                                  {"critical": 1, "normal": 1, "bulk": 2})
    s.settle(env, ledger, consumers, layout, parts, report)
    pr = s.Producer(env, "producer", topic, layout, count=300)
    ledger.producers.append(pr)
    pr.p.wait(120)
    if not ledger.wait_all_read(60):
        raise s.Failure("%d records unread" % len(ledger.pending))
    rc, doc = until(s, env, props, "lag 0 in every bucket",
                    lambda rc, d: all(v == 0 for v in lag_of(d).values()))
    readers = [p["readers"] for p in doc["partition_details"]]
    in_bucket = sum(p["keys"]["in_bucket"] for p in doc["partition_details"])
    other = sum(p["keys"][k] for p in doc["partition_details"]
                for k in ("misrouted", "old_layout", "unknown", "null"))
    layout_ok = {b["name"]: b["partitions"] for b in doc["buckets"]} == want
    members = {g["name"]: len(g["members"]) for g in doc["groups"]}
    report.add("healthy: exit %d, faults %d, notes %d, lag %s, readers per "
               "partition %s, keys in bucket %d, other %d, members %s"
               % (rc, doc["faults"], doc["notes"], lag_of(doc), readers,
                  in_bucket, other, members), healthy_exit=rc)
    if rc != 0 or doc["findings"] or readers != [1] * parts or \
            in_bucket != 300 or other or not layout_ok or \
            members != {"%s.%s" % (group, b): n for b, n in
                        (("critical", 1), ("normal", 1), ("bulk", 2))}:
        report.error("healthy deployment not reported healthy: exit %d, %s"
                     % (rc, json.dumps(doc)[:3000]))

    # -- --watch: a new document each round until SIGTERM
    w = subprocess.Popen([env.audit_bin, "--config", props, "--json",
                          "--watch", "1"], stdout=subprocess.PIPE, text=True)
    docs = [json.loads(w.stdout.readline()) for _ in range(2)]
    w.terminate()
    wrc = w.wait(60)
    report.add("--watch 1: two rounds, healthy %s, exit %d after SIGTERM"
               % ([d["healthy"] for d in docs], wrc))
    if wrc != 0 or not all(d["healthy"] for d in docs):
        report.error("--watch: exit %d, %s" % (wrc, docs))

    # -- --watch on a terminal: the screen cleared before each report
    out = watch_on_terminal(env, props)
    clears = out.count(b"\x1b[H\x1b[2J")
    reports = out.count(b"healthy: 0 faults")
    report.add("--watch 1 on a terminal: %d screen clears, %d healthy "
               "reports" % (clears, reports))
    if clears < 2 or reports < 2:
        report.error("--watch on a terminal: %d clears, %d reports: %r"
                     % (clears, reports, out[-2000:]))

    # -- a bucket left with no consumer, and exact lag
    bulk = [c for c in consumers if c.bucket == "bulk"]
    s.stop_all(bulk)
    pr2 = s.Producer(env, "producer-2", topic, layout, start=300, count=90)
    ledger.producers.append(pr2)
    pr2.p.wait(120)
    rc, doc = until(s, env, props, "critical and normal caught up",
                    lambda rc, d: lag_of(d)["critical"] == 0 and
                    lag_of(d)["normal"] == 0)
    nc = kinds(doc, "no_consumer")
    report.add("bulk without consumers, 30 more records per bucket: exit %d, "
               "lag %s, no_consumer %s" % (rc, lag_of(doc),
                                           [f["bucket"] for f in nc]),
               bulk_lag=lag_of(doc)["bulk"])
    if rc != 1 or lag_of(doc)["bulk"] != 30 or \
            [f["bucket"] for f in nc] != ["bulk"] or \
            doc["faults"] != 1:
        report.error("no-consumer fault: exit %d, %s" % (
            rc, json.dumps(doc)[:3000]))
    back = s.Consumer(env, "consumer-bulk-3", topic, layout, "bulk", group)
    ledger.add_consumer(back)
    consumers.append(back)
    rc, doc = until(s, env, props, "bulk read again",
                    lambda rc, d: rc == 0)

    # -- a producer without the plugin
    r = subprocess.run([sys.executable, PLAIN, "produce", env.bootstrap,
                        topic, str(parts)] + s.BUCKETS,
                       capture_output=True, text=True, timeout=120)
    if r.returncode:
        raise s.Failure("plain producer: %s" % r.stderr[-2000:])
    rc, doc, err = audit(s, env, props)
    mis = [p["keys"]["misrouted"] for p in doc["partition_details"]]
    samples = sorted(x for p in doc["partition_details"]
                     for x in p["misrouted_samples"])
    report.add("producer without the plugin, 3 keys into each partition: "
               "exit %d, misrouted per partition %s, samples %s"
               % (rc, mis, samples[:4]), misrouted=sum(mis))
    if rc != 1 or mis != [2] * parts or \
            len(kinds(doc, "misrouted")) != parts or \
            not all("-plain-" in x for x in samples):
        report.error("misrouted fault: exit %d, %s" % (
            rc, json.dumps(doc)[:3000]))

    # -- a consumer without the plugin in a bucket group
    plain = s.Proc(env, "plain-consumer",
                   [sys.executable, PLAIN, "consume", env.bootstrap, topic,
                    "%s.normal" % group])
    rc, doc = until(s, env, props, "the plain consumer flagged",
                    lambda rc, d: kinds(d, "not_bucket_consumer"))
    nb = kinds(doc, "not_bucket_consumer")
    report.add("consumer without the plugin in %s.normal: exit %d, %s"
               % (group, rc, [(f["group"], f["member"]) for f in nb]))
    if rc != 1 or [f["group"] for f in nb] != ["%s.normal" % group]:
        report.error("plain consumer fault: exit %d, %s" % (
            rc, json.dumps(doc)[:3000]))
    plain.stop(60)

    # -- a consumer of two buckets beside the single-bucket groups
    multi = s.Consumer(env, "consumer-critical-bulk", topic, layout,
                       "critical, bulk", group)
    mname = "%s.critical+bulk" % group
    both = sorted(want["critical"] + want["bulk"])

    def multi_seen(rc, d):
        g = [g for g in d["groups"] if g["name"] == mname]
        return g and len(g[0]["members"]) == 1 and \
            sorted(g[0]["members"][0]["reads"]) == both
    rc, doc = until(s, env, props, "group %s reading %s" % (mname, both),
                    multi_seen)
    dbl = sorted({f["partition"] for f in kinds(doc, "double_read")})
    report.add("a consumer of critical and bulk (%s, listed): exit %d, "
               "double_read on %s" % (mname, rc, dbl))
    if rc != 1 or not set(both) <= set(dbl):
        report.error("two-bucket group: exit %d, double_read %s, want %s"
                     % (rc, dbl, both))
    s.stop_all([multi])

    # -- a contiguous growth 12 -> 24 moves partitions 6-11 to bulk
    env.admin("grow", topic=topic, partitions=24)
    moved = [p for p in range(parts)
             if env.owner(layout, parts, p) != env.owner(layout, 24, p)]
    rc, doc = until(s, env, props, "24 partitions",
                    lambda rc, d: d["partitions"] == 24)
    rc2, doc2, err = audit(s, env, props, "--grown-from", str(parts))
    stale = sorted((f["group"].rsplit(".", 1)[1], f["partition"])
                   for f in kinds(doc, "stale_commit"))
    want_stale = sorted((env.owner(layout, parts, p), p) for p in moved)
    det, det2 = doc["partition_details"], doc2["partition_details"]
    old = [det2[p]["keys"]["old_layout"] for p in moved]
    mis = [det[p]["keys"]["misrouted"] for p in moved]
    mis2 = [det2[p]["keys"]["misrouted"] for p in moved]
    report.add("grown to 24: moved %s; stale commits (bucket group, "
               "partition) %s; on the moved partitions misrouted %s, with "
               "--grown-from 12 misrouted %s and old_layout %s"
               % (moved, stale, mis, mis2, old))
    if not moved or not set(want_stale) <= set(stale) or \
            mis2 != [1] * len(moved) or \
            [a - b for a, b in zip(mis, mis2)] != old or min(old) < 1:
        report.error("growth: stale commits %s (want %s), misrouted %s / "
                     "%s, old_layout %s" % (stale, want_stale, mis, mis2,
                                            old))
    s.stop_all([c for c in consumers if c.alive()])
