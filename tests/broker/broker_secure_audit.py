"""broker_secure_audit.py - broker_secure's parts "audit", "debug" and
"secrets" (see broker_secure.py): bp-audit's verdict for each planted
denial, a consumer of two buckets and wrong passwords; every client with
debug=all; the scan for secrets in everything they wrote."""
import json
import os
import re
import subprocess

bs = None   # the broker_secure module, set by bind()


def bind(module):
    global bs
    bs = module


# ----------------------------------------------------------------- audit --

def audit_file(env, name, user, mech, topic, group, password=None,
               client_cert=False):
    """The clients' properties file for bp-audit, as user with mech."""
    path = os.path.join(env.workdir, name + ".properties")
    with open(path, "w") as f:
        f.write("bootstrap.servers=%s\n" % env.bootstrap)
        for k, v in env.sec.props(user, mech, password, client_cert).items():
            f.write("%s=%s\n" % (k, v))
        f.write("bucket.priority.topic=%s\nbucket.priority.buckets=%s\n"
                "bucket.priority.allocation=%s\ngroup.id=%s\n"
                % (topic, ", ".join(bs.BUCKETS), bs.s.ALLOCATION, group))
    return path


def run_audit(env, name, props, *extra, lib_dir=None):
    """bp-audit --config props --json: (exit, document or None, stderr);
    its stdout and stderr kept as <name>.out and <name>.err."""
    e = dict(os.environ)
    if lib_dir:
        e["LD_LIBRARY_PATH"] = lib_dir
    r = subprocess.run([env.audit_bin, "--config", props, "--timeout",
                        "5000"] + list(extra), capture_output=True, text=True,
                       timeout=180, env=e)
    for suffix, text in ((".out", r.stdout), (".err", r.stderr)):
        with open(os.path.join(env.workdir, name + suffix), "w") as f:
            f.write(text)
    doc = None
    if "--json" in extra and r.stdout.strip():
        doc = json.loads(r.stdout)
    return r.returncode, doc, r.stderr.strip()


def newer_librdkafka():
    """The lib directory of a librdkafka >= 2.6.1 for bp-audit through
    LD_LIBRARY_PATH (BP_SECURE_NEWER_LIBRDKAFKA, else the matrix build)."""
    d = os.environ.get("BP_SECURE_NEWER_LIBRDKAFKA") or os.path.expanduser(
        "~/.cache/bucket-priority/librdkafka-2.15.1-ssl/lib")
    return d if os.path.exists(os.path.join(d, "librdkafka.so.1")) else None


def auth_fails(env, report, ledger, c, what):
    """c runs with a wrong password: logs the authentication error, exits
    cleanly on SIGTERM."""
    bs.s.wait_until("%s to log the authentication error" % what, 60,
                 lambda: c.logged_since(re.compile(r"(\d+).*(%s)"
                                                   % bs.AUTH_FAILED.pattern),
                                        0),
                 0.5)
    with open(c.log_path, errors="replace") as f:
        line = next(line for line in f if bs.AUTH_FAILED.search(line))
    rc = c.stop(60)
    report.add("%s, wrong password: exit %d after SIGTERM, logged \"%s\""
               % (what, rc, line.strip()[:200]),
               **{"wrong_password_%s_exit" % c.name: rc})
    if rc != 0:
        report.error("%s with a wrong password exited %d (log %s)"
                     % (what, rc, c.log_path))


