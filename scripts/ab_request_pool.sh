#!/usr/bin/env bash
# What `queued.max.request.bytes` costs when it never binds: small DescribeAcls requests on 4
# connections against one kacl binary started without and with the pool (100 MiB), three
# rounds, alternating. Prints the perf tool's summary line of each run.
#
#   KACL=target/release/kacl scripts/ab_request_pool.sh
set -euo pipefail
KACL=${KACL:-target/release/kacl}
DATA=$(mktemp -d /tmp/kacl-pool.XXXXXX)
PID=
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$DATA"' EXIT

start() {
    "$KACL" serve --override "listeners=PLAINTEXT://127.0.0.1:0" \
        --override "metadata.log.dir=$DATA" "$@" >"$DATA/server.out" 2>"$DATA/server.err" &
    PID=$!
    for _ in $(seq 1 6000); do
        grep -q '^listening' "$DATA/server.out" 2>/dev/null && break
        sleep 0.01
    done
    ADDR=$(sed -n 's#^listening PLAINTEXT://##p' "$DATA/server.out" | head -1)
    [ -n "$ADDR" ] || { echo "server did not start" >&2; cat "$DATA/server.err" >&2; exit 1; }
}
stop() { kill "$PID"; wait "$PID" 2>/dev/null || true; PID=; }
perf() { "$KACL" perf acls --bootstrap-server "$ADDR" "$@"; }

start
perf --workload load --acls 10000 >/dev/null
stop
for round in 1 2 3; do
    for pool in off on; do
        if [ "$pool" = on ]; then
            start --override queued.max.request.bytes=104857600
        else
            start
        fi
        echo "round $round, pool $pool:"
        perf --workload describe-resource --acls 10000 --connections 4 --duration 8s \
            --warmup 2s | grep -E 'requests/s|latency'
        stop
    done
done
