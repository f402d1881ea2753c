#!/bin/sh
# run-matrix.sh - one confluent-kafka-go row of the client matrix: builds the
# Go adapter for a flavour (build.sh) against the plugin under test and runs
# client_matrix.py on it with what that flavour must show:
#
#   static    default build: creating a client fails, naming the build fix
#   exported  -ldflags '-extldflags=-Wl,--export-dynamic': routes, consumes
#   dynamic   -tags dynamic (system librdkafka): routes, consumes
#
# and for exported and dynamic, a consumer subscribed without the helper
# (BP_GO_NO_HELPER=1): told at creation, paused at its first record.
#
#   exported-kip848, dynamic-kip848  the same builds, checked by
#             kip848_matrix.py: bucket consumers with
#             group.protocol=consumer through the helper (exported: on a
#             mock cluster in its bundled librdkafka), or the clean refusal
#             of a librdkafka older than 2.12 (dynamic on Debian's 2.0.2)
#
# Usage: run-matrix.sh FLAVOUR PLUGIN MOCK_CLUSTER [OUTDIR]
#   PLUGIN is the built libbucketpriority.so; the adapter links the library
#   in its directory (the same file it loads as a plugin). OUTDIR (default:
#   go-adapters next to PLUGIN's directory) receives the binaries.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 3 ] || { echo "usage: $0 static|exported|dynamic|exported-kip848|dynamic-kip848 PLUGIN MOCK_CLUSTER [OUTDIR]" >&2; exit 2; }
flavour=$1
plugin=$2
mock=$3
libdir=$(cd "$(dirname "$plugin")" && pwd)
outdir=${4:-$libdir/../go-adapters}
build=${flavour%-kip848}

command -v go >/dev/null 2>&1 || { echo "run-matrix.sh: no go in PATH (Go 1.21+ with cgo needed)" >&2; exit 1; }
bin=$("$here/build.sh" "$build" "$outdir" "$here/../../../include" "$libdir") ||
        { echo "run-matrix.sh: building the $build adapter failed" >&2; exit 1; }

matrix="$here/../client_matrix.py"
case $flavour in
static)
        exec python3 "$matrix" --adapter "'$bin'" --plugin "$plugin" --mock-cluster "$mock" \
                --expect "creation-error:-tags dynamic" ;;
exported-kip848)
        exec python3 "$here/../kip848_matrix.py" --adapter "'$bin'" --plugin "$plugin" \
                --mock-cluster "$mock" --own-mock ;;
dynamic-kip848)
        # confluent-kafka-go 2.0.2 cuts configuration errors at 127 characters.
        exec python3 "$here/../kip848_matrix.py" --adapter "'$bin'" --plugin "$plugin" \
                --mock-cluster "$mock" --error-cut 127 ;;
exported|dynamic)
        status=0
        python3 "$matrix" --adapter "'$bin'" --plugin "$plugin" --mock-cluster "$mock" || status=1
        python3 "$matrix" --adapter "'$bin'" --plugin "$plugin" --mock-cluster "$mock" \
                --modes consume --expect unmapped-stopped:BP_GO_NO_HELPER || status=1
        exit $status ;;
*)
        echo "run-matrix.sh: unknown flavour '$flavour'" >&2
        exit 2 ;;
esac
