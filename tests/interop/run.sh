#!/usr/bin/env bash
# Real Kafka clients against a release build of `kacl serve`.
#
#   tests/interop/run.sh                       # all four suites
#   tests/interop/run.sh confluent kafkajs     # some of them (confluent, kafka-python, kafkajs, java)
#
# Builds the server once (cargo build --release -p kacl, or uses $KACL_BIN as is), installs
# the pinned clients where they are missing (Python venv in tests/interop/.venv, npm in
# tests/interop/node_modules), runs the suites, and ends with one line
# "N passed, N failed, N skipped" over all of them. Exits non-zero if any test failed or a
# suite could not run. Needs python3, node >= 18 and npm, and for the java suite (the Java
# AdminClient of Kafka 4.x) a JDK 17+ and mvn; the first run downloads from PyPI, npm and
# Maven Central (Kafka's jars, through tests/gateway/upstream/fetch_kafka.sh). KACL_INTEROP_SCRAM=0 skips the SCRAM tests; the SASL_SSL tests need the
# openssl command line. KACL_INTEROP_CLUSTER=3 runs every test against three kacl nodes
# sharing etcd (cluster mode, issue 16): this script starts three etcd members on free
# loopback ports for the whole run (etcd must be installed; see .ci/run), or uses
# KACL_INTEROP_ETCD_ENDPOINTS when set.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
VENV="$HERE/.venv"
PY="$VENV/bin/python"
KAFKAJS_VERSION=2.2.4
# A stuck client must not eat CI's time: each suite gets at most this many seconds.
SUITE_TIMEOUT_S=${KACL_INTEROP_SUITE_TIMEOUT:-1200}

ALL_SUITES=(confluent kafka-python kafkajs java)
if [ "$#" -gt 0 ]; then SUITES=("$@"); else SUITES=("${ALL_SUITES[@]}"); fi
for suite in "${SUITES[@]}"; do
  case "$suite" in
    confluent|kafka-python|kafkajs|java) ;;
    *) echo "run.sh: unknown suite '$suite' (known: ${ALL_SUITES[*]})" >&2; exit 64 ;;
  esac
