#!/usr/bin/env bash
# A/B of durable create (CreateAcls of BATCH ACLs, each answered after its fsync) at 1, 2, 4
# and 8 connections: for each round, each binary in turn on a fresh data dir per connection
# count loads ACLS ACLs (the AuthorizerBenchmark shape) with `kacl perf acls --workload load`.
# Prints one line per run: ACLs/s, requests/s, p50/p99, load average. Group commit shows as
# ACLs/s growing with connections.
#
#   A=/root/bin/kacl-main-speed B=target/release/kacl scripts/ab_create.sh
set -euo pipefail
A=${A:?the reference binary}
B=${B:?the binary under test}
ACLS=${ACLS:-200000}
BATCH=${BATCH:-1000}
ROUNDS=${ROUNDS:-2}
CONNS=${CONNS:-1 2 4 8}
WORK=$(mktemp -d /tmp/kacl-ab-create.XXXXXX)
PID=
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$WORK"' EXIT

start() {
    rm -rf "$WORK/data"
    "$1" serve --override "listeners=PLAINTEXT://127.0.0.1:0" \
        --override "metadata.log.dir=$WORK/data" >"$WORK/server.out" 2>"$WORK/server.err" &
    PID=$!
    for _ in $(seq 1 6000); do
        grep -q '^listening' "$WORK/server.out" 2>/dev/null && break
        sleep 0.01
    done
    ADDR=$(sed -n 's#^listening PLAINTEXT://##p' "$WORK/server.out" | head -1)
    [ -n "$ADDR" ] || { echo "server did not start" >&2; cat "$WORK/server.err" >&2; exit 1; }
}
stop() { kill "$PID"; wait "$PID" 2>/dev/null || true; PID=; }

for round in $(seq 1 "$ROUNDS"); do
    for conns in $CONNS; do
        for side in A B; do
            bin=$A; [ "$side" = B ] && bin=$B
            start "$bin"
            load=$(cut -d' ' -f1 /proc/loadavg)
            out=$("$A" perf acls --bootstrap-server "$ADDR" --workload load --acls "$ACLS" \
                --batch-size "$BATCH" --connections "$conns")
            stop
            echo "round $round, $conns conn, $side: $(echo "$out" | grep -o '[0-9.]* ACLs/s' | head -1)," \
                "$(echo "$out" | grep -o '[0-9.]* requests/s' | head -1)," \
                "$(echo "$out" | grep -o 'p50 [0-9.]*  p99 [0-9.]*')" "ms, load $load"
        done
    done
done
