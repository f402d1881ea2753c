"""broker_secure_growth.py - broker_secure's parts "growth", "wheel" and
"oauth_cb" (see broker_secure.py): broker_suite's contiguous growth on the
secured cluster with the takeover offsets of every moved partition, and
the consumer whose OAUTHBEARER token comes from an oauth_cb falling back
to start-offset rule 3."""
import os
import re

bs = None   # the broker_secure module, set by bind()


def bind(module):
    global bs
    bs = module


# ---------------------------------------------------------------- growth --

def reads(workdir):
    """{consumer name: [(id, partition, offset, key bucket)]} from the
    .read files."""
    out = {}
    for f in sorted(os.listdir(workdir)):
        if f.startswith("consumer-") and f.endswith(".read"):
            with open(os.path.join(workdir, f)) as fh:
                out[f[:-5]] = [tuple(int(w) if i < 3 else w for i, w in
                                     enumerate(line.split()[:4]))
                               for line in fh if line.strip()]
    return out


def takeover_offsets(env, report, steps, mechs):
    """Per moved partition: the last offset its old bucket read, the first
    its new owner read, and who that was (with its mechanism)."""
    lines, exact = [], 0
    r = reads(env.workdir)
    for old, new in zip(steps, steps[1:]):
        for p in range(old):
            was, now = env.owner("contiguous", old, p), env.owner(
                "contiguous", new, p)
            if was == now:
                continue
            old_last = max((o for c, rs in r.items()
                            if c.startswith("consumer-%s-" % was)
                            for _i, q, o, _k in rs if q == p), default=-1)
            firsts = [(min(o for _i, q, o, _k in rs if q == p), c)
                      for c, rs in r.items()
                      if c.startswith("consumer-%s-" % now)
                      and any(q == p for _i, q, _o, _k in rs)]
            if not firsts:
                continue
            first, who = min(firsts)
            exact += first == old_last + 1
            early = old_last + 1 - first
            lines.append("p%d %s->%s: old read to %d, %s (%s) from %d%s"
                         % (p, was, now, old_last, who, mechs.get(who, "?"),
                            first, " (%d earlier)" % early if early else ""))
            if first > old_last + 1:
                report.error("p%d: the new owner started at %d, after the "
                             "old bucket's last read %d" % (p, first,
                                                             old_last))
    report.add("takeover offsets (%d of %d at the offset after the old "
               "bucket's last read; earlier ones: records the old bucket "
               "read but had not committed yet when the new owner looked, "
               "read twice): %s" % (exact, len(lines), "; ".join(lines)),
               takeover_exact=exact, takeover_partitions=len(lines))
    return lines


def no_sibling_errors(env, report):
    """No consumer logged a failed read of its sibling groups' offsets, nor
    of the consumer groups' list (with the ACLs of make_acls: Read on a
    group includes the Describe that listing it needs)."""
    bad, listing = [], []
    for f in sorted(os.listdir(env.workdir)):
        if f.startswith("consumer-") and f.endswith(".log"):
            with open(os.path.join(env.workdir, f), errors="replace") as fh:
                for line in fh:
                    line = "%s: %s" % (f, line.strip()[:300])
                    if bs.SIBLING_FAILED.search(line):
                        bad.append(line)
                    elif bs.GROUP_TYPE_FAILED.search(line):
                        listing.append(line)
    report.add("sibling offsets reader errors logged: %d; group list "
               "errors: %d" % (len(bad), len(listing)),
               sibling_errors=len(bad), group_list_errors=len(listing))
    for line in bad[:5]:
        report.error("sibling offsets read failed: " + line)
    for line in listing[:5]:
        report.error("listing the consumer groups failed: " + line)


def part_growth(env, report, consumer_cls, name):
    before = len(report.errors)
    saved = bs.s.Producer
    bs.s.Producer = bs.SecProducer
    try:
        bs.s.scenario_growth(env, report, "contiguous",
                             consumer_cls=consumer_cls, name=name)
    finally:
        bs.s.Producer = saved
    mech = env.wheel_mech if consumer_cls is bs.SecWheelConsumer else env.mech
    mechs = {c: mech for c in reads(env.workdir)}
    if env.oauth_bulk2:
        mechs["consumer-bulk-2"] = "OAUTHBEARER unsecured token"
    takeover_offsets(env, report, [6, 12, 24], mechs)
    no_sibling_errors(env, report)
    report.add("part %s: %s" % (name, "passed" if len(report.errors) == before
                                 else "FAILED"))


# -------------------------------------------------------------- oauth_cb --

ON_ASSIGN = re.compile(r"^(\d+) on_assign (\S+)")


def part_oauth_cb(env, report):
    topic, group = bs.s.unique("cb"), bs.group_of("oauthcb")
    env.admin("create", topic=topic, partitions=6)
    ledger = bs.s.Ledger([], [])
    cs = [bs.SecConsumer(env, "consumer-critical-1", topic, "contiguous",
                      "critical", group),
          bs.SecConsumer(env, "consumer-normal-1", topic, "contiguous",
                         "normal", group),
          bs.OAuthCbWheelConsumer(env, "consumer-bulk-1", topic, "contiguous",
                               "bulk", group)]
    for c in cs:
        ledger.add_consumer(c)
    pr = bs.SecProducer(env, "producer", topic, "contiguous", rate=300)
    t0, moved, commits = bs.grow_under_load(env, report, ledger, cs, pr,
                                            topic, group)
    bulk = cs[2]

    def starts():
        got = {}
        with open(bulk.log_path, errors="replace") as f:
            for line in f:
                m = ON_ASSIGN.match(line)
                if m and int(m.group(1)) >= t0:
                    for tp in m.group(2).split(","):
                        mm = re.match(r".*\[(\d+)\]@(-?\d+)$", tp)
                        if mm:
                            got[int(mm.group(1))] = int(mm.group(2))
        return got if all(p in got for p in moved) else None
    got = bs.s.wait_until("the oauth_cb consumer to be assigned the moved "
                       "partitions %s" % moved, 90, starts, 0.5)
    bs.s.settle(env, ledger, cs, "contiguous", 12, report)
    commits.wait(12, "every bucket group to commit on each of its 12 "
                 "partitions since the growth", since=commits.snapshot())
    bs.s.drain_and_stop(ledger, [pr], cs, report)
    with open(bulk.log_path, errors="replace") as f:
        said = [line.strip() for line in f
                if "sibling offsets not read" in line]
    again = sum(1 for rs in ledger.reads.values()
                if len(set(c.bucket for c, p, *_ in rs if p in moved)) > 1)
    report.add("oauth_cb consumer: moved partitions %s started at %s "
               "(-2: beginning, rule 3), %d records read again there; log: %s"
               % (moved, {p: got[p] for p in moved}, again,
                  said[0][:240] if said else "(none)"),
               oauth_cb_starts={str(p): got[p] for p in moved},
               oauth_cb_read_again=again)
    if not said:
        report.error("the oauth_cb consumer did not log why the sibling "
                     "offsets were not read")
    if any(got[p] != -2 for p in moved):
        report.error("moved partitions did not start at the beginning: %s"
                     % got)
    if ledger.pending:
        report.error("%d records lost" % len(ledger.pending))
    report.add("oauth_cb: delivered %d, lost %d" % (len(ledger.delivered),
                                                    len(ledger.pending)),
               oauth_cb_delivered=len(ledger.delivered),
               oauth_cb_lost=len(ledger.pending))
    for c in cs:
        for problem in c.problems():
            report.error(problem)