done
wants() { local s; for s in "${SUITES[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }

step() { echo "== interop: $*"; }

# --- the server ------------------------------------------------------------------------
if [ -n "${KACL_BIN:-}" ]; then
  step "using KACL_BIN=$KACL_BIN (no build)"
else
  step "cargo build --release -p kacl"
  (cd "$ROOT" && cargo build --release -p kacl)
  target_dir="${CARGO_TARGET_DIR:-target}"
  case "$target_dir" in /*) ;; *) target_dir="$ROOT/$target_dir" ;; esac
  export KACL_BIN="$target_dir/release/kacl"
fi
if [ ! -x "$KACL_BIN" ]; then
  echo "run.sh: no kacl binary at $KACL_BIN" >&2
  exit 1
fi

# --- etcd, for cluster mode ----------------------------------------------------------
ETCD_PIDS=()
ETCD_DIR=""
stop_etcd() {
  local pid
  for pid in "${ETCD_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${ETCD_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  [ -n "$ETCD_DIR" ] && rm -rf "$ETCD_DIR"
  return 0
}
if [ "${KACL_INTEROP_CLUSTER:-1}" -gt 1 ] && [ -z "${KACL_INTEROP_ETCD_ENDPOINTS:-}" ]; then
  command -v etcd >/dev/null || { echo "run.sh: KACL_INTEROP_CLUSTER needs etcd (see .ci/run)" >&2; exit 1; }
  ETCD_DIR="$(mktemp -d "${TMPDIR:-/tmp}/kacl-interop-etcd.XXXXXX")"
  trap stop_etcd EXIT
  port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
  clients=() peers=() initial=""
  for i in 0 1 2; do
    clients[$i]=$(port); peers[$i]=$(port)
    initial+="e$i=http://127.0.0.1:${peers[$i]},"
  done
  initial=${initial%,}
  endpoints=""
  for i in 0 1 2; do
    etcd --name "e$i" --data-dir "$ETCD_DIR/e$i" \
      --listen-client-urls "http://127.0.0.1:${clients[$i]}" \
      --advertise-client-urls "http://127.0.0.1:${clients[$i]}" \
      --listen-peer-urls "http://127.0.0.1:${peers[$i]}" \
      --initial-advertise-peer-urls "http://127.0.0.1:${peers[$i]}" \
      --initial-cluster "$initial" --initial-cluster-state new \
      --max-txn-ops 10100 --max-request-bytes 10485760 >"$ETCD_DIR/e$i.log" 2>&1 &
    ETCD_PIDS+=($!)
    endpoints+="http://127.0.0.1:${clients[$i]},"
  done
  export KACL_INTEROP_ETCD_ENDPOINTS=${endpoints%,}
  for _ in $(seq 300); do
    curl -s -X POST "http://127.0.0.1:${clients[0]}/v3/kv/range" -d '{"key":"eA=="}' 2>/dev/null \
      | grep -q header && break
    sleep 0.1
  done
  step "cluster mode: ${KACL_INTEROP_CLUSTER} kacl nodes per server on etcd $KACL_INTEROP_ETCD_ENDPOINTS"
fi

# --- Python clients --------------------------------------------------------------------
# The kafkajs suite runs the Python harness and the test OpenID provider with it too.
if wants confluent || wants kafka-python || wants java || wants kafkajs; then
  if [ ! -x "$PY" ]; then
    step "creating $VENV"
    python3 -m venv "$VENV"
  fi
  # Install only when some pinned requirement is missing or at another version.
  if ! "$PY" - "$HERE/requirements.txt" <<'EOF'
import sys
from importlib.metadata import PackageNotFoundError, version
for line in open(sys.argv[1]):
    line = line.split("#", 1)[0].strip()
    if not line:
        continue
    name, pinned = line.split("==")
    try:
        if version(name) != pinned:
            sys.exit(1)
    except PackageNotFoundError:
        sys.exit(1)
EOF
  then
    step "pip install -r requirements.txt"
    "$PY" -m pip install --disable-pip-version-check --no-input -q -r "$HERE/requirements.txt"
  fi
fi
export KACL_PYTHON="${KACL_PYTHON:-$(if [ -x "$PY" ]; then echo "$PY"; else command -v python3; fi)}"

# --- JavaScript client -----------------------------------------------------------------
if wants kafkajs; then
  for tool in node npm; do
    command -v "$tool" >/dev/null || { echo "run.sh: $tool is needed for the kafkajs suite" >&2; exit 1; }
  done
  node_major="$(node -p 'process.versions.node.split(".")[0]')"
  if [ "$node_major" -lt 18 ]; then
    echo "run.sh: node >= 18 is needed for node:test, found $(node --version)" >&2
    exit 1
  fi
  installed="$(node -p "try { require('$HERE/node_modules/kafkajs/package.json').version } catch { '' }")"
  if [ "$installed" != "$KAFKAJS_VERSION" ]; then
    step "npm ci (kafkajs $KAFKAJS_VERSION)"
    (cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error)
  fi
fi

# --- Java client ----------------------------------------------------------------------
if wants java; then
  for tool in java javac mvn; do
    command -v "$tool" >/dev/null || { echo "run.sh: $tool is needed for the java suite (a JDK 17+ and Maven)" >&2; exit 1; }
  done
  step "Kafka's jars (the Java AdminClient) from Maven Central"
  KACL_KAFKA_LIB="$("$ROOT/tests/gateway/upstream/fetch_kafka.sh" | tail -n1)"
  export KACL_KAFKA_LIB
fi

# --- the suites ------------------------------------------------------------------------
RESULTS="$(mktemp -d "${TMPDIR:-/tmp}/kacl-interop-results.XXXXXX")"
trap 'rm -rf "$RESULTS"; stop_etcd' EXIT

# Each suite sets suite_passed/suite_failed/suite_skipped from its runner's result file.
count_pytest() { # junit.xml
  local counts
  counts="$("$PY" - "$1" <<'EOF'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
tests = sum(int(s.get("tests", 0)) for s in suites)
failed = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
skipped = sum(int(s.get("skipped", 0)) for s in suites)
print(tests - failed - skipped, failed, skipped)
EOF
  )" || counts="0 0 0"
  read -r suite_passed suite_failed suite_skipped <<<"$counts"
}
count_tap() { # file.tap
  local cancelled
  suite_passed="$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$1" | tail -n1)"
  suite_failed="$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$1" | tail -n1)"
  cancelled="$(sed -n 's/^# cancelled \([0-9]*\)$/\1/p' "$1" | tail -n1)"
  suite_skipped="$(sed -n 's/^# skipped \([0-9]*\)$/\1/p' "$1" | tail -n1)"
  suite_passed=${suite_passed:-0}
  suite_failed=$((${suite_failed:-0} + ${cancelled:-0}))
  suite_skipped=${suite_skipped:-0}
}

status=0
total_passed=0 total_failed=0 total_skipped=0
for suite in "${SUITES[@]}"; do
  step "suite $suite"
  rc=0
  suite_passed=0 suite_failed=0 suite_skipped=0
  case "$suite" in
    confluent|kafka-python|java)
      result="$RESULTS/$suite.xml"
      # A suite's files: test_SUITE.py and its companions (test_SUITE_oauth.py, ...).
      files=("$HERE"/test_"${suite//-/_}"*.py)
      [ "$suite" = java ] && files=("$HERE"/test_java_admin.py "$HERE"/test_java_acl_tool.py)
      (cd "$HERE" && timeout --kill-after=30 "$SUITE_TIMEOUT_S" \
        "$PY" -m pytest "${files[@]}" --junitxml="$result") || rc=$?
      if [ -s "$result" ]; then count_pytest "$result"; fi
      ;;
    kafkajs)
      result="$RESULTS/kafkajs.tap"
      (cd "$HERE" && timeout --kill-after=30 "$SUITE_TIMEOUT_S" \
        node --test \
          --test-reporter=spec --test-reporter-destination=stdout \
          --test-reporter=tap --test-reporter-destination="$result" \
          test_kafkajs.mjs test_kafkajs_oauth.mjs) || rc=$?
      if [ -s "$result" ]; then count_tap "$result"; fi
      ;;
  esac
  # A suite that exits non-zero without a failed test (it could not start, or timed out)
  # counts as one failure, so that it cannot pass unnoticed.
  if [ "$rc" -ne 0 ]; then
    status=1
    if [ "$suite_failed" -eq 0 ]; then suite_failed=1; fi
  fi
  echo "== interop: $suite: $suite_passed passed, $suite_failed failed, $suite_skipped skipped (exit code $rc)"
  total_passed=$((total_passed + suite_passed))
  total_failed=$((total_failed + suite_failed))
  total_skipped=$((total_skipped + suite_skipped))
done

echo "$total_passed passed, $total_failed failed, $total_skipped skipped"
if [ "$status" -ne 0 ] || [ "$total_failed" -ne 0 ] || [ "$total_passed" -eq 0 ]; then
  exit 1
fi
