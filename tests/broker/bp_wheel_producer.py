#!/usr/bin/env python3
"""bp_wheel_producer.py - the producer process of the broker suite written
with confluent-kafka-python (run it with the venv of
tests/clients/prepare-wheel.sh: the newest PyPI wheel, which carries its
own librdkafka). It takes the options of `bp-broker-client produce` that
the change scenario uses and writes the same files, so broker_suite.py's
ledger reads both alike:

  <out>    "<id> <partition> <offset> <ms>" per successful delivery report
  stdout   "produced N delivered N failed N enqueue_failed N last_id N
           fatal none" when it stopped (SIGTERM/SIGINT), after flushing

The producer is configured the way a Python user configures it: a plain
config dict, plugin.library.paths before the bucket properties (a dict
keeps its order), every bucket.priority.* value as text. Record id N is
keyed "<bucket>-N", the buckets of --buckets taken in turn (N modulo their
count), and produced by topic name: the plugin's partitioner places it.

  bp_wheel_producer.py produce --bootstrap B --plugin PATH --topic T
      --buckets "a, b" --allocation "x%, y%" [--layout contiguous|stable]
      --out FILE [--start ID] [--rate PER_SECOND] [-X name=value]...
"""
import sys
import time

import faulthandler

import bp_wheel_common as common

# Before the client loads (seconds on a loaded machine): a SIGTERM
# during the import still ends the run with its summary, and a crash
# leaves a traceback in the log.
STOP = common.stop_flag()
faulthandler.enable()
from confluent_kafka import KafkaException, Producer  # noqa: E402


def now_ms():
    return int(time.time() * 1000)


def parse_args(argv):
    ap = common.parser(__doc__, "produce")
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--rate", type=float, default=1000.0)
    return ap.parse_args(argv)


def main():
    a = parse_args(sys.argv[1:])
    stop = STOP
    conf = {
        "bootstrap.servers": a.bootstrap,
        "plugin.library.paths": a.plugin,
        "bucket.priority.topic": a.topic,
        "bucket.priority.buckets": a.buckets,
        "bucket.priority.allocation": a.allocation,
        "bucket.priority.layout": a.layout,
        "enable.idempotence": True,
        "acks": "all",
        "error_cb": lambda e: sys.stderr.write("%d client error: %s\n"
                                               % (now_ms(), e)),
    }
    common.add_extra(conf, a.extra)
    names = [b.strip() for b in a.buckets.split(",")]
    out = open(a.out, "w")
    counts = {"delivered": 0, "failed": 0}

    def on_delivery(e, m):
        if e:
            counts["failed"] += 1
            sys.stderr.write("%d delivery failed: %s\n" % (now_ms(), e))
            return
        counts["delivered"] += 1
        key = m.key().decode()
        out.write("%s %d %d %d\n" % (key.rpartition("-")[2], m.partition(),
                                     m.offset(), now_ms()))
        out.flush()

    p = Producer(conf)
    produced = enqueue_failed = 0
    i = a.start
    t0 = time.time()
    while not stop:
        due = int((time.time() - t0) * a.rate)
        while produced < due and not stop:
            key = "%s-%d" % (names[i % len(names)], i)
            try:
                p.produce(a.topic, key=key, value=b"v", on_delivery=on_delivery)
                produced += 1
                i += 1
            except BufferError:
                p.poll(0.05)
            except KafkaException as e:
                enqueue_failed += 1
                sys.stderr.write("%d produce failed: %s\n" % (now_ms(), e))
                i += 1
        p.poll(0.01)
    sys.stderr.write("%d producer stops after id %d; flushing\n"
                     % (now_ms(), i - 1))
    left = p.flush(30)
    out.close()
    print("produced %d delivered %d failed %d enqueue_failed %d last_id %d "
          "fatal %s" % (produced, counts["delivered"], counts["failed"] + left,
                        enqueue_failed, i - 1, "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
