#!/bin/sh
# build.sh - builds the Go client adapter (tests/clients/go/adapter) in one
# of the three ways a Go program can carry librdkafka, and prints the path
# of the binary:
#
#   static    the default build: confluent-kafka-go's bundled static
#             librdkafka, no rd_kafka_* symbol exported (the plugin cannot
#             bind and must make client creation fail with a clear error)
#   exported  the bundled librdkafka, exported with
#             -ldflags '-extldflags=-Wl,--export-dynamic'
#   dynamic   -tags dynamic: the system librdkafka (pkg-config rdkafka);
#             uses go.dynamic.mod, which pins the newest confluent-kafka-go
#             that compiles against Debian bookworm's librdkafka 2.0.2
#
# Usage: build.sh FLAVOUR OUTDIR [INCLUDE_DIR [LIB_DIR]]
#   INCLUDE_DIR (env BP_INCLUDE_DIR, default <repo>/include) holds
#   bucket_priority.h; LIB_DIR (env BP_LIB_DIR, default <repo>/build/lib)
#   holds libbucketpriority.so, which the helper package links (and which
#   the binary finds again at run time through an rpath).
# Needs Go with cgo and a C compiler; downloads confluent-kafka-go through
# the Go module proxy into the default module cache on the first build.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
[ $# -ge 2 ] || { echo "usage: $0 static|exported|dynamic OUTDIR [INCLUDE_DIR [LIB_DIR]]" >&2; exit 2; }
flavour=$1
outdir=$2
incdir=${3:-${BP_INCLUDE_DIR:-$repo/include}}
libdir=${4:-${BP_LIB_DIR:-$repo/build/lib}}
incdir=$(cd "$incdir" && pwd)
libdir=$(cd "$libdir" && pwd)
[ -f "$incdir/bucket_priority.h" ] || { echo "$0: no bucket_priority.h in $incdir" >&2; exit 2; }
[ -e "$libdir/libbucketpriority.so" ] || { echo "$0: no libbucketpriority.so in $libdir" >&2; exit 2; }
mkdir -p "$outdir"
out=$(cd "$outdir" && pwd)/bp-go-adapter-$flavour

export CGO_ENABLED=1
export GOFLAGS="${GOFLAGS:-$(go env GOFLAGS)} -mod=mod"
export CGO_CFLAGS="${CGO_CFLAGS:--O2 -g} -I$incdir"
export CGO_LDFLAGS="${CGO_LDFLAGS:--O2 -g} -L$libdir -Wl,-rpath,$libdir"

cd "$here"
case $flavour in
static)
        go build -o "$out" ./adapter ;;
exported)
        go build -ldflags '-extldflags=-Wl,--export-dynamic' -o "$out" ./adapter ;;
dynamic)
        go build -modfile=go.dynamic.mod -tags dynamic -o "$out" ./adapter ;;
*)
        echo "$0: unknown flavour '$flavour' (static, exported, dynamic)" >&2
        exit 2 ;;
esac >&2
echo "$out"
