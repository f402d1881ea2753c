#!/usr/bin/env bash
# kafka.sh - real-broker harness for the bucket-priority integration tests.
#
# Fetches a pinned Apache Kafka release from Maven Central (jars only, cached
# outside the source tree) and runs a throw-away KRaft cluster (1 or 3
# combined broker+controller nodes) on 127.0.0.1 with free ports, so tests
# can drive librdkafka + the plugin against a real broker, including
# partition growth and node failover.
#
# `start --secure` (1 node) makes the broker listener SASL_SSL with users,
# TLS material and an authorizer: see kafka-secure.inc.sh.
#
# Usage: tests/broker/kafka.sh COMMAND [options]   (see `kafka.sh help`)
# Only the bootstrap address (start) or tool output goes to stdout; all
# progress and diagnostics go to stderr.
set -euo pipefail

KAFKA_VERSION="${BP_KAFKA_VERSION:-4.4.0}"   # pinned; override only to experiment
LOG4J_VERSION="2.25.5"                      # the log4j2 version Kafka 4.4.0 is built with
DEP_PLUGIN="org.apache.maven.plugins:maven-dependency-plugin:3.6.1"
CACHE="${BP_KAFKA_CACHE:-$HOME/.cache/bucket-priority/kafka-$KAFKA_VERSION}"
DEFAULT_DIR="${BP_BROKER_DIR:-$PWD/build/broker}"
JAVA="${JAVA:-java}"
HEAP_OPTS="${BP_KAFKA_HEAP:--Xmx512m -Xms128m}"
START_TIMEOUT="${BP_KAFKA_START_TIMEOUT:-90}"   # seconds, per start/restart
STOP_TIMEOUT="${BP_KAFKA_STOP_TIMEOUT:-30}"     # seconds before SIGKILL

# Modules put on the class path. kafka_2.13's own pom excludes every
# transitive dependency of the server modules, so each module is listed
# directly to get caffeine, pcollections, commons-validator, hash4j, ...
KAFKA_MODULES="kafka_2.13 kafka-clients kafka-server kafka-server-common
 kafka-storage kafka-storage-api kafka-metadata kafka-raft
 kafka-group-coordinator kafka-group-coordinator-api kafka-share-coordinator
 kafka-transaction-coordinator kafka-coordinator-common kafka-tools-api"

PY="$(command -v python3 || true)"
SECURE=0   # 1: the broker listener is SASL_SSL (start --secure)

# shellcheck source=kafka-secure.inc.sh
source "$(dirname "${BASH_SOURCE[0]}")/kafka-secure.inc.sh"

log() { printf 'kafka.sh: %s\n' "$*" >&2; }
die() { printf 'kafka.sh: error: %s\n' "$*" >&2; exit 1; }