def part_audit(env, report):
    topic, group, parts = bs.s.unique("audit"), bs.group_of("audit"), 12
    env.admin("create", topic=topic, partitions=parts)
    ledger = bs.s.Ledger([], [])
    cs = [bs.SecConsumer(env, "consumer-%s-1" % b, topic, "contiguous", b,
                         group)
          for b in bs.BUCKETS]
    for c in cs:
        ledger.add_consumer(c)
    bs.s.settle(env, ledger, cs, "contiguous", parts, report)
    pr = bs.SecProducer(env, "producer", topic, "contiguous", count=300)
    ledger.producers.append(pr)
    pr.p.wait(120)
    if not ledger.wait_all_read(90):
        raise bs.s.Failure("%d records unread" % len(ledger.pending))
    full = audit_file(env, "audit", "audit", env.mech, topic, group)
    codes = {}

    def healthy():
        rc, doc, err = run_audit(env, "audit-healthy", full, "--json")
        return (rc, doc) if rc == 0 and doc and not doc["findings"] and \
            all(b["lag"] == 0 for b in doc["buckets"]) else None
    rc, doc = bs.s.wait_until("bp-audit (user audit) to find the deployment "
                           "healthy", 90, healthy, 2)
    codes["granted"] = rc
    report.add("bp-audit with the audit role's ACLs: exit %d, verdict %s, "
               "%d findings, lag %s" % (rc, doc["verdict"],
                                        len(doc["findings"]),
                                        {b["name"]: b["lag"]
                                         for b in doc["buckets"]}))
    # no Describe on the groups
    rc, doc, err = run_audit(env, "audit-nogroups", audit_file(
        env, "audit-nogroups", "audit-nogroups", env.mech, topic, group),
        "--json")
    codes["no Describe on groups"] = rc
    unchecked = [f["text"] for f in doc["findings"]
                 if f["kind"] == "unchecked"] if doc else []
    blind = [t for t in unchecked if "authorization failed" not in t]
    report.add("bp-audit without Describe on the groups: exit %d, verdict "
               "%s, %d unchecked, e.g. \"%s\"; naming another cause: %s"
               % (rc, doc and doc["verdict"], len(unchecked),
                  unchecked[-1] if unchecked else "", blind))
    if rc != 3 or not doc or doc["healthy"] or not unchecked or blind:
        report.error("no Describe on the groups: exit %d, unchecked %s"
                     % (rc, unchecked))
    # no Describe on the topic
    rc, doc, err = run_audit(env, "audit-notopic", audit_file(
        env, "audit-notopic", "audit-notopic", env.mech, topic, group),
        "--json")
    codes["no Describe on topic"] = rc
    report.add("bp-audit without Describe on the topic: exit %d, \"%s\""
               % (rc, err))
    if rc != 3 or "Topic authorization failed" not in err or doc:
        report.error("no Describe on the topic: exit %d, %s" % (rc, err))
    # a wrong password
    rc, doc, err = run_audit(env, "audit-wrong", audit_file(
        env, "audit-wrong", "audit", env.mech, topic, group,
        password="wrong-" + bs.RUN), "--json")
    codes["wrong password"] = rc
    report.add("bp-audit with a wrong password: exit %d, \"%s\"" % (rc, err))
    if rc != 3 or "authentication failed" not in err or \
            not bs.AUTH_FAILED.search(err):
        report.error("wrong password: exit %d, %s" % (rc, err))
    # SCRAM on a librdkafka older than 2.6.1
    if not bs.scram_works(env.c_version):
        scram = audit_file(env, "audit-scram", "audit", "SCRAM-SHA-512",
                           topic, group)
        rc, doc, err = run_audit(env, "audit-scram-old", scram, "--json")
        codes["SCRAM on librdkafka %s" % env.c_version] = rc
        report.add("bp-audit with SCRAM-SHA-512 on librdkafka %s: exit %d, "
                   "\"%s\"" % (env.c_version, rc, err[-300:]))
        if rc != 3 or "#4895" not in err:
            report.error("SCRAM on an old librdkafka: exit %d, %s" % (rc, err))
        lib = newer_librdkafka()
        if not lib:
            report.error("no newer librdkafka for LD_LIBRARY_PATH (set "
                         "BP_SECURE_NEWER_LIBRDKAFKA or run tests/matrix/"
                         "build-librdkafka.sh)")
        else:
            rc, doc, err = run_audit(env, "audit-scram-newer", scram,
                                     "--json", lib_dir=lib)
            codes["SCRAM with LD_LIBRARY_PATH=%s" % lib] = rc
            report.add("the same with LD_LIBRARY_PATH=%s: exit %d, verdict %s"
                       % (lib, rc, doc and doc["verdict"]))
            if rc != 0:
                report.error("bp-audit on the newer librdkafka: exit %d, %s"
                             % (rc, err or doc))
    report.add("bp-audit exit codes: %s" % codes, audit_exit_codes=codes)
    if codes.get("granted") != 0:
        report.error("bp-audit with the audit role's ACLs: exit %s"
                     % codes.get("granted"))
    # the multi-bucket consumer
    multi = bs.s.Consumer(env, "consumer-multi-1", topic, "contiguous",
                       "critical, bulk", group,
                       extra=bs.x(env.sec.props("multi", env.mech)))
    want = set(i for i in ledger.delivered if bs.BUCKETS[i % 3] != "normal")
    got = {}

    def multi_read():
        for line in multi.tail.lines():
            w = line.split()
            got.setdefault(int(w[0]), w[3])
        return want <= set(got)
    bs.s.wait_until("the consumer of \"critical, bulk\" (user multi) to read "
                 "their %d records" % len(want), 60, multi_read, 0.5,
                 missing=lambda: len(want - set(got)))
    bs.s.quiet_window(1.0, "a normal record, if the multi-bucket consumer "
                      "read one, shows up")
    multi_read()
    other = sum(1 for kb in got.values() if kb == "normal")
    report.add("consumer of \"critical, bulk\" (user multi): read %d of the "
               "%d records of its buckets, %d of normal"
               % (len(want & set(got)), len(want), other))
    if other:
        report.error("the multi-bucket consumer read %d normal records"
                     % other)
    # bp-audit finds its group by listing (no Describe on the cluster)
    rc, doc, err = run_audit(env, "audit-multi", full, "--json")
    listed = [g["name"] for g in doc["groups"]] if doc else []
    report.add("bp-audit beside it: exit %d, groups %s" % (rc, listed))
    if group + ".critical+bulk" not in listed:
        report.error("bp-audit did not list the group of \"critical, bulk\": "
                     "%s %s" % (listed, err))
    multi.stop()
    # wrong passwords in consumers
    wrong = bs.x(env.sec.props("critical", env.mech,
                               password="wrong-" + bs.RUN))
    auth_fails(env, report, ledger, bs.s.Consumer(
        env, "wrong-c", topic, "contiguous", "critical", group + "-x",
        extra=wrong), "C consumer (librdkafka %s)" % env.c_version)
    wrong = bs.x(env.sec.props("critical", env.wheel_mech,
                            password="wrong-" + bs.RUN))
    auth_fails(env, report, ledger, bs.s.WheelConsumer(
        env, "wrong-wheel", topic, "contiguous", "critical", group + "-x",
        extra=wrong), "wheel consumer (librdkafka %s)" % env.wheel_lib)
    bs.s.stop_all(cs)


