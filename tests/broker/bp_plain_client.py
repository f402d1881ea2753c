#!/usr/bin/python3
"""bp_plain_client.py - a client WITHOUT the bucket-priority plugin, for the
audit scenario's planted faults (Debian's python3-confluent-kafka):

  bp_plain_client.py produce BOOTSTRAP TOPIC PARTITIONS KEY_PREFIX...
      writes one record keyed "<prefix>-plain-<partition>" for every prefix
      to every partition (what a producer that forgot the plugin does to a
      bucket topic), then prints the count written.
  bp_plain_client.py consume BOOTSTRAP TOPIC GROUP
      joins GROUP (roundrobin, like the bucket consumers), reads and
      commits every second until SIGTERM: a consumer without the plugin in
      a bucket group. Prints "assigned <p,...>" on each assignment.
"""
import signal
import sys

from confluent_kafka import Consumer, Producer


def produce(bootstrap, topic, partitions, prefixes):
    p = Producer({"bootstrap.servers": bootstrap})
    n = 0
    for part in range(int(partitions)):
        for prefix in prefixes:
            p.produce(topic, key="%s-plain-%d" % (prefix, part),
                      value=b"x", partition=part)
            n += 1
    left = p.flush(30)
    if left:
        sys.exit("%d records not delivered" % left)
    print(n, flush=True)


def consume(bootstrap, topic, group):
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                  "partition.assignment.strategy": "roundrobin",
                  "auto.offset.reset": "earliest",
                  "auto.commit.interval.ms": 1000,
                  "session.timeout.ms": 6000})

    def on_assign(consumer, parts):
        print("assigned " + ",".join(str(x.partition) for x in parts),
              flush=True)

    c.subscribe([topic], on_assign=on_assign)
    while not stop:
        c.poll(0.2)
    c.close()


if __name__ == "__main__":
    if len(sys.argv) >= 5 and sys.argv[1] == "produce":
        produce(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    elif len(sys.argv) == 5 and sys.argv[1] == "consume":
        consume(*sys.argv[2:])
    else:
        sys.exit(__doc__)
