#!/usr/bin/env python3
"""The configuration as a Python user writes it: Debian's unmodified
python3-confluent-kafka hands its config dict to rd_kafka_conf_set(), the
plugin loaded by plugin.library.paths. Empty values, and an assignor or
sticky partitioning the plugin cannot honour, are refused with an error
naming the property and the value; nothing is silently replaced.

Usage: test_python_config.py /path/to/libbucketpriority.so
No broker is needed: every check is at client creation.
"""
import sys
import unittest

from confluent_kafka import Consumer, KafkaException, Producer

PLUGIN = sys.argv.pop(1)

EXAMPLE = {
    "bucket.priority.topic": "orders",
    "bucket.priority.buckets": "Platinum, Gold",
    "bucket.priority.allocation": "70%, 30%",
}

PROPERTIES = ["topic", "buckets", "allocation", "delimiter", "layout",
              "within", "fallback.partitioner", "bucket", "group.per.bucket",
              "rebalance.events.mapped", "schedule", "lag.threshold",
              "hold"]


def conf(*parts, before=None):
    """The dict before (set before the plugin), plugin.library.paths, then
    each dict of parts in order."""
    c = dict(before or {})
    c["plugin.library.paths"] = PLUGIN
    for part in parts:
        c.update(part)
    return c


class PythonConfigTest(unittest.TestCase):
    def refused(self, cls, config):
        with self.assertRaises(KafkaException) as caught:
            cls(config)
        return caught.exception.args[0].str()

    def test_empty_value_refused_for_every_property(self):
        for name in PROPERTIES:
            prop = "bucket.priority." + name
            with self.subTest(prop):
                err = self.refused(Producer, conf(EXAMPLE, {prop: ""}))
                self.assertTrue(err.startswith(prop + ': invalid value "": '),
                                err)

    def test_empty_bucket_on_a_consumer_refused(self):
        err = self.refused(Consumer, conf({"group.id": "app"}, EXAMPLE,
                                          {"bucket.priority.bucket": ""}))
        self.assertTrue(err.startswith(
            'bucket.priority.bucket: invalid value "": '), err)

    def test_ignored_property_takes_an_empty_value(self):
        producer = Producer(conf(EXAMPLE,
                                 {"bucket.priority.fallback.assignor": ""}))
        self.assertEqual(len(producer), 0)

    def test_sticky_partitioning_refused(self):
        # Before plugin.library.paths in the dict, and after the bucket
        # properties.
        first = {"sticky.partitioning.linger.ms": 5}
        err = self.refused(Producer, conf(EXAMPLE, before=first))
        self.assertTrue(err.startswith(
            'bucket.priority.topic: invalid value "orders": '
            "sticky.partitioning.linger.ms is 5,"), err)
        err = self.refused(Producer, conf(EXAMPLE, first))
        self.assertTrue(err.startswith(
            'sticky.partitioning.linger.ms: invalid value "5" '), err)

    def test_other_assignor_refused(self):
        strategy = {"partition.assignment.strategy": "cooperative-sticky"}
        consumer = {"group.id": "app", "bucket.priority.bucket": "Gold"}
        err = self.refused(Consumer, conf(consumer, EXAMPLE, before=strategy))
        self.assertTrue(err.startswith(
            'bucket.priority.bucket: invalid value "Gold": '
            'partition.assignment.strategy is "cooperative-sticky"'), err)
        err = self.refused(Consumer, conf(consumer, EXAMPLE, strategy))
        self.assertTrue(err.startswith(
            'partition.assignment.strategy: invalid value '
            '"cooperative-sticky" for a bucket consumer'), err)

    def test_complete_configuration_accepted(self):
        consumer = Consumer(conf({"group.id": "app",
                                  "bucket.priority.bucket": "Gold"}, EXAMPLE))
        consumer.close()


if __name__ == "__main__":
    unittest.main(verbosity=2)
