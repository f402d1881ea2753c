"""broker_audit_kip848.py - the broker suite's "audit_kip848" scenario:
bp-audit on live bucket groups of the consumer protocol (KIP-848,
group.protocol=consumer) against Kafka 4.4. Three buckets (critical,
normal, bulk = 20/30/50 % of 12 partitions, stable), one C
(bp-broker-client) and one Python member (PyPI wheel) per bucket, both
configured by properties only; the broker's range assignor gives each
group the whole topic and each member pauses the partitions that are not
its bucket's. bp-audit reads the clients' properties file. Asserted:

  healthy     300 records read and committed: exit 0, no finding, every
              group of type "consumer", each member's assignment what the
              member itself reports holding, its reads the bucket's part
              of it and the rest "held, not read" (shown in the text
              report, counted per member, group and partition: each
              partition read once and held paused twice, by a member of
              each other bucket), lag 0 per bucket;
  on 2.0.2    the same bp-audit on Debian's librdkafka 2.0.2
              (LD_LIBRARY_PATH), which cannot describe these groups: exit
              3, one "unchecked" per group naming librdkafka 2.10, no
              fault (not the three no_consumer faults it reported before);
  no member   both bulk members stopped, 90 more records: exit 1, the
              single fault no_consumer for bulk, bulk's lag exactly 30,
              the others 0 once read; on 2.0.2 too (the listing says the
              group is Empty), beside the other two groups not checked.

Skipped (77) when bp-broker-client runs a librdkafka older than 2.12.
"""
import json
import os
import subprocess

import broker_kip848

PARTS = 12
LAYOUT = "stable"
KIP848 = ["group.protocol=consumer"]


def audit(env, props, *extra, lib=None):
    """bp-audit; returns (exit code, stdout, stderr). lib: run it on the
    librdkafka.so.1 of that directory instead of its own."""
    run_env = dict(os.environ)
    if lib:
        run_env["LD_LIBRARY_PATH"] = lib
    r = subprocess.run([env.audit_bin, "--config", props, "--timeout",
                        "10000"] + list(extra), capture_output=True,
                       text=True, timeout=180, env=run_env)
    return r.returncode, r.stdout, r.stderr.strip()


def audit_json(env, props, lib=None):
    rc, out, err = audit(env, props, "--json", lib=lib)
    return rc, (json.loads(out) if out.strip() else None), err


def until(s, env, props, what, cond, timeout=60, lib=None):
    """Audits until cond(rc, doc) holds; returns the last (rc, doc)."""
    last = []

    def once():
        rc, doc, err = audit_json(env, props, lib)
        last[:] = [rc, doc, err]
        return doc is not None and cond(rc, doc) and (rc, doc)
    return s.wait_until("bp-audit to show %s" % what, timeout, once,
                        interval=2, missing=lambda: "last exit %s, %s" % (
                            last[0], json.dumps(last[1])[:3000]
                            if last[1] else last[2]))


def kinds(doc, kind):
    return [f for f in doc["findings"] if f["kind"] == kind]


def lag_of(doc):
    return {b["name"]: b["lag"] for b in doc["buckets"]}


def debian_librdkafka():
    """The directory of Debian's librdkafka.so.1 (2.0.2), or None."""
    r = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True,
                       text=True)
    for line in r.stdout.splitlines():
        if line.strip().startswith("librdkafka.so.1 ") and "=>" in line:
            return os.path.dirname(line.split("=>")[1].strip())
    return None


def check_healthy(s, env, report, props, layout, members, group):
    rc, doc = until(s, env, props, "lag 0 in every bucket",
                    lambda rc, d: all(v == 0 for v in lag_of(d).values()))
    groups = {g["name"]: g for g in doc["groups"]}
    problems = []
    for b in s.BUCKETS:
        g = groups.get("%s.%s" % (group, b))
        live = sorted(sorted(c.current) for c in members
                      if c.bucket == b and c.alive())
        if not g or g["type"] != "consumer":
            problems.append("%s: group %s" % (b, g and g["type"]))
            continue
        assigned = sorted(sorted(m["assigned"]) for m in g["members"])
        if assigned != live:
            problems.append("%s: bp-audit's assignments %s, the members "
                            "hold %s" % (b, assigned, live))
        for m in g["members"]:
            want_reads = sorted(p for p in m["assigned"] if p in layout[b])
            want_held = sorted(p for p in m["assigned"]
                               if p not in layout[b])
            if sorted(m["reads"]) != want_reads or \
                    sorted(m["held_not_read"]) != want_held:
                problems.append("%s: member %s reads %s, held %s" % (
                    b, m["consumer_id"], m["reads"], m["held_not_read"]))
        if g["held_not_read"] != PARTS - len(layout[b]):
            problems.append("%s: %d held, not read" % (b,
                                                       g["held_not_read"]))
    readers = [p["readers"] for p in doc["partition_details"]]
    held = [p["held_not_read"] for p in doc["partition_details"]]
    rc_text, text, _ = audit(env, props)
    with open(os.path.join(env.workdir, "audit-healthy.txt"), "w") as f:
        f.write(text)
    held_lines = text.count("      held, not read  ")
    kip_lines = text.count(", consumer protocol (KIP-848), 2 members, ")
    report.add("healthy: exit %d (text %d), findings %d, group types %s, "
               "readers per partition %s, held paused per partition %s, "
               "'held, not read' lines %d, lag %s"
               % (rc, rc_text, len(doc["findings"]),
                  [g["type"] for g in doc["groups"]], readers, held,
                  held_lines, lag_of(doc)))
    for line in text.splitlines():
        if "consumer protocol (KIP-848)" in line:
            report.add("  " + line.strip())
    if rc != 0 or rc_text != 0 or doc["findings"] or problems or \
            readers != [1] * PARTS or held != [2] * PARTS or \
            held_lines != 6 or kip_lines != 3 or \
            "\nhealthy: 0 faults, 0 notes\n" not in text:
        report.error("KIP-848 groups not reported healthy: %s; exit %d, %s"
                     % (problems, rc, json.dumps(doc)[:3000]))


