#!/usr/bin/env python3
"""test_log_pipelines.py - log shippers configured by file alone, with the
plugin given in their own configuration, started as their users start them
(the daemon in the foreground, a configuration file), on the mock cluster
(bp-mock-cluster, topic "logs" of 8 partitions: crit 6-7, info 0-5):

  rsyslog omkafka   partitions.auto="on": every record on its bucket's
                    partitions;
  rsyslog omkafka   as configured by default (rsyslog picks the partition
                    itself): the records land where rsyslog put them, and
                    the plugin says so once (rsyslog shows librdkafka's log
                    lines only in its debug output, -d);
  rsyslog imkafka   a consumer of the crit bucket: reads crit's records
                    only, its first record within 1 s of the same imkafka
                    without the plugin;
  syslog-ng kafka-c key("${LEVEL}"): every record on its bucket's
                    partitions;
  collectd          write_kafka with a fixed Key: every record on that
                    bucket's partitions;

and that each configuration, as docs/log-pipelines.md shows it, is the file
this test runs (tests/hosts/*.conf, with the values the docs use).

Usage: test_log_pipelines.py PLUGIN.so BP-MOCK-CLUSTER SOURCE_DIR
Environment: BP_SYSLOG_NG_ROOT (syslog-ng unpacked by
tests/hosts/prepare-syslog-ng.sh; default its cache), BP_TEST_NO_TIMING.
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from confluent_kafka import Consumer, Producer, TopicPartition

PLUGIN, MOCK, SOURCE = sys.argv[1], sys.argv[2], sys.argv[3]
HERE = os.path.join(SOURCE, "tests", "hosts")
DOC = os.path.join(SOURCE, "docs", "log-pipelines.md")
SYSLOG_NG = os.environ.get(
    "BP_SYSLOG_NG_ROOT",
    os.path.expanduser("~/.cache/bucket-priority/syslog-ng-3.38/root"))
CRIT, INFO = range(6, 8), range(0, 6)  # bp-layout 8 --buckets ... shows it
RECORDS = 40  # every fourth one crit
failures = []
results = []

# The values docs/log-pipelines.md shows in place of the placeholders.
DOC_VALUES = {"@BROKERS@": "kafka1:9092", "@PLUGIN@": "libbucketpriority",
              "@PORT@": "514", "@WORK@": "/var/spool/rsyslog",
              "@GROUP@": "shipper", "@OUT@": "/var/log/crit.log",
              "@COLLECTD_DIR@": "/var/lib/collectd"}


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


class Cluster:
    """bp-mock-cluster with topic "logs" of 8 partitions."""

    def __init__(self):
        self.proc = subprocess.Popen([MOCK, "logs:8"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        self.bootstrap = self.proc.stdout.readline().strip()
        assert self.bootstrap, "bp-mock-cluster printed no address"

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def free_udp_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def render(name, work, values, drop=()):
    """tests/hosts/NAME with its placeholders replaced, lines holding any of
    \\p drop left out; written into \\p work, whose path it returns."""
    with open(os.path.join(HERE, name)) as f:
        text = f.read()
    text = "".join(line for line in text.splitlines(True)
                   if not any(d in line for d in drop))
    for k, v in values.items():
        text = text.replace(k, v)
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def send_syslog(port):
    """RECORDS syslog messages over UDP: facility user, severity crit for
    every fourth, info for the rest; returns how many of each."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for i in range(RECORDS):
        pri = 8 + (2 if i % 4 == 0 else 6)
        s.sendto(f"<{pri}>ship: record {i}".encode(), ("127.0.0.1", port))
        time.sleep(0.002)
    s.close()
    return RECORDS // 4, RECORDS - RECORDS // 4


def read_back(bootstrap, want, timeout=30):
    """(partition, key, value) of the records of topic logs, waiting until
    there are \\p want of them or \\p timeout seconds passed."""
    got = []
    deadline = time.time() + timeout
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "reader",
                  "enable.auto.commit": False})
    c.assign([TopicPartition("logs", p, 0) for p in range(8)])
    while len(got) < want and time.time() < deadline:
        m = c.poll(0.2)
        if m is None or m.error():
            continue
        got.append((m.partition(), (m.key() or b"").decode(),
                    (m.value() or b"").decode()))
    c.close()
    return got


