#!/usr/bin/env bash
# install-deps.sh - installs, from Debian, what building and testing
# bucket-priority needs, when it is missing. Safe to run repeatedly.
set -euo pipefail

packages=(build-essential cmake pkg-config librdkafka-dev libcmocka-dev
          valgrind python3-confluent-kafka kcat python3-venv)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
# The broker tests run Kafka from Maven Central jars: a JVM and Maven,
# from Debian unless the machine already has them.
command -v java >/dev/null || missing+=(default-jre-headless)
command -v mvn >/dev/null || missing+=(maven)
# The builds pass compiles with clang too (fuzz/run.sh adds its runtime).
command -v clang >/dev/null || missing+=(clang)
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
