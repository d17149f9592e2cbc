#!/usr/bin/env bash
# A/B of restart time with many ACLs: one data set loaded once (by A, through the API), then
# each binary starts on it in turn, alternating, ROUNDS rounds; each start is timed from launch
# until ApiVersions answers (scripts/perf_probe.py ready), with VmRSS/VmHWM once serving and the
# server's "loaded metadata" log line. Every start is stopped with SIGKILL (no clean stop, so
# no ACL snapshot is written) and any snapshot is removed first: the "store" figures read the
# store. With SNAPSHOT=1, A and B are also timed on a start after their own clean SIGTERM stop
# (which writes the ACL snapshot that the start then loads). With LIVE=1, B is also timed on a start after a
# SIGKILL that followed the snapshot B writes while serving (kacl.acl.snapshot.interval.ms).
#
#   A=/root/bin/kacl-before B=target/release/kacl ACLS=2000000 SNAPSHOT=1 scripts/ab_restart.sh
set -euo pipefail
cd "$(dirname "$0")/.."
A=${A:?the reference binary}
B=${B:?the binary under test}
ACLS=${ACLS:-2000000}
ROUNDS=${ROUNDS:-3}
DATA=${DATA:-$(mktemp -d /tmp/kacl-ab-restart.XXXXXX)}
PROBE="python3 scripts/perf_probe.py"
PID=
trap '[ -n "$PID" ] && kill -KILL "$PID" 2>/dev/null; [ -z "${KEEP:-}" ] && rm -rf "$DATA"' EXIT
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

start() {
    "$1" serve --override "listeners=PLAINTEXT://127.0.0.1:$PORT" \
        --override "metadata.log.dir=$DATA/store" >"$DATA/server.out" 2>"$DATA/server.err" &
    PID=$!
}
# timed NAME BINARY: starts, waits for ApiVersions, prints one line.
timed() {
    local load ms t0
    load=$(cut -d' ' -f1 /proc/loadavg)
    t0=$(date +%s%N)
    start "$2"
    $PROBE ready "127.0.0.1:$PORT" --timeout 300 >/dev/null
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    echo "$1: ready ${ms} ms, $(awk '/^VmRSS|^VmHWM/ {printf "%s %s kB ", $1, $2}' /proc/$PID/status)load $load;" \
        "$(grep -o 'loaded the ACL index.*\|loaded metadata.*' "$DATA/server.err" | tr '\n' ' ' | sed 's/\x1b\[[0-9;]*m//g')"
}
kill_server() { kill "-$1" "$PID"; wait "$PID" 2>/dev/null || true; PID=; }

if [ ! -f "$DATA/store/kacl.redb" ]; then
    start "$A"
    $PROBE ready "127.0.0.1:$PORT" --timeout 60 >/dev/null
    "$A" perf acls --bootstrap-server "127.0.0.1:$PORT" --workload load --acls "$ACLS" \
        --batch-size "${BATCH:-1000}" --connections 2 | grep -E 'ACLs/s|acls/s' || true
    kill_server TERM
fi
for round in $(seq 1 "$ROUNDS"); do
    for side in A B; do
        rm -f "$DATA/store/acls.snapshot"
        bin=$A; [ "$side" = B ] && bin=$B
        timed "round $round, $side, from the store" "$bin"
        kill_server KILL
    done
    if [ "${SNAPSHOT:-}" = 1 ]; then
        for side in A B; do
            bin=$A; [ "$side" = B ] && bin=$B
            start "$bin"; $PROBE ready "127.0.0.1:$PORT" --timeout 300 >/dev/null
            kill_server TERM
            timed "round $round, $side, from the snapshot of its clean stop" "$bin"
            kill_server KILL
        done
    fi
    if [ "${LIVE:-}" = 1 ]; then
        rm -f "$DATA/store/acls.snapshot"
        start "$B"; $PROBE ready "127.0.0.1:$PORT" --timeout 300 >/dev/null
        for _ in $(seq 1 600); do
            grep -q 'wrote the ACL snapshot while serving' "$DATA/server.err" && break
            sleep 0.1
        done
        kill_server KILL
        timed "round $round, B, from the snapshot written while serving, after SIGKILL" "$B"
        kill_server KILL
    fi
done
