#!/usr/bin/env bash
# Issue 16's cluster-mode figures, each beside the single-node (redb) figure of the same run:
# etcd and `kacl serve` nodes on free loopback ports, driven by `kacl perf acls`. Every figure
# lands as JSON or text in $OUT (default bench-cluster-out/).
#
#   cargo build --release --bin kacl
#   scripts/bench_cluster.sh       # KACL=path/to/kacl OUT=dir ACLS=2000000 ETCD_MEMBERS=1
#                                  # KACL_BEFORE=older kacl, for the join A/B
#
# Steps:
#  1. etcd ($ETCD_MEMBERS members, flags in ETCD_FLAGS), cluster nodes A (node.id 1) and B (2),
#     single node S (redb);
#  2. propagation: 500 CreateAcls of one ACL on A, each until B's DescribeAcls shows it;
#  3. durable create in requests of 1,000: $ACLS ACLs over 4 connections bootstrapping from A
#     (kacl-client sends CreateAcls to the controller); the same load into S;
#  4. propagation again, with $ACLS ACLs in etcd;
#  5. a node joining the cluster (node.id 3, then KACL_BEFORE as node.id 4 if set): time from
#     its start until it answers ApiVersions (it listens once its initial load is done), its
#     VmRSS and VmHWM;
#  6. describe by principal and by resource (64 connections) on the joined node and on S;
#  7. etcd: db size as written, after compaction to the current revision, after defrag;
#     etcd's VmRSS.
set -euo pipefail

cd "$(dirname "$0")/.."
KACL=${KACL:-${CARGO_TARGET_DIR:-target}/release/kacl}
KACL_BEFORE=${KACL_BEFORE:-}
OUT=${OUT:-bench-cluster-out}
ACLS=${ACLS:-2000000}
ETCD_MEMBERS=${ETCD_MEMBERS:-1}
PROBE="python3 scripts/perf_probe.py"
ETCD_FLAGS=(--max-txn-ops 10100 --max-request-bytes 10485760 --quota-backend-bytes 8589934592
    --snapshot-count 100000)
# Per-ACL INFO lines (the authorizer's "added ACL") off on every server alike.
export RUST_LOG=${RUST_LOG:-warn,kacl_store_etcd=info}
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/kacl-bench-cluster.XXXXXX)
PIDS=()

