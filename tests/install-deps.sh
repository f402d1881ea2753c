#!/usr/bin/env bash
# install-deps.sh - installs, from Debian, what building and testing
# bucket-priority needs, when it is missing. Safe to run repeatedly.
set -euo pipefail

# shellcheck source=kit/apt-ensure.sh
. "$(dirname "$0")/kit/apt-ensure.sh"
# The broker tests run Kafka from Maven Central jars: a JVM and Maven,
# from Debian unless the machine already has them. The builds pass
# compiles with clang too (fuzz/run.sh adds its runtime).
apt_ensure install-deps build-essential cmake pkg-config librdkafka-dev \
        libcmocka-dev valgrind python3-confluent-kafka kcat python3-venv \
        java=default-jre-headless mvn=maven clang=clang
# The log shippers of test_log_pipelines (docs/log-pipelines.md): rsyslog
# with its Kafka modules and collectd installed, syslog-ng unpacked beside
# them (its package conflicts with rsyslog's).
apt_ensure install-deps rsyslogd=rsyslog rsyslog-kafka \
        collectd=collectd-core
"$(dirname "$0")/hosts/prepare-syslog-ng.sh" >/dev/null
