#!/usr/bin/env python3
"""broker_secure.py - the broker suite on a secured Kafka 4.4 (ctest
broker_secure): SASL_SSL, users per role, StandardAuthorizer with
least-privilege ACLs (kafka.sh start --secure, kafka-secure.inc.sh).

One secured broker serves every part: the one named by
BP_SECURE_BROKER_DIR (tests/run-all.sh starts it once for both librdkafka
versions), else one started here in WORKDIR and stopped at the end (when
BP_BROKER_BOOTSTRAP is set); with neither, exit 77 (skipped). Names are
unique per run; the ACLs are made first with Kafka's AclCommand (kafka.sh
acl), for these roles:

  producer        Write on the topics
  <bucket>        (users critical, normal, bulk) Read on the topics, Read on
                  its bucket group <group.id>.<bucket>, Describe on the
                  application's groups (prefix: the sibling bucket groups,
                  what the sibling-offsets reader reads, docs/consumer.md
                  rule 2)
  multi           Read on the topics and on <group.id>.critical+bulk
  audit           Read on the topics, Describe on the groups
  audit-nogroups  Read on the topics only         (planted denial)
  audit-notopic   Describe on the groups only     (planted denial)

The C clients (bp-broker-client, bp-audit) authenticate with SCRAM-SHA-512
when their librdkafka is 2.6.1 or newer, else with PLAIN (librdkafka
#4895); the PyPI wheel (its own librdkafka) with SCRAM-SHA-512.

Parts, in order:
  mechanisms  which mechanisms authenticate, per librdkafka (C, wheel):
              SCRAM-SHA-512 and -256 must fail with the authentication
              error exactly
              when the C library is older than 2.6.1, PLAIN and OAUTHBEARER
              (librdkafka's built-in unsecured token) must work
  growth      broker_growth_contiguous with C clients: producers route, two
              consumers per bucket read only their bucket, 6 -> 12 -> 24
              under load, 0 lost, the sibling takeover exact; consumer-
              bulk-2 authenticates with OAUTHBEARER's built-in unsecured
              token (sasl.oauthbearer.config, no callback) and takes over
              its moved partitions as exactly; no consumer logs a failed
              sibling offsets read
  wheel       the same growth with every consumer on the PyPI wheel,
              configured by a config dict
  oauth_cb    a wheel consumer of bulk whose token comes from its oauth_cb:
              after a growth it logs why the sibling offsets are not read
              and starts the moved partitions at the beginning (rule 3);
              nothing lost
  audit       bp-audit on a healthy deployment (exit 0), without Describe
              on the groups (exit 3, every unchecked line naming the
              group authorization failure), without Describe on the topic
              (exit 3, Topic authorization failed), with a wrong password
              (exit 3, the authentication error); on a C library older than
              2.6.1 with SCRAM: exit 3 naming the version problem, then the
              same run on a newer librdkafka through LD_LIBRARY_PATH (exit
              0); a consumer of "critical, bulk" reading exactly those
              buckets' records; a C and a wheel consumer with a wrong
              password logging the authentication error and exiting 0
  debug       debug=all on every client (client certificate with a key
              password, OAUTHBEARER with a callback, a growth so that the
              sibling reader runs), bp-audit text and JSON with debug=all
  secrets     no password, key or store password, or token in any file
              the parts wrote (counts the lines scanned)
"""
import argparse
import ctypes
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import broker_suite as s  # noqa: E402

SKIP = 77
BUCKETS = s.BUCKETS
RUN = "bps%d" % (int(time.time()) % 1000000)
GROUP_PARTS = ["growth", "wheel", "oauthcb", "audit", "debug"]
SIBLING_FAILED = re.compile(r"sibling offsets reader|cannot read the offsets "
                            r"of sibling group|sibling offsets not read")
AUTH_FAILED = re.compile(r"Authentication failed|SASL authentication error")
# base64url of the unsecured-token header {"alg":"none"} as librdkafka and
# as Python's json.dumps write it: the start of every such token
TOKEN_HEADERS = ["eyJhbGciOiJub25lIn0", "eyJhbGciOiAibm9uZSJ9"]


def log(msg):
    s.log(msg)


def unique(part):
    """broker_suite's unique() for part: names known in advance, so that
    the ACLs can be made before the scenarios run."""
    return lambda name: "%s-%s-%s" % (RUN, part, name.replace("_", "-"))