usage() {
    cat >&2 <<EOF
usage: kafka.sh COMMAND [options]

  fetch                             download Kafka $KAFKA_VERSION jars into the cache (idempotent)
  start [--nodes 1|3] [--dir DIR]   format + start a fresh KRaft cluster; prints bootstrap
  start --secure [--dir DIR]        1 node, SASL_SSL, users, StandardAuthorizer (kafka-secure.inc.sh)
  acl [--dir DIR] ARGS...           Kafka's AclCommand as the secure cluster's admin
  stop [--dir DIR]                  SIGTERM (then SIGKILL) the cluster's processes
  kill-node N [--dir DIR]           SIGKILL node N (1-based)
  restart-node N [--dir DIR]        start node N again with its old config and data
  status [--dir DIR]                show node states; exit 0 only if all are running
  bootstrap [--dir DIR]             print the bootstrap address
  topics [--dir DIR] ARGS...        org.apache.kafka.tools.TopicCommand against the cluster
  tool [--dir DIR] CLASS ARGS...    run any class from the Kafka class path
  classpath                         print the class path (cache/*)

cache: $CACHE
dir:   $DEFAULT_DIR
EOF
}

# ---------------------------------------------------------------- fetch --

cache_ok() {
    [[ -f "$CACHE/.complete" ]] && [[ -f "$CACHE/kafka_2.13-$KAFKA_VERSION.jar" ]] \
        && [[ -f "$CACHE/kafka-tools-$KAFKA_VERSION.jar" ]]
}

cmd_fetch() {
    if cache_ok; then
        log "Kafka $KAFKA_VERSION already cached in $CACHE"
        return 0
    fi
    command -v mvn >/dev/null || die "mvn not found (Maven is needed to fetch Kafka)"
    local work out deps a rc=0
    work="$(mktemp -d "${TMPDIR:-/tmp}/bp-kafka-fetch.XXXXXX")"
    out="$CACHE.partial.$$"
    # shellcheck disable=SC2064
    trap "rm -rf '$work' '$out'" EXIT
    deps=""
    for a in $KAFKA_MODULES; do
        deps+="    <dependency><groupId>org.apache.kafka</groupId><artifactId>$a</artifactId><version>$KAFKA_VERSION</version></dependency>
"
    done
    cat > "$work/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.bucketpriority</groupId>
  <artifactId>kafka-broker-runtime</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
$deps    <dependency>
      <groupId>org.apache.kafka</groupId><artifactId>kafka-tools</artifactId><version>$KAFKA_VERSION</version>
      <exclusions>
        <!-- only needed by the Connect tools; drags in Jetty/Jersey -->
        <exclusion><groupId>org.apache.kafka</groupId><artifactId>connect-runtime</artifactId></exclusion>
      </exclusions>
    </dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-core</artifactId><version>$LOG4J_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j-impl</artifactId><version>$LOG4J_VERSION</version></dependency>
  </dependencies>
</project>
EOF
    log "fetching Kafka $KAFKA_VERSION and its runtime dependencies with Maven into $CACHE ..."
    rm -rf "$out"
    mkdir -p "$(dirname "$CACHE")"
    (cd "$work" && mvn -B -q -f pom.xml "$DEP_PLUGIN:copy-dependencies" \
        -DincludeScope=runtime -DoutputDirectory="$out") >"$work/mvn.log" 2>&1 || rc=$?
    if [[ $rc -ne 0 ]]; then
        tail -n 40 "$work/mvn.log" >&2
        die "Maven could not fetch org.apache.kafka:kafka_2.13:$KAFKA_VERSION (exit $rc)"
    fi
    [[ -f "$out/kafka_2.13-$KAFKA_VERSION.jar" ]] || die "fetch finished but kafka_2.13-$KAFKA_VERSION.jar is missing"
    echo "kafka $KAFKA_VERSION log4j $LOG4J_VERSION $(date -u +%FT%TZ)" > "$out/.complete"
    rm -rf "$CACHE"
    mv "$out" "$CACHE"
    rm -rf "$work"
    trap - EXIT
    log "cached $(find "$CACHE" -maxdepth 1 -name '*.jar' | wc -l) jars in $CACHE"
}

ensure_cache() {
    cache_ok || cmd_fetch
}

# -------------------------------------------------------------- helpers --

need_python() { [[ -n "$PY" ]] || die "python3 is needed (free ports, readiness checks)"; }

# abs_dir DIR: absolute path (created)
abs_dir() { mkdir -p "$1" && (cd "$1" && pwd); }

# free_ports N: N distinct free TCP ports on 127.0.0.1, below the ephemeral
# range so outgoing connections cannot grab them while a node is down.
free_ports() {
    need_python
    "$PY" - "$1" <<'EOF'
import random, socket, sys
n = int(sys.argv[1])
try:
    lo = int(open('/proc/sys/net/ipv4/ip_local_port_range').read().split()[0])
except Exception:
    lo = 32768
lo = max(lo, 12000)
cands = list(range(10000, lo)); random.shuffle(cands)
got, held = [], []
for p in cands:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind(('127.0.0.1', p))
    except OSError:
        s.close(); continue
    held.append(s); got.append(p)
    if len(got) == n:
        break
for s in held:
    s.close()
if len(got) < n:
    sys.exit("no free ports")
print(' '.join(map(str, got)))
EOF
}

# api_versions_ok PORT: the port answers a Kafka ApiVersions v0 request
# (over TLS on a secure cluster: Kafka answers it before SASL).
api_versions_ok() {
    "$PY" - "$1" "$SECURE" <<'EOF' 2>/dev/null
import socket, ssl, struct, sys
port = int(sys.argv[1])
cid = b'bp-harness'
body = struct.pack('>hhih', 18, 0, 7, len(cid)) + cid
try:
    s = socket.create_connection(('127.0.0.1', port), timeout=2)
    if sys.argv[2] == '1':
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        s = ctx.wrap_socket(s)
    s.settimeout(2)
    s.sendall(struct.pack('>i', len(body)) + body)
    buf = b''
    while len(buf) < 10:
        chunk = s.recv(4096)
        if not chunk:
            sys.exit(1)
        buf += chunk
    size, corr, err = struct.unpack('>iih', buf[:10])
    sys.exit(0 if corr == 7 and err == 0 else 1)
except Exception:
    sys.exit(1)
EOF
}

pid_alive() { [[ -n "${1:-}" ]] && kill -0 "$1" 2>/dev/null; }

# is_our_node PID DIR: PID is a kafka.Kafka JVM using a config under DIR
# (guards against signalling a recycled PID).
is_our_node() {
    local pid="$1" dir="$2" cmdline
    pid_alive "$pid" || return 1
    cmdline="$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null)" || return 1
    [[ "$cmdline" == *kafka.Kafka*"$dir/config/"* ]]
}

read_state() {   # sets NODES, PIDS[], BOOTSTRAP, BROKER_PORTS[], CONTROLLER_PORTS[]
    NODES=0 BOOTSTRAP="" BROKER_PORTS=() CONTROLLER_PORTS=()
    local dir="$1"
    [[ -f "$dir/cluster.env" ]] || die "no cluster in $dir (run: kafka.sh start --dir $dir)"
    # shellcheck disable=SC1091
    source "$dir/cluster.env"
    SECURE="${SECURE:-0}"
    PIDS=()
    if [[ -f "$dir/pids" ]]; then
        mapfile -t PIDS < "$dir/pids"
    fi
}

write_pids() {   # write_pids DIR : PIDS[] -> DIR/pids (line N = node N)
    local dir="$1" i tmp="$1/pids.tmp.$$"
    : > "$tmp"
    for ((i = 0; i < NODES; i++)); do
        echo "${PIDS[$i]:-0}" >> "$tmp"
    done
    mv "$tmp" "$dir/pids"
}

# signal_and_wait TIMEOUT PID...: SIGTERM, wait, then SIGKILL leftovers.
signal_and_wait() {
    local timeout="$1"; shift
    local p alive deadline
    [[ $# -gt 0 ]] || return 0
    kill -TERM "$@" 2>/dev/null || true
    deadline=$((SECONDS + timeout))
    while :; do
        alive=()
        for p in "$@"; do pid_alive "$p" && alive+=("$p"); done
        [[ ${#alive[@]} -eq 0 ]] && return 0
        if (( SECONDS >= deadline )); then
            log "still running after ${timeout}s, sending SIGKILL to ${alive[*]}"
            kill -KILL "${alive[@]}" 2>/dev/null || true
            for p in "${alive[@]}"; do
                while pid_alive "$p"; do sleep 0.1; done
            done
            return 0
        fi
        sleep 0.2
    done
}

write_log4j() {  # write_log4j DIR
    cat > "$1/config/log4j2.properties" <<'EOF'
# Broker logging: everything to ${kafka.logs.dir}/server.log
status = warn
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = ${sys:kafka.logs.dir}/server.log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = FILE
logger.request.name = kafka.request.logger
logger.request.level = WARN
logger.authorizer.name = kafka.authorizer.logger
logger.authorizer.level = WARN
EOF
    cat > "$1/config/tools-log4j2.properties" <<'EOF'
# Command-line tools: warnings and errors to stderr
status = warn
appender.err.type = Console
appender.err.name = STDERR
appender.err.target = SYSTEM_ERR
appender.err.layout.type = PatternLayout
appender.err.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.err.ref = STDERR
EOF
}

write_node_config() {  # write_node_config DIR N NODES VOTERS
    local dir="$1" n="$2" nodes="$3" voters="$4" rf isr
    local proto=PLAINTEXT cproto=PLAINTEXT
    if [[ "$nodes" -eq 1 ]]; then rf=1; isr=1; else rf=3; isr=2; fi
    if [[ $SECURE -eq 1 ]]; then proto=SASL_SSL; cproto=SASL_PLAINTEXT; fi
    cat > "$dir/config/node$n.properties" <<EOF
# generated by tests/broker/kafka.sh - node $n of $nodes
process.roles=broker,controller
node.id=$n
controller.quorum.voters=$voters
listeners=$proto://127.0.0.1:${BROKER_PORTS[$((n-1))]},CONTROLLER://127.0.0.1:${CONTROLLER_PORTS[$((n-1))]}
advertised.listeners=$proto://127.0.0.1:${BROKER_PORTS[$((n-1))]}
controller.listener.names=CONTROLLER
inter.broker.listener.name=$proto
listener.security.protocol.map=$proto:$proto,CONTROLLER:$cproto
log.dirs=$dir/data/node$n
num.partitions=1
auto.create.topics.enable=true
group.initial.rebalance.delay.ms=0
default.replication.factor=$rf
min.insync.replicas=$isr
offsets.topic.replication.factor=$rf
transaction.state.log.replication.factor=$rf
transaction.state.log.min.isr=$isr
share.coordinator.state.topic.replication.factor=$rf
share.coordinator.state.topic.min.isr=$isr
num.network.threads=2
num.io.threads=4
num.recovery.threads.per.data.dir=1
log.retention.check.interval.ms=300000
EOF
    if [[ $SECURE -eq 1 ]]; then
        secure_node_config "$dir" >> "$dir/config/node$n.properties"
    fi
    if [[ -n "${BP_KAFKA_EXTRA_CONFIG:-}" ]]; then
        printf '# from BP_KAFKA_EXTRA_CONFIG\n%s\n' "$BP_KAFKA_EXTRA_CONFIG" >> "$dir/config/node$n.properties"
    fi
}

# launch_node DIR N: start node N in the background; sets LAUNCHED_PID.
# (Not run in a $(...) subshell, so a signal trap can always see the PID.)
launch_node() {
    local dir="$1" n="$2" logs="$1/logs/node$2"
    mkdir -p "$logs"
    # keep the previous run's log for diagnosis, so readiness sees only new lines
    if [[ -f "$logs/server.log" ]]; then mv "$logs/server.log" "$logs/server.log.$(date +%s%N)"; fi
    # shellcheck disable=SC2086
    "$JAVA" $HEAP_OPTS -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
        -Dlog4j2.configurationFile="$dir/config/log4j2.properties" \
        -Dkafka.logs.dir="$logs" \
        -cp "$CACHE/*" kafka.Kafka "$dir/config/node$n.properties" \
        </dev/null >>"$logs/stdout.log" 2>&1 &
    LAUNCHED_PID=$!
}

show_log_tail() {  # show_log_tail DIR N
    local logs="$1/logs/node$2"
    log "---- last lines of $logs/server.log ----"
    grep -E '\] (ERROR|FATAL)|Exception' "$logs/server.log" 2>/dev/null | tail -n 10 >&2 || true
    tail -n 15 "$logs/server.log" >&2 2>/dev/null || true
    if [[ -s "$logs/stdout.log" ]]; then
        log "---- last lines of $logs/stdout.log ----"
        tail -n 15 "$logs/stdout.log" >&2
    fi
}

# wait_ready DIR TIMEOUT N...: until each node N is alive, logged
# "Kafka Server started" and answers ApiVersions on its broker port.
wait_ready() {
    local dir="$1" timeout="$2"; shift 2
    local deadline=$((SECONDS + timeout)) n pending
    pending=("$@")
    while [[ ${#pending[@]} -gt 0 ]]; do
        local still=()
        for n in "${pending[@]}"; do
            if ! pid_alive "${PIDS[$((n-1))]}"; then
                show_log_tail "$dir" "$n"
                log "node $n (pid ${PIDS[$((n-1))]}) exited during startup"
                return 1
            fi
            if grep -q 'Kafka Server started' "$dir/logs/node$n/server.log" 2>/dev/null \
                && api_versions_ok "${BROKER_PORTS[$((n-1))]}"; then
                log "node $n ready on 127.0.0.1:${BROKER_PORTS[$((n-1))]} (pid ${PIDS[$((n-1))]})"
            else
                still+=("$n")
            fi
        done
        pending=("${still[@]+"${still[@]}"}")
        [[ ${#pending[@]} -eq 0 ]] && break
        if (( SECONDS >= deadline )); then
            for n in "${pending[@]}"; do show_log_tail "$dir" "$n"; done
            log "timed out after ${timeout}s waiting for node(s) ${pending[*]}"
            return 1
        fi
        sleep 0.5
    done
}

parse_dir_opt() {  # sets DIR from --dir, leaves the rest in REST[]
    DIR="$DEFAULT_DIR"; REST=()
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --dir) [[ $# -ge 2 ]] || die "--dir needs a value"; DIR="$2"; shift 2 ;;
            --dir=*) DIR="${1#--dir=}"; shift ;;
            *) REST+=("$1"); shift ;;
        esac
    done
}

# ---------------------------------------------------------------- start --

STARTED_PIDS=()
START_OK=0
start_cleanup() {
    local rc=$?
    # $! covers a node launched just before a signal arrived (set +u: $!
    # is "unbound" while no background job was started)
    local last
    last="$(set +u; echo "$!")"
    if [[ -n "$last" ]] && is_our_node "$last" "$DIR" && [[ " ${STARTED_PIDS[*]-} " != *" $last "* ]]; then
        STARTED_PIDS+=("$last")
    fi
    if [[ $START_OK -ne 1 && ${#STARTED_PIDS[@]} -gt 0 ]]; then
        log "start failed; stopping the ${#STARTED_PIDS[@]} process(es) it started"
        signal_and_wait 10 "${STARTED_PIDS[@]}"
        rm -f "$DIR/pids" "$DIR/bootstrap"
    fi
    return $rc
}

cmd_start() {
    local nodes=1 i n
    DIR="$DEFAULT_DIR"
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --nodes) [[ $# -ge 2 ]] || die "--nodes needs a value"; nodes="$2"; shift 2 ;;
            --nodes=*) nodes="${1#--nodes=}"; shift ;;
            --dir) [[ $# -ge 2 ]] || die "--dir needs a value"; DIR="$2"; shift 2 ;;
            --dir=*) DIR="${1#--dir=}"; shift ;;
            --secure) SECURE=1; shift ;;
            *) die "start: unknown option '$1'" ;;
        esac
    done
    [[ "$nodes" == 1 || "$nodes" == 3 ]] || die "--nodes must be 1 or 3 (got '$nodes')"
    [[ $SECURE -eq 0 || "$nodes" == 1 ]] || die "--secure runs 1 node only"
    command -v "$JAVA" >/dev/null || die "java not found (set JAVA=/path/to/java)"
    need_python
    ensure_cache
    DIR="$(abs_dir "$DIR")"
    # from here on, any exit before success stops what this run started
    trap start_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM

    if [[ -f "$DIR/pids" ]]; then
        local p
        while read -r p; do
            if is_our_node "$p" "$DIR"; then
                die "a cluster is already running in $DIR (pid $p); run: kafka.sh stop --dir $DIR"
            fi
        done < "$DIR/pids"
    fi
    rm -rf "$DIR/config" "$DIR/data" "$DIR/logs" "$DIR/pids" "$DIR/bootstrap" "$DIR/cluster.env" "$DIR/secure"
    mkdir -p "$DIR/config" "$DIR/data" "$DIR/logs"
    local format_extra=()
    if [[ $SECURE -eq 1 ]]; then
        secure_prepare "$DIR"
        format_extra=("${SECURE_FORMAT_ARGS[@]}")
    fi

    local ports portlist
    portlist="$(free_ports $((2 * nodes)))" || die "could not find free ports"
    read -r -a ports <<< "$portlist"
    BROKER_PORTS=(); CONTROLLER_PORTS=()
    for ((i = 0; i < nodes; i++)); do
        BROKER_PORTS+=("${ports[$((2*i))]}")
        CONTROLLER_PORTS+=("${ports[$((2*i+1))]}")
    done
    local voters="" bootstrap=""
    for ((i = 1; i <= nodes; i++)); do
        voters+="${voters:+,}$i@127.0.0.1:${CONTROLLER_PORTS[$((i-1))]}"
        bootstrap+="${bootstrap:+,}127.0.0.1:${BROKER_PORTS[$((i-1))]}"
    done
    NODES="$nodes"
    local cluster_id
    cluster_id="$("$PY" -c 'import base64,uuid
while True:
    s = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
    if not s.startswith("-"): print(s); break')"

    write_log4j "$DIR"
    for ((n = 1; n <= nodes; n++)); do
        write_node_config "$DIR" "$n" "$nodes" "$voters"
        mkdir -p "$DIR/logs/node$n"
        if ! "$JAVA" -Xmx256m -Dlog4j2.configurationFile="$DIR/config/tools-log4j2.properties" \
                -cp "$CACHE/*" kafka.tools.StorageTool format -t "$cluster_id" \
                -c "$DIR/config/node$n.properties" "${format_extra[@]+"${format_extra[@]}"}" \
                >"$DIR/logs/node$n/format.log" 2>&1; then
            head -n 30 "$DIR/logs/node$n/format.log" >&2
            die "formatting storage of node $n failed (full output: $DIR/logs/node$n/format.log)"
        fi
    done
    {
        echo "NODES=$nodes"
        echo "CLUSTER_ID=$cluster_id"
        echo "BOOTSTRAP=$bootstrap"
        echo "BROKER_PORTS=(${BROKER_PORTS[*]})"
        echo "CONTROLLER_PORTS=(${CONTROLLER_PORTS[*]})"
        echo "KAFKA_VERSION=$KAFKA_VERSION"
        echo "SECURE=$SECURE"
    } > "$DIR/cluster.env"

    PIDS=()
    for ((n = 1; n <= nodes; n++)); do
        launch_node "$DIR" "$n"
        PIDS[n-1]="$LAUNCHED_PID"
        STARTED_PIDS+=("$LAUNCHED_PID")
        write_pids "$DIR"
    done
    log "started $nodes node(s) (pids ${PIDS[*]}), waiting up to ${START_TIMEOUT}s ..."
    local t0=$SECONDS
    local nlist=(); for ((n = 1; n <= nodes; n++)); do nlist+=("$n"); done
    wait_ready "$DIR" "$START_TIMEOUT" "${nlist[@]}" || die "cluster in $DIR did not become ready (logs: $DIR/logs)"
    if [[ $SECURE -eq 1 ]]; then
        secure_after_start "$DIR" "$bootstrap" || die "setting up the secure cluster's clients failed"
    fi
    echo "$bootstrap" > "$DIR/bootstrap"
    START_OK=1
    trap - EXIT INT TERM
    log "cluster ready in $((SECONDS - t0))s; logs in $DIR/logs"
    echo "$bootstrap"
}

# ----------------------------------------------------------------- stop --

cmd_stop() {
    parse_dir_opt "$@"
    [[ ${#REST[@]} -eq 0 ]] || die "stop: unknown argument '${REST[0]}'"
    if [[ ! -d "$DIR" ]]; then log "nothing to stop: $DIR does not exist"; return 0; fi
    DIR="$(cd "$DIR" && pwd)"
    if [[ ! -f "$DIR/pids" ]]; then log "nothing to stop in $DIR (no pids file)"; return 0; fi
    local p ours=()
    while read -r p; do
        [[ -n "$p" && "$p" != 0 ]] || continue
        if is_our_node "$p" "$DIR"; then
            ours+=("$p")
        elif pid_alive "$p"; then
            log "pid $p is alive but is not a kafka node of $DIR; leaving it alone"
        fi
    done < "$DIR/pids"
    if [[ ${#ours[@]} -gt 0 ]]; then
        log "stopping pid(s) ${ours[*]} ..."
        signal_and_wait "$STOP_TIMEOUT" "${ours[@]}"
    fi
    rm -f "$DIR/pids" "$DIR/bootstrap"
    log "stopped (logs kept in $DIR/logs)"
}

# --------------------------------------------------- kill / restart node --

node_arg() {  # node_arg ARGS... -> sets NODE, DIR
    parse_dir_opt "$@"
    [[ ${#REST[@]} -eq 1 ]] || die "expected exactly one node number"
    NODE="${REST[0]}"
    [[ "$NODE" =~ ^[0-9]+$ ]] || die "node number must be an integer (got '$NODE')"
    [[ -d "$DIR" ]] || die "$DIR does not exist"
    DIR="$(cd "$DIR" && pwd)"
    read_state "$DIR"
    (( NODE >= 1 && NODE <= NODES )) || die "node $NODE out of range 1..$NODES"
}

cmd_kill_node() {
    node_arg "$@"
    local p="${PIDS[$((NODE-1))]:-}"
    if ! is_our_node "$p" "$DIR"; then
        log "node $NODE is not running"
        return 0
    fi
    kill -KILL "$p"
    while pid_alive "$p"; do sleep 0.1; done
    log "node $NODE (pid $p) killed"
}

restart_cleanup() {
    local rc=$? last
    last="$(set +u; echo "$!")"
    if [[ $RESTART_OK -ne 1 ]] && [[ -n "$last" ]] && is_our_node "$last" "$DIR"; then
        log "restart of node $NODE failed; stopping pid $last"
        signal_and_wait 10 "$last"
    fi
    return $rc
}

cmd_restart_node() {
    node_arg "$@"
    local p="${PIDS[$((NODE-1))]:-}"
    if is_our_node "$p" "$DIR"; then
        die "node $NODE is still running (pid $p); kill-node it first"
    fi
    ensure_cache
    RESTART_OK=0
    trap restart_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    launch_node "$DIR" "$NODE"
    p="$LAUNCHED_PID"
    PIDS[NODE-1]="$p"
    write_pids "$DIR"
    wait_ready "$DIR" "$START_TIMEOUT" "$NODE" \
        || die "node $NODE did not come back (logs: $DIR/logs/node$NODE)"
    RESTART_OK=1
    trap - EXIT INT TERM
    # After `stop`, the nodes can be brought back one by one with their
    # data: the bootstrap file returns once every node runs again.
    if [[ ! -f "$DIR/bootstrap" ]]; then
        local n up=0
        for ((n = 1; n <= NODES; n++)); do
            is_our_node "${PIDS[$((n-1))]:-}" "$DIR" && up=$((up+1))
        done
        [[ $up -eq $NODES ]] && echo "$BOOTSTRAP" > "$DIR/bootstrap"
    fi
    return 0
}

# --------------------------------------------------------------- status --

cmd_status() {
    parse_dir_opt "$@"
    [[ -d "$DIR" && -f "$DIR/cluster.env" ]] || { echo "no cluster in $DIR"; return 1; }
    DIR="$(cd "$DIR" && pwd)"
    read_state "$DIR"
    local n p up=0 state
    echo "dir: $DIR  kafka: ${KAFKA_VERSION}  bootstrap: ${BOOTSTRAP}"
    for ((n = 1; n <= NODES; n++)); do
        p="${PIDS[$((n-1))]:-}"
        if is_our_node "$p" "$DIR"; then state=running; up=$((up+1)); else state=down; fi
        echo "node $n: $state pid=${p:--} broker=127.0.0.1:${BROKER_PORTS[$((n-1))]} controller=127.0.0.1:${CONTROLLER_PORTS[$((n-1))]}"
    done
    [[ $up -eq $NODES ]]
}

cmd_bootstrap() {
    parse_dir_opt "$@"
    [[ -f "$DIR/bootstrap" ]] || die "no running cluster in $DIR"
    cat "$DIR/bootstrap"
}

# ------------------------------------------------------------ tools --

run_tool() {  # run_tool DIR CLASS ARGS...
    local dir="$1" cls="$2"; shift 2
    ensure_cache
    local l4j=()
    if [[ -f "$dir/config/tools-log4j2.properties" ]]; then
        l4j=(-Dlog4j2.configurationFile="$dir/config/tools-log4j2.properties")
    fi
    exec "$JAVA" -Xmx256m "${l4j[@]+"${l4j[@]}"}" -cp "$CACHE/*" "$cls" "$@"
}

cmd_topics() {
    parse_dir_opt "$@"
    local args=("${REST[@]+"${REST[@]}"}") a have_bs=0
    for a in "${args[@]+"${args[@]}"}"; do
        [[ "$a" == --bootstrap-server* ]] && have_bs=1
    done
    if [[ $have_bs -eq 0 ]]; then
        [[ -f "$DIR/bootstrap" ]] || die "no running cluster in $DIR (or pass --bootstrap-server)"
        args=(--bootstrap-server "$(cat "$DIR/bootstrap")" "${args[@]+"${args[@]}"}")
        if [[ -f "$DIR/secure/admin.java.properties" ]]; then
            args+=(--command-config "$DIR/secure/admin.java.properties")
        fi
    fi
    run_tool "$DIR" org.apache.kafka.tools.TopicCommand "${args[@]}"
}

cmd_tool() {
    parse_dir_opt "$@"
    [[ ${#REST[@]} -ge 1 ]] || die "tool: missing CLASS"
    run_tool "$DIR" "${REST[@]}"
}

# ----------------------------------------------------------------- main --

[[ $# -ge 1 ]] || { usage; exit 2; }
cmd="$1"; shift
case "$cmd" in
    fetch)        [[ $# -eq 0 ]] || die "fetch takes no arguments"; cmd_fetch ;;
    start)        cmd_start "$@" ;;
    stop)         cmd_stop "$@" ;;
    kill-node)    cmd_kill_node "$@" ;;
    restart-node) cmd_restart_node "$@" ;;
    status)       cmd_status "$@" ;;
    bootstrap)    cmd_bootstrap "$@" ;;
    topics)       cmd_topics "$@" ;;
    tool)         cmd_tool "$@" ;;
    acl)          cmd_acl "$@" ;;
    classpath)    ensure_cache; echo "$CACHE/*" ;;
    help|-h|--help) usage ;;
    *) usage; die "unknown command '$cmd'" ;;
esac
