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

exec "$HERE/run_pytest.sh" gateway "$HERE" "$TIMEOUT_S" "$@"
