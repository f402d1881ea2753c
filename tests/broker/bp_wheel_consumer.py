#!/usr/bin/env python3
"""bp_wheel_consumer.py - the consumer process of the broker suite written
with confluent-kafka-python (run it with the interpreter whose
confluent_kafka is to be tested: the venv of tests/clients/prepare-wheel.sh
for the newest PyPI wheel, which carries its own librdkafka).

It takes the options of `bp-broker-client consume` and writes the same
files, so broker_suite.py's ledger reads both alike:

  <out>         "<id> <partition> <offset> <key bucket> <ms>" per record read,
                written and flushed before the record's offset is stored for
                commit (enable.auto.offset.store=false)
  <out>.assign  "<ms> <p,p,...>" ("-" when empty) per change of
                consumer.assignment(), looked at every 100 ms; "<ms> closed"
                after close()
  stdout        "consumed N errors N foreign N plugin_stats ok|unavailable"
                when it stopped (SIGTERM/SIGINT): foreign is the plugin's
                safety-net count, bp_stats() (see below)
  stderr        librdkafka's log, errors, and one line per on_assign /
                on_revoke call

The consumer is configured the way a Python user configures it: a plain
config dict (plugin.library.paths before the bucket properties, a dict
keeps its order) and subscribe() with on_assign/on_revoke callbacks that
only print what they are given. Nothing in this program maps or assigns
partitions: the plugin maps in front of the client's own rebalance
callback.

  bp_wheel_consumer.py [consume] --bootstrap B --plugin PATH --topic T
      --buckets "a, b" --allocation "x%, y%" [--layout contiguous|stable]
      --bucket B --group G --out FILE [--reset earliest|latest]
      [--session-ms MS] [--oauth-cb PRINCIPAL] [-X name=value]...

--oauth-cb PRINCIPAL: authenticates with OAUTHBEARER through a token
refresh callback (confluent-kafka's oauth_cb) that hands librdkafka an
unsecured token (alg none) for PRINCIPAL, as an application with its own
token source does; -X sets security.protocol and sasl.mechanisms.

bp_stats(): the plugin is the same file that librdkafka loaded through
plugin.library.paths, so ctypes gets the same copy (one state). Python
does not expose the client's rd_kafka_t; it is the first field after the
object header of confluent-kafka's Handle (confluent_kafka.h). A wrong
pointer is harmless: bp_stats() looks handles up in a table and returns -1
for one it does not know ("plugin_stats unavailable").
"""
import base64
import ctypes
import json
import os
import signal
import sys
import time

import faulthandler

import bp_wheel_common as common

# Before the client loads (seconds on a loaded machine): a SIGTERM
# during the import still ends the run with its summary, and a crash
# leaves a traceback in the log.
STOP = common.stop_flag()
faulthandler.enable()
from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition  # noqa: E402

BATCH_MAX = 2000


def now_ms():
    return int(time.time() * 1000)


def err(line):
    sys.stderr.write("%d %s\n" % (now_ms(), line))
    sys.stderr.flush()


class BpStats(ctypes.Structure):
    """bp_stats_t (include/bucket_priority.h)."""
    _fields_ = [("bucket_cnt", ctypes.c_int),
                ("partition_cnt", ctypes.c_int32),
                ("discarded", ctypes.c_uint64),
                ("fallback_other", ctypes.c_uint64),
                ("unroutable", ctypes.c_uint64),
                ("foreign", ctypes.c_uint64)]


def plugin_foreign(plugin, consumer):
    """The plugin's foreign count for this consumer, or None."""
    try:
        lib = ctypes.CDLL(plugin)
        lib.bp_stats.argtypes = [ctypes.c_void_p, ctypes.POINTER(BpStats)]
        lib.bp_stats.restype = ctypes.c_int
        rk = ctypes.c_void_p.from_address(id(consumer) +
                                          object.__basicsize__).value
        st = BpStats()
        if not rk or lib.bp_stats(rk, ctypes.byref(st)) != 0:
            return None
        return st.foreign
    except (OSError, AttributeError, ValueError) as e:
        err("bp_stats unavailable: %s" % e)
        return None


def unsecured_token(principal):
    """An unsecured JWS (alg none, no signature) for principal, valid one
    hour, as Kafka's unsecured validator accepts it; with its expiry."""
    def b64(obj):
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(
            b"=").decode()
    now = time.time()
    token = "%s.%s." % (b64({"alg": "none"}),
                        b64({"sub": principal, "iat": int(now),
                             "exp": int(now) + 3600}))
    return token, now + 3600


