#!/usr/bin/env bash
# A/B of the full describe at 2M ACLs between two kacl binaries on one data dir: server CPU per
# call (from /proc/<pid>/stat) and the client's --phases latencies, two rounds each, alternating.
#
#   OLD=path/to/old/kacl NEW=path/to/new/kacl scripts/ab_describe_all.sh   # OUT=dir (ab-out)
#
# The data set is loaded once by NEW (the store format must be one both read).
set -euo pipefail
: "${OLD:?OLD=path to the old kacl binary}" "${NEW:?NEW=path to the new kacl binary}"
OUT=${OUT:-ab-out}
mkdir -p "$OUT"
DATA=$(mktemp -d /tmp/kacl-ab.XXXXXX)
PID=
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$DATA"' EXIT

start() {
    "$1" serve --override "listeners=PLAINTEXT://127.0.0.1:0" \
        --override "metadata.log.dir=$DATA" >"$OUT/server.out" 2>"$OUT/server.err" &
    PID=$!
    for _ in $(seq 1 6000); do
        grep -q '^listening' "$OUT/server.out" 2>/dev/null && break
        sleep 0.01
    done
    ADDR=$(sed -n 's#^listening PLAINTEXT://##p' "$OUT/server.out" | head -1)
    [ -n "$ADDR" ] || { echo "server did not start" >&2; cat "$OUT/server.err" >&2; exit 1; }
}
stop() { kill "$PID"; wait "$PID" 2>/dev/null || true; PID=; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
perf() { "$NEW" perf acls --bootstrap-server "$ADDR" "$@"; }

start "$NEW"
perf --workload load --acls 2000000 --batch-size 1000 --connections 2 --output json >"$OUT/load.json"
stop
for round in 1 2; do
    for side in new old; do
        if [ "$side" = new ]; then start "$NEW"; else start "$OLD"; fi
        perf --workload describe-all --acls 2000000 --duration 3s --output json >/dev/null
        before=$(cpu_ticks)
        perf --workload describe-all --acls 2000000 --duration 20s --phases --output json \
            >"$OUT/$side-$round.json"
        after=$(cpu_ticks)
        calls=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['operations'][0]['requests'])" "$OUT/$side-$round.json")
        echo "$side round $round: $calls calls, server CPU $(( (after - before) * 1000 / $(getconf CLK_TCK) / calls )) ms per call (load $(cut -d' ' -f1 /proc/loadavg))" |
            tee -a "$OUT/summary.txt"
        stop
    done
done
