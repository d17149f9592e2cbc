#!/usr/bin/env bash
# kacl's gateway mode against real upstream brokers, with real clients.
#
#   KACL_BIN=/path/to/kacl tests/gateway/run.sh [pytest args...]
#
# Runs install.sh (venv with the pinned clients and Tansu; Kafka's jars), then pytest on
# tests/gateway (test_upstreams.py and test_gateway.py, or what the arguments select), and
# ends with one line "N passed, N failed, N skipped". Exits non-zero if a test failed or
# errored, or if nothing passed. Builds nothing: KACL_BIN must name a kacl binary with
# gateway mode. KACL_REQUIRE_EXTERNAL=1 turns a missing upstream or binary into a failure.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PY="$HERE/.venv/bin/python"
TIMEOUT_S=${KACL_GATEWAY_SUITE_TIMEOUT:-900}

if [ -z "${KACL_BIN:-}" ]; then
  echo "gateway run.sh: set KACL_BIN to the kacl binary to test (this script builds nothing)" >&2
  echo "0 passed, 1 failed, 0 skipped"
  exit 2
fi
if [ ! -x "$KACL_BIN" ]; then
  echo "gateway run.sh: KACL_BIN=$KACL_BIN is not an executable file" >&2
  echo "0 passed, 1 failed, 0 skipped"
  exit 2
fi
export KACL_BIN

"$HERE/install.sh"

RESULTS="$(mktemp -d "${TMPDIR:-/tmp}/kacl-gateway-results.XXXXXX")"
trap 'rm -rf "$RESULTS"' EXIT
junit="$RESULTS/junit.xml"
started=$(date +%s)
rc=0
(cd "$HERE" && timeout --kill-after=30 "$TIMEOUT_S" "$PY" -m pytest -v --junitxml="$junit" "$@") || rc=$?

passed=0 failed=0 skipped=0
if [ -s "$junit" ]; then
  read -r passed failed skipped < <("$PY" - "$junit" <<'PYEOF'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
tests = sum(int(s.get("tests", 0)) for s in suites)
failed = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
skipped = sum(int(s.get("skipped", 0)) for s in suites)
print(tests - failed - skipped, failed, skipped)
PYEOF
  ) || true
fi
# pytest failing without a failed test (collection error, timeout): count it as one.
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "== gateway tests: pytest exit code $rc, $(( $(date +%s) - started )) s"
echo "$passed passed, $failed failed, $skipped skipped"
if [ "$rc" -ne 0 ] || [ "$failed" -ne 0 ] || [ "$passed" -eq 0 ]; then
  exit 1
fi
