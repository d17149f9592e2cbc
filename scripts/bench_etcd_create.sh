#!/usr/bin/env bash
# Durable create through etcd (issue 16), binaries A and B side by side: for each binary in
# turn (A, B, A, B, ... for $ROUNDS rounds) a fresh one-member etcd with bench_cluster.sh's
# flags and one cluster node; then `kacl perf acls --workload load` of $ACLS ACLs for each of
# four cases, requests of 1,000 and 10,000 on 1 and 4 connections, each case on the next
# fresh range of the data set (--start). Around each load, etcd's CPU time (utime + stime from
# /proc/<etcd pid>/stat) and the node's; printed per 1,000 ACLs (one 1,000-put transaction's
# worth). One JSON line per case in $OUT/results.jsonl; a table on stdout.
#
#   KACL_A=/root/bin/kacl-869a300 KACL_B=target/release/kacl ACLS=100000 ROUNDS=1 \
#       scripts/bench_etcd_create.sh
#   KACL_A=- KACL_B=... ACLS=2000000 CASES=1000x4 scripts/bench_etcd_create.sh   # B alone
set -euo pipefail

cd "$(dirname "$0")/.."
KACL_A=${KACL_A:?the "before" binary}
KACL_B=${KACL_B:?the "after" binary}
ACLS=${ACLS:-100000}
ROUNDS=${ROUNDS:-1}
CASES=${CASES:-"1000x1 1000x4 10000x1 10000x4"}
OUT=${OUT:-bench-etcd-create-out}
PROBE="python3 scripts/perf_probe.py"
ETCD_FLAGS=(--max-txn-ops 10100 --max-request-bytes 10485760 --quota-backend-bytes 8589934592
    --snapshot-count 100000)
export RUST_LOG=${RUST_LOG:-warn}
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/kacl-bench-etcd-create.XXXXXX)
PIDS=()
TICK=$(getconf CLK_TCK)

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cpu_ms() { awk -v t="$TICK" '{print int(($14 + $15) * 1000 / t)}' "/proc/$1/stat"; }
stop_all() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    PIDS=()
}
trap 'stop_all; rm -rf "$WORK"' EXIT
command -v etcd >/dev/null || { echo "etcd not installed (apt-get install etcd-server)" >&2; exit 1; }
echo "machine: $(nproc) cpus, $(lscpu | sed -n 's/^Model name: *//p'); etcd $(etcd --version | sed -n 1p)" | tee "$OUT/machine.txt"

# session LABEL BINARY: one fresh etcd and node, every case.
session() {
    local label=$1 bin=$2 dir client peer node etcd_pid node_pid start=0
    dir=$WORK/$label-$(date +%s%N)
    client=$(free_port); peer=$(free_port); node=$(free_port)
    etcd --name e0 --data-dir "$dir/etcd" \
        --listen-client-urls "http://127.0.0.1:$client" --advertise-client-urls "http://127.0.0.1:$client" \
        --listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
        --initial-cluster "e0=http://127.0.0.1:$peer" --initial-cluster-state new "${ETCD_FLAGS[@]}" \
        >"$dir.etcd.log" 2>&1 &
    etcd_pid=$!; PIDS+=("$etcd_pid")
    for _ in $(seq 200); do
        curl -s -X POST "http://127.0.0.1:$client/v3/kv/range" -d '{"key":"eA=="}' | grep -q header && break
        sleep 0.1
    done
    "$bin" serve --override node.id=1 --override "listeners=PLAINTEXT://127.0.0.1:$node" \
        --override "metadata.log.dir=$dir/node" --override kacl.metadata.store=etcd \
        --override "kacl.etcd.endpoints=http://127.0.0.1:$client" \
        --override kacl.etcd.request.timeout.ms=60000 >"$dir.node.log" 2>&1 &
    node_pid=$!; PIDS+=("$node_pid")
    $PROBE ready "127.0.0.1:$node" --timeout 120 >/dev/null
    for case in $CASES; do
        local batch=${case%x*} conns=${case#*x} e0 n0 e1 n1 load
        e0=$(cpu_ms "$etcd_pid"); n0=$(cpu_ms "$node_pid"); load=$(cut -d' ' -f1 /proc/loadavg)
        "$bin" perf acls --bootstrap-server "127.0.0.1:$node" --workload load --acls "$((start + ACLS))" \
            --start "$start" --batch-size "$batch" --connections "$conns" --output json \
            >"$dir.$case.json"
        e1=$(cpu_ms "$etcd_pid"); n1=$(cpu_ms "$node_pid")
        start=$((start + ACLS))
        python3 - "$dir.$case.json" "$label" "$bin" "$batch" "$conns" "$ACLS" \
            "$((e1 - e0))" "$((n1 - n0))" "$load" "$OUT" <<'PY'
import json, sys
path, label, binary, batch, conns, acls, etcd_ms, node_ms, load, out = sys.argv[1:]
with open(path) as f:
    perf = json.load(f)
acls = int(acls)
ops = perf["operations"]
row = {
    "binary": label, "path": binary, "batch": int(batch), "connections": int(conns),
    "acls": acls, "acls_per_s": round(sum(op["acls_per_s"] for op in ops)),
    "errors": sum(op["errors"] for op in ops),
    "p50_ms": ops[0]["latency_ms"]["p50"], "p99_ms": ops[0]["latency_ms"]["p99"],
    "etcd_cpu_ms_per_1000": round(int(etcd_ms) * 1000 / acls, 1),
    "node_cpu_ms_per_1000": round(int(node_ms) * 1000 / acls, 1),
    "load_before": float(load), "perf": perf,
}
line = ("%s batch %5d x%d: %6d ACLs/s (%d errors, p50 %.0f ms, p99 %.0f ms), etcd %.1f ms CPU "
        "per 1,000 ACLs, node %.1f ms (load %s)" % (
            label, row["batch"], row["connections"], row["acls_per_s"], row["errors"],
            row["p50_ms"], row["p99_ms"], row["etcd_cpu_ms_per_1000"],
            row["node_cpu_ms_per_1000"], load))
with open(out + "/results.jsonl", "a") as f:
    f.write(json.dumps(row) + "\n")
with open(out + "/table.txt", "a") as f:
    f.write(line + "\n")
print(line)
PY
    done
    stop_all
}

for _ in $(seq "$ROUNDS"); do
    if [ "$KACL_A" != - ]; then session A "$KACL_A"; fi
    session B "$KACL_B"
done
