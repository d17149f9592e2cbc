#!/usr/bin/env bash
# A local kacl cluster on loopback: 3 etcd members and 3 `kacl serve` nodes sharing them
# (issue 16, cluster mode). Ports are chosen free at start; state lives in $KACL_CLUSTER_DIR
# (default ./kacl-cluster).
#
#   scripts/cluster.sh up      build kacl (release unless KACL_BIN is set), start everything,
#                              print the bootstrap list
#   scripts/cluster.sh down    stop the 6 processes this script started (by their pid files)
#
# Needs etcd (Debian: apt-get install etcd-server) and python3 (to find free ports).
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${KACL_CLUSTER_DIR:-./kacl-cluster}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

up() {
    command -v etcd >/dev/null || { echo "etcd not installed (apt-get install etcd-server)" >&2; exit 1; }
    if [ -z "${KACL_BIN:-}" ]; then
        cargo build --release --bin kacl
        KACL_BIN=target/release/kacl
        [ -n "${CARGO_TARGET_DIR:-}" ] && KACL_BIN=$CARGO_TARGET_DIR/release/kacl
    fi
    mkdir -p "$DIR"
    local names=(e1 e2 e3) clients=() peers=() initial=""
    for i in 0 1 2; do
        clients[$i]=$(free_port); peers[$i]=$(free_port)
        initial+="${names[$i]}=http://127.0.0.1:${peers[$i]},"
    done
    initial=${initial%,}
    for i in 0 1 2; do
        etcd --name "${names[$i]}" --data-dir "$DIR/${names[$i]}" \
            --listen-client-urls "http://127.0.0.1:${clients[$i]}" \
            --advertise-client-urls "http://127.0.0.1:${clients[$i]}" \
            --listen-peer-urls "http://127.0.0.1:${peers[$i]}" \
            --initial-advertise-peer-urls "http://127.0.0.1:${peers[$i]}" \
            --initial-cluster "$initial" --initial-cluster-state new \
            --max-txn-ops 10100 --max-request-bytes 10485760 \
            --quota-backend-bytes 8589934592 --auto-compaction-retention 1h \
            >"$DIR/${names[$i]}.log" 2>&1 &
        echo $! >"$DIR/${names[$i]}.pid"
    done
    local endpoints="http://127.0.0.1:${clients[0]},http://127.0.0.1:${clients[1]},http://127.0.0.1:${clients[2]}"
    for _ in $(seq 100); do
        etcdctl --endpoints "$endpoints" endpoint health >/dev/null 2>&1 && break
        sleep 0.1
    done
    local bootstrap=""
    for n in 1 2 3; do
        "$KACL_BIN" serve --override node.id=$n --override listeners=PLAINTEXT://127.0.0.1:0 \
            --override metadata.log.dir="$DIR/kacl$n" --override kacl.metadata.store=etcd \
            --override kacl.etcd.endpoints="$endpoints" --override broker.rack=rack$n \
            >"$DIR/kacl$n.out" 2>"$DIR/kacl$n.log" &
        echo $! >"$DIR/kacl$n.pid"
    done
    for n in 1 2 3; do
        for _ in $(seq 300); do grep -q '^listening' "$DIR/kacl$n.out" && break; sleep 0.1; done
        bootstrap+="$(sed -n 's#^listening PLAINTEXT://##p' "$DIR/kacl$n.out" | head -1),"
    done
    echo "etcd:      $endpoints"
    echo "bootstrap: ${bootstrap%,}"
    echo "try:       $KACL_BIN acls --bootstrap-server ${bootstrap%%,*} --list"
    echo "stop:      scripts/cluster.sh down"
}

down() {
    for f in "$DIR"/kacl*.pid "$DIR"/e*.pid; do
        [ -f "$f" ] || continue
        kill "$(cat "$f")" 2>/dev/null || true
        rm -f "$f"
    done
    echo "stopped (data kept in $DIR; remove it for a fresh cluster)"
}

case "${1:-}" in
    up) up ;;
    down) down ;;
    *) echo "usage: $0 up|down" >&2; exit 2 ;;
esac
