#!/usr/bin/env bash
# A/B of two kacl binaries on the request path: one data set (loaded once), then each binary
# serves it in turn, alternating, three rounds; describe by principal and by resource (small
# requests, where a per-request cost in the connection loop would show most) on 4 connections.
# Prints the perf tool's summary lines of each run, with the load average and the CPU time
# (user+system, from /proc) the server and the load generator each used per request.
#
# Both servers are driven by the same load generator, PERF (default: B's `kacl perf`), so the
# figures compare servers. CLIENTS lists how it talks: `admin` (kacl-client's Admin, one
# request at a time) and/or numbers N (`--in-flight N`: raw pipelined connections, N requests
# outstanding on each; needs a PERF that has the flag).
#
#   A=/tmp/kacl-before B=target/release/kacl scripts/ab_binaries.sh
#   # issue 19: 2M ACLs, 64 connections, on a data dir loaded before (kept):
#   DATA=/path/dir ACLS=2000000 CONNECTIONS=64 DURATION=10s CLIENTS="1 5" A=... B=... \
#       scripts/ab_binaries.sh
set -euo pipefail
A=${A:?the reference binary}
B=${B:?the binary under test}
PERF=${PERF:-$B}
ACLS=${ACLS:-100000}
BATCH=${BATCH:-1000}
CONNECTIONS=${CONNECTIONS:-4}
DURATION=${DURATION:-8s}
ROUNDS=${ROUNDS:-3}
WORKLOADS=${WORKLOADS:-describe-principal describe-resource}
CLIENTS=${CLIENTS:-admin}
KEEP_DATA=${DATA:+1}
DATA=${DATA:-$(mktemp -d /tmp/kacl-ab.XXXXXX)}
PID=
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; [ -z "$KEEP_DATA" ] && rm -rf "$DATA"' EXIT

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
perf() { "$PERF" perf acls --bootstrap-server "$ADDR" "$@"; }
# CPU ticks (user + system) of a process.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

if [ ! -f "$DATA/kacl.redb" ]; then
    start "$A"
    perf --workload load --acls "$ACLS" --batch-size "$BATCH" --connections 2 >/dev/null
    stop
fi
hz=$(getconf CLK_TCK)
for round in $(seq 1 "$ROUNDS"); do
    for side in A B; do
        if [ "$side" = A ]; then start "$A"; else start "$B"; fi
        for workload in $WORKLOADS; do
          for client in $CLIENTS; do
            flags=()
            [ "$client" = admin ] || flags=(--in-flight "$client")
            perf --workload "$workload" --acls "$ACLS" --connections 1 --duration 1s \
                "${flags[@]}" >/dev/null
            load=$(cut -d' ' -f1 /proc/loadavg)
            server0=$(ticks "$PID")
            # The binary itself in the background, not the shell function: `$!` must be the
            # load generator's pid, not a subshell's, for its CPU time.
            "$PERF" perf acls --bootstrap-server "$ADDR" --workload "$workload" --acls "$ACLS" \
                --connections "$CONNECTIONS" --duration "$DURATION" "${flags[@]}" \
                >"$DATA/perf.out" &
            client_pid=$!
            sleep 0.2
            client0=$(ticks "$client_pid" 2>/dev/null || echo 0)
            client1=$client0
            while kill -0 "$client_pid" 2>/dev/null; do
                client1=$(ticks "$client_pid" 2>/dev/null || echo "$client1")
                sleep 0.2
            done
            wait "$client_pid" || true
            server1=$(ticks "$PID")
            requests=$(grep -o '[0-9]* requests ' "$DATA/perf.out" | head -1 | tr -dc 0-9)
            echo "round $round, $side, $workload, client $client, load $load:" \
                "$(grep -E 'requests/s' "$DATA/perf.out" | awk '{print $4, $5}')," \
                "$(grep -o 'p50 [0-9.]*  p99 [0-9.]*' "$DATA/perf.out") ms;" \
                "CPU per request: server $(( (server1 - server0) * 1000000 / hz / ${requests:-1} )) us," \
                "client >= $(( (client1 - client0) * 1000000 / hz / ${requests:-1} )) us"
          done
        done
        stop
    done
done