def wait_listening(proc, pidfile, port=None, timeout=15):
    """Until the daemon wrote its pid file (or, for a UDP input, the port is
    bound), and it still runs."""
    deadline = time.time() + timeout
    while time.time() < deadline and proc.poll() is None:
        if port is not None:
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                return True  # someone listens there
            finally:
                s.close()
        elif os.path.exists(pidfile):
            return True
        time.sleep(0.05)
    return False


def stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def routed(records, what):
    crit = [r for r in records if r[1] == "crit"]
    info = [r for r in records if r[1] == "info"]
    check(all(p in CRIT for p, _, _ in crit),
          f"{what}: every crit record on partitions 6-7 "
          f"({sorted(set(p for p, _, _ in crit))})")
    check(all(p in INFO for p, _, _ in info),
          f"{what}: every info record on partitions 0-5 "
          f"({sorted(set(p for p, _, _ in info))})")
    return len(crit), len(info)


def rsyslog_omkafka(work, default):
    """omkafka with partitions.auto="on", or without it (rsyslog's
    default): the debug output (-d) carries librdkafka's log lines."""
    cl = Cluster()
    port = free_udp_port()
    what = "rsyslog omkafka" + (" (default partitioning)" if default else "")
    conf = render("rsyslog-omkafka.conf", work,
                  {"@BROKERS@": cl.bootstrap, "@PLUGIN@": PLUGIN,
                   "@PORT@": str(port), "@WORK@": work},
                  drop=("partitions.auto",) if default else ())
    out = open(os.path.join(work, "rsyslog-omkafka.out"), "w+")
    proc = subprocess.Popen(["rsyslogd", "-n"] + (["-d"] if default else []) +
                            ["-f", conf, "-i", os.path.join(work, "rs.pid")],
                            stdout=out, stderr=subprocess.STDOUT)
    try:
        check(wait_listening(proc, None, port), f"{what}: rsyslogd started")
        send_syslog(port)
        records = read_back(cl.bootstrap, RECORDS)
        check(len(records) == RECORDS,
              f"{what}: {len(records)} of {RECORDS} records written")
    finally:
        stop(proc)
        cl.close()
    out.seek(0)
    log = out.read()
    said = [ln for ln in log.splitlines() if "chosen by the application" in ln]
    if not default:
        routed(records, what)
        check(not said, f"{what}: no record given a partition by rsyslog")
        results.append((what, "every record on its bucket's partitions"))
        return
    crit_off = sum(1 for p, k, _ in records if k == "crit" and p not in CRIT)
    info_off = sum(1 for p, k, _ in records if k == "info" and p not in INFO)
    check(len(said) == 1,
          f"{what}: the plugin said once that rsyslog chose the partition "
          f"({len(said)} lines)")
    check(bool(said) and 'partitions.auto="on"' in said[0] and
          'is bucket "' in said[0],
          f"{what}: the line names the bucket and the fix: "
          f"{said[0][-240:] if said else ''}")
    results.append((what, f"{crit_off} of {RECORDS // 4} crit and {info_off} "
                    f"of {RECORDS - RECORDS // 4} info records outside their "
                    f"bucket, said once in the log"))


