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
TIMEOUT_S=${KACL_TOOLS_SUITE_TIMEOUT:-600}

if [ -z "${KACL_BIN:-}" ] || [ ! -x "$KACL_BIN" ]; then
  echo "tools-differential run.sh: set KACL_BIN to an executable kacl binary (this script builds nothing)" >&2
  echo "0 passed, 1 failed, 0 skipped"
  exit 2
fi
export KACL_BIN

"$GATEWAY/install.sh"

exec "$GATEWAY/run_pytest.sh" tools-differential "$HERE" "$TIMEOUT_S" "$@"
