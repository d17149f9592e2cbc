#!/usr/bin/env bash
# Issue 8's whole-server targets, measured end to end against `kacl serve` on loopback with
# `kacl perf acls`; every figure lands as JSON or text in $OUT (default bench-out/), which
# scripts/plot_describe.py turns into docs/describe-latency.svg.
#
#   cargo build --release -p kacl
#   scripts/bench_whole_server.sh            # KACL=path/to/kacl OUT=dir to override
#
# Steps (each server gets a fresh temporary data dir and an OS-chosen port):
#  1. server A: load 2,000,000 ACLs (AuthorizerBenchmark shape) in CreateAcls requests of 1,000
#     over 1 connection, then over 2 connections for the second million;
#  2. server A: describe by principal (64 connections), describe by resource (64), full
#     describe (1 connection: as bindings, as kacl-client's AclGroups (--grouped), --phases);
#  0. the disk's fsync latency (scripts/fsync_probe.py), the floor under a durable create;
#  3. server A: restart with 2M ACLs: SIGKILL, start again, time until ApiVersions answers;
#     VmRSS once serving: from the store (snapshot removed), from the snapshot the server
#     wrote while serving (SIGKILL after its "wrote the ACL snapshot while serving"), and after
#     a clean SIGTERM stop (which writes the snapshot too);
#  6. durable create at 4 and 8 connections (group commit), each on a fresh server, 200,000
#     ACLs in requests of 1,000 (1 and 2 connections are step 1).
#  4. server B: the plot series: load in steps to 10k, 100k, 500k, 1M, 2M, and at each step
#     full describe and describe by principal on one connection;
#  5. server B: 10,000 idle connections (scripts/perf_probe.py idle), server VmRSS before and
#     after;
#  7. with A=<the build before> set: scripts/quiet_issue19.sh, issue 19's A/B figures (with
#     STREAM=1 also the broker-against-broker client runs of scripts/ab_client_stream.sh).
set -euo pipefail

cd "$(dirname "$0")/.."
KACL=${KACL:-${CARGO_TARGET_DIR:-target}/release/kacl}
OUT=${OUT:-bench-out}
PROBE="python3 scripts/perf_probe.py"
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/kacl-bench.XXXXXX)
SERVER_PID=
ADDR=

ulimit -n 20000

log() { echo "[$(date +%T)] $*" | tee -a "$OUT/log.txt" >&2; }

# start_server DATA_DIR NAME [PORT]: starts kacl serve, sets SERVER_PID and ADDR.
start_server() {
    local dir=$1 name=$2 port=${3:-0}
    mkdir -p "$dir"
    "$KACL" serve --override "listeners=PLAINTEXT://127.0.0.1:$port" \
        --override "metadata.log.dir=$dir" >"$WORK/$name.out" 2>>"$WORK/$name.err" &
    SERVER_PID=$!
    for _ in $(seq 1 6000); do
        if grep -q '^listening' "$WORK/$name.out" 2>/dev/null; then break; fi
        sleep 0.01
    done
    ADDR=$(sed -n 's#^listening PLAINTEXT://##p' "$WORK/$name.out" | head -1)
    [ -n "$ADDR" ] || { log "server $name did not start"; cat "$WORK/$name.err" >&2; exit 1; }
}

stop_server() {
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
}
trap 'stop_server; rm -rf "$WORK"' EXIT

rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
hwm_kib() { awk '/^VmHWM/ {print $2}' "/proc/$1/status"; }
perf() { "$KACL" perf acls --bootstrap-server "$ADDR" "$@"; }
machine() {
    echo "model: $(lscpu | sed -n 's/^Model name: *//p')"
    echo "cpus: $(nproc)"
    echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
}

machine >"$OUT/machine.txt"
log "machine: $(tr '\n' ' ' <"$OUT/machine.txt")"

# 0. fsync latency of the disk the data dirs are on.
python3 scripts/fsync_probe.py "$WORK" --count 500 | tee "$OUT/fsync.txt" >&2

# 1. Durable create.
start_server "$WORK/a" a
log "server A at $ADDR"
log "load 0..1M, 1 connection, batches of 1000 (load $(cut -d' ' -f1 /proc/loadavg))"
perf --workload load --acls 1000000 --batch-size 1000 --connections 1 --output json >"$OUT/load-1conn.json"
log "load 1M..2M, 2 connections (load $(cut -d' ' -f1 /proc/loadavg))"
perf --workload load --start 1000000 --acls 2000000 --batch-size 1000 --connections 2 \
    --output json >"$OUT/load-2conn.json"
echo "$(rss_kib "$SERVER_PID")" >"$OUT/rss-after-load-kib.txt"

# 2. Reads at 2M.
log "describe-principal, 64 connections (load $(cut -d' ' -f1 /proc/loadavg))"
perf --workload describe-principal --acls 2000000 --connections 64 --warmup 3s --duration 20s \
    --output json >"$OUT/describe-principal-64.json"
log "describe-resource, 64 connections (load $(cut -d' ' -f1 /proc/loadavg))"
perf --workload describe-resource --acls 2000000 --connections 64 --warmup 3s --duration 20s \
    --output json >"$OUT/describe-resource-64.json"
for workload in describe-principal describe-resource; do
    log "$workload, 64 connections, --in-flight 5 (load $(cut -d' ' -f1 /proc/loadavg))"
    perf --workload "$workload" --acls 2000000 --connections 64 --in-flight 5 --warmup 3s \
        --duration 20s --output json >"$OUT/$workload-64-inflight5.json"