def rsyslog_topic_conf(work):
    """The plugin's topic property in topicConfParam, where librdkafka
    refuses it: rsyslog says so in its own log when the action writes."""
    cl = Cluster()
    port = free_udp_port()
    conf = render("rsyslog-omkafka.conf", work,
                  {"@BROKERS@": cl.bootstrap, "@PLUGIN@": PLUGIN,
                   "@PORT@": str(port), "@WORK@": work},
                  drop=('"bucket.priority.topic=logs",',))
    text = open(conf).read().replace(
        'partitions.auto="on"',
        'partitions.auto="on" topicConfParam=["bucket.priority.topic=logs"]')
    open(conf, "w").write(text)
    out = open(os.path.join(work, "rsyslog-topicconf.out"), "w+")
    proc = subprocess.Popen(["rsyslogd", "-n", "-f", conf, "-i",
                             os.path.join(work, "rs-tc.pid")],
                            stdout=out, stderr=subprocess.STDOUT)
    said = ""
    try:
        check(wait_listening(proc, None, port), "rsyslog topicConfParam: "
              "rsyslogd started")
        deadline = time.time() + 15
        while time.time() < deadline and "No such configuration" not in said:
            send_syslog(port)
            time.sleep(1)
            out.seek(0)
            said = out.read()
    finally:
        stop(proc)
        cl.close()
    check("error in kafka topic conf parameter 'bucket.priority.topic=logs'"
          in said and 'No such configuration property: '
          '"bucket.priority.topic"' in said,
          "rsyslog topicConfParam: rsyslog logs librdkafka's refusal of the "
          "plugin's property there")
    results.append(("rsyslog omkafka, plugin property in topicConfParam",
                    "refused by librdkafka, said in rsyslog's log"))


def produce_keyed(bootstrap):
    """RECORDS records keyed crit/info through the plugin, by a Python dict."""
    p = Producer({"bootstrap.servers": bootstrap,
                  "plugin.library.paths": PLUGIN,
                  "bucket.priority.topic": "logs",
                  "bucket.priority.buckets": "crit, info",
                  "bucket.priority.allocation": "25%, 75%"})
    for i in range(RECORDS):
        key = "crit" if i % 4 == 0 else "info"
        p.produce("logs", key=key, value=f"<{10 if key == 'crit' else 14}>"
                  f"ship: record {i}")
    check(p.flush(30) == 0, "imkafka: the backlog was written")


def imkafka_run(work, bootstrap, plugin, group):
    """imkafka reading topic logs into a file; returns (ms to the first
    line, lines after 3 s more)."""
    out = os.path.join(work, f"imkafka-{group}.txt")
    conf = render("rsyslog-imkafka.conf", work,
                  {"@BROKERS@": bootstrap, "@PLUGIN@": PLUGIN, "@WORK@": work,
                   "@GROUP@": group, "@OUT@": out})
    if not plugin:  # the same input without the plugin's properties
        text = re.sub(r'confParam=\[.*?\]',
                      'confParam=["auto.offset.reset=earliest"]',
                      open(conf).read(), flags=re.S)
        open(conf, "w").write(text)
    t0 = time.time()
    proc = subprocess.Popen(["rsyslogd", "-n", "-f", conf, "-i",
                             os.path.join(work, f"rs-{group}.pid")],
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.STDOUT)
    first = None
    try:
        while time.time() - t0 < 40 and proc.poll() is None:
            if os.path.exists(out) and os.path.getsize(out) > 0:
                first = (time.time() - t0) * 1000
                break
            time.sleep(0.01)
        time.sleep(3)
    finally:
        stop(proc)
    lines = open(out).read().split("\n") if os.path.exists(out) else []
    return first, [ln for ln in lines if ln]


def rsyslog_imkafka(work):
    cl = Cluster()
    try:
        produce_keyed(cl.bootstrap)
        plain_ms, plain = imkafka_run(work, cl.bootstrap, False, "plain")
        ours_ms, ours = imkafka_run(work, cl.bootstrap, True, "shipper")
    finally:
        cl.close()
    check(plain_ms is not None and len(plain) == RECORDS,
          f"rsyslog imkafka without the plugin: {len(plain)} records")
    crit = [ln for ln in ours if ln.startswith("<10>")]
    check(ours_ms is not None and len(ours) == RECORDS // 4 and
          len(crit) == len(ours),
          f"rsyslog imkafka, bucket crit: {len(ours)} records, "
          f"{len(crit)} of them crit (want {RECORDS // 4})")
    print(f"     first record after {ours_ms and round(ours_ms)} ms, "
          f"{plain_ms and round(plain_ms)} ms without the plugin")
    if not os.environ.get("BP_TEST_NO_TIMING") and ours_ms and plain_ms:
        check(ours_ms <= plain_ms + 1000,
              "rsyslog imkafka: first record within 1 s of imkafka without "
              "the plugin")
    results.append(("rsyslog imkafka", f"crit's records only; first after "
                    f"{ours_ms and round(ours_ms)} ms, "
                    f"{plain_ms and round(plain_ms)} ms without the plugin"))


