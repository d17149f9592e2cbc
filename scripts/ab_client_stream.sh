#!/usr/bin/env bash
# Issues 18 and 19, the client side of a huge DescribeAcls, A/B between two kacl binaries
# against ONE server (started from NEW, loaded once): what changes is only the client (the
# CLI, kacl perf's decode, the console), so both sides see the same broker.
#
#   OLD=/root/bin/kacl-869a300 NEW=target/release/kacl scripts/ab_client_stream.sh
#   ACLS=2000000 RUNS=9 OUT=ab-stream   # defaults; ACLS=200000 RUNS=3 for a quick try
#
# Interleaved, RUNS each side:
#   - `kacl acls --list > /dev/null`, wall time (the user's command);
#   - `kacl perf acls --workload describe-all` (default: owned bindings) and `--grouped`,
#     one 3 s run per side per round, p50 and max of its calls;
#   - the console's ACL search page with `refresh=1` (each call fetches), for the ~200k result
#     (principal User:test-user) and for every ACL: first byte, first row (the first
#     `</table>` of the body) and complete page, as a client sees them, plus the page's own
#     Server-Timing header / #acl-timing figures.
# Bounded: at 2M and RUNS=9 about 6-8 minutes after the ~60 s load.
#
# VARY=server turns it around (issues 18 and 19, the broker streaming its answer): TWO servers,
# OLD's and NEW's, each loaded with the same ACLS, and every client (CLI, perf, console) is
# NEW's, so what changes between the sides is only the broker.
set -euo pipefail
: "${OLD:?OLD=path to the before kacl binary}" "${NEW:?NEW=path to the after kacl binary}"
ACLS=${ACLS:-2000000}
RUNS=${RUNS:-9}
OUT=${OUT:-ab-stream}
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/kacl-ab-stream.XXXXXX)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
log() { echo "$*" | tee -a "$OUT/summary.txt"; }
: >"$OUT/summary.txt"

VARY=${VARY:-client}
# serve BINARY NAME: starts a server on a fresh data dir and loads ACLS ACLs; prints its address.
serve() {
    "$1" serve --override "listeners=PLAINTEXT://127.0.0.1:0" --override "metadata.log.dir=$WORK/data-$2" \
        --override "super.users=User:ANONYMOUS" >"$WORK/serve-$2.out" 2>"$WORK/serve-$2.err" &
    PIDS+=($!)
    for _ in $(seq 200); do grep -q '^listening' "$WORK/serve-$2.out" 2>/dev/null && break; sleep 0.1; done
    local addr
    addr=$(sed -n 's#^listening PLAINTEXT://##p' "$WORK/serve-$2.out" | head -1)
    [ -n "$addr" ] || { echo "server did not start" >&2; cat "$WORK/serve-$2.err" >&2; exit 1; }
    log "$(date -u +%H:%M:%S) server $addr ($1): loading $ACLS ACLs"
    "$NEW" perf acls --bootstrap-server "$addr" --workload load --acls "$ACLS" --batch-size 10000 \
        --connections 2 | tail -1 | tee -a "$OUT/summary.txt"
    eval "$3=$addr"
}
if [ "$VARY" = server ]; then
    serve "$OLD" old A_OLD
    serve "$NEW" new A_NEW
    CLIENT_OLD=$NEW
else
    serve "$NEW" new A_NEW
    A_OLD=$A_NEW
    CLIENT_OLD=$OLD
fi
A=$A_NEW
CLIENT_NEW=$NEW
log "VARY=$VARY: old side = client $CLIENT_OLD against $A_OLD; new side = client $CLIENT_NEW against $A_NEW"
# side_bin SIDE / side_addr SIDE: the client binary and the server of each side.
side_bin() { if [ "$1" = new ]; then echo "$CLIENT_NEW"; else echo "$CLIENT_OLD"; fi; }
side_addr() { if [ "$1" = new ]; then echo "$A_NEW"; else echo "$A_OLD"; fi; }
sleep 5
log "load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg)"

# 1. kacl acls --list > /dev/null
for i in $(seq "$RUNS"); do
    for side in old new; do
        bin=$(side_bin "$side")
        s=$(date +%s.%N)
        "$bin" acls --bootstrap-server "$(side_addr "$side")" --list >/dev/null
        e=$(date +%s.%N)
        echo "$side $(python3 -c "print(f'{($e-$s)*1000:.0f}')")" >>"$OUT/list.txt"
    done
done
python3 - "$OUT/list.txt" <<'PY' | tee -a "$OUT/summary.txt"
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
for side in ("old", "new"):
    xs = sorted(float(v) for s, v in rows if s == side)
    print(f"acls --list >/dev/null  {side}: p50 {xs[(len(xs)-1)//2]:.0f} ms  min {xs[0]:.0f}  max {xs[-1]:.0f}  (n={len(xs)})")
PY

# 2. kacl perf describe-all (bindings, grouped), interleaved rounds.
ROUNDS=$(( (RUNS + 2) / 3 ))
for i in $(seq "$ROUNDS"); do
    for side in old new; do
        bin=$(side_bin "$side")
        for mode in bindings grouped; do
            extra=(); [ "$mode" = grouped ] && extra=(--grouped)
            "$bin" perf acls --bootstrap-server "$(side_addr "$side")" --workload describe-all --acls "$ACLS" \
                --connections 1 --duration 3s "${extra[@]}" --output json >"$OUT/perf-$side-$mode-$i.json"
            python3 - "$OUT/perf-$side-$mode-$i.json" "$side" "$mode" "$i" <<'PY' | tee -a "$OUT/summary.txt"