done
log "describe-all, 1 connection (load $(cut -d' ' -f1 /proc/loadavg))"
perf --workload describe-all --acls 2000000 --connections 1 --duration 20s \
    --output json >"$OUT/describe-all-2m.json"
log "describe-all --grouped, 1 connection (load $(cut -d' ' -f1 /proc/loadavg))"
perf --workload describe-all --acls 2000000 --connections 1 --duration 20s --grouped \
    --output json >"$OUT/describe-all-2m-grouped.json"
log "describe-all --phases (load $(cut -d' ' -f1 /proc/loadavg))"
perf --workload describe-all --acls 2000000 --connections 1 --duration 20s --phases \
    --output json >"$OUT/describe-all-2m-phases.json"
echo "$(cut -d' ' -f1-3 /proc/loadavg)" >"$OUT/load-after-reads.txt"

# 3. Restart with 2M ACLs.
# restart SIGNAL NAME [store|live]: store removes the snapshot first; live waits for the one
# written while serving before the signal.
restart() {
    local how=$1 name=$2 from=${3:-} port=${ADDR##*:}
    local pid=$SERVER_PID
    if [ "$from" = live ]; then
        for _ in $(seq 1 600); do
            grep -q 'wrote the ACL snapshot while serving' "$WORK"/a*.err 2>/dev/null && break
            sleep 0.1
        done
    fi
    kill "-$how" "$pid"
    wait "$pid" 2>/dev/null || true
    SERVER_PID=
    [ "$from" = store ] && rm -f "$WORK/a/acls.snapshot"
    local loadavg start ready
    loadavg=$(cut -d' ' -f1 /proc/loadavg)
    start=$(date +%s%N)
    start_server "$WORK/a" "a-$name" "$port"
    $PROBE ready "$ADDR" --timeout 120 >/dev/null
    ready=$(date +%s%N)
    local ms=$(( (ready - start) / 1000000 ))
    local rss hwm
    rss=$(rss_kib "$SERVER_PID")
    hwm=$(hwm_kib "$SERVER_PID")
    local loaded
    loaded=$(grep -o 'loaded metadata.*' "$WORK/a-$name.err" | tail -1 | sed 's/\x1b\[[0-9;]*m//g' || true)
    log "restart $name: serving after $ms ms, VmRSS $rss KiB (peak $hwm), load $loadavg; $loaded"
    echo "{\"signal\": \"$how\", \"ready_ms\": $ms, \"vmrss_kib\": $rss, \"vmhwm_kib\": $hwm, \"load\": $loadavg, \"log\": \"${loaded//\"/}\"}" \
        >"$OUT/restart-$name.json"
}
restart KILL KILL-store store
restart KILL KILL-live live
restart TERM TERM
perf --workload describe-all --acls 2000000 --duration 3s --output json >"$OUT/describe-all-after-restart.json"
echo "$(rss_kib "$SERVER_PID")" >"$OUT/rss-after-restart-and-describe-kib.txt"
stop_server

# 4. The plot series.
start_server "$WORK/b" b
log "server B at $ADDR"
previous=0
for n in 10000 100000 500000 1000000 2000000; do
    perf --workload load --start "$previous" --acls "$n" --connections 2 --output json \
        >"$OUT/series-load-$n.json"
    previous=$n
    log "series $n: describe-all (load $(cut -d' ' -f1 /proc/loadavg))"
    perf --workload describe-all --acls "$n" --duration 10s --output json >"$OUT/series-all-$n.json"
    perf --workload describe-principal --acls "$n" --duration 5s --output json \
        >"$OUT/series-principal-$n.json"
done

# 5. Idle connections.
before=$(rss_kib "$SERVER_PID")
$PROBE idle "$ADDR" 10000 --hold 20 >"$WORK/idle.out" &
idle_pid=$!
for _ in $(seq 1 1200); do
    if grep -q holding "$WORK/idle.out" 2>/dev/null; then break; fi
    sleep 0.1
done
sleep 2
held=$(rss_kib "$SERVER_PID")
fds=$(ls "/proc/$SERVER_PID/fd" | wc -l)
wait "$idle_pid"
log "idle: $(tr '\n' ' ' <"$WORK/idle.out"); server VmRSS $before -> $held KiB, $fds fds"
echo "{\"connections\": 10000, \"rss_before_kib\": $before, \"rss_held_kib\": $held, \"server_fds\": $fds, \"probe\": \"$(tr '\n' ' ' <"$WORK/idle.out")\"}" \
    >"$OUT/idle.json"
stop_server

# 6. Durable create with more connections (group commit).
for conns in 4 8; do
    start_server "$WORK/c$conns" "c$conns"
    log "load 0..200k, $conns connections (load $(cut -d' ' -f1 /proc/loadavg))"
    perf --workload load --acls 200000 --batch-size 1000 --connections "$conns" --output json \
        >"$OUT/load-${conns}conn.json"
    stop_server
    rm -rf "$WORK/c$conns"
done

# 7. With A=<the build before>: issue 19's A/B figures (scripts/quiet_issue19.sh: describes at
#    64 connections one at a time and pipelined, restarts, the codec bench if CODEC_BENCH is
#    set, the latency plot).
if [ -n "${A:-}" ]; then
    log "issue 19 A/B against $A (load $(cut -d' ' -f1 /proc/loadavg))"
    A=$A B=$KACL OUT=$OUT/issue19 scripts/quiet_issue19.sh
fi

machine >"$OUT/machine-end.txt"
log "done; results in $OUT"
