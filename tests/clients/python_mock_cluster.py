"""python_mock_cluster.py - librdkafka's embedded mock cluster, hosted in the
librdkafka that confluent_kafka runs on (the PyPI wheel's own copy, or
Debian's system library): what bp-mock-cluster does, for a client whose
librdkafka is not the one bp-mock-cluster was built on. Used by
python_adapter.py's mock-cluster mode:

  python_adapter.py mock-cluster orders:12

prints the bootstrap address on one line and serves until stdin closes.
confluent_kafka has no mock cluster API, so the library it loaded is
called through ctypes (rd_kafka_mock_cluster_new() and friends, part of
librdkafka's public C API).
"""
import ctypes
import sys

import confluent_kafka

RD_KAFKA_PRODUCER = 0


def loaded_librdkafka():
    """The path of the librdkafka shared object confluent_kafka loaded."""
    confluent_kafka.libversion()
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1] if len(line.split()) >= 6 else ""
            name = path.rsplit("/", 1)[-1]
            if name.startswith("librdkafka") and ".so" in name and \
                    "++" not in name:
                return path
    return None


def bind(lib):
    p, c_int, c_char_p = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p
    for name, restype, argtypes in (
            ("rd_kafka_conf_new", p, []),
            ("rd_kafka_conf_set", c_int, [p, c_char_p, c_char_p, c_char_p,
                                          ctypes.c_size_t]),
            ("rd_kafka_new", p, [c_int, p, c_char_p, ctypes.c_size_t]),
            ("rd_kafka_destroy", None, [p]),
            ("rd_kafka_mock_cluster_new", p, [p, c_int]),
            ("rd_kafka_mock_cluster_destroy", None, [p]),
            ("rd_kafka_mock_cluster_bootstraps", c_char_p, [p]),
            ("rd_kafka_mock_topic_create", c_int, [p, c_char_p, c_int,
                                                   c_int])):
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes


def serve(topics):
    """topics: NAME:PARTITIONS strings. Returns the exit status."""
    path = loaded_librdkafka()
    if not path:
        sys.stderr.write("python_mock_cluster: confluent_kafka loaded no "
                         "librdkafka shared object\n")
        return 1
    lib = ctypes.CDLL(path)
    bind(lib)
    err = ctypes.create_string_buffer(512)
    conf = lib.rd_kafka_conf_new()
    lib.rd_kafka_conf_set(conf, b"log_level", b"3", err, len(err))
    owner = lib.rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, len(err))
    if not owner:
        sys.stderr.write("python_mock_cluster: rd_kafka_new: %s\n" %
                         err.value.decode())
        return 1
    cluster = lib.rd_kafka_mock_cluster_new(owner, 1)
    status = 0
    if not cluster:
        sys.stderr.write("python_mock_cluster: no mock cluster (%s)\n" % path)
        status = 1
    for topic in topics if cluster else ():
        name, _, count = topic.partition(":")
        if not count.isdigit() or lib.rd_kafka_mock_topic_create(
                cluster, name.encode(), int(count), 1) != 0:
            sys.stderr.write("python_mock_cluster: bad topic \"%s\": "
                             "expected NAME:PARTITIONS\n" % topic)
            status = 2
            break
    if status == 0:
        print(lib.rd_kafka_mock_cluster_bootstraps(cluster).decode(),
              flush=True)
        for _ in sys.stdin:
            pass
    if cluster:
        lib.rd_kafka_mock_cluster_destroy(cluster)
    lib.rd_kafka_destroy(owner)
    return status