# ----------------------------------------------------------------- debug --

def part_debug(env, report):
    """debug=all everywhere, for the secret scan."""
    topic, group = bs.s.unique("debug"), bs.group_of("debug")
    env.admin("create", topic=topic, partitions=6)
    dbg = ["debug=all"]
    ledger = bs.s.Ledger([], [])
    cs = [bs.s.Consumer(env, "consumer-critical-1", topic, "contiguous",
                     "critical", group, extra=dbg + bs.x(env.sec.props(
                         "critical", env.mech))),
          bs.s.Consumer(env, "consumer-normal-1", topic, "contiguous",
                        "normal", group,
                        extra=dbg + bs.x(env.sec.props("normal", env.mech))),
          bs.s.Consumer(env, "consumer-bulk-1", topic, "contiguous", "bulk",
                     group, extra=dbg + bs.x(env.sec.props(
                         "bulk", env.mech, client_cert=True))),
          bs.s.Consumer(env, "consumer-bulk-2", topic, "contiguous", "bulk",
                     group, extra=dbg + bs.x(env.sec.props(
                         "bulk", "OAUTHBEARER", client_cert=True))),
          bs.OAuthCbWheelConsumer(env, "consumer-bulk-3", topic, "contiguous",
                               "bulk", group, extra=dbg)]
    for c in cs:
        ledger.add_consumer(c)
    pr = bs.s.Producer(env, "producer", topic, "contiguous", rate=100,
                       extra=dbg + bs.x(env.sec.props("producer", env.mech,
                                                      client_cert=True)))
    t0, moved, _commits = bs.grow_under_load(env, report, ledger, cs, pr,
                                             topic, group)
    bs.s.wait_until("the bulk consumers to read the moved partitions", 90,
                 lambda: ledger.update() or all(
                     ledger.first_read(p, "bulk", t0) for p in moved), 0.5)
    bs.s.drain_and_stop(ledger, [pr], cs, report)
    props = audit_file(env, "audit-debug", "audit", env.mech, topic, group,
                       client_cert=True)
    for name, extra in (("audit-debug-text", ()), ("audit-debug-json",
                                                   ("--json",))):
        rc, _doc, _err = run_audit(env, name, props, "-X", "debug=all",
                                   *extra)
        report.add("bp-audit debug=all (%s): exit %d (the consumers have "
                   "stopped: no_consumer)" % (name, rc))
    wrong = audit_file(env, "audit-debug-wrong", "audit", env.mech, topic,
                       group, password="wrong-" + bs.RUN)
    rc, _doc, _err = run_audit(env, "audit-debug-wrong", wrong, "-X",
                               "debug=all")
    report.add("bp-audit debug=all with a wrong password: exit %d" % rc)
    report.add("debug=all: delivered %d, lost %d" % (len(ledger.delivered),
                                                     len(ledger.pending)))
    if ledger.pending:
        report.error("%d records lost" % len(ledger.pending))


