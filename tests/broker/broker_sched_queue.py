"""broker_sched_queue.py - the broker suite's "sched_queue" scenario: one
Python consumer serving "critical, bulk" with the strict schedule and
bucket.priority.hold=queue, configured by a config dict, on a real Kafka
broker, under a bulk backlog and a stream of critical records; and the
same consumer with the default hold (pause) as the control.

Each run has a topic of its own (12 partitions, "critical, bulk" at
"30%, 70%", contiguous: critical 8-11, bulk 0-7). A Python producer
loading the plugin writes BACKLOG bulk records; the consumer process
(bp_queue_client.py consume) starts on them; once it holds the topic, a
second producer writes STREAM_RATE critical records a second for
STREAM_S seconds. The consumer spends WORK_US on each record and reads
until it has read every record once. Runs:

  queue-classic  Debian's python3-confluent-kafka (librdkafka 2.0.2),
                 classic group protocol;
  queue-kip848   the newest PyPI wheel (its own librdkafka),
                 group.protocol=consumer (KIP-848);
  pause-classic  the control: Debian's client with the default hold.

Asserted, in every run: every record read (lost 0), none out of order
within its partition, and the strict measure of broker_sched.py (bulk
records delivered in a row while a critical partition has records not
delivered yet) at most STRICT_BOUND. With hold=queue: the records
librdkafka fetched at most FETCHED_MAX times those read (each fetched
once; the control fetches the bulk backlog again at every resume, and must
show more than CONTROL_FETCHED_MIN, or the measure could not fail).
About 90 s.
"""
import json
import os
import statistics
import subprocess
import time

BACKLOG = 40000
STREAM_RATE = 100
STREAM_S = 6
WORK_US = 100
STRICT_BOUND = 300          # as broker_sched.py's
FETCHED_MAX = 1.05
CONTROL_FETCHED_MIN = 1.5
HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT = os.path.join(HERE, "bp_queue_client.py")
DEBIAN_PYTHON = "/usr/bin/python3"


def one_run(s, env, report, name, python, hold, extra=()):
    topic = "sched-queue-%s-%d" % (name, int(time.time()))
    env.admin("create", topic=topic, partitions=12)
    common = ["--bootstrap", env.bootstrap, "--plugin", env.plugin,
              "--topic", topic]
    r = subprocess.run([DEBIAN_PYTHON, CLIENT, "produce", "--count",
                        str(BACKLOG)] + common,
                       capture_output=True, text=True, timeout=180)
    if r.returncode:
        raise s.Failure("%s: backlog producer failed: %s"
                        % (name, r.stderr[-2000:]))
    err_path = os.path.join(env.workdir, name + ".log")
    expect = BACKLOG + STREAM_RATE * STREAM_S
    with open(err_path, "w") as err:
        cons = subprocess.Popen(
            [python, CLIENT, "consume", "--group", topic, "--hold", hold,
             "--expect", str(expect), "--work-us", str(WORK_US),
             "--timeout", "150"] + common + list(extra),
            stdout=subprocess.PIPE, stderr=err, text=True)
        first = cons.stdout.readline()     # {"assigned_ms": ...}
        if not first:
            cons.wait(30)
            raise s.Failure("%s: the consumer ended before holding the "
                            "topic (log: %s)" % (name, err_path))
        stream = subprocess.run(
            [DEBIAN_PYTHON, CLIENT, "produce", "--rate", str(STREAM_RATE),
             "--seconds", str(STREAM_S), "--first-id", "1000000"] + common,
            capture_output=True, text=True, timeout=120)
        if stream.returncode:
            raise s.Failure("%s: stream producer failed: %s"
                            % (name, stream.stderr[-2000:]))
        out, _ = cons.communicate(timeout=200)
    got = json.loads(out.strip().splitlines()[-1])
    got["name"] = name
    got["expect"] = expect
    ds = sorted(got.pop("critical_delays_ms"))
    got["critical_p50_ms"] = round(statistics.median(ds), 1) if ds else None
    got["critical_p99_ms"] = round(ds[int(len(ds) * 0.99)], 1) if ds else None
    got["fetched_per_read"] = round(got["fetched"] / max(got["read"], 1), 2)
    report.add("%s (hold=%s): read %d of %d, fetched %d (%.2fx), %d out of "
               "order, worst episode %d bulk records (%d episodes), critical "
               "delay p50 %s ms p99 %s ms"
               % (name, hold, got["distinct"], expect, got["fetched"],
                  got["fetched_per_read"], got["reordered"],
                  got["worst_episode"], got["episodes"],
                  got["critical_p50_ms"], got["critical_p99_ms"]),
               **{name.replace("-", "_"): got})
    if got["distinct"] != expect:
        report.error("%s: %d of %d records read (log: %s)"
                     % (name, got["distinct"], expect, err_path))
    if got["reordered"]:
        report.error("%s: %d records out of order within their partition"
                     % (name, got["reordered"]))
    if got["worst_episode"] > STRICT_BOUND:
        report.error("%s: %d bulk records delivered in a row while critical "
                     "records waited (bound %d)"
                     % (name, got["worst_episode"], STRICT_BOUND))
    return got


def run(s, env, report):
    queue = one_run(s, env, report, "queue-classic", DEBIAN_PYTHON, "queue")
    if queue["fetched_per_read"] > FETCHED_MAX:
        report.error("queue-classic: fetched %.2fx the records read (at "
                     "most %.2fx): what was fetched is fetched again"
                     % (queue["fetched_per_read"], FETCHED_MAX))
    s.prepare_wheel_env(env, report)
    kip = one_run(s, env, report, "queue-kip848", env.wheel_python, "queue",
                  ["-X", "group.protocol=consumer"])
    if kip["fetched_per_read"] > FETCHED_MAX:
        report.error("queue-kip848: fetched %.2fx the records read (at "
                     "most %.2fx)" % (kip["fetched_per_read"], FETCHED_MAX))
    control = one_run(s, env, report, "pause-classic", DEBIAN_PYTHON,
                      "pause")
    if control["fetched_per_read"] <= CONTROL_FETCHED_MIN:
        report.error("pause-classic: fetched only %.2fx the records read "
                     "(must be above %.2fx, or the measure could not see "
                     "records fetched again)"
                     % (control["fetched_per_read"], CONTROL_FETCHED_MIN))
