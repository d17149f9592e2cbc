#!/usr/bin/env bash
# A node joining a loaded etcd cluster (issue 16), the short form of bench_cluster.sh's step 5:
# a fresh one-member etcd with bench_cluster.sh's flags and node A (node.id 1); $ACLS ACLs
# loaded through A in requests of 10,000 on 4 connections (that rate is printed too); then
# node C (node.id 3, binary $KACL) starts and is timed until it answers ApiVersions (it
# listens once its initial load is done), with its VmRSS and VmHWM. $JOINS joins in a row
# (each stopped before the next). One JSON line per join in $OUT/join.jsonl.
#
#   KACL=target/release/kacl ACLS=2000000 JOINS=2 scripts/bench_etcd_join.sh
set -euo pipefail

cd "$(dirname "$0")/.."
KACL=${KACL:-${CARGO_TARGET_DIR:-target}/release/kacl}
ACLS=${ACLS:-2000000}
JOINS=${JOINS:-1}
OUT=${OUT:-bench-etcd-join-out}
PROBE="python3 scripts/perf_probe.py"
ETCD_FLAGS=(--max-txn-ops 10100 --max-request-bytes 10485760 --quota-backend-bytes 8589934592
    --snapshot-count 100000)
export RUST_LOG=${RUST_LOG:-warn}
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/kacl-bench-etcd-join.XXXXXX)
PIDS=()
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$WORK"' EXIT
command -v etcd >/dev/null || { echo "etcd not installed (apt-get install etcd-server)" >&2; exit 1; }

client=$(free_port); peer=$(free_port)
etcd --name e0 --data-dir "$WORK/etcd" \
    --listen-client-urls "http://127.0.0.1:$client" --advertise-client-urls "http://127.0.0.1:$client" \
    --listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
    --initial-cluster "e0=http://127.0.0.1:$peer" --initial-cluster-state new "${ETCD_FLAGS[@]}" \
    >"$WORK/etcd.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 200); do
    curl -s -X POST "http://127.0.0.1:$client/v3/kv/range" -d '{"key":"eA=="}' | grep -q header && break
    sleep 0.1
done
# node NAME ID PORT: starts a cluster node; sets NODE_PID.
node() {
    "$KACL" serve --override "node.id=$2" --override "listeners=PLAINTEXT://127.0.0.1:$3" \
        --override "metadata.log.dir=$WORK/$1" --override kacl.metadata.store=etcd \
        --override "kacl.etcd.endpoints=http://127.0.0.1:$client" \
        --override kacl.etcd.request.timeout.ms=60000 >"$WORK/$1.log" 2>&1 &
    NODE_PID=$!
    PIDS+=("$NODE_PID")
}
PORT_A=$(free_port)
node a 1 "$PORT_A"
$PROBE ready "127.0.0.1:$PORT_A" --timeout 120 >/dev/null
echo "loading $ACLS ACLs through A (load $(cut -d' ' -f1 /proc/loadavg))"
"$KACL" perf acls --bootstrap-server "127.0.0.1:$PORT_A" --workload load --acls "$ACLS" \
    --batch-size 10000 --connections 4 --output json >"$OUT/load.json"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); o=r["operations"][0]; print("load: %.0f ACLs/s, %d errors, %.1f s" % (o["acls_per_s"], o["errors"], r["elapsed_s"]))' "$OUT/load.json" | tee "$OUT/load.txt"
for i in $(seq "$JOINS"); do
    port=$(free_port)
    load=$(cut -d' ' -f1 /proc/loadavg)
    start=$(date +%s%N)
    node "c$i" 3 "$port"
    $PROBE ready "127.0.0.1:$port" --timeout 600 >/dev/null
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    echo "{\"binary\": \"$KACL\", \"acls\": $ACLS, \"ready_ms\": $ms, \"vmrss_kib\": $(awk '/^VmRSS/ {print $2}' /proc/$NODE_PID/status), \"vmhwm_kib\": $(awk '/^VmHWM/ {print $2}' /proc/$NODE_PID/status), \"load_before\": $load}" \
        | tee -a "$OUT/join.jsonl"
    kill "$NODE_PID"; wait "$NODE_PID" 2>/dev/null || true
    sleep 12  # its lease (kacl.etcd.lease.ttl.ms, 10 s) frees node.id 3 for the next join
done
