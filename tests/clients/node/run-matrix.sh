#!/bin/sh
# run-matrix.sh - one node-rdkafka row of the client matrix: installs
# node-rdkafka on the system librdkafka (prepare.sh, cached) and runs
# client_matrix.py on adapter.js with the consumer's rebalance handling of
# the variant:
#
#   plain         no rebalance_cb (librdkafka and the plugin assign)
#   rebalance-cb  rebalance_cb: true (node-rdkafka assigns each list itself)
#   rebalance-fn  rebalance_cb: a function calling this.assign()/unassign()
#
# Usage: run-matrix.sh VARIANT PLUGIN MOCK_CLUSTER
#   PLUGIN is the built libbucketpriority.so, MOCK_CLUSTER bp-mock-cluster.
# The driver runs under /usr/bin/python3 when it exists (its reference
# producer is Debian's python3-confluent-kafka), else python3.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 3 ] || { echo "usage: $0 plain|rebalance-cb|rebalance-fn PLUGIN MOCK_CLUSTER" >&2; exit 2; }
case $1 in
plain)        cb=0 ;;
rebalance-cb) cb=1 ;;
rebalance-fn) cb=function ;;
*)            echo "run-matrix.sh: unknown variant '$1'" >&2; exit 2 ;;
esac
command -v node >/dev/null 2>&1 || { echo "run-matrix.sh: no node (Node.js 16+ with npm)" >&2; exit 1; }
NODE_PATH=$("$here/prepare.sh") ||
        { echo "run-matrix.sh: prepare.sh failed: no node-rdkafka on the system librdkafka (npm registry reachable? librdkafka-dev, g++, make, python3?)" >&2; exit 1; }
export NODE_PATH
BP_NODE_REBALANCE_CB=$cb
export BP_NODE_REBALANCE_CB
py=/usr/bin/python3
[ -x "$py" ] || py=python3
exec "$py" "$here/../client_matrix.py" --adapter "node '$here/adapter.js'" \
        --plugin "$2" --mock-cluster "$3"