import json, sys
d = json.load(open(sys.argv[1]))
op = d["operations"][0]
lat = op.get("latency_ms") or op.get("latency") or {}
print(f"perf describe-all {sys.argv[3]:<8} {sys.argv[2]} round {sys.argv[4]}: {op['requests']} calls, "
      f"p50 {lat.get('p50')} ms, max {lat.get('max')} ms (load {open('/proc/loadavg').read().split()[0]})")
PY
        done
    done
done

# 3. The console, one per binary, the same server.
# Started in this shell (not in a command substitution) so that the exit trap stops them.
start_console() {
    "$1" console --bootstrap-server "$(side_addr "$2")" --listen 127.0.0.1:0 >"$WORK/console-$2.out" 2>/dev/null &
    PIDS+=($!)
    for _ in $(seq 100); do grep -q listening "$WORK/console-$2.out" && break; sleep 0.1; done
}
console_addr() { sed -n 's|^console listening http://||p' "$WORK/console-$1.out"; }
login() {
    local form token pre
    form=$(curl -s -D - "http://$1/login")
    token=$(printf '%s' "$form" | sed -n 's/.*name="csrf" value="\([0-9a-f]*\)".*/\1/p' | head -1)
    pre=$(printf '%s' "$form" | sed -n 's/^set-cookie: \(kacl_login=[0-9a-f]*\).*/\1/Ip' | head -1)
    curl -s -o /dev/null -D - -b "$pre" -X POST -d "mechanism=none&username=&password=&csrf=$token" \
        "http://$1/login" | sed -n 's/^set-cookie: \(kacl_session=[0-9a-f]*\).*/\1/Ip' | tr -d '\r'
}
start_console "$CLIENT_OLD" old
start_console "$CLIENT_NEW" new
C_OLD=$(console_addr old)
C_NEW=$(console_addr new)
K_OLD=$(login "$C_OLD")
K_NEW=$(login "$C_NEW")
# page ADDR COOKIE QUERY: first byte, first row, complete (client side) and the page's figures.
page() {
    python3 - "$1" "$2" "$3" <<'PY'
import re, socket, sys, time
addr, cookie, query = sys.argv[1], sys.argv[2], sys.argv[3]
host, port = addr.rsplit(":", 1)
t0 = time.perf_counter()
s = socket.create_connection((host, int(port)))
s.sendall(f"GET /acls?{query} HTTP/1.1\r\nHost: {addr}\r\nCookie: {cookie}\r\nConnection: close\r\n\r\n".encode())
data, first, row = b"", None, None
while True:
    b = s.recv(1 << 16)
    if not b:
        break
    now = time.perf_counter()
    first = first or now
    data += b
    if row is None and b"</table>" in data:
        row = now
end = time.perf_counter()
ms = lambda t: (t - t0) * 1000 if t else float("nan")
text = data.decode("utf-8", "replace")
timing = re.search(r"(?im)^server-timing: (.*)$", text)
fr = re.search(r'data-first-row-ms="([0-9.]+)"', text)
cons = re.search(r'data-console-ms="([0-9.]+)"', text)
app = re.search(r"app;dur=([0-9.]+)", timing.group(1)) if timing else None
desc = re.search(r"describe;dur=([0-9.]+)", timing.group(1)) if timing else None
server = float(fr.group(1)) if fr else (float(app.group(1)) if app else float("nan"))
own = float(cons.group(1)) if cons else ((float(app.group(1)) - float(desc.group(1))) if app and desc else float("nan"))
print(f"{ms(first):.1f} {ms(row):.1f} {ms(end):.1f} {server:.1f} {own:.1f}")
PY
}
for case in "principal=User%3Atest-user&refresh=1" "refresh=1"; do
    : >"$WORK/console.txt"
    for i in $(seq "$RUNS"); do
        echo "old $(page "$C_OLD" "$K_OLD" "$case")" >>"$WORK/console.txt"
        echo "new $(page "$C_NEW" "$K_NEW" "$case")" >>"$WORK/console.txt"
    done
    cp "$WORK/console.txt" "$OUT/console-$(echo "$case" | tr -c 'a-zA-Z0-9' _).txt"
    python3 - "$WORK/console.txt" "$case" <<'PY' | tee -a "$OUT/summary.txt"
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
p50 = lambda xs: sorted(xs)[(len(xs) - 1) // 2]
for side in ("old", "new"):
    r = [list(map(float, x[1:])) for x in rows if x[0] == side]
    col = lambda i: [x[i] for x in r]
    print(f"console {sys.argv[2]:<40} {side}: first byte p50 {p50(col(0)):7.1f} max {max(col(0)):7.1f} | "
          f"first row p50 {p50(col(1)):7.1f} max {max(col(1)):7.1f} | complete p50 {p50(col(2)):7.1f} "
          f"max {max(col(2)):7.1f} | server (first row; old: app) p50 {p50(col(3)):7.1f} | console's own p50 {p50(col(4)):6.1f} ms")
PY
done
# 4. Where the time goes for NEW: kacl perf's raw-connection phases (request to the last byte
#    of the answer, decode, building bindings).
log "phases (NEW client against NEW's server, 5 s):"
"$NEW" perf acls --bootstrap-server "$A" --workload describe-all --acls "$ACLS" --connections 1 \
    --duration 5s --phases 2>&1 | grep -A1 -E '^  (wire|decode|bindings|drop) ' | tee -a "$OUT/summary.txt"
log "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
