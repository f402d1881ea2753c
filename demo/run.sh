#!/usr/bin/env bash
# run.sh - the one command for a new user: installs what the build needs
# (tests/install-deps.sh, Debian packages, only when missing), builds
# bucket-priority, bp-layout, bp-audit and the demo (RelWithDebInfo, into
# build/) and runs bp-demo with the arguments given, e.g.
#
#   demo/run.sh                       # the full story, about 1.5 minutes
#   demo/run.sh --quick --json d.json --report d.html
#   demo/run.sh --brokers localhost:9092
#   demo/run.sh --help                # this usage, nothing installed or built
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

for arg in "$@"; do
  case "$arg" in
    -h|--help)
      # The options are bp-demo's (demo/demo_options.c); tests/docs checks
      # that this list and `bp-demo --help` stay the same.
      cat <<'USAGE'
usage: demo/run.sh [bp-demo options]

Installs what the build needs (Debian packages, only when missing), builds
the plugin, bp-layout, bp-audit and bp-demo into build/ and runs
build/bin/bp-demo with the options given. Without options: the full demo,
about 1.5 minutes.

  --quick            smaller campaign, whole demo under 60 s
  --json FILE        write the runs' figures as JSON
  --report FILE      write a self-contained HTML report
  --brokers H:P      use a real cluster instead of the
                     embedded mock one (topics are created
                     and deleted with the Admin API; adds a
                     partition growth and a consumer crash)
  --plugin PATH      libbucketpriority.so to load (default:
                     $BP_PLUGIN_PATH, else ../lib next to
                     this binary)
  --layout L         bucket.priority.layout (default
                     contiguous; stable with --brokers)
  --plain            periodic lines, no live view
USAGE
      exit 0 ;;
  esac
done

cd "$root"
"$root/tests/install-deps.sh"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$root/build" -j"$(nproc 2>/dev/null || echo 2)" \
  --target bp-demo bucketpriority bp-layout bp-audit >/dev/null
exec "$root/build/bin/bp-demo" "$@"
