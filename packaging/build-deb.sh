#!/usr/bin/env bash
# build-deb.sh - builds the Debian packages of bucket-priority (and, with
# --rpm, the RPMs) into OUTDIR from a fresh build tree under build/, the
# same bytes from the same commit and SOURCE_DATE_EPOCH (default: the last
# commit's time). See packaging/deb/README.
# Usage: packaging/build-deb.sh [--rpm] OUTDIR
set -euo pipefail
rpm=0
if [ "${1:-}" = --rpm ]; then rpm=1; shift; fi
[ $# -eq 1 ] || { echo "usage: $0 [--rpm] OUTDIR" >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
build=$src/build/packaging

export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$src" log -1 --format=%ct)}
export LC_ALL=C TZ=UTC
umask 022
cd "$src"
# Debian's build flags (hardening included); -ffile-prefix-map drops the
# source path from anything compiled (dpkg-buildflags maps the current
# directory, which is $src here; said again in case that changes).
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
cflags="$(dpkg-buildflags --get CPPFLAGS) $(dpkg-buildflags --get CFLAGS) -ffile-prefix-map=$src=."
ldflags=$(dpkg-buildflags --get LDFLAGS)

rm -rf "$build"
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DBP_BUILD_TESTS=OFF -DBP_BUILD_BENCH=OFF -DBP_PACKAGING=ON \
  -DCMAKE_INSTALL_PREFIX=/usr \
  -DCMAKE_INSTALL_LIBDIR="lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)" \
  -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON -DCMAKE_C_FLAGS="$cflags" \
  -DCMAKE_SHARED_LINKER_FLAGS="$ldflags" -DCMAKE_EXE_LINKER_FLAGS="$ldflags" \
  >"$build.log" 2>&1 || { cat "$build.log" >&2; exit 1; }
cmake --build "$build" --target bucketpriority bp-layout bp-audit -j "$(nproc)" \
  >>"$build.log" 2>&1 || { tail -40 "$build.log" >&2; exit 1; }
generators=DEB
[ $rpm = 1 ] && generators="DEB;RPM"
(cd "$build" && cpack -G "$generators") >>"$build.log" 2>&1 ||
  { tail -40 "$build.log" >&2; exit 1; }

# What CPack 3.25 cannot be told, done on its output with dpkg-deb (which
# sorts the members and clamps every time stamp to SOURCE_DATE_EPOCH):
# - it writes postinst/postrm running ldconfig into any package with a
#   library under /usr/lib, besides the ldconfig trigger given
#   (packaging/deb/triggers); lintian: maintscript-calls-ldconfig. They are
#   dropped here, after checking they do nothing else.
# - it has no Multi-Arch field.
rm -rf "$build/repack" && mkdir -p "$build/repack"
for f in "$build"/cpack/*.deb; do
  name=$(basename "$f" | cut -d_ -f1)
  dir=$build/repack/$name
  dpkg-deb -R "$f" "$dir"
  for s in postinst postrm; do
    [ -e "$dir/DEBIAN/$s" ] || continue
    if grep -Ev '^(#!/bin/sh|set -e|if \[ "\$1" = "(configure|remove)" \]; then|[[:space:]]*ldconfig|fi|)$' \
        "$dir/DEBIAN/$s"; then
      echo "build-deb: $name's $s does more than ldconfig (above)" >&2; exit 1
    fi
    rm "$dir/DEBIAN/$s"
  done
  sed -i '/^$/d' "$dir/DEBIAN/control"    # CPack ends it with an empty line
  case $name in
    bucket-priority-tools) echo "Multi-Arch: foreign" >>"$dir/DEBIAN/control" ;;
    *) echo "Multi-Arch: same" >>"$dir/DEBIAN/control" ;;
  esac
  dpkg-deb --root-owner-group -Zxz --build "$dir" "$out/$(basename "$f")" >/dev/null
done
if [ $rpm = 1 ]; then cp "$build"/cpack/*.rpm "$out/"; fi
for f in "$build"/cpack/*.deb "$build"/cpack/*.rpm; do
  [ -e "$f" ] || continue
  f=$out/$(basename "$f")
  echo "$(basename "$f") $(stat -c %s "$f") $(sha256sum "$f" | cut -d' ' -f1)"
done
