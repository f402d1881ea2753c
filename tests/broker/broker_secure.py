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

Parts, in order (growth, wheel, oauth_cb in broker_secure_growth.py;
audit, debug, secrets in broker_secure_audit.py):
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
SIBLING_FAILED = re.compile(r"sibling offsets reader|partition count reader|cannot read the offsets "
                            r"of sibling group|sibling offsets not read")
# a classic consumer on librdkafka 2.10+ that could not list the consumer
# groups at an assignment (whether its group was converted, bp_migrate.c)
GROUP_TYPE_FAILED = re.compile(r"cannot tell whether group|does not tell "
                               r"this client the type of group")
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


def grow_under_load(env, report, ledger, consumers, producer, topic, group):
    """The consumers settled on the topic's 6 partitions (contiguous), the
    producer writing until every bucket group committed on each of its
    partitions, then the topic grown to 12. Returns (ms of the growth, the
    partitions that moved to another bucket, the GroupCommits)."""
    s.settle(env, ledger, consumers, "contiguous", 6, report)
    ledger.producers.append(producer)
    commits = s.GroupCommits(env, topic, group, "contiguous")
    commits.wait(6, "every bucket group to commit on each of its 6 "
                 "partitions")
    t0 = int(env.admin("grow", topic=topic, partitions=12))
    moved = [p for p in range(6) if env.owner("contiguous", 6, p) !=
             env.owner("contiguous", 12, p)]
    return t0, moved, commits


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


class Args(argparse.Namespace):
    """broker_suite.Env reads the programs of every scenario: the ones this
    test does not use are None."""

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for opt in ("client", "plugin", "layout-bin", "kafka-sh", "audit-bin",
                "prepare-wheel", "workdir"):
        ap.add_argument("--" + opt, required=True)
    ap.add_argument("--parts", default="mechanisms,growth,wheel,oauth_cb,"
                    "audit,debug,secrets")
    a = Args(**vars(ap.parse_args()))
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
        import broker_secure_audit as au
        import broker_secure_growth as gr
        for m in (au, gr):
            m.bind(sys.modules[__name__])
        parts = {
            "mechanisms": part_mechanisms,
            "growth": lambda e, r: gr.part_growth(e, r, SecConsumer,
                                                  "growth"),
            "wheel": lambda e, r: gr.part_growth(e, r, SecWheelConsumer,
                                                 "wheel"),
            "oauth_cb": gr.part_oauth_cb,
            "audit": au.part_audit,
            "debug": au.part_debug,
            "secrets": au.part_secrets}
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
    return s.finish_report(report, a.workdir, "broker_secure")


if __name__ == "__main__":
    sys.exit(main())
