"""bucket_priority - the bucket-priority librdkafka plugin for Python clients.

The wheel carries the plugin (``libbucketpriority.so``); confluent-kafka
loads it by the absolute path that :func:`library_path` returns, given
first in ``plugin.library.paths``. :func:`producer_properties` and
:func:`consumer_properties` return the whole ``bucket.priority.*``
configuration as a dict, checked by the plugin itself before any client
is made::

    from confluent_kafka import Producer
    import bucket_priority

    conf = bucket_priority.producer_properties(
        "orders", ["Platinum", "Gold"], ["70%", "30%"])
    conf["bootstrap.servers"] = "localhost:9092"
    producer = Producer(conf)
"""
from __future__ import annotations

import ctypes
import os
from typing import Dict, Iterable, Optional, Union

__all__ = [
    "ConfigError",
    "__version__",
    "check",
    "consumer_properties",
    "library_path",
    "librdkafka_path",
    "producer_properties",
]


def _own_version() -> str:
    try:
        from importlib.metadata import version
        return version("bucket-priority")
    except Exception:  # not installed as a distribution (a source checkout)
        return "0+unknown"


#: The version of this package, the same as the plugin's (BP_VERSION_*).
__version__: str = _own_version()

_PREFIX = "bucket.priority."
_LIBRARY_PATHS = "plugin.library.paths"

#: Keyword options of both helpers, as property names after the prefix.
_COMMON_OPTIONS = {
    "delimiter": "delimiter",
    "layout": "layout",
    "next_buckets": "next.buckets",
    "next_allocation": "next.allocation",
    "next_layout": "next.layout",
    "next_step": "next.step",
}
_PRODUCER_OPTIONS = dict(_COMMON_OPTIONS,
                         within="within",
                         fallback_partitioner="fallback.partitioner")
_CONSUMER_OPTIONS = dict(_COMMON_OPTIONS,
                         schedule="schedule",
                         lag_threshold="lag.threshold",
                         hold="hold",
                         group_per_bucket="group.per.bucket",
                         rebalance_events_mapped="rebalance.events.mapped",
                         fallback_assignor="fallback.assignor")

#: A value a helper accepts: text as in a properties file, a number, a
#: boolean, or a list (joined with ", ").
Value = Union[str, int, float, bool, Iterable[Union[str, int, float]]]


class ConfigError(ValueError):
    """A value the plugin refused.

    The message is the plugin's own, naming the property and the value
    (``bucket.priority.allocation: invalid value "70%, 20%": ...``).

    Attributes:
        property: the property that was refused.
        value: the text it was given.
    """

    def __init__(self, message: str, prop: str, value: str) -> None:
        super().__init__(message)
        self.property = prop
        self.value = value


def library_path() -> str:
    """The absolute path of the plugin inside this package.

    Give it as ``plugin.library.paths`` (first in the configuration):
    confluent-kafka does not find a bare plugin name inside a wheel.
    """
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib",
                        "libbucketpriority.so")


def librdkafka_path() -> Optional[str]:
    """The file of the librdkafka that confluent_kafka runs on, or None.

    That is the confluent-kafka wheel's own copy
    (``confluent_kafka.libs/librdkafka-<hash>.so.1``) or, with Debian's
    python3-confluent-kafka, the system ``librdkafka.so.1``. None when
    confluent_kafka cannot be imported or the platform has no
    /proc/self/maps.
    """
    try:
        import confluent_kafka
        confluent_kafka.libversion()
    except ImportError:
        return None
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                fields = line.split(None, 5)
                if len(fields) < 6:
                    continue
                path = fields[5].strip()
                name = os.path.basename(path)
                if name.startswith("librdkafka") and ".so" in name \
                        and "++" not in name:
                    return path
    except OSError:
        pass
    return None


