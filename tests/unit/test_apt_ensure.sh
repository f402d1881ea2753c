#!/usr/bin/env bash
# test_apt_ensure.sh - tests/kit/apt-ensure.sh without installing anything:
# what apt_missing finds missing (a Debian package by dpkg, a command by the
# PATH), and what apt_ensure runs, through stand-ins for apt-get and sudo
# that only write down how they were called.
set -euo pipefail

here=$(cd "$(dirname "$0")/../kit" && pwd)
# shellcheck source=../kit/apt-ensure.sh
. "$here/apt-ensure.sh"

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
expect() { # $1 = what, $2 = got, $3 = wanted
        [ "$2" = "$3" ] || fail "$1: got '$2', wanted '$3'"
}

fake=$(mktemp -d "${TMPDIR:-/tmp}/bp-apt-ensure.XXXXXX")
trap 'rm -rf "$fake"' EXIT
calls="$fake/calls"
# apt-get and sudo stand-ins: they log their arguments; apt-get fails when
# $fake/fail exists.
cat >"$fake/apt-get" <<'SH'
#!/bin/sh
echo "apt-get $*" >>"$BP_FAKE_CALLS"
[ ! -e "$(dirname "$0")/fail" ]
SH
cat >"$fake/sudo" <<'SH'
#!/bin/sh
echo "sudo" >>"$BP_FAKE_CALLS"
exec "$@"
SH
chmod +x "$fake/apt-get" "$fake/sudo"
export BP_FAKE_CALLS=$calls PATH="$fake:$PATH"
none=bp-no-such-package-4711

# Missing detection: dpkg is installed on every Debian system, the other
# name on none; sh is on every PATH, the other command on none.
expect "an installed package" "$(apt_missing dpkg)" ""
expect "a package not installed" "$(apt_missing "$none")" "$none"
expect "a command present" "$(apt_missing sh=pkg-a)" ""
expect "a command missing" \
        "$(apt_missing bp-no-such-command-4711=pkg-b)" "pkg-b"
expect "a mix, in order" \
        "$(apt_missing "$none" dpkg sh=pkg-a bp-no-such-command-4711=pkg-b |
           tr '\n' ' ')" "$none pkg-b "

# Nothing missing: no apt-get, no message, status 0.
rm -f "$calls"
err=$(apt_ensure who dpkg sh=pkg-a 2>&1) || fail "all present: status $?"
expect "all present: message" "$err" ""
[ ! -e "$calls" ] || fail "all present: ran $(cat "$calls")"

# Something missing: update, then install of just the missing packages,
# through sudo unless root; the message on stderr, nothing on stdout.
if [ "$(id -u)" -ne 0 ]; then sudo_line="sudo
"; else sudo_line=""; fi
rm -f "$calls"
out=$(apt_ensure who dpkg "$none" bp-no-such-command-4711=pkg-b \
        2>"$fake/err") || fail "install: status $?"
expect "install: stdout" "$out" ""
expect "install: stderr" "$(cat "$fake/err")" \
        "who: installing from Debian: $none pkg-b"
expect "install: calls" "$(cat "$calls")" \
        "${sudo_line}apt-get update -qq
${sudo_line}apt-get install -y -qq --no-install-recommends $none pkg-b"

# apt-get failing: apt_ensure fails, and no install after a failed update.
rm -f "$calls"
touch "$fake/fail"
if apt_ensure who "$none" 2>/dev/null; then
        fail "a failing apt-get: apt_ensure succeeded"
fi
expect "failed update: calls" "$(grep -c install "$calls" || true)" "0"

[ "$failures" -eq 0 ] || { echo "$failures failure(s)" >&2; exit 1; }
echo "apt-ensure: all checks passed"