def group_of(part):
    return unique(part)("app")


# --------------------------------------------------------------- cluster --

class Secure:
    """The secured cluster: DIR/secure/secure.json (kafka-secure.inc.sh)."""

    def __init__(self, d):
        self.dir = d
        with open(os.path.join(d, "secure", "secure.json")) as f:
            self.j = json.load(f)
        self.bootstrap = self.j["bootstrap"]

    def props(self, user, mech, password=None, client_cert=False):
        p = {"security.protocol": "SASL_SSL", "ssl.ca.location": self.j["ca"]}
        if mech == "OAUTHBEARER":
            p.update({"sasl.mechanisms": "OAUTHBEARER",
                      "enable.sasl.oauthbearer.unsecure.jwt": "true",
                      "sasl.oauthbearer.config": "principal=" + user})
        else:
            p.update({"sasl.mechanisms": mech, "sasl.username": user,
                      "sasl.password": self.j["users"][user]
                      if password is None else password})
        if client_cert:
            p.update({"ssl.certificate.location": self.j["client_cert"],
                      "ssl.key.location": self.j["client_key"],
                      "ssl.key.password": self.j["client_key_password"]})
        return p

    def secrets(self):
        """(what, value) of every secret of the cluster."""
        out = [("password of %s" % u, p) for u, p in self.j["users"].items()]
        out += [(k, self.j[k]) for k in ("client_key_password",
                                         "keystore_password",
                                         "truststore_password")]
        out += [("unsecured token header", h) for h in TOKEN_HEADERS]
        out += [("the wrong password tried", "wrong-" + RUN)]
        return out


def x(props):
    return ["%s=%s" % kv for kv in props.items()]


def librdkafka_of(binary):
    """(version, path) of the librdkafka.so.1 the binary loads."""
    out = subprocess.run(["ldd", binary], capture_output=True, text=True,
                         check=True).stdout
    path = re.search(r"librdkafka\.so\.1 => (\S+)", out).group(1)
    lib = ctypes.CDLL(path)
    lib.rd_kafka_version_str.restype = ctypes.c_char_p
    return lib.rd_kafka_version_str().decode(), path


def version_tuple(v):
    return tuple(int(n) for n in re.findall(r"\d+", v)[:3])


def scram_works(version):
    """librdkafka #4895: SCRAM against Kafka 4.x fails before 2.6.1."""
    return version_tuple(version) >= (2, 6, 1)


class SecureEnv(s.Env):
    def __init__(self, a, sec, c_version):
        super().__init__(a, sec.bootstrap)
        self.sec = sec
        self.c_version = c_version
        self.mech = "SCRAM-SHA-512" if scram_works(c_version) else "PLAIN"
        self.wheel_mech = "SCRAM-SHA-512"
        self.oauth_bulk2 = False
        self.base_workdir = a.workdir

    def part(self, name):
        self.workdir = os.path.join(self.base_workdir, name)
        os.makedirs(self.workdir, exist_ok=True)
        s.unique = unique(name)

    def admin(self, what, bootstrap=None, **kw):
        args = [self.client, "admin", what, "--bootstrap",
                bootstrap or self.bootstrap]
        for k, v in kw.items():
            args += ["--" + k, str(v)]
        for v in x(self.sec.props("admin", self.mech)):
            args += ["-X", v]
        r = subprocess.run(args, capture_output=True, text=True, timeout=120)
        if r.returncode:
            raise s.Failure("admin %s failed: %s" % (what, r.stderr.strip()))
        return r.stdout.strip()

    def acl(self, *args):
        return self.kafka("acl", "--dir", self.sec.dir, *args)


class SecProducer(s.Producer):
    """bp-broker-client produce as user producer."""

    def __init__(self, env, name, topic, layout, extra=(), **kw):
        super().__init__(env, name, topic, layout, extra=list(extra) + x(
            env.sec.props("producer", env.mech)), **kw)


class SecConsumer(s.Consumer):
    """bp-broker-client consume as the bucket's user; consumer-bulk-2 with
    OAUTHBEARER's built-in unsecured token when env.oauth_bulk2."""

    def __init__(self, env, name, topic, layout, bucket, group, extra=(),
                 **kw):
        self.mech = "OAUTHBEARER" if (env.oauth_bulk2 and
                                      name == "consumer-bulk-2") else env.mech
        super().__init__(env, name, topic, layout, bucket, group,
                         extra=list(extra) + x(env.sec.props(bucket,
                                                             self.mech)),
                         **kw)


