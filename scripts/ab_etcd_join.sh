#!/usr/bin/env bash
# Issue 16's join and durable-create figures, NEW against OLD in one session, on one etcd
# member with bench_cluster.sh's flags:
#  1. a node of OLD joins the ACLs of OLD_DATA (an etcd data dir from scripts/prep_etcd_data.sh
#     with OLD; copied, never changed): start to answering ApiVersions, VmHWM;
#  2. NEW: a fresh etcd, node A, 2M ACLs created in requests of 1,000 on 4 connections (ACLs/s),
#     then two more nodes of NEW join it, one after the other.
#
#   scripts/ab_etcd_join.sh NEW OLD OUT OLD_DATA
set -uo pipefail
NEW=$1 OLD=$2 OUT=$3 OLD_DATA=$4
mkdir -p "$OUT"
cd "$(dirname "$0")/.."

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
load1() { cut -d' ' -f1 /proc/loadavg; }
log() { echo "[$(date +%T)] $*" | tee -a "$OUT/log.txt"; }
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "${WORK:-/nonexistent}"; }
trap cleanup EXIT
start_etcd() { # DATA -> sets EC (client port), EPID
  EC=$(free_port); local P=$(free_port)
  etcd --name e0 --data-dir "$1" --listen-client-urls http://127.0.0.1:$EC --advertise-client-urls http://127.0.0.1:$EC \
    --listen-peer-urls http://127.0.0.1:$P --initial-advertise-peer-urls http://127.0.0.1:$P --initial-cluster e0=http://127.0.0.1:$P \
    --max-txn-ops 10100 --max-request-bytes 10485760 --quota-backend-bytes 8589934592 --snapshot-count 100000 --log-level error >"$OUT/etcd.log" 2>&1 &
  EPID=$!; PIDS+=($EPID); sleep 2
}
start_node() { # BIN ID NAME -> NPORT NPID
  NPORT=$(free_port)
  RUST_LOG=warn,kacl_store_etcd=info "$1" serve --override node.id=$2 --override listeners=PLAINTEXT://127.0.0.1:$NPORT \
    --override metadata.log.dir=$WORK/$3 --override kacl.metadata.store=etcd --override kacl.etcd.endpoints=http://127.0.0.1:$EC \
    --override kacl.etcd.request.timeout.ms=60000 >"$OUT/$3.out" 2>"$OUT/$3.err" &
  NPID=$!; PIDS+=($NPID)
}
join() { # BIN ID NAME
  local start=$(date +%s%N)
  start_node "$1" "$2" "$3"
  python3 scripts/perf_probe.py ready 127.0.0.1:$NPORT --timeout 400 >/dev/null
  local ms=$(( ($(date +%s%N) - start) / 1000000 ))
  log "join $3 ($1): ready in $ms ms, VmHWM $(awk '/^VmHWM/ {print $2}' /proc/$NPID/status) kB, load $(load1)"
}
WORK=$(mktemp -d /tmp/cw.XXXX)
log "machine: $(nproc) cpus, load $(load1); new $NEW; old $OLD"

# 1. Join 2M, old layout + old binary (data prepared by prep_etcd.sh with OLD).
rm -rf "$WORK/old" && cp -a "$OLD_DATA" "$WORK/old"
start_etcd "$WORK/old"
join "$OLD" 11 old-join
kill -9 $NPID; kill $EPID; wait $NPID $EPID 2>/dev/null

# 2. Durable create with NEW: 2M in requests of 1,000 on 4 connections (fills the new-layout etcd), then join.
start_etcd "$WORK/new"
start_node "$NEW" 1 a; A=127.0.0.1:$NPORT
python3 scripts/perf_probe.py ready $A --timeout 60 >/dev/null
log "create 2M with new, batch 1000, 4 conns (load $(load1))"
"$NEW" perf acls --bootstrap-server $A --workload load --acls 2000000 --batch-size 1000 --connections 4 --output json > "$OUT/create-new-2M.json"
log "create 2M new: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); o=d["operations"][0]; print("acls/s %.0f, requests %d, errors %d, p50 %.1f ms, p99 %.1f ms, elapsed %.1f s" % (o["acls_per_s"], o["requests"], o["errors"], o["latency_ms"]["p50"], o["latency_ms"]["p99"], d["elapsed_s"]))' "$OUT/create-new-2M.json")"
join "$NEW" 3 new-join
join "$NEW" 4 new-join2
# SIGKILL: a node whose etcd is gone waits for its lease revoke (the request timeout).
kill -9 "${PIDS[@]}" 2>/dev/null; wait 2>/dev/null; PIDS=()

log "done"
