"""mock_host.py - librdkafka's mock cluster for the packaging tests'
Python scripts (quickstart.py of test_wheel.sh, mock.py of test_deb.sh,
list_queue.py), hosted through ctypes in the very librdkafka that
confluent_kafka runs on: the wheel's own, or the system's for Debian's
python3-confluent-kafka. The scripts run isolated (python3 -I) from a
folder of their own, so each is copied there with this file, and imports
it after putting its own folder on sys.path."""
import ctypes

import confluent_kafka


def librdkafka():
    """The path of the librdkafka confluent_kafka loaded."""
    confluent_kafka.libversion()
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split(None, 5)[-1].strip()
            name = path.rsplit("/", 1)[-1]
            if name.startswith("librdkafka") and ".so" in name and "++" not in name:
                return path
    raise SystemExit("no librdkafka mapped")


def mock_cluster(topic, partitions):
    """A one-broker mock cluster holding \\p topic with \\p partitions:
    returns (what must stay referenced while it serves, its bootstrap)."""
    lib = ctypes.CDLL(librdkafka())
    p = ctypes.c_void_p
    lib.rd_kafka_conf_new.restype = p
    lib.rd_kafka_new.restype = p
    lib.rd_kafka_new.argtypes = [ctypes.c_int, p, ctypes.c_char_p, ctypes.c_size_t]
    lib.rd_kafka_mock_cluster_new.restype = p
    lib.rd_kafka_mock_cluster_new.argtypes = [p, ctypes.c_int]
    lib.rd_kafka_mock_cluster_bootstraps.restype = ctypes.c_char_p
    lib.rd_kafka_mock_cluster_bootstraps.argtypes = [p]
    lib.rd_kafka_mock_topic_create.argtypes = [p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
    err = ctypes.create_string_buffer(512)
    owner = lib.rd_kafka_new(0, lib.rd_kafka_conf_new(), err, len(err))
    cluster = lib.rd_kafka_mock_cluster_new(owner, 1)
    assert cluster, "no mock cluster"
    assert lib.rd_kafka_mock_topic_create(cluster, topic.encode(), partitions, 1) == 0
    return (lib, owner, cluster), lib.rd_kafka_mock_cluster_bootstraps(cluster).decode()