class SecWheelConsumer(s.WheelConsumer):
    """bp_wheel_consumer.py (PyPI wheel) as the bucket's user, its config
    dict given the security settings."""

    def __init__(self, env, name, topic, layout, bucket, group, extra=(),
                 **kw):
        self.mech = env.wheel_mech
        super().__init__(env, name, topic, layout, bucket, group,
                         extra=list(extra) + x(env.sec.props(bucket,
                                                             self.mech)),
                         **kw)


# ------------------------------------------------------------------ ACLs --

def make_acls(env, report):
    """Every role's ACLs (module docstring), with Kafka's AclCommand, four
    at a time."""
    topics = ["--topic", RUN + "-", "--resource-pattern-type", "prefixed"]
    calls = [["--allow-principal", "User:producer", "--operation", "Write"]
             + topics,
             sum((["--allow-principal", "User:" + u] for u in
                  BUCKETS + ["multi", "audit", "audit-nogroups"]), [])
             + ["--operation", "Read"] + topics,
             sum((["--allow-principal", "User:" + u] for u in
                  BUCKETS + ["audit", "audit-notopic"]), [])
             + ["--operation", "Describe", "--group", RUN + "-",
                "--resource-pattern-type", "prefixed"],
             ["--allow-principal", "User:multi", "--operation", "Read",
              "--group", group_of("audit") + ".critical+bulk"]]
    for b in BUCKETS:
        own = sum((["--group", "%s.%s" % (group_of(p), b)]
                   for p in GROUP_PARTS), [])
        calls.append(["--allow-principal", "User:" + b, "--operation",
                      "Read"] + own)
    t0 = time.time()
    for i in range(0, len(calls), 4):
        procs = [subprocess.Popen(
            [env.kafka_sh, "acl", "--dir", env.sec.dir, "--add", "--force"]
            + c, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            for c in calls[i:i + 4]]
        for p, c in zip(procs, calls[i:i + 4]):
            _out, err = p.communicate(timeout=120)
            if p.returncode:
                raise s.Failure("AclCommand %s failed: %s"
                                % (" ".join(c), err[-2000:]))
    listing = env.acl("--list")
    n = listing.count("permissionType=ALLOW")
    report.add("ACLs: %d calls of Kafka's AclCommand in %.1f s, %d ACLs on "
               "the cluster" % (len(calls), time.time() - t0, n),
               acl_calls=len(calls), acls=n)


# ------------------------------------------------------------ mechanisms --

WHEEL_PROBE = r"""
import sys
from confluent_kafka.admin import AdminClient
conf = dict(kv.split("=", 1) for kv in sys.argv[1:])
errors = []
conf["error_cb"] = lambda e: errors.append(str(e))
admin = AdminClient(conf)
try:
    admin.list_topics(timeout=8)
    print("ok")
except Exception as e:
    admin.poll(1)    # serves error_cb: the authentication error
    print("failed: %s" % "; ".join(errors[:1] or [str(e)]))
"""


def probe_c(env, mech, user="admin", password=None, lib_dir=None):
    """(exit, stderr) of bp-audit as user with mech on a topic that does not
    exist: 2 means it authenticated (the topic is missing), 3 that nothing
    could be read."""
    args = [env.audit_bin, "--bootstrap", env.bootstrap, "--topic",
            RUN + "-none", "--buckets", "a", "--allocation", "100",
            "--timeout", "6000"]
    for v in x(env.sec.props(user, mech, password)):
        args += ["-X", v]
    e = dict(os.environ)
    if lib_dir:
        e["LD_LIBRARY_PATH"] = lib_dir
    r = subprocess.run(args, capture_output=True, text=True, timeout=60,
                       env=e)
    return r.returncode, r.stderr.strip()


def prepare_wheel(env, report):
    r = subprocess.run([env.prepare_wheel], capture_output=True, text=True,
                       timeout=480)
    if r.returncode or not r.stdout.strip():
        raise s.Failure("prepare-wheel.sh failed (exit %d):\n%s"
                        % (r.returncode, r.stderr[-3000:]))
    env.wheel_python = r.stdout.strip().splitlines()[-1]
    v = subprocess.run([env.wheel_python, "-c", "import confluent_kafka as c;"
                        "v = c.version(); v = v[0] if isinstance(v, tuple) "
                        "else v; print(v, c.libversion()[0])"],
                       capture_output=True, text=True, timeout=60)
    env.wheel_version, env.wheel_lib = v.stdout.split()
    report.add("PyPI wheel confluent-kafka %s with librdkafka %s"
               % (env.wheel_version, env.wheel_lib),
               wheel_librdkafka=env.wheel_lib)


def python_probe(env, python, mech):
    """ok, or failed: <first error>, for a confluent_kafka client of python
    listing the topics as admin with mech."""
    r = subprocess.run([python, "-c", WHEEL_PROBE,
                        "bootstrap.servers=" + env.bootstrap] +
                       x(env.sec.props("admin", mech)),
                       capture_output=True, text=True, timeout=60)
    return (r.stdout.strip() or r.stderr.strip())[:300]


def python_librdkafka(python):
    r = subprocess.run([python, "-c", "import confluent_kafka as c;"
                        "print(c.libversion()[0])"], capture_output=True,
                       text=True, timeout=60)
    return r.stdout.strip() if r.returncode == 0 else None


def part_mechanisms(env, report):
    """Each mechanism with the C clients' librdkafka (through bp-audit), the
    PyPI wheel's and Debian's python3-confluent-kafka's (when installed)."""
    clients = [("C", env.c_version, lambda m: (
        lambda rc_err: "ok" if rc_err[0] == 2 and "Unknown topic" in
        rc_err[1] else "failed: " + rc_err[1][:300])(probe_c(env, m))),
        ("PyPI wheel", env.wheel_lib,
         lambda m: python_probe(env, env.wheel_python, m))]
    debian = python_librdkafka("/usr/bin/python3")
    if debian:
        clients.append(("Debian python3-confluent-kafka", debian,
                        lambda m: python_probe(env, "/usr/bin/python3", m)))
    table = {}
    for who, version, probe in clients:
        for mech in ("SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN",
                     "OAUTHBEARER"):
            got = probe(mech)
            table.setdefault("%s (librdkafka %s)" % (who, version), {})[
                mech] = got == "ok"
            report.add("authenticates to Kafka 4.4: %s, librdkafka %s, %s: %s"
                       % (who, version, mech, got))
            want = scram_works(version) if "SCRAM" in mech else True
            if (got == "ok") != want:
                report.error("%s on librdkafka %s with %s: %s, expected %s"
                             % (who, version, mech, got,
                                "ok" if want else "a failure"))
            if got != "ok" and not AUTH_FAILED.search(got):
                report.error("%s with %s failed without the authentication "
                             "error: %s" % (who, mech, got))
    report.figures["mechanisms"] = table


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
    bad = []
    for f in sorted(os.listdir(env.workdir)):
        if f.startswith("consumer-") and f.endswith(".log"):
            with open(os.path.join(env.workdir, f), errors="replace") as fh:
                bad += ["%s: %s" % (f, line.strip()[:300]) for line in fh
                        if SIBLING_FAILED.search(line)]
    report.add("sibling offsets reader errors logged: %d" % len(bad),
               sibling_errors=len(bad))
    for line in bad[:5]:
        report.error("sibling offsets read failed: " + line)


def part_growth(env, report, consumer_cls, name):
    before = len(report.errors)
    saved = s.Producer
    s.Producer = SecProducer
    try:
        s.scenario_growth(env, report, "contiguous", consumer_cls=consumer_cls,
                          name=name)
    finally:
        s.Producer = saved
    mech = env.wheel_mech if consumer_cls is SecWheelConsumer else env.mech
    mechs = {c: mech for c in reads(env.workdir)}
    if env.oauth_bulk2:
        mechs["consumer-bulk-2"] = "OAUTHBEARER unsecured token"
    takeover_offsets(env, report, [6, 12, 24], mechs)
    no_sibling_errors(env, report)
    report.add("part %s: %s" % (name, "passed" if len(report.errors) == before
                                 else "FAILED"))


# -------------------------------------------------------------- oauth_cb --

class OAuthCbWheelConsumer(s.WheelConsumer):
    """A wheel consumer whose OAUTHBEARER token comes from its oauth_cb."""

    def __init__(self, env, name, topic, layout, bucket, group, extra=(),
                 **kw):
        self.mech = "OAUTHBEARER oauth_cb"
        super().__init__(env, name, topic, layout, bucket, group, extra=list(
            extra) + ["security.protocol=SASL_SSL",
                      "sasl.mechanisms=OAUTHBEARER",
                      "ssl.ca.location=" + env.sec.j["ca"]], **kw)

    @staticmethod
    def program(env):
        return s.WheelConsumer.program(env) + ["--oauth-cb", "bulk"]


ON_ASSIGN = re.compile(r"^(\d+) on_assign (\S+)")


def part_oauth_cb(env, report):
    topic, group = s.unique("cb"), group_of("oauthcb")
    env.admin("create", topic=topic, partitions=6)
    ledger = s.Ledger([], [])
    cs = [SecConsumer(env, "consumer-critical-1", topic, "contiguous",
                      "critical", group),
          SecConsumer(env, "consumer-normal-1", topic, "contiguous", "normal",
                      group),
          OAuthCbWheelConsumer(env, "consumer-bulk-1", topic, "contiguous",
                               "bulk", group)]
    for c in cs:
        ledger.add_consumer(c)
    s.settle(env, ledger, cs, "contiguous", 6, report)
    pr = SecProducer(env, "producer", topic, "contiguous", rate=300)
    ledger.producers.append(pr)
    commits = s.GroupCommits(env, topic, group, "contiguous")
    commits.wait(6, "every bucket group to commit on each of its 6 "
                 "partitions")
    t0 = int(env.admin("grow", topic=topic, partitions=12))
    moved = [p for p in range(6) if env.owner("contiguous", 6, p) !=
             env.owner("contiguous", 12, p)]
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
    got = s.wait_until("the oauth_cb consumer to be assigned the moved "
                       "partitions %s" % moved, 90, starts, 0.5)
    s.settle(env, ledger, cs, "contiguous", 12, report)
    commits.wait(12, "every bucket group to commit on each of its 12 "
                 "partitions since the growth", since=commits.snapshot())
    s.drain_and_stop(ledger, [pr], cs, report)
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
                % (topic, ", ".join(BUCKETS), s.ALLOCATION, group))
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
    s.wait_until("%s to log the authentication error" % what, 60,
                 lambda: c.logged_since(re.compile(r"(\d+).*(%s)"
                                                   % AUTH_FAILED.pattern), 0),
                 0.5)
    with open(c.log_path, errors="replace") as f:
        line = next(line for line in f if AUTH_FAILED.search(line))
    rc = c.stop(60)
    report.add("%s, wrong password: exit %d after SIGTERM, logged \"%s\""
               % (what, rc, line.strip()[:200]),
               **{"wrong_password_%s_exit" % c.name: rc})
    if rc != 0:
        report.error("%s with a wrong password exited %d (log %s)"
                     % (what, rc, c.log_path))


