#!/usr/bin/env python3
"""python_adapter.py - client matrix adapter for confluent_kafka (Python).

Works with Debian's python3-confluent-kafka (/usr/bin/python3) and with the
PyPI wheel (a venv from prepare-wheel.sh): run it with the interpreter whose
confluent_kafka is to be tested. It configures the client the way Python
users do, with a config dict, and speaks the adapter protocol of
client_matrix.py:

  python_adapter.py produce BOOTSTRAP PLUGIN
      stdin: one key per line ('-' = NULL key); value 'v'. After EOF:
      flush (30 s) and print 'delivered KEY PARTITION' / 'failed KEY ERROR'.
  python_adapter.py consume BOOTSTRAP PLUGIN GROUP BUCKET [NAME=VALUE ...]
      subscribes to 'orders' with on_assign/on_revoke; prints
      'assigned P,P,...' when its assignment changes and 'record PARTITION KEY'
      per record, until stdin closes; then closes the consumer. NAME=VALUE
      entries are added to the dict last (group.protocol=consumer).
  python_adapter.py version
      prints 'librdkafka X.Y.Z', the library confluent_kafka runs on.
  python_adapter.py mock-cluster TOPIC:PARTITIONS ...
      runs librdkafka's mock cluster in the library confluent_kafka runs on
      (python_mock_cluster.py), like bp-mock-cluster.

A client that cannot be created prints 'error TEXT' and exits 3.
"""
import sys
import threading

from confluent_kafka import Consumer, KafkaException, Producer, libversion

TOPIC = "orders"


def out(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def base_conf(bootstrap, plugin):
    # Insertion order is the order the client sets the properties in:
    # plugin.library.paths before the bucket properties.
    return {
        "bootstrap.servers": bootstrap,
        "plugin.library.paths": plugin,
        "bucket.priority.topic": TOPIC,
        "bucket.priority.buckets": "Platinum, Gold",
        "bucket.priority.allocation": "70%, 30%",
    }


def error_text(exc):
    if isinstance(exc, KafkaException) and exc.args and \
            hasattr(exc.args[0], "str"):
        return exc.args[0].str()
    return str(exc)


def create(cls, conf):
    try:
        return cls(conf)
    except Exception as exc:  # the client's own error, whatever its type
        out("error " + " ".join(error_text(exc).split()))
        sys.exit(3)


def produce(bootstrap, plugin):
    producer = create(Producer, base_conf(bootstrap, plugin))
    keys = [line.rstrip("\n") for line in sys.stdin]
    reported = [False] * len(keys)

    def report(index):
        def on_delivery(err, msg):
            reported[index] = True
            if err is not None:
                out("failed %s %s" % (keys[index], " ".join(err.str().split())))
            else:
                out("delivered %s %d" % (keys[index], msg.partition()))
        return on_delivery

    for index, key in enumerate(keys):
        while True:
            try:
                producer.produce(TOPIC, key=None if key == "-" else key.encode(),
                                 value=b"v", on_delivery=report(index))
                break
            except BufferError:
                producer.poll(0.1)
        producer.poll(0)
    producer.flush(30)
    for index, key in enumerate(keys):
        if not reported[index]:
            out("failed %s no delivery report within 30 s" % key)


def consume(bootstrap, plugin, group, bucket, *extra):
    conf = base_conf(bootstrap, plugin)
    conf["group.id"] = group
    conf["bucket.priority.bucket"] = bucket
    conf["auto.offset.reset"] = "earliest"
    for item in extra:
        name, _, value = item.partition("=")
        conf[name] = value
    consumer = create(Consumer, conf)
    current = None  # the assignment last printed; None before the first

    # confluent_kafka has no rebalance_protocol(): the next generation
    # protocol is the one that hands out increments (the plugin keeps
    # roundrobin, an eager strategy, on the classic one).
    incremental = conf.get("group.protocol") == "consumer"

    def cooperative(c):
        try:
            return c.rebalance_protocol() == "COOPERATIVE"
        except AttributeError:
            return incremental

    def show(new):
        nonlocal current
        if new != current:
            current = new
            out(("assigned " + ",".join(str(p) for p in sorted(new))).rstrip())

    def on_assign(c, partitions):
        given = {tp.partition for tp in partitions if tp.topic == TOPIC}
        show((current or set()) | given if cooperative(c) else given)
        # Not calling c.assign(): the client assigns this list itself.

    def on_revoke(c, partitions):
        given = {tp.partition for tp in partitions if tp.topic == TOPIC}
        show((current or set()) - given if cooperative(c) else set())

    stdin_closed = threading.Event()

    def wait_stdin():
        for _ in sys.stdin:
            pass
        stdin_closed.set()

    threading.Thread(target=wait_stdin, daemon=True).start()
    consumer.subscribe([TOPIC], on_assign=on_assign, on_revoke=on_revoke)
    while not stdin_closed.is_set():
        msg = consumer.poll(0.2)
        if msg is None:
            continue
        if msg.error():
            sys.stderr.write("consumer: %s\n" % msg.error())
            continue
        key = msg.key()
        out("record %d %s" % (msg.partition(),
                              "-" if key is None
                              else key.decode("utf-8", "replace")))
    consumer.close()


def main():
    args = sys.argv[1:]
    if len(args) == 3 and args[0] == "produce":
        produce(*args[1:])
    elif len(args) >= 5 and args[0] == "consume":
        consume(*args[1:])
    elif args == ["version"]:
        out("librdkafka %s" % libversion()[0])
    elif len(args) >= 1 and args[0] == "mock-cluster":
        import python_mock_cluster
        sys.exit(python_mock_cluster.serve(args[1:]))
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