log() { echo "[$(date +%T)] $*" | tee -a "$OUT/log.txt" >&2; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
load1() { cut -d' ' -f1 /proc/loadavg; }
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
command -v etcd >/dev/null || { echo "etcd not installed (apt-get install etcd-server)" >&2; exit 1; }

{
    echo "model: $(lscpu | sed -n 's/^Model name: *//p')"
    echo "cpus: $(nproc)"
    echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "etcd: $(etcd --version | tr '\n' ' ')"
    echo "etcd members: $ETCD_MEMBERS, flags: ${ETCD_FLAGS[*]}"
    echo "kacl: $KACL ($(git rev-parse --short HEAD))"
} >"$OUT/machine.txt"
log "$(tr '\n' ';' <"$OUT/machine.txt")"

# 1. etcd.
initial="" clients=() peers=()
for i in $(seq 0 $((ETCD_MEMBERS - 1))); do
    clients[$i]=$(free_port); peers[$i]=$(free_port)
    initial+="e$i=http://127.0.0.1:${peers[$i]},"
done
initial=${initial%,}
ENDPOINTS=""
for i in $(seq 0 $((ETCD_MEMBERS - 1))); do
    etcd --name "e$i" --data-dir "$WORK/e$i" \
        --listen-client-urls "http://127.0.0.1:${clients[$i]}" \
        --advertise-client-urls "http://127.0.0.1:${clients[$i]}" \
        --listen-peer-urls "http://127.0.0.1:${peers[$i]}" \
        --initial-advertise-peer-urls "http://127.0.0.1:${peers[$i]}" \
        --initial-cluster "$initial" --initial-cluster-state new "${ETCD_FLAGS[@]}" \
        >"$WORK/e$i.log" 2>&1 &
    PIDS+=($!)
    ENDPOINTS+="http://127.0.0.1:${clients[$i]},"
done
ENDPOINTS=${ENDPOINTS%,}
ETCD_PID=${PIDS[0]}
ETCD0="http://127.0.0.1:${clients[0]}"
etcd_call() { curl -s -X POST "$ETCD0$1" -d "$2"; }
for _ in $(seq 200); do etcd_call /v3/kv/range '{"key":"eA=="}' | grep -q header && break; sleep 0.1; done

# start_node NAME NODE_ID PORT [BINARY]: a cluster node; sets NODE_PID.
start_node() {
    local name=$1 id=$2 port=$3 bin=${4:-$KACL}
    "$bin" serve --override "node.id=$id" --override "listeners=PLAINTEXT://127.0.0.1:$port" \
        --override "metadata.log.dir=$WORK/$name" --override kacl.metadata.store=etcd \
        --override "kacl.etcd.endpoints=$ENDPOINTS" --override kacl.etcd.request.timeout.ms=60000 \
        >"$WORK/$name.out" 2>"$WORK/$name.err" &
    NODE_PID=$!
    PIDS+=("$NODE_PID")
}
PORT_A=$(free_port); PORT_B=$(free_port); PORT_S=$(free_port)
start_node a 1 "$PORT_A"; PID_A=$NODE_PID
start_node b 2 "$PORT_B"; PID_B=$NODE_PID
"$KACL" serve --override "listeners=PLAINTEXT://127.0.0.1:$PORT_S" \
    --override "metadata.log.dir=$WORK/s" >"$WORK/s.out" 2>"$WORK/s.err" &
PID_S=$!; PIDS+=("$PID_S")
A=127.0.0.1:$PORT_A B=127.0.0.1:$PORT_B S=127.0.0.1:$PORT_S
for addr in "$A" "$B" "$S"; do $PROBE ready "$addr" --timeout 120 >/dev/null; done
log "etcd $ENDPOINTS; A $A, B $B (cluster), S $S (single node)"
perf() { local addr=$1; shift; "$KACL" perf acls --bootstrap-server "$addr" "$@"; }

# 2. Propagation, empty cluster.
log "propagation A -> B, 500 samples (load $(load1))"
perf "$A" --workload propagation --observer "$B" --samples 500 --output json >"$OUT/propagation-empty.json"

# 3. Durable create.
# kacl-client sends CreateAcls to the controller (Metadata's controller id), whichever node
# it bootstraps from: one node commits the whole load, one request at a time per node.
log "load 0..$ACLS bootstrapping from A, 4 connections (load $(load1))"
perf "$A" --workload load --acls "$ACLS" --batch-size 1000 --connections 4 --output json \
    >"$OUT/load-cluster.json"
log "single node: load 0..$ACLS, 4 connections (load $(load1))"
perf "$S" --workload load --acls "$ACLS" --batch-size 1000 --connections 4 --output json \
    >"$OUT/load-single.json"

# 4. Propagation at $ACLS.
log "propagation A -> B with $ACLS ACLs (load $(load1))"
perf "$A" --workload propagation --observer "$B" --samples 500 --output json >"$OUT/propagation-full.json"

# 5. Joining nodes.
join() {
    local name=$1 id=$2 bin=$3 port start ms
    port=$(free_port)
    start=$(date +%s%N)
    start_node "$name" "$id" "$port" "$bin"
    $PROBE ready "127.0.0.1:$port" --timeout 300 >/dev/null
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    sleep 1
    echo "{\"node\": \"$name\", \"binary\": \"$bin\", \"ready_ms\": $ms, \"vmrss_kib\": $(awk '/^VmRSS/ {print $2}' /proc/$NODE_PID/status), \"vmhwm_kib\": $(awk '/^VmHWM/ {print $2}' /proc/$NODE_PID/status), \"load\": $(load1)}" \
        >"$OUT/join-$name.json"
    log "joined $name: $(cat "$OUT/join-$name.json")"
    JOINED=127.0.0.1:$port
}
join c 3 "$KACL"; C=$JOINED
if [ -n "$KACL_BEFORE" ]; then join before 4 "$KACL_BEFORE"; fi
echo "{\"a\": $(awk '/^VmRSS/ {print $2}' /proc/$PID_A/status), \"s\": $(awk '/^VmRSS/ {print $2}' /proc/$PID_S/status)}" >"$OUT/rss-nodes-kib.json"

# 6. Reads at $ACLS: the joined node C against the single node S, back to back.
for w in describe-principal describe-resource; do
    for target in c s; do
        addr=$C; [ "$target" = s ] && addr=$S
        log "$w on $target, 64 connections (load $(load1))"
        perf "$addr" --workload "$w" --acls "$ACLS" --connections 64 --warmup 3s --duration 15s \
            --output json >"$OUT/$w-$target.json"
    done
done

# 7. etcd disk and memory.
status() { etcd_call /v3/maintenance/status '{}'; }
echo "{\"as_written\": $(status), \"etcd_vmrss_kib\": $(awk '/^VmRSS/ {print $2}' /proc/$ETCD_PID/status)}" >"$OUT/etcd-written.json"
rev=$(status | python3 -c 'import json,sys; print(json.load(sys.stdin)["header"]["revision"])')
etcd_call /v3/kv/compaction "{\"revision\": \"$rev\", \"physical\": true}" >/dev/null
echo "{\"compacted\": $(status)}" >"$OUT/etcd-compacted.json"
for i in $(seq 0 $((ETCD_MEMBERS - 1))); do
    curl -s -X POST "http://127.0.0.1:${clients[$i]}/v3/maintenance/defragment" -d '{}' >/dev/null
done
echo "{\"defragmented\": $(status), \"etcd_vmrss_kib\": $(awk '/^VmRSS/ {print $2}' /proc/$ETCD_PID/status), \"acls\": $ACLS}" >"$OUT/etcd-defrag.json"
du -sk "$WORK/e0" | cut -f1 >"$OUT/etcd-dir-kib.txt"
du -sk "$WORK/s" | cut -f1 >"$OUT/redb-dir-kib.txt"
log "done (load $(load1)); figures in $OUT"