def part_audit(env, report):
    topic, group, parts = s.unique("audit"), group_of("audit"), 12
    env.admin("create", topic=topic, partitions=parts)
    ledger = s.Ledger([], [])
    cs = [SecConsumer(env, "consumer-%s-1" % b, topic, "contiguous", b, group)
          for b in BUCKETS]
    for c in cs:
        ledger.add_consumer(c)
    s.settle(env, ledger, cs, "contiguous", parts, report)
    pr = SecProducer(env, "producer", topic, "contiguous", count=300)
    ledger.producers.append(pr)
    pr.p.wait(120)
    if not ledger.wait_all_read(90):
        raise s.Failure("%d records unread" % len(ledger.pending))
    full = audit_file(env, "audit", "audit", env.mech, topic, group)
    codes = {}

    def healthy():
        rc, doc, err = run_audit(env, "audit-healthy", full, "--json")
        return (rc, doc) if rc == 0 and doc and not doc["findings"] and \
            all(b["lag"] == 0 for b in doc["buckets"]) else None
    rc, doc = s.wait_until("bp-audit (user audit) to find the deployment "
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
        password="wrong-" + RUN), "--json")
    codes["wrong password"] = rc
    report.add("bp-audit with a wrong password: exit %d, \"%s\"" % (rc, err))
    if rc != 3 or "authentication failed" not in err or \
            not AUTH_FAILED.search(err):
        report.error("wrong password: exit %d, %s" % (rc, err))
    # SCRAM on a librdkafka older than 2.6.1
    if not scram_works(env.c_version):
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
    multi = s.Consumer(env, "consumer-multi-1", topic, "contiguous",
                       "critical, bulk", group,
                       extra=x(env.sec.props("multi", env.mech)))
    want = set(i for i in ledger.delivered if BUCKETS[i % 3] != "normal")
    got = {}

    def multi_read():
        for line in multi.tail.lines():
            w = line.split()
            got.setdefault(int(w[0]), w[3])
        return want <= set(got)
    s.wait_until("the consumer of \"critical, bulk\" (user multi) to read "
                 "their %d records" % len(want), 60, multi_read, 0.5,
                 missing=lambda: len(want - set(got)))
    s.quiet_window(1.0, "a normal record, if the multi-bucket consumer read "
                   "one, shows up")
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
    wrong = x(env.sec.props("critical", env.mech, password="wrong-" + RUN))
    auth_fails(env, report, ledger, s.Consumer(
        env, "wrong-c", topic, "contiguous", "critical", group + "-x",
        extra=wrong), "C consumer (librdkafka %s)" % env.c_version)
    wrong = x(env.sec.props("critical", env.wheel_mech,
                            password="wrong-" + RUN))
    auth_fails(env, report, ledger, s.WheelConsumer(
        env, "wrong-wheel", topic, "contiguous", "critical", group + "-x",
        extra=wrong), "wheel consumer (librdkafka %s)" % env.wheel_lib)
    s.stop_all(cs)


