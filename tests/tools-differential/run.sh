#!/usr/bin/env bash
# Kafka 4.4's own command-line tools (kafka-acls, kafka-topics, kafka-configs,
# kafka-consumer-groups from the kafka-tools 4.4.0 jar) against `kacl serve` and against a
# Kafka 4.4 broker, output for output:
#
#   KACL_BIN=/path/to/kacl tests/tools-differential/run.sh [pytest args...]
#
# Installs through tests/gateway/install.sh (its venv, with pytest, and Kafka's jars in
# ~/.cache/kacl-kafka/<version>/lib), runs pytest here with that venv, and ends with one line
# "N passed, N failed, N skipped". Exits non-zero if a test failed or errored, or if nothing
# passed. Builds nothing. KACL_REQUIRE_EXTERNAL=1 turns a missing broker, jar or binary into a
# failure instead of a skip.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
GATEWAY="$HERE/../gateway"
PY="$GATEWAY/.venv/bin/python"
TIMEOUT_S=${KACL_TOOLS_SUITE_TIMEOUT:-600}

if [ -z "${KACL_BIN:-}" ] || [ ! -x "$KACL_BIN" ]; then
  echo "tools-differential run.sh: set KACL_BIN to an executable kacl binary (this script builds nothing)" >&2
  echo "0 passed, 1 failed, 0 skipped"
  exit 2
fi
export KACL_BIN

"$GATEWAY/install.sh"

RESULTS="$(mktemp -d "${TMPDIR:-/tmp}/kacl-tools-results.XXXXXX")"
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
echo "== tools-differential: pytest exit code $rc, $(( $(date +%s) - started )) s"
echo "$passed passed, $failed failed, $skipped skipped"
if [ "$rc" -ne 0 ] || [ "$failed" -ne 0 ] || [ "$passed" -eq 0 ]; then
  exit 1
fi