def check_old_library(s, env, report, props, lib, want_faults):
    """bp-audit on librdkafka 2.0.2: the groups it cannot describe are not
    checked, never a made-up fault; want_faults: the no_consumer buckets
    expected (a group the listing says is Empty)."""
    rc, doc, err = audit_json(env, props, lib)
    with open(os.path.join(env.workdir, "audit-2.0.2-%s.txt" % (
            "-".join(want_faults) or "healthy")), "w") as f:
        f.write(audit(env, props, lib=lib)[1])
    if doc is None:
        report.error("bp-audit on %s: exit %d, %s" % (lib, rc, err))
        return
    unchecked = [f["group"] for f in kinds(doc, "unchecked")]
    nc = [f["bucket"] for f in kinds(doc, "no_consumer")]
    named = all("librdkafka 2.0.2 cannot describe" in f["text"] and
                "2.10 or later" in f["text"]
                for f in kinds(doc, "unchecked"))
    report.add("bp-audit on librdkafka 2.0.2 (%s): exit %d, faults %d, "
               "unchecked %s, no_consumer %s"
               % (lib, rc, doc["faults"], unchecked, nc))
    want_rc = 1 if want_faults else 3
    if rc != want_rc or nc != want_faults or \
            doc["faults"] != len(want_faults) or not named or \
            len(unchecked) != 3 - len(want_faults):
        report.error("on librdkafka 2.0.2: exit %d (want %d), %s"
                     % (rc, want_rc, json.dumps(doc)[:3000]))


def run(s, env, report):
    v = broker_kip848.client_version(env)
    if not v or broker_kip848.version_tuple(v) < broker_kip848.MIN_VERSION:
        raise s.Skip("bp-broker-client runs librdkafka %s: "
                     "group.protocol=consumer needs 2.12 or later"
                     % (v or "(unknown)"))
    s.prepare_wheel_env(env, report)
    topic, group = s.unique("auditk"), s.unique("app")
    props = s.write_properties(env, os.path.join(env.workdir,
                                                 "app.properties"),
                               topic, ", ".join(s.BUCKETS), s.ALLOCATION,
                               LAYOUT, group)
    with open(props, "a") as f:
        f.write("group.protocol=consumer\n")
    env.admin("create", topic=topic, partitions=PARTS)
    layout = env.layout(LAYOUT, PARTS)
    old = debian_librdkafka()
    report.add("C consumers on librdkafka %s; topic %s, %s, %d partitions: "
               "%s; Debian's librdkafka in %s" % (v, topic, LAYOUT, PARTS,
                                                  layout, old))

    ledger = s.Ledger([], [])
    members = []
    for cls, name in ((s.Consumer, "c"), (s.WheelConsumer, "py")):
        for b in s.BUCKETS:
            c = cls(env, "%s-%s" % (name, b), topic, LAYOUT, b, group,
                    session_ms=0, extra=KIP848)
            members.append(c)
            ledger.add_consumer(c)
    s.wait_until("the bucket groups to settle", 120,
                 lambda: broker_kip848.settled(s, ledger, members, layout,
                                               PARTS))
    pr = s.Producer(env, "producer", topic, LAYOUT, count=300)
    ledger.producers.append(pr)
    pr.p.wait(120)
    if not ledger.wait_all_read(60):
        raise s.Failure("%d records unread" % len(ledger.pending))

    check_healthy(s, env, report, props, layout, members, group)
    if old:
        check_old_library(s, env, report, props, old, [])

    bulk = [c for c in members if c.bucket == "bulk"]
    s.stop_all(bulk)
    pr2 = s.Producer(env, "producer-2", topic, LAYOUT, start=300, count=90)
    ledger.producers.append(pr2)
    pr2.p.wait(120)
    rc, doc = until(s, env, props, "critical and normal caught up",
                    lambda rc, d: lag_of(d)["critical"] == 0 and
                    lag_of(d)["normal"] == 0 and
                    [f["bucket"] for f in kinds(d, "no_consumer")])
    nc = [f["bucket"] for f in kinds(doc, "no_consumer")]
    report.add("both bulk members stopped, 30 more records per bucket: "
               "exit %d, faults %d, no_consumer %s, lag %s"
               % (rc, doc["faults"], nc, lag_of(doc)),
               bulk_lag=lag_of(doc)["bulk"])
    if rc != 1 or nc != ["bulk"] or doc["faults"] != 1 or \
            lag_of(doc)["bulk"] != 30:
        report.error("no member in bulk: exit %d, %s"
                     % (rc, json.dumps(doc)[:3000]))
    if old:
        check_old_library(s, env, report, props, old, ["bulk"])

    rest = [c for c in members if c.alive()]
    s.stop_all(rest)
    ledger.update()
    foreign = sum(1 for rs in ledger.reads.values() for r in rs
                  if r[0].bucket != r[3])
    lost = len(ledger.pending) - 30   # bulk's 30 were never to be read
    report.add("records: %d delivered, %d unread (bulk's 30 expected), "
               "%d read by another bucket" % (len(ledger.delivered),
                                              len(ledger.pending), foreign),
               lost=lost, foreign=foreign)
    if lost or foreign:
        report.error("%d lost, %d read by another bucket" % (lost, foreign))
    for c in members:
        for p in c.problems():
            report.error(p)
