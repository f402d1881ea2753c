#!/usr/bin/env bash
# build-dist.sh - the one command that builds every release artefact of
# bucket-priority into one folder, with their SHA-256 sums:
#
#   packaging/build-dist.sh [OUTDIR]          (default: dist/)
#
# gives the Python wheel(s) (packaging/build-wheel.sh), the Debian packages
# and, where rpmbuild is there, the RPMs (packaging/build-deb.sh), and
# OUTDIR/SHA256SUMS over all of them. The same commit gives the same bytes:
# SOURCE_DATE_EPOCH, when unset, is the commit's time, and every builder
# honours it (tests/packaging/run.sh builds twice and compares). Installs
# what the builds need (Debian packages, a venv of build tools from PyPI
# under ~/.cache/bucket-priority) on the first run.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${1:-dist}
case $out in /*) ;; *) out="$root/$out" ;; esac

if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
        SOURCE_DATE_EPOCH=$(git -C "$root" log -1 --format=%ct 2>/dev/null ||
                            echo 0)
fi
export SOURCE_DATE_EPOCH
# Text that ends up in artefacts (archive listings, man page dates) does not
# depend on the builder's locale or time zone.
export LC_ALL=C.UTF-8 TZ=UTC

# What the builds need from Debian: the compilers and librdkafka headers,
# dpkg-dev for the .debs, rpm for the RPMs (rpmbuild), venv for the wheel's
# build tools.
# shellcheck source=../tests/kit/apt-ensure.sh
. tests/kit/apt-ensure.sh
apt_ensure build-dist cc=build-essential cmake pkg-config librdkafka-dev \
        dpkg-dev rpmbuild=rpm python3-venv git

rm -rf "$out" && mkdir -p "$out"
version=$(sed -n 's/^#define BP_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' \
          include/bucket_priority.h | paste -sd.)
echo "build-dist: bucket-priority $version, SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH, into $out" >&2

packaging/build-wheel.sh "$out" x86_64 aarch64
packaging/build-deb.sh --rpm "$out"

(cd "$out" && find . -maxdepth 1 -type f ! -name SHA256SUMS -printf '%f\n' |
        LC_ALL=C sort | xargs sha256sum > SHA256SUMS)
echo "build-dist: artefacts (bytes, sha256):" >&2
(cd "$out" && while read -r sum name; do
        printf '  %-60s %8s  %s\n' "$name" "$(stat -c %s "$name")" "$sum" >&2
done < SHA256SUMS)
