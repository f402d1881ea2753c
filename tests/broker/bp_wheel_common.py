"""bp_wheel_common.py - what the broker suite's Python clients on the PyPI
wheel (bp_wheel_producer.py, bp_wheel_consumer.py) share: the options of
bp-broker-client they take alike, stopping on SIGTERM/SIGINT, and the
-X name=value pairs added to a config dict."""
import argparse
import signal
import sys


def parser(doc, command):
    """An option parser with the options both clients take: the optional
    command word (bp-broker-client's), the connection, the bucket
    configuration, --out and -X."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("command", nargs="?", choices=[command])
    ap.add_argument("--bootstrap", required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--topic", required=True)
    ap.add_argument("--buckets", required=True)
    ap.add_argument("--allocation", required=True)
    ap.add_argument("--layout", default="contiguous")
    ap.add_argument("--out", required=True)
    ap.add_argument("-X", action="append", default=[], dest="extra",
                    metavar="NAME=VALUE")
    return ap


def stop_flag():
    """A list that becomes non-empty on SIGTERM or SIGINT."""
    stop = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.append(1))
    return stop


def add_extra(conf, extra):
    """Adds each "name=value" of -X to conf, as a user's dict has it."""
    for x in extra:
        k, sep, v = x.partition("=")
        if not sep:
            sys.exit("-X %s: expected name=value" % x)
        conf[k] = v
    return conf