def _text(value: Value) -> str:
    """A property value as the text librdkafka takes."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    return ", ".join(str(item) for item in value)


class _Librdkafka:
    """The few librdkafka calls the check needs, bound once."""

    def __init__(self, path: str) -> None:
        lib = ctypes.CDLL(path)
        p = ctypes.c_void_p
        lib.rd_kafka_conf_new.restype = p
        lib.rd_kafka_conf_new.argtypes = []
        lib.rd_kafka_conf_set.restype = ctypes.c_int
        lib.rd_kafka_conf_set.argtypes = [p, ctypes.c_char_p, ctypes.c_char_p,
                                          ctypes.c_char_p, ctypes.c_size_t]
        lib.rd_kafka_conf_destroy.restype = None
        lib.rd_kafka_conf_destroy.argtypes = [p]
        self.lib = lib


_bound: Optional[_Librdkafka] = None


def _librdkafka() -> _Librdkafka:
    global _bound
    if _bound is None:
        path = librdkafka_path()
        if path is None:
            raise ImportError(
                "bucket_priority: the properties are checked by the plugin "
                "inside confluent_kafka's librdkafka, and confluent_kafka "
                "could not be imported (pip install confluent-kafka)")
        _bound = _Librdkafka(path)
    return _bound


def check(properties: Dict[str, str]) -> None:
    """Set ``properties``, in order, on a fresh librdkafka configuration.

    The configuration lives in the librdkafka that confluent_kafka uses,
    with the plugin loaded by the first property; no client is made.

    Raises:
        ConfigError: a value was refused (the plugin's message).
        ImportError: confluent_kafka is not installed.
    """
    lib = _librdkafka().lib
    err = ctypes.create_string_buffer(1024)
    conf = lib.rd_kafka_conf_new()
    try:
        for name, value in properties.items():
            if lib.rd_kafka_conf_set(conf, name.encode(), value.encode(), err,
                                     len(err)) != 0:
                message = err.value.decode("utf-8", "replace")
                if name not in message:
                    message = "%s: %s" % (name, message)
                raise ConfigError(message, name, value)
    finally:
        lib.rd_kafka_conf_destroy(conf)


def _properties(role: str, known: Dict[str, str], first: Dict[str, str],
                options: Dict[str, Value]) -> Dict[str, str]:
    props = {_LIBRARY_PATHS: library_path()}
    props.update(first)
    for key, value in options.items():
        if key not in known:
            raise TypeError("%s_properties() got an unknown option %r "
                            "(known: %s)" % (role, key,
                                             ", ".join(sorted(known))))
        if value is not None:
            props[_PREFIX + known[key]] = _text(value)
    check(props)
    return props


def producer_properties(topic: str, buckets: Union[str, Iterable[str]],
                        allocation: Union[str, Iterable[Union[str, int,
                                                              float]]],
                        **options: Value) -> Dict[str, str]:
    """The configuration that makes a confluent-kafka Producer route by bucket.

    Args:
        topic: the one topic split into buckets (``bucket.priority.topic``).
        buckets: bucket names in priority order, a list or the comma text
            (``["Platinum", "Gold"]`` or ``"Platinum, Gold"``).
        allocation: one share per bucket, a list or the comma text
            (``["70%", "30%"]``, ``[70, 30]`` or ``"70%, 30%"``).
        **options: further properties by their Python names:
            ``delimiter``, ``layout``, ``within``, ``fallback_partitioner``,
            ``next_buckets``, ``next_allocation``, ``next_layout``,
            ``next_step`` (``bucket.priority.`` plus the name with dots for
            underscores; docs/configuration.md). None leaves one out.

    Returns:
        ``plugin.library.paths`` (first) and the ``bucket.priority.*``
        properties, as text: merge them into the Producer's configuration.

    Raises:
        ConfigError: the plugin refused a value; the message names it.
        TypeError: an unknown option.
        ImportError: confluent_kafka is not installed.
    """
    return _properties("producer", _PRODUCER_OPTIONS, {
        _PREFIX + "topic": _text(topic),
        _PREFIX + "buckets": _text(buckets),
        _PREFIX + "allocation": _text(allocation),
    }, options)


def consumer_properties(topic: str, buckets: Union[str, Iterable[str]],
                        allocation: Union[str, Iterable[Union[str, int,
                                                              float]]],
                        bucket: Union[str, Iterable[str]],
                        **options: Value) -> Dict[str, str]:
    """The configuration that makes a confluent-kafka Consumer read one bucket.

    With ``group.id`` set to ``app``, the consumer joins group
    ``app.<bucket>`` and is assigned only its bucket's partitions.

    Args:
        topic: the one topic split into buckets (``bucket.priority.topic``).
        buckets: bucket names in priority order, a list or the comma text.
        allocation: one share per bucket, a list or the comma text.
        bucket: the bucket this consumer serves (``"Gold"``), or a list of
            buckets in priority order served by one consumer.
        **options: further properties by their Python names:
            ``delimiter``, ``layout``, ``schedule``, ``lag_threshold``,
            ``hold``, ``group_per_bucket``, ``rebalance_events_mapped``,
            ``fallback_assignor``, ``next_buckets``, ``next_allocation``,
            ``next_layout``, ``next_step``. None leaves one out.

    Returns:
        ``plugin.library.paths`` (first), ``bucket.priority.bucket`` (next,
        as the plugin prefers) and the other ``bucket.priority.*``
        properties, as text: merge them into the Consumer's configuration.

    Raises:
        ConfigError: the plugin refused a value; the message names it.
        TypeError: an unknown option.
        ImportError: confluent_kafka is not installed.
    """
    return _properties("consumer", _CONSUMER_OPTIONS, {
        _PREFIX + "bucket": _text(bucket),
        _PREFIX + "topic": _text(topic),
        _PREFIX + "buckets": _text(buckets),
        _PREFIX + "allocation": _text(allocation),
    }, options)
