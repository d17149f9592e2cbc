#!/usr/bin/env bash
# An etcd data dir holding ACLS ACLs written by KACL through one cluster node (so in KACL's key
# layout): the "before" data of scripts/ab_etcd_join.sh, prepared once, since an old build
# writes 2M ACLs through the JSON gateway in ~10-15 minutes.
#
#   scripts/prep_etcd_data.sh /root/bin/kacl-869a300 /root/bench/etcd-old 2000000
set -euo pipefail
KACL=$1 DATA=$2 ACLS=${3:-2000000}
cd "$(dirname "$0")/.."
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
C=$(free_port) P=$(free_port) K=$(free_port)
WORK=$(mktemp -d /tmp/prep-etcd.XXXX)
etcd --name e0 --data-dir "$DATA" --listen-client-urls http://127.0.0.1:$C --advertise-client-urls http://127.0.0.1:$C \
  --listen-peer-urls http://127.0.0.1:$P --initial-advertise-peer-urls http://127.0.0.1:$P --initial-cluster e0=http://127.0.0.1:$P \
  --max-txn-ops 10100 --max-request-bytes 10485760 --quota-backend-bytes 8589934592 --snapshot-count 100000 --log-level error >"$WORK/etcd.log" 2>&1 &
EP=$!
sleep 2
RUST_LOG=warn "$KACL" serve --override node.id=1 --override listeners=PLAINTEXT://127.0.0.1:$K --override metadata.log.dir=$WORK/a \
  --override kacl.metadata.store=etcd --override kacl.etcd.endpoints=http://127.0.0.1:$C --override kacl.etcd.request.timeout.ms=60000 >"$WORK/a.out" 2>"$WORK/a.err" &
KP=$!
python3 scripts/perf_probe.py ready 127.0.0.1:$K --timeout 120 >/dev/null
start=$(date +%s)
"$KACL" perf acls --bootstrap-server 127.0.0.1:$K --workload load --acls "$ACLS" --batch-size 1000 --connections 4 --output json > "$DATA.load.json"
echo "loaded $ACLS in $(( $(date +%s) - start )) s; load $(cut -d' ' -f1 /proc/loadavg)"
kill $KP; wait $KP || true
kill $EP; wait $EP || true
rm -rf "$WORK"
