#!/usr/bin/env bash
# Issue 19's quiet-window run, unattended (~10 minutes at 2M): A = the build before, B = the
# build under test, every figure interleaved A/B in the same session.
#  1. B serves a fresh data dir; ACLs loaded in steps (10k, 100k, 500k, 1M, ACLS) with
#     `--batch-size 10000 --connections 2`; at each step full describe and describe by
#     principal on one connection (the series scripts/plot_describe.py draws);
#  2. scripts/ab_binaries.sh on that data: describe by principal and by resource, 64
#     connections, clients `admin`, `--in-flight 1`, `--in-flight 5` (B's load generator for
#     both servers), with server and load-generator CPU per request;
#  3. scripts/ab_restart.sh on the same data: restart from the store and from the snapshot
#     of a clean stop, A and B alternating;
#  4. the codec bench binary CODEC_BENCH, if given (built beforehand: `cargo bench -p
#     kacl-protocol --bench codec --no-run`), for encode_reused v1 and DeleteAcls decode v1;
#  5. docs/describe-latency.svg redrawn from step 1;
#  6. first and last byte of a full DescribeAcls (scripts/perf_probe.py first-byte), A and B
#     alternating on the same data, ROUNDS rounds of 5;
#  7. with STREAM=1: scripts/ab_client_stream.sh VARY=server (each broker loaded afresh; all
#     clients B's): `kacl acls --list`, `perf describe-all`, the console's first row.
#
#   A=/root/bin/kacl-869a300 B=/path/kacl CODEC_BENCH=/path/codec-xxxx scripts/quiet_issue19.sh
set -euo pipefail
cd "$(dirname "$0")/.."
A=${A:?the reference binary}
B=${B:?the binary under test}
ACLS=${ACLS:-2000000}
OUT=${OUT:-/tmp/kacl-quiet19}
ROUNDS=${ROUNDS:-2}
DURATION=${DURATION:-6s}
WORK=$(mktemp -d /tmp/kacl-q19.XXXXXX)
mkdir -p "$OUT" "$WORK/store"
PID=
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$WORK"' EXIT
log() { echo "[$(date +%T)] $*" | tee -a "$OUT/log.txt" >&2; }

log "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
log "A=$A B=$B ACLS=$ACLS"

# 1. Load in steps on B, with the plot series.
"$B" serve --override "listeners=PLAINTEXT://127.0.0.1:0" \
    --override "metadata.log.dir=$WORK/store" >"$WORK/b.out" 2>"$WORK/b.err" &
PID=$!
for _ in $(seq 1 3000); do grep -q '^listening' "$WORK/b.out" 2>/dev/null && break; sleep 0.01; done
ADDR=$(sed -n 's#^listening PLAINTEXT://##p' "$WORK/b.out" | head -1)
[ -n "$ADDR" ] || { log "B did not start"; cat "$WORK/b.err" >&2; exit 1; }
perf() { "$B" perf acls --bootstrap-server "$ADDR" "$@"; }
previous=0
for n in 10000 100000 500000 1000000 "$ACLS"; do
    { [ "$n" -le "$previous" ] || [ "$n" -gt "$ACLS" ]; } && continue
    perf --workload load --start "$previous" --acls "$n" --batch-size 10000 --connections 2 \
        --output json >"$OUT/series-load-$n.json"
    previous=$n
    log "loaded $n; series describe-all and describe-principal (load $(cut -d' ' -f1 /proc/loadavg))"
    perf --workload describe-all --acls "$n" --duration 4s --output json >"$OUT/series-all-$n.json"
    perf --workload describe-principal --acls "$n" --duration 2s --output json \
        >"$OUT/series-principal-$n.json"
done
kill "$PID"; wait "$PID" 2>/dev/null || true; PID=

# 2. Describes at 64 connections.
log "ab_binaries (load $(cut -d' ' -f1 /proc/loadavg))"
DATA=$WORK/store ACLS=$ACLS CONNECTIONS=64 DURATION=$DURATION ROUNDS=$ROUNDS \
    CLIENTS="admin 1 5" A=$A B=$B PERF=$B scripts/ab_binaries.sh | tee "$OUT/ab_binaries.txt"

# 3. Restarts.
log "ab_restart (load $(cut -d' ' -f1 /proc/loadavg))"
DATA=$WORK KEEP=1 ACLS=$ACLS ROUNDS=$ROUNDS SNAPSHOT=1 A=$A B=$B scripts/ab_restart.sh \
    | tee "$OUT/ab_restart.txt"

# 4. Codec.
if [ -n "${CODEC_BENCH:-}" ]; then
    log "codec bench (load $(cut -d' ' -f1 /proc/loadavg))"
    "$CODEC_BENCH" --bench 'encode_reused/.*/v1|delete_acls_request/decode/100/v1' 2>&1 \
        | grep -E '^[a-z_]+/|time:' | tee "$OUT/codec.txt"
fi

# 6. First and last byte of a full describe, each binary serving the same data in turn.
log "first byte (load $(cut -d' ' -f1 /proc/loadavg))"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
for round in $(seq 1 "$ROUNDS"); do
    for side in A B; do
        bin=$A; [ "$side" = B ] && bin=$B
        "$bin" serve --override "listeners=PLAINTEXT://127.0.0.1:$PORT" \
            --override "metadata.log.dir=$WORK/store" >"$WORK/fb.out" 2>"$WORK/fb.err" &
        PID=$!
        python3 scripts/perf_probe.py ready "127.0.0.1:$PORT" --timeout 300 >/dev/null
        python3 scripts/perf_probe.py first-byte "127.0.0.1:$PORT" --runs 5 \
            | sed "s/^/round $round, $side: /" | tee -a "$OUT/first_byte.txt"
        kill "$PID"; wait "$PID" 2>/dev/null || true; PID=
    done
done

# 7. The client side of a huge answer, broker against broker.
if [ "${STREAM:-}" = 1 ]; then
    log "ab_client_stream VARY=server (load $(cut -d' ' -f1 /proc/loadavg))"
    VARY=server OLD=$A NEW=$B ACLS=$ACLS RUNS=${STREAM_RUNS:-9} OUT=$OUT/stream \
        scripts/ab_client_stream.sh >/dev/null
    cat "$OUT/stream/summary.txt" | tee -a "$OUT/log.txt"
fi

# 5. The plot.
python3 scripts/plot_describe.py "$OUT" "${PLOT:-docs/describe-latency.svg}" || log "plot failed"
log "done; results in $OUT (load $(cut -d' ' -f1 /proc/loadavg))"
