#!/usr/bin/env python3
"""An existing, unmodified producer: Debian's python3-confluent-kafka loads
the plugin through its config dict and routes records into their buckets.

Usage: test_python_producer.py /path/to/libbucketpriority.so /path/to/bp-mock-cluster
The embedded mock cluster of librdkafka (run by bp-mock-cluster) is the broker.
"""
import subprocess
import sys
import unittest

from confluent_kafka import Producer

PLUGIN = sys.argv.pop(1)
MOCK_CLUSTER = sys.argv.pop(1)
TOPIC = "orders"


def bucket_conf(bootstrap, **extra):
    conf = {
        "bootstrap.servers": bootstrap,
        "plugin.library.paths": PLUGIN,
        "bucket.priority.topic": TOPIC,
        "bucket.priority.buckets": "Platinum, Gold",
        "bucket.priority.allocation": "70%, 30%",
    }
    conf.update(extra)
    return conf


class PythonProducerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = subprocess.Popen([MOCK_CLUSTER, TOPIC + ":12"],
                                       stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, text=True)
        cls.bootstrap = cls.cluster.stdout.readline().strip()
        assert cls.bootstrap, "bp-mock-cluster printed no address"

    @classmethod
    def tearDownClass(cls):
        cls.cluster.stdin.close()
        cls.cluster.wait(30)

    def produce_all(self, producer, keys):
        reports = []

        def on_delivery(err, msg):
            reports.append((err, msg.key(), msg.partition()))

        for key in keys:
            producer.produce(TOPIC, key=key, value=b"v", on_delivery=on_delivery)
        producer.flush(30)
        return reports

    def test_routes_every_record_into_its_bucket(self):
        producer = Producer(bucket_conf(self.bootstrap))
        keys = ["Platinum-%d" % i for i in range(300)] + \
               ["Gold-%d" % i for i in range(300)]
        reports = self.produce_all(producer, keys)
        self.assertEqual(len(reports), 600)
        seen = set()
        for err, key, partition in reports:
            self.assertIsNone(err)
            expected = range(0, 8) if key.startswith(b"Platinum-") \
                else range(8, 12)
            self.assertIn(partition, expected, key)
            seen.add(partition)
        self.assertEqual(seen, set(range(12)))  # round robin reaches all

    def test_unkeyed_records_go_to_the_last_bucket(self):
        producer = Producer(bucket_conf(self.bootstrap))
        reports = []
        for _ in range(50):
            producer.produce(TOPIC, value=b"v",
                             on_delivery=lambda e, m: reports.append(
                                 (e, m.partition())))
        producer.flush(30)
        self.assertEqual(len(reports), 50)
        for err, partition in reports:
            self.assertIsNone(err)
            self.assertIn(partition, range(8, 12))

    def test_bad_configuration_is_refused_at_creation(self):
        with self.assertRaises(Exception) as ctx:
            Producer(bucket_conf(self.bootstrap,
                                 **{"bucket.priority.allocation": "70%, 20%"}))
        self.assertIn("bucket.priority.allocation", str(ctx.exception))


if __name__ == "__main__":
    unittest.main(verbosity=2)
