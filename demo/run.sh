#!/usr/bin/env bash
# run.sh - the one command for a new user: installs what the build needs
# (tests/install-deps.sh, Debian packages, only when missing), builds
# bucket-priority and its demo (RelWithDebInfo, into build/) and runs
# bp-demo with the arguments given, e.g.
#
#   demo/run.sh                       # the full story, about 1.5 minutes
#   demo/run.sh --quick --json d.json --report d.html
#   demo/run.sh --brokers localhost:9092
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

"$root/tests/install-deps.sh"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$root/build" -j"$(nproc 2>/dev/null || echo 2)" \
  --target bp-demo bucketpriority >/dev/null
exec "$root/build/bin/bp-demo" "$@"
