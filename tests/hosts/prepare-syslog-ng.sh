#!/usr/bin/env bash
# prepare-syslog-ng.sh - syslog-ng 3.38 and its Kafka destination from
# Debian, unpacked (dpkg -x) into a cache outside the tree, for
# test_log_pipelines.py. Debian's syslog-ng-core conflicts with rsyslog
# (both are a system-log-daemon), so it is run from the unpacked tree
# beside an installed rsyslog, never installed. Prints the root it made.
# Safe to run repeatedly: a complete root is kept.
#
# Usage: tests/hosts/prepare-syslog-ng.sh [ROOT]
#   (default ROOT: ~/.cache/bucket-priority/syslog-ng-3.38/root)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../kit/apt-ensure.sh
. "$here/../kit/apt-ensure.sh"
root=${1:-$HOME/.cache/bucket-priority/syslog-ng-3.38/root}
# The libraries syslog-ng-core links besides those the build has.
apt_ensure prepare-syslog-ng libivykis0 libpcre3 libnet1 libwrap0 \
        libjson-c5 libglib2.0-0 librdkafka1 >&2
if [ -x "$root/usr/sbin/syslog-ng" ] &&
        [ -e "$root/usr/lib/syslog-ng/3.38/libkafka.so" ]; then
        echo "$root"
        exit 0
fi
debs=$(mktemp -d)
trap 'rm -rf "$debs"' EXIT
chmod 777 "$debs" # apt-get download runs as _apt where it can
(cd "$debs" && apt-get download -qq syslog-ng-core syslog-ng-mod-rdkafka \
        >/dev/null 2>&1) || {
        apt-get update -qq >&2
        (cd "$debs" && apt-get download -qq syslog-ng-core \
                syslog-ng-mod-rdkafka >&2)
}
mkdir -p "$root"
for d in "$debs"/*.deb; do
        dpkg -x "$d" "$root"
done
echo "$root"