# ----------------------------------------------------------------- debug --

def part_debug(env, report):
    """debug=all everywhere, for the secret scan."""
    topic, group = s.unique("debug"), group_of("debug")
    env.admin("create", topic=topic, partitions=6)
    dbg = ["debug=all"]
    ledger = s.Ledger([], [])
    cs = [s.Consumer(env, "consumer-critical-1", topic, "contiguous",
                     "critical", group, extra=dbg + x(env.sec.props(
                         "critical", env.mech))),
          s.Consumer(env, "consumer-normal-1", topic, "contiguous", "normal",
                     group, extra=dbg + x(env.sec.props("normal", env.mech))),
          s.Consumer(env, "consumer-bulk-1", topic, "contiguous", "bulk",
                     group, extra=dbg + x(env.sec.props(
                         "bulk", env.mech, client_cert=True))),
          s.Consumer(env, "consumer-bulk-2", topic, "contiguous", "bulk",
                     group, extra=dbg + x(env.sec.props(
                         "bulk", "OAUTHBEARER", client_cert=True))),
          OAuthCbWheelConsumer(env, "consumer-bulk-3", topic, "contiguous",
                               "bulk", group, extra=dbg)]
    for c in cs:
        ledger.add_consumer(c)
    s.settle(env, ledger, cs, "contiguous", 6, report)
    pr = s.Producer(env, "producer", topic, "contiguous", rate=100,
                    extra=dbg + x(env.sec.props("producer", env.mech,
                                                client_cert=True)))
    ledger.producers.append(pr)
    commits = s.GroupCommits(env, topic, group, "contiguous")
    commits.wait(6, "every bucket group to commit on each of its 6 "
                 "partitions")
    t0 = int(env.admin("grow", topic=topic, partitions=12))
    moved = [p for p in range(6) if env.owner("contiguous", 6, p) !=
             env.owner("contiguous", 12, p)]
    s.wait_until("the bulk consumers to read the moved partitions", 90,
                 lambda: ledger.update() or all(
                     ledger.first_read(p, "bulk", t0) for p in moved), 0.5)
    s.drain_and_stop(ledger, [pr], cs, report)
    props = audit_file(env, "audit-debug", "audit", env.mech, topic, group,
                       client_cert=True)
    for name, extra in (("audit-debug-text", ()), ("audit-debug-json",
                                                   ("--json",))):
        rc, _doc, _err = run_audit(env, name, props, "-X", "debug=all",
                                   *extra)
        report.add("bp-audit debug=all (%s): exit %d (the consumers have "
                   "stopped: no_consumer)" % (name, rc))
    wrong = audit_file(env, "audit-debug-wrong", "audit", env.mech, topic,
                       group, password="wrong-" + RUN)
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


