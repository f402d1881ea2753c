#!/usr/bin/python3
"""rebalance_member.py - one member of the rebalance benchmark
(bench_rebalance.py), a consumer configured by a Python dict as users
configure it, in its own process.

  rebalance_member.py CONF_JSON TOPIC

CONF_JSON is the whole configuration (the plugin's properties for a
bucket consumer, none for a plain one). The member subscribes at once,
prints every assignment it is given as

  assigned <monotonic seconds> <partition count>

(CLOCK_MONOTONIC, comparable between processes), polls until its stdin
closes, then prints "closing <seconds>", closes the consumer and prints
"closed <seconds>". Revocations print "revoked <seconds> <count>".
"""
import json
import sys
import threading
import time

from confluent_kafka import Consumer


def main():
    conf = json.loads(sys.argv[1])
    topic = sys.argv[2]
    c = Consumer(conf)
    stop = threading.Event()

    def on_assign(consumer, parts):
        print("assigned %.6f %d" % (time.monotonic(), len(parts)),
              flush=True)

    def on_revoke(consumer, parts):
        print("revoked %.6f %d" % (time.monotonic(), len(parts)),
              flush=True)

    def wait_stdin():
        sys.stdin.read()
        stop.set()

    threading.Thread(target=wait_stdin, daemon=True).start()
    print("subscribing %.6f" % time.monotonic(), flush=True)
    c.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke)
    while not stop.is_set():
        c.poll(0.05)
    print("closing %.6f" % time.monotonic(), flush=True)
    c.close()
    print("closed %.6f" % time.monotonic(), flush=True)


if __name__ == "__main__":
    main()