# --------------------------------------------------------------- secrets --

def part_secrets(env, report):
    """No secret in anything the parts wrote: logs (librdkafka's and the
    plugin's, debug=all included), error messages, bp-audit's text and
    JSON. The properties files written for bp-audit hold passwords by
    design and are left out."""
    secrets = env.sec.secrets()
    files = lines = 0
    hits = []
    # the scan's own check: a file holding one secret must be caught
    planted = os.path.join(env.workdir, "planted-secret.txt")
    with open(planted, "w") as f:
        f.write("a line\nsasl.password=%s\n" % secrets[0][1])
    for root, dirs, names in os.walk(env.base_workdir):
        # a broker of our own: Kafka's files, not the clients' output
        dirs[:] = [d for d in dirs if not d.startswith("cluster")]
        for n in names:
            if n.endswith(".properties") or n in ("report.txt",
                                                  "figures.json"):
                continue
            files += 1
            with open(os.path.join(root, n), errors="replace") as f:
                for i, line in enumerate(f, 1):
                    lines += 1
                    for what, value in secrets:
                        if value in line:
                            hits.append("%s:%d: %s" % (os.path.join(root, n),
                                                       i, what))
    caught = [h for h in hits if h.startswith(planted + ":")]
    hits = [h for h in hits if not h.startswith(planted + ":")]
    report.add("secret scan: %d lines in %d files, %d secrets looked for, "
               "%d found (and the planted one %s)"
               % (lines, files, len(secrets), len(hits),
                  "caught" if caught == ["%s:2: %s" % (planted, secrets[0][0])]
                  else "MISSED"),
               secret_scan_lines=lines, secret_scan_files=files,
               secret_hits=len(hits))
    if caught != ["%s:2: %s" % (planted, secrets[0][0])]:
        report.error("the scan did not find the planted secret: %s" % caught)
    if lines < 10000:
        report.error("only %d lines scanned: debug=all wrote too little"
                     % lines)
    for h in hits[:10]:
        report.error("secret printed: " + h)