# ------------------------------------------------------------------ main --

def start_own_broker(a):
    d = os.path.join(a.workdir, "cluster-secure")
    subprocess.run([a.kafka_sh, "stop", "--dir", d], capture_output=True,
                   timeout=120)
    r = subprocess.run([a.kafka_sh, "start", "--secure", "--dir", d],
                       capture_output=True, text=True, timeout=300)
    if r.returncode:
        raise s.Failure("kafka.sh start --secure failed:\n" + r.stderr[-3000:])
    return d


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for opt in ("client", "plugin", "layout-bin", "kafka-sh", "audit-bin",
                "prepare-wheel", "workdir"):
        ap.add_argument("--" + opt, required=True)
    ap.add_argument("--parts", default="mechanisms,growth,wheel,oauth_cb,"
                    "audit,debug,secrets")
    a = ap.parse_args()
    a.sched_client = None
    sec_dir = os.environ.get("BP_SECURE_BROKER_DIR")
    if not sec_dir and not os.environ.get("BP_BROKER_BOOTSTRAP"):
        print("SKIP: neither BP_SECURE_BROKER_DIR nor BP_BROKER_BOOTSTRAP is "
              "set (start one with tests/broker/kafka.sh start --secure)")
        return SKIP
    a.workdir = os.path.join(os.path.abspath(a.workdir), "secure")
    os.makedirs(a.workdir, exist_ok=True)
    for root, dirs, names in os.walk(a.workdir):
        dirs[:] = [d for d in dirs if not d.startswith("cluster")]
        for n in names:
            os.unlink(os.path.join(root, n))
    report = s.Report("secure")
    own = None
    try:
        if not sec_dir:
            own = sec_dir = start_own_broker(a)
        sec = Secure(sec_dir)
        c_version, c_lib = librdkafka_of(a.client)
        env = SecureEnv(a, sec, c_version)
        report.add("secured broker %s (%s); C clients on librdkafka %s (%s): "
                   "%s" % (sec.bootstrap, sec_dir, c_version, c_lib,
                           env.mech), c_librdkafka=c_version, c_mech=env.mech)
        prepare_wheel(env, report)
        env.part("acls")
        make_acls(env, report)
        parts = {
            "mechanisms": part_mechanisms,
            "growth": lambda e, r: part_growth(e, r, SecConsumer, "growth"),
            "wheel": lambda e, r: part_growth(e, r, SecWheelConsumer,
                                              "wheel"),
            "oauth_cb": part_oauth_cb,
            "audit": part_audit,
            "debug": part_debug,
            "secrets": part_secrets}
        for name in a.parts.split(","):
            env.part({"oauth_cb": "oauthcb"}.get(name, name))
            env.oauth_bulk2 = name == "growth"
            log("==== part %s" % name)
            try:
                parts[name](env, report)
            except s.Failure as e:
                report.error("%s: %s" % (name, e))
            except Exception as e:   # a bug of the suite: still report it
                import traceback
                traceback.print_exc()
                report.error("%s: %s: %s" % (name, type(e).__name__, e))
            finally:
                for p in s.ALL_PROCS:
                    if p.alive():
                        log("killing leftover %s" % p.name)
                        p.kill()
    except s.Failure as e:
        report.error(str(e))
    finally:
        if own:
            subprocess.run([a.kafka_sh, "stop", "--dir", own],
                           capture_output=True, timeout=120)
    report.figures["seconds"] = round(time.time() - s.T_START, 1)
    report.figures["passed"] = not report.errors
    with open(os.path.join(a.workdir, "figures.json"), "w") as f:
        f.write(json.dumps(report.figures) + "\n")
    text = "==== broker_secure: %s in %.1f s\n" % (
        "FAILED" if report.errors else "PASSED", time.time() - s.T_START)
    text += "".join("   %s\n" % line for line in report.lines)
    text += "".join("   ERROR: %s\n" % e for e in report.errors)
    with open(os.path.join(a.workdir, "report.txt"), "w") as f:
        f.write(text)
    print("\n" + text, end="")
    return 1 if report.errors else 0


if __name__ == "__main__":
    sys.exit(main())