def syslog_ng(work):
    binary = os.path.join(SYSLOG_NG, "usr/sbin/syslog-ng")
    if not os.path.exists(binary):
        check(False, f"syslog-ng: not unpacked in {SYSLOG_NG} "
              "(tests/hosts/prepare-syslog-ng.sh)")
        return
    cl = Cluster()
    port = free_udp_port()
    conf = render("syslog-ng-kafka.conf", work,
                  {"@BROKERS@": cl.bootstrap, "@PLUGIN@": PLUGIN,
                   "@PORT@": str(port)})
    env = dict(os.environ,
               LD_LIBRARY_PATH=os.path.join(SYSLOG_NG, "usr/lib/syslog-ng"))
    out = open(os.path.join(work, "syslog-ng.out"), "w+")
    proc = subprocess.Popen(
        [binary, "-F", "--module-path",
         os.path.join(SYSLOG_NG, "usr/lib/syslog-ng/3.38"), "-f", conf,
         "-R", os.path.join(work, "sng.persist"),
         "-p", os.path.join(work, "sng.pid"),
         "-c", os.path.join(work, "sng.ctl")],
        stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        check(wait_listening(proc, None, port), "syslog-ng: started")
        send_syslog(port)
        records = read_back(cl.bootstrap, RECORDS)
    finally:
        stop(proc)
        cl.close()
    check(len(records) == RECORDS,
          f"syslog-ng kafka-c: {len(records)} of {RECORDS} records written")
    routed(records, "syslog-ng kafka-c")
    results.append(("syslog-ng kafka-c",
                    "every record on its bucket's partitions"))


def collectd(work):
    cl = Cluster()
    conf = render("collectd-write_kafka.conf", work,
                  {"@BROKERS@": cl.bootstrap, "@PLUGIN@": PLUGIN,
                   "@COLLECTD_DIR@": work})
    out = open(os.path.join(work, "collectd.out"), "w+")
    proc = subprocess.Popen(["collectd", "-f", "-C", conf], stdout=out,
                            stderr=subprocess.STDOUT)
    try:
        records = read_back(cl.bootstrap, 3, timeout=20)
    finally:
        stop(proc)
        cl.close()
    check(len(records) >= 3, f"collectd write_kafka: {len(records)} records")
    check(all(p in CRIT and k == "crit" for p, k, _ in records),
          "collectd write_kafka: every record keyed crit, on partitions 6-7 "
          f"({sorted(set(p for p, _, _ in records))})")
    out.seek(0)
    check("bucket-priority" in out.read(),
          "collectd: its log shows the plugin's lines")
    results.append(("collectd write_kafka",
                    "every record on its key's bucket"))


def docs_show_the_files():
    text = open(DOC).read()
    for name in sorted(os.listdir(HERE)):
        if not name.endswith(".conf"):
            continue
        shown = open(os.path.join(HERE, name)).read()
        for k, v in DOC_VALUES.items():
            shown = shown.replace(k, v)
        check(shown in text,
              f"docs/log-pipelines.md shows tests/hosts/{name} as run")


def main():
    work = tempfile.mkdtemp(prefix="bp-log-pipelines-")
    try:
        docs_show_the_files()
        rsyslog_omkafka(work, default=False)
        rsyslog_omkafka(work, default=True)
        rsyslog_topic_conf(work)
        rsyslog_imkafka(work)
        syslog_ng(work)
        collectd(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("\n| host | result |\n|---|---|")
    for what, res in results:
        print(f"| {what} | {res} |")
    if failures:
        print(f"\n{len(failures)} FAILED")
        sys.exit(1)
    print("\nall passed")


main()
