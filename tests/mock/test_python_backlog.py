#!/usr/bin/env python3
"""A Python consumer of "critical, bulk" configured by a dict (Debian's
python3-confluent-kafka, classic protocol, bucket.priority.hold left to its
default) meeting a backlog of both buckets at once on the mock cluster:
at its first start and at a restart from its commits, strict hands out at
most 50 bulk records before the last critical one, in every run; weighted
gives critical its 25% (+-5) of the first 2 000 records. The client is
tests/broker/bp_backlog_client.py, which the broker suite runs on Kafka
4.x too.

Usage: test_python_backlog.py PLUGIN BP_MOCK_CLUSTER BACKLOG_CLIENT
"""
import json
import subprocess
import sys
import unittest

PLUGIN, MOCK_CLUSTER, CLIENT = sys.argv[1:4]
del sys.argv[1:4]
AHEAD_BOUND = 50
TOPICS = ["cold-%d:8" % k for k in range(5)] + \
         ["restart-%d:8" % k for k in range(2)] + \
         ["weighted-%d:8" % k for k in range(2)]


class PythonBacklogTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = subprocess.Popen([MOCK_CLUSTER] + TOPICS,
                                       stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, text=True)
        cls.bootstrap = cls.cluster.stdout.readline().strip()
        assert cls.bootstrap, "bp-mock-cluster printed no address"

    @classmethod
    def tearDownClass(cls):
        cls.cluster.stdin.close()
        cls.cluster.wait(30)

    def runs(self, prefix, n, *args):
        r = subprocess.run([sys.executable, CLIENT, "--bootstrap",
                            self.bootstrap, "--plugin", PLUGIN, "--prefix",
                            prefix, "--runs", str(n)] + list(args),
                           capture_output=True, text=True, timeout=600)
        self.assertEqual(r.returncode, 0, r.stderr[-3000:])
        got = json.loads(r.stdout.strip().splitlines()[-1])["summary"]
        print("%s: %s" % (prefix, got), file=sys.stderr)
        self.assertEqual(got["missing"], 0)
        self.assertEqual(got["reordered"], 0)
        return got

    def test_strict_cold_start(self):
        got = self.runs("cold", 5)
        self.assertLessEqual(max(got["ahead"]), AHEAD_BOUND, got)

    def test_strict_restart(self):
        got = self.runs("restart", 2, "--moment", "restart")
        self.assertLessEqual(max(got["ahead"]), AHEAD_BOUND, got)

    def test_weighted_first_records(self):
        got = self.runs("weighted", 2, "--schedule", "weighted",
                        "--critical", "6000", "--bulk", "6000",
                        "--work-us", "100")
        for share in got["first_share"]:
            self.assertGreaterEqual(share, 0.20, got)
            self.assertLessEqual(share, 0.30, got)


if __name__ == "__main__":
    unittest.main(verbosity=2)
