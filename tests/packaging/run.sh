#!/usr/bin/env bash
# run.sh - the packaging pass of tests/run-all.sh: builds every release
# artefact with the release command (packaging/build-dist.sh) and tests
# them as users get them, never the build tree:
#   1. the wheel, in a fresh venv beside the PyPI confluent-kafka wheel
#      (test_wheel.sh);
#   2. the Debian packages, installed with dpkg and purged again
#      (test_deb.sh; needs root);
#   3. the RPMs' files and requirements (rpm -qp; not installed here);
#      no path of the build machine in any artefact (no RPATH/RUNPATH, no
#      source or build folder in any file), and their sizes;
#   4. the same bytes again: a second build from a copy of the tree in
#      another folder, same SOURCE_DATE_EPOCH, gives the same SHA256SUMS.
# Usage: tests/packaging/run.sh [WORKDIR]   (default build/packaging-test)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
work=${1:-$root/build/packaging-test}
rm -rf "$work" && mkdir -p "$work"
passed=0 failed=0
check() { # name, command...: runs one check, counts it
        local name=$1; shift
        echo "=== packaging: $name"
        if "$@"; then
                passed=$((passed + 1)); echo "--- ok: $name"
        else
                failed=$((failed + 1)); echo "--- FAILED: $name"
        fi
}

# What the checks below use (the tests install their own).
# shellcheck source=../kit/apt-ensure.sh
. tests/kit/apt-ensure.sh
apt_ensure packaging-test file=file readelf=binutils cpio rpm2cpio=rpm

SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
export SOURCE_DATE_EPOCH
dist="$work/dist"
echo "=== packaging: build-dist.sh into $dist"
packaging/build-dist.sh "$dist"

wheel=$(ls "$dist"/*manylinux*x86_64*.whl | head -1)
check "the wheel, from a fresh venv" tests/packaging/test_wheel.sh "$wheel"
if [ "$(id -u)" = 0 ]; then
        check "the Debian packages, installed and purged" \
                tests/packaging/test_deb.sh "$dist"
else
        echo "=== packaging: the Debian packages need root (dpkg -i): not run"
        failed=$((failed + 1))
fi

# The RPMs, not installable here: their names, files and requirements
# read with rpm -qp (the plugin with its unversioned name in /usr/lib64;
# the tools needing librdkafka.so.1; -devel needing pkgconfig(rdkafka)).
rpm_contents() {
        local d=$dist bad=0 plugin_l plugin_r tools_l tools_r devel_l devel_r
        # Each answer is read whole before it is searched: rpm writes a
        # line at a time, and `rpm | grep -q` under pipefail fails when
        # grep has its match and rpm is still writing (SIGPIPE).
        qp() { rpm -qp "$@" 2>/dev/null || true; }
        plugin_l=$(qp -l "$d"/bucket-priority-[0-9]*.x86_64.rpm)
        plugin_r=$(qp -R "$d"/bucket-priority-[0-9]*.x86_64.rpm)
        tools_l=$(qp -l "$d"/bucket-priority-tools-*.rpm)
        tools_r=$(qp -R "$d"/bucket-priority-tools-*.rpm)
        devel_l=$(qp -l "$d"/bucket-priority-devel-*.rpm)
        devel_r=$(qp -R "$d"/bucket-priority-devel-*.rpm)
        grep -qx /usr/lib64/libbucketpriority.so <<<"$plugin_l" || { echo "plugin RPM: no /usr/lib64/libbucketpriority.so"; bad=1; }
        grep -qx /usr/bin/bp-audit <<<"$tools_l" || { echo "tools RPM: no /usr/bin/bp-audit"; bad=1; }
        grep -qx /usr/share/man/man1/bp-layout.1.gz <<<"$tools_l" || { echo "tools RPM: no man page"; bad=1; }
        grep -q '^librdkafka.so.1()' <<<"$tools_r" || { echo "tools RPM: does not require librdkafka.so.1"; bad=1; }
        grep -q librdkafka <<<"$plugin_r" && { echo "plugin RPM requires librdkafka (it binds to the client's)"; bad=1; }
        grep -qx /usr/lib64/pkgconfig/bucketpriority.pc <<<"$devel_l" || { echo "devel RPM: no bucketpriority.pc"; bad=1; }
        grep -q '^pkgconfig(rdkafka) >= 2.0.2' <<<"$devel_r" || { echo "devel RPM: does not require pkgconfig(rdkafka)"; bad=1; }
        for f in "$d"/*.rpm; do qp --qf '  %{NAME} %{VERSION}-%{RELEASE} %{ARCH}\n' "$f"; done
        return $bad
}
check "the RPMs' files and requirements (rpm -qp)" rpm_contents

# Unpacks every artefact under $1/<name>/ (wheels and .debs; RPMs when
# rpm2cpio is there).
unpack_all() {
        local into=$1 f d
        for f in "$dist"/*; do
                d="$into/$(basename "$f")"
                case $f in
                *.whl) mkdir -p "$d" && python3 -m zipfile -e "$f" "$d" ;;
                *.deb) mkdir -p "$d" && dpkg-deb -x "$f" "$d" ;;
                *.rpm) command -v rpm2cpio >/dev/null || continue
                       mkdir -p "$d" && (cd "$d" && rpm2cpio "$f" | cpio -idm --quiet) ;;
                esac
        done
}

no_build_paths() {
        local tree="$work/unpacked" bad=0 f
        unpack_all "$tree"
        # The source folder, the build folders and this test's folder.
        for f in $(find "$tree" -type f); do
                if grep -qaF -e "$root" -e "$work" "$f"; then
                        echo "build path in ${f#"$tree"/}: $(grep -aoF -e "$root" -e "$work" "$f" | head -1)"
                        bad=1
                fi
                if [[ "$(file -b "$f")" == ELF* ]] &&
                   grep -qE '\((RPATH|RUNPATH)\)' <<<"$(readelf -d "$f" 2>/dev/null)"; then
                        echo "RPATH/RUNPATH in ${f#"$tree"/}: $(readelf -d "$f" | grep -E 'RPATH|RUNPATH')"
                        bad=1
                fi
        done
        echo "artefacts (bytes):"
        (cd "$dist" && for f in *; do printf '  %-60s %8s\n' "$f" "$(stat -c %s "$f")"; done)
        return $bad
}
check "no build-machine path in the artefacts" no_build_paths

# The same bytes from the same commit, built in another folder.
same_bytes() {
        local copy
        copy=$(mktemp -d /tmp/bp-source-copy.XXXXXX)
        git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$copy"
        (cd "$copy" && packaging/build-dist.sh "$work/dist-again") >/dev/null
        rm -rf "$copy"
        if diff <(cd "$dist" && cat SHA256SUMS) \
                <(cd "$work/dist-again" && cat SHA256SUMS); then
                echo "two builds, same SHA256SUMS:"; sed 's/^/  /' "$dist/SHA256SUMS"
        else
                return 1
        fi
}
check "the same bytes twice (SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH)" same_bytes

echo "packaging: $passed passed, $failed failed"
[ "$failed" = 0 ]
