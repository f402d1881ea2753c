"""_cli - the console commands bp-layout and bp-audit of the wheel.

bp-layout is a plain program in bucket_priority/bin/, run in place of
this process. bp-audit is a shared library, lib/libbp_audit.so, that
links no librdkafka: its rd_kafka_* calls are resolved against the
librdkafka of the installed confluent-kafka wheel, loaded here with
RTLD_GLOBAL first, and its main() is called as bp_audit_main().
"""
from __future__ import annotations

import ctypes
import os
import signal
import sys
from typing import List, Optional

from . import librdkafka_path

_HERE = os.path.dirname(os.path.abspath(__file__))


def bp_layout(argv: Optional[List[str]] = None) -> int:
    """Run bp-layout with ``argv`` (default: this process's arguments).

    Replaces the current process; returns only if that fails (127).
    """
    args = sys.argv[1:] if argv is None else list(argv)
    program = os.path.join(_HERE, "bin", "bp-layout")
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execv(program, ["bp-layout"] + args)
    except OSError as e:
        sys.stderr.write("bp-layout: cannot run %s: %s\n" % (program, e))
    return 127


def bp_audit(argv: Optional[List[str]] = None) -> int:
    """Run bp-audit with ``argv`` (default: this process's arguments).

    Returns bp-audit's exit status: 0 healthy, 1 a fault found, 2 bad
    input, 3 not checked; 127 when confluent_kafka's librdkafka or the
    audit library cannot be loaded.
    """
    args = sys.argv[1:] if argv is None else list(argv)
    rdkafka = librdkafka_path()
    if rdkafka is None:
        sys.stderr.write("bp-audit: runs on confluent_kafka's librdkafka, "
                         "and confluent_kafka could not be imported "
                         "(pip install 'confluent-kafka>=2.6.1')\n")
        return 127
    try:
        ctypes.CDLL(rdkafka, mode=ctypes.RTLD_GLOBAL)
        audit = ctypes.CDLL(os.path.join(_HERE, "lib", "libbp_audit.so"))
    except OSError as e:
        sys.stderr.write("bp-audit: cannot load: %s\n" % e)
        return 127
    words = [b"bp-audit"] + [os.fsencode(a) for a in args]
    argv_c = (ctypes.c_char_p * (len(words) + 1))(*words, None)
    audit.bp_audit_main.restype = ctypes.c_int
    audit.bp_audit_main.argtypes = [ctypes.c_int,
                                    ctypes.POINTER(ctypes.c_char_p)]
    sys.stdout.flush()
    sys.stderr.flush()
    # As a program of its own: Ctrl-C, SIGTERM and a closed pipe end it
    # (Python would only note them until bp_audit_main returns).
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL)
    status = audit.bp_audit_main(len(words), argv_c)
    libc = ctypes.CDLL(None)
    libc.fflush(None)
    return int(status)