def parse_args(argv):
    ap = common.parser(__doc__, "consume")
    ap.add_argument("--bucket", required=True)
    ap.add_argument("--group", required=True)
    ap.add_argument("--reset", default="earliest")
    ap.add_argument("--session-ms", type=int, default=6000)
    ap.add_argument("--oauth-cb", metavar="PRINCIPAL")
    return ap.parse_args(argv)


def main():
    a = parse_args(sys.argv[1:])
    stop = STOP

    conf = {
        "bootstrap.servers": a.bootstrap,
        "plugin.library.paths": a.plugin,
        "bucket.priority.bucket": a.bucket,
        "bucket.priority.topic": a.topic,
        "bucket.priority.buckets": a.buckets,
        "bucket.priority.allocation": a.allocation,
        "bucket.priority.layout": a.layout,
        "group.id": a.group,
        "auto.offset.reset": a.reset,
        # at-least-once as bp-broker-client: a record's offset is stored
        # only after its line is written
        "enable.auto.offset.store": False,
        "auto.commit.interval.ms": 1000,
        "error_cb": lambda e: err("client error: %s" % e),
    }
    if a.session_ms:   # 0: unset, as group.protocol=consumer requires
        conf["session.timeout.ms"] = a.session_ms
        conf["heartbeat.interval.ms"] = max(a.session_ms // 6, 100)
    if a.oauth_cb:
        def refresh(_oauthbearer_config):
            err("oauth_cb called")
            token, expiry = unsecured_token(a.oauth_cb)
            return token, expiry, a.oauth_cb, {}
        conf["oauth_cb"] = refresh
    common.add_extra(conf, a.extra)

    out = open(a.out, "w")
    af = open(a.out + ".assign", "w")
    consumer = Consumer(conf)

    def show(what):
        def cb(_c, partitions):
            err("%s %s" % (what, ",".join(
                "%s[%d]@%d" % (tp.topic, tp.partition, tp.offset)
                for tp in partitions) or "-"))
        return cb

    # The application's own callbacks: they only print what they get; the
    # client assigns the list itself after on_assign returns.
    consumer.subscribe([a.topic], on_assign=show("on_assign"),
                       on_revoke=show("on_revoke"))

    consumed = errors = 0
    last_assign = None
    last_track = 0.0

    def track():
        nonlocal last_assign
        try:
            parts = consumer.assignment()
        except KafkaException:
            return
        now = ",".join(str(tp.partition) for tp in parts) or "-"
        if now != last_assign:
            last_assign = now
            af.write("%d %s\n" % (now_ms(), now))
            af.flush()

    while not stop:
        msgs = consumer.consume(num_messages=BATCH_MAX, timeout=0.1)
        good = []
        for m in msgs:
            e = m.error()
            if e is not None:
                if e.code() != KafkaError._PARTITION_EOF:
                    if errors < 50:
                        err("consume: %s" % e)
                    errors += 1
            else:
                good.append(m)
        if good:
            ms = now_ms()
            store = {}
            lines = []
            for m in good:
                key = m.key() or b""
                key = key.decode("utf-8", "replace")
                kb, dash, num = key.rpartition("-")
                try:
                    i = int(num) if dash and num else -1
                except ValueError:
                    i = -1
                lines.append("%d %d %d %s %d\n" % (
                    i, m.partition(), m.offset(), kb if dash else key, ms))
                tp = (m.topic(), m.partition())
                store[tp] = max(store.get(tp, -1), m.offset() + 1)
            out.write("".join(lines))
            out.flush()
            consumed += len(good)
            try:
                consumer.store_offsets(offsets=[
                    TopicPartition(t, p, o) for (t, p), o in store.items()])
            except KafkaException:
                # a partition revoked meanwhile refuses the store: harmless,
                # its new owner re-reads from the committed offset
                pass
        if time.monotonic() - last_track > 0.1:
            track()
            last_track = time.monotonic()

    # The suite may signal again while we close (a second SIGTERM to a
    # process still alive). Python resets its own handlers to the default
    # when the interpreter finalizes, which would let that signal kill us
    # after a clean close; an ignored signal stays ignored.
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, signal.SIG_IGN)
    foreign = plugin_foreign(a.plugin, consumer)
    consumer.close()
    af.write("%d closed\n" % now_ms())
    af.close()
    out.close()
    print("consumed %d errors %d foreign %d plugin_stats %s"
          % (consumed, errors, foreign or 0,
             "ok" if foreign is not None else "unavailable"))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
