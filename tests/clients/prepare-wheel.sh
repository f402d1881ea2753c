#!/usr/bin/env bash
# prepare-wheel.sh - gives the client matrix a Python whose confluent_kafka
# is the newest PyPI wheel (with its own bundled librdkafka), unlike
# Debian's python3-confluent-kafka that uses the system librdkafka.
#
# Creates once, and then reuses, a venv under
#   ${XDG_CACHE_HOME:-$HOME/.cache}/bucket-priority/clients/wheel-venv
# and prints the path of its python on stdout. Needs network access to
# PyPI the first time; fails (exit 1) when the venv cannot be made, so a
# test depending on it fails rather than skips. Concurrent runs wait on a
# lock (flock). Delete the directory to pick up a newer wheel.
set -euo pipefail

cache="${XDG_CACHE_HOME:-$HOME/.cache}/bucket-priority/clients"
venv="$cache/wheel-venv"
mkdir -p "$cache"

exec 9>"$cache/wheel-venv.lock"
flock -w 600 9 || { echo "prepare-wheel: lock $cache/wheel-venv.lock busy" >&2; exit 1; }

# Debian's interpreter (python3-venv) when present, else whatever python3 is.
base_python=/usr/bin/python3
[ -x "$base_python" ] || base_python=$(command -v python3)

if [ ! -f "$venv/.complete" ] ||
   ! "$venv/bin/python" -c 'import confluent_kafka' >/dev/null 2>&1; then
    rm -rf "$venv"
    echo "prepare-wheel: creating $venv with the newest confluent-kafka from PyPI" >&2
    "$base_python" -m venv "$venv" >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        --only-binary=:all: confluent-kafka >&2
    "$venv/bin/python" -c 'import confluent_kafka as c; print("prepare-wheel: confluent-kafka", getattr(c, "__version__", "?"), "librdkafka", c.libversion()[0])' >&2
    touch "$venv/.complete"
fi
echo "$venv/bin/python"
