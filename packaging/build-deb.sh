#!/usr/bin/env bash
# build-deb.sh - builds the Debian packages of bucket-priority, and the RPMs
# where rpmbuild is installed, into OUTDIR, each from a fresh build tree
# under build/: the same bytes from the same tree and SOURCE_DATE_EPOCH
# (default: the last commit's time). See packaging/deb/README.
# Usage: packaging/build-deb.sh [--rpm | --no-rpm] OUTDIR
#   --rpm     RPMs too, failing without rpmbuild
#   --no-rpm  Debian packages only
set -euo pipefail
rpm=auto
case ${1:-} in
  --rpm) rpm=yes; shift ;;
  --no-rpm) rpm=no; shift ;;
esac
[ $# -eq 1 ] || { echo "usage: $0 [--rpm | --no-rpm] OUTDIR" >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
if [ $rpm = auto ]; then
  if command -v rpmbuild >/dev/null; then rpm=yes; else rpm=no; fi
elif [ $rpm = yes ] && ! command -v rpmbuild >/dev/null; then
  echo "build-deb: --rpm needs rpmbuild (apt-get install rpm)" >&2; exit 1
fi

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

# package DIR KIND LIBDIR: configures and builds the plugin and the tools
# in DIR for KIND (DEB or RPM) and runs cpack; the log is DIR.log.
package() {
  local dir=$1 kind=$2 libdir=$3
  rm -rf "$dir" && mkdir -p "$(dirname "$dir")"
  cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DBP_BUILD_TESTS=OFF -DBP_BUILD_BENCH=OFF -DBP_PACKAGING="$kind" \
    -DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_INSTALL_LIBDIR="$libdir" \
    -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON -DCMAKE_C_FLAGS="$cflags" \
    -DCMAKE_SHARED_LINKER_FLAGS="$ldflags" -DCMAKE_EXE_LINKER_FLAGS="$ldflags" \
    >"$dir.log" 2>&1 || { cat "$dir.log" >&2; exit 1; }
  cmake --build "$dir" --target bucketpriority bp-layout bp-audit -j "$(nproc)" \
    >>"$dir.log" 2>&1 || { tail -40 "$dir.log" >&2; exit 1; }
  (cd "$dir" && cpack -G "$kind") >>"$dir.log" 2>&1 ||
    { tail -40 "$dir.log" >&2; exit 1; }
}

build=$src/build/packaging
package "$build" DEB "lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)"

# What CPack 3.25 cannot be told, done on its output with dpkg-deb (which
# sorts the members and clamps every time stamp to SOURCE_DATE_EPOCH):
# - it writes postinst/postrm running ldconfig into any package with a
#   library under /usr/lib, besides the ldconfig trigger given
#   (packaging/deb/triggers); lintian: maintscript-calls-ldconfig. They are
#   dropped here, after checking they do nothing else.
# - it has no Multi-Arch field.
rm -rf "$build/repack" && mkdir -p "$build/repack"
made=()
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
  made+=("$out/$(basename "$f")")
done

# RPMs: a build of their own, with the library in /usr/lib64 as on Fedora
# and RHEL (built against bookworm's glibc 2.36, needing 2.34: RHEL 9,
# Fedora 35 or newer).
if [ $rpm = yes ]; then
  package "$src/build/packaging-rpm" RPM lib64
  for f in "$src"/build/packaging-rpm/cpack/*.rpm; do
    cp "$f" "$out/"
    made+=("$out/$(basename "$f")")
  done
fi

for f in "${made[@]}"; do
  echo "$(basename "$f") $(stat -c %s "$f") $(sha256sum "$f" | cut -d' ' -f1)"
done
