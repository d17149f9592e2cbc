#!/usr/bin/env bash
# A/B of two kacl binaries on the request path: one data set (loaded once), then each binary
# serves it in turn, alternating, three rounds; describe by principal and by resource (small
# requests, where a per-request cost in the connection loop would show most) on 4 connections.
# Prints the perf tool's summary lines of each run.
#
#   A=/tmp/kacl-before B=target/release/kacl scripts/ab_binaries.sh
set -euo pipefail
A=${A:?the reference binary}
B=${B:?the binary under test}
ACLS=${ACLS:-100000}
DATA=$(mktemp -d /tmp/kacl-ab.XXXXXX)
PID=
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$DATA"' EXIT

start() {
    "$1" serve --override "listeners=PLAINTEXT://127.0.0.1:0" \
        --override "metadata.log.dir=$DATA" >"$DATA/server.out" 2>"$DATA/server.err" &
    PID=$!
    for _ in $(seq 1 6000); do
        grep -q '^listening' "$DATA/server.out" 2>/dev/null && break
        sleep 0.01
    done
    ADDR=$(sed -n 's#^listening PLAINTEXT://##p' "$DATA/server.out" | head -1)
    [ -n "$ADDR" ] || { echo "server did not start" >&2; cat "$DATA/server.err" >&2; exit 1; }
}
stop() { kill "$PID"; wait "$PID" 2>/dev/null || true; PID=; }
perf() { "$A" perf acls --bootstrap-server "$ADDR" "$@"; }

start "$A"
perf --workload load --acls "$ACLS" >/dev/null
stop
for round in 1 2 3; do
    for side in A B; do
        if [ "$side" = A ]; then start "$A"; else start "$B"; fi
        for workload in describe-principal describe-resource; do
            echo "round $round, $side, $workload:"
            perf --workload "$workload" --acls "$ACLS" --connections 4 --duration 8s \
                --warmup 2s | grep -E 'requests/s|latency'
        done
        stop
    done
done
