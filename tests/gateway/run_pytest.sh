#!/usr/bin/env bash
# Runs one pytest suite with tests/gateway's venv and reports it the way CI reads it:
#
#   tests/gateway/run_pytest.sh NAME DIR TIMEOUT_S [pytest args...]
#
# pytest runs in DIR (bounded by TIMEOUT_S), then one line "N passed, N failed, N skipped" is
# printed from its JUnit report. Exits non-zero if a test failed or errored, if pytest failed
# without a failed test (a collection error, the timeout: counted as one failure), or if
# nothing passed. Shared by the gateway and tools-differential suites' run.sh.
set -euo pipefail

NAME=$1 DIR=$2 TIMEOUT_S=$3
shift 3
PY="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/.venv/bin/python"

RESULTS="$(mktemp -d "${TMPDIR:-/tmp}/kacl-$NAME-results.XXXXXX")"
trap 'rm -rf "$RESULTS"' EXIT
junit="$RESULTS/junit.xml"
started=$(date +%s)
rc=0
(cd "$DIR" && timeout --kill-after=30 "$TIMEOUT_S" "$PY" -m pytest -v --junitxml="$junit" "$@") || rc=$?

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
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "== $NAME: pytest exit code $rc, $(( $(date +%s) - started )) s"
echo "$passed passed, $failed failed, $skipped skipped"
if [ "$rc" -ne 0 ] || [ "$failed" -ne 0 ] || [ "$passed" -eq 0 ]; then
  exit 1
fi
