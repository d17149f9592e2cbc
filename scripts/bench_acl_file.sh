#!/usr/bin/env bash
# `kacl acls plan | apply` of an estate's desired-state file against a fresh `kacl serve`
# (embedded redb): the file of ACLS ACLs (one flow-style rule each, 100 per principal, about 54
# bytes an ACL) is planned against an empty scope, applied, and planned again (the drift check,
# which must be empty); each timed, with the CLI's peak RSS (/usr/bin/time). With MEMORY_ONLY=1
# only the plan's memory is measured (a 2,000,000-ACL file against an empty server).
#
#   BIN=target/release/kacl ACLS=200000 scripts/bench_acl_file.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-target/release/kacl}
ACLS=${ACLS:-200000}
DATA=$(mktemp -d /tmp/kacl-bench-file.XXXXXX)
PID=
trap '[ -n "$PID" ] && kill -KILL "$PID" 2>/dev/null; rm -rf "$DATA"' EXIT
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 - "$ACLS" >"$DATA/estate.yaml" <<'PY'
import sys
n = int(sys.argv[1])
out = ["version: 1\nscope:\n  all: true\nacls:\n"]
for p in range((n + 99) // 100):
    out.append(f"  - principal: User:app-{p:05}\n    allow:\n")
    for t in range(min(100, n - p * 100)):
        out.append(f"      - {{topic: svc-{p:05}-{t:03}, operations: [Read]}}\n")
sys.stdout.write("".join(out))
PY
echo "file: $ACLS ACLs, $(stat -c %s "$DATA/estate.yaml") bytes; load $(cut -d' ' -f1 /proc/loadavg)"
"$BIN" serve --override "listeners=PLAINTEXT://127.0.0.1:$PORT" \
    --override "metadata.log.dir=$DATA/store" >"$DATA/server.out" 2>"$DATA/server.err" &
PID=$!
python3 scripts/perf_probe.py ready "127.0.0.1:$PORT" --timeout 60 >/dev/null
# timed NAME ARGS...: wall time and peak RSS of one CLI run.
timed() {
    local name=$1 code
    shift
    set +e
    /usr/bin/time -f "%e s, peak RSS %M kB" -o "$DATA/time" "$BIN" acls "$@" \
        --bootstrap-server "127.0.0.1:$PORT" >"$DATA/out" 2>"$DATA/err"
    code=$?
    set -e
    echo "$name: $(cat "$DATA/time" | tail -1), exit $code; $(grep -E '^Plan:|^Apply|No changes' "$DATA/out" | tr '\n' ' ')$(head -c 300 "$DATA/err")"
}
timed plan plan --file "$DATA/estate.yaml"
[ -n "${MEMORY_ONLY:-}" ] && exit 0
timed apply apply --file "$DATA/estate.yaml" --auto-approve
timed drift plan --file "$DATA/estate.yaml"
echo "server: $(awk '/^VmHWM/ {printf "%s %s kB", $1, $2}' /proc/$PID/status)"
