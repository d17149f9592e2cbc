#!/usr/bin/env bash
# Issue 18's console figures on loopback: the ACL search page of `kacl console` in front of a
# `kacl serve` holding 2,000,000 ACLs (kacl perf's AuthorizerBenchmark shape), and the
# console's memory with 20 sessions.
#
#   cargo build --release -p kacl
#   scripts/bench_console.sh              # KACL=path/to/kacl N=20 (calls per search) to override
#   BOOTSTRAP=127.0.0.1:PORT scripts/bench_console.sh   # a server already holding the 2M ACLs
#                                         # (an A/B of two console builds against one server)
#
# Per search: N calls with &refresh=1 (each asks the cluster: one DescribeAcls with the
# search's filter), then N paging calls served from the session's cached result. Server time
# is the page's Server-Timing header: `app` from the handler's start to the rendered page, of
# which `describe` waited for the DescribeAcls answer (request sent to answer decoded: the
# broker's work and the bytes on the wire, absent for a cached page) and the rest is the
# console's own work; first byte and total are curl's time_starttransfer and time_total. The reference, side by side: the same
# DescribeAcls by principal from kacl-client alone (`kacl perf acls --workload
# describe-principal`, one connection).
set -euo pipefail
cd "$(dirname "$0")/.."
KACL=${KACL:-${CARGO_TARGET_DIR:-target}/release/kacl}
N=${N:-20}
WORK=$(mktemp -d /tmp/kacl-console-bench.XXXXXX)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT

if [ -n "${BOOTSTRAP:-}" ]; then
    A=$BOOTSTRAP
    echo "server $A (given; holding its ACLs already)"
else
    "$KACL" serve --override "listeners=PLAINTEXT://127.0.0.1:0" --override "metadata.log.dir=$WORK/data" \
        --override "super.users=User:ANONYMOUS" >"$WORK/serve.out" 2>"$WORK/serve.err" &
    PIDS+=($!)
    for _ in $(seq 100); do grep -q listening "$WORK/serve.out" && break; sleep 0.1; done
    A=$(sed -n 's|^listening PLAINTEXT://||p' "$WORK/serve.out" | head -1)
    echo "server $A: loading 2,000,000 ACLs"
    "$KACL" perf acls --bootstrap-server "$A" --workload load --acls 2000000 --batch-size 10000 --connections 2 | tail -1
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

"$KACL" console --bootstrap-server "$A" --listen 127.0.0.1:0 >"$WORK/console.out" 2>"$WORK/console.err" &
CONSOLE_PID=$!
PIDS+=($CONSOLE_PID)
for _ in $(seq 100); do grep -q listening "$WORK/console.out" && break; sleep 0.1; done
C=$(sed -n 's|^console listening ||p' "$WORK/console.out")
rss() { awk '/VmRSS/ {print $2 " kB"}' "/proc/$CONSOLE_PID/status"; }
echo "console $C: VmRSS before any session $(rss)"

# The login page first (its form token and the cookie carrying it), then the post.
login() {
    local form token pre
    form=$(curl -s -D - "$C/login")
    token=$(printf '%s' "$form" | sed -n 's/.*name="csrf" value="\([0-9a-f]*\)".*/\1/p' | head -1)
    pre=$(printf '%s' "$form" | sed -n 's/^set-cookie: \(kacl_login=[0-9a-f]*\).*/\1/Ip' | head -1)
    curl -s -o /dev/null -D - -b "$pre" -X POST -d "mechanism=none&username=&password=&csrf=$token" \
        "$C/login" | sed -n 's/^set-cookie: \(kacl_session=[0-9a-f]*\).*/\1/Ip'
}
COOKIE=$(login)

# measure NAME QUERY: N calls; prints p50 and max of server time, first byte, total (ms).
measure() {
    local name=$1 query=$2
    : >"$WORK/t"
    for _ in $(seq "$N"); do
        curl -s -o /dev/null -b "$COOKIE" -D "$WORK/h" -w '%{time_starttransfer} %{time_total}\n' \
            "$C/acls?$query" >"$WORK/w"
        local app describe
        app=$(sed -n 's/^server-timing:.*app;dur=\([0-9.]*\).*/\1/Ip' "$WORK/h" | tr -d '\r')
        describe=$(sed -n 's/^server-timing:.*describe;dur=\([0-9.]*\).*/\1/Ip' "$WORK/h" | tr -d '\r')
        read -r fb total <"$WORK/w"
        echo "$app ${describe:-0} $fb $total" >>"$WORK/t"
    done
    python3 - "$name" "$WORK/t" <<'PY'
import sys
rows = [list(map(float, l.split())) for l in open(sys.argv[2]) if l.strip()]
col = lambda i: sorted(r[i] for r in rows)
p50 = lambda xs: xs[(len(xs) - 1) // 2]
app, fb, total = col(0), [x * 1000 for x in col(2)], [x * 1000 for x in col(3)]
# The console's own time: app minus the wait for DescribeAcls, per call.
own = sorted(r[0] - r[1] for r in rows)
desc = col(1)
print(f"{sys.argv[1]:<46} server p50 {p50(app):7.1f} max {app[-1]:7.1f} (describe p50 "
      f"{p50(desc):7.1f}, console p50 {p50(own):6.1f} max {own[-1]:6.1f}) | first byte p50 "
      f"{p50(fb):7.1f} max {fb[-1]:7.1f} | total p50 {p50(total):7.1f} ms")
PY
}

measure "principal User:auditor-7 (10 ACLs), fetched" "principal=User%3Aauditor-7&refresh=1"
measure "principal User:auditor-7, cached" "principal=User%3Aauditor-7"
measure "MATCH Topic foo-bar35_resource-7 , fetched" "resource_type=Topic&name=foo-bar35_resource-7&pattern_type=match&refresh=1"
measure "principal User:test-user (~200k), fetched" "principal=User%3Atest-user&refresh=1"
measure "principal User:test-user, page 2000 cached" "principal=User%3Atest-user&page=2000"
measure "every ACL (2M), fetched" "refresh=1"
measure "every ACL, page 20000 cached" "page=20000"
measure "every ACL, sort by host (re-sort) then cached" "sort=host&page=7"
echo "console VmRSS, 1 session holding the 2M result: $(rss)"

# 20 sessions on a second, fresh console process (the first one's allocator keeps the
# pages of the 2M result), each with a 10-ACL principal search cached.
"$KACL" console --bootstrap-server "$A" --listen 127.0.0.1:0 >"$WORK/console2.out" 2>/dev/null &
CONSOLE_PID=$!
PIDS+=($CONSOLE_PID)
for _ in $(seq 100); do grep -q listening "$WORK/console2.out" && break; sleep 0.1; done
C=$(sed -n 's|^console listening ||p' "$WORK/console2.out")
echo "second console: VmRSS before any session $(rss)"
for i in $(seq 1 20); do
    c=$(login)
    curl -s -o /dev/null -b "$c" "$C/acls?principal=User%3Aauditor-$i&refresh=1"
done
echo "second console: VmRSS with 20 sessions (each its own admin connection and a 10-ACL result): $(rss)"

echo "reference: kacl-client DescribeAcls by principal alone (1 connection, 10 s)"
"$KACL" perf acls --bootstrap-server "$A" --workload describe-principal --acls 2000000 --connections 1 --warmup 2s --duration 10s | tail -3

echo "reference: one DescribeAcls of all 2M ACLs, phases apart (request to last byte, decode, build)"
"$KACL" perf acls --bootstrap-server "$A" --workload describe-all --acls 2000000 --connections 1 \
    --warmup 2s --duration 10s --phases 2>&1 | tail -4
