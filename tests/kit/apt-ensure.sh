# apt-ensure.sh - sourced by the scripts that install what they miss from
# Debian (tests/install-deps.sh, tests/matrix/build-librdkafka.sh,
# tests/clients/node/prepare.sh): one way to tell what is missing and to
# install it, as root or through sudo.
#
# A wanted thing is either a Debian package name, present when dpkg lists
# it installed, or COMMAND=PACKAGE, present when COMMAND is on the PATH
# (PACKAGE is what provides it):
#
#   . tests/kit/apt-ensure.sh
#   apt_ensure my-script cc=build-essential make=make zlib1g-dev
#
# Nothing here changes the caller's shell options; the functions return
# apt-get's status and the caller's `set -e` decides.

# apt_missing WANTED... - prints the packages of the wanted things that are
# missing, one a line (nothing when all are present).
apt_missing() {
        local want
        for want in "$@"; do
                case $want in
                *=*)
                        command -v "${want%%=*}" >/dev/null ||
                                echo "${want#*=}"
                        ;;
                *)
                        dpkg-query -W -f='${Status}' "$want" 2>/dev/null |
                                grep -q "install ok installed" ||
                                echo "$want"
                        ;;
                esac
        done
}

# apt_ensure WHO WANTED... - installs the missing packages of the wanted
# things (nothing, and no apt-get, when all are present), saying
# "WHO: installing from Debian: ..." on stderr. apt-get's errors go to
# stderr, its progress nowhere, so that a caller's stdout stays its answer.
apt_ensure() {
        local who=$1 sudo="" need
        shift
        need=$(apt_missing "$@")
        [ -n "$need" ] || return 0
        # shellcheck disable=SC2086 # one package a word
        set -- $need
        echo "$who: installing from Debian: $*" >&2
        [ "$(id -u)" -ne 0 ] && sudo="sudo"
        export DEBIAN_FRONTEND=noninteractive
        $sudo apt-get update -qq >&2 &&
                $sudo apt-get install -y -qq --no-install-recommends "$@" \
                        >/dev/null
}
