#!/usr/bin/env bash
# Fetches a runnable Apache Kafka broker (KRaft) from Maven Central into a local cache:
#
#   tests/gateway/upstream/fetch_kafka.sh            # version from upstream/kafka/VERSION
#   KACL_KAFKA_VERSION=4.1.2 tests/gateway/upstream/fetch_kafka.sh
#
# Result: $KACL_KAFKA_LIB (default ~/.cache/kacl-kafka/<version>/lib) holds kafka_2.13 and
# every runtime jar it needs (raft, metadata, storage, server, log4j2 binding, ...), so that
#   java -cp "$KACL_KAFKA_LIB/*" kafka.Kafka server.properties
# runs a broker. Needs java and mvn. Idempotent: a complete cache (marked by a .complete
# file naming the version) is left alone and the script returns at once; ~/.m2 keeps the
# downloads, so a re-fetch after deleting the cache is offline and quick. Prints the version,
# the directory and the time taken; the last line of stdout is the lib directory.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
POM="$HERE/kafka/pom.xml"
VERSION="${KACL_KAFKA_VERSION:-$(tr -d '[:space:]' < "$HERE/kafka/VERSION")}"
LIB="${KACL_KAFKA_LIB:-${XDG_CACHE_HOME:-$HOME/.cache}/kacl-kafka/$VERSION/lib}"
started=$(date +%s.%N)

elapsed() { awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }'; }

for tool in java mvn; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "fetch_kafka.sh: '$tool' not found on PATH; Kafka $VERSION needs Java 17+ and Maven" \
         "(Debian: apt-get install openjdk-17-jdk-headless maven)" >&2
    exit 1
  fi
done

# The cache is stamped with the version and the pom's digest: a pom that gains an artifact
# (the tools, say) fetches again.
STAMP="$VERSION $(sha256sum "$POM" | cut -c1-16)"
if [ -f "$LIB/.complete" ] && [ "$(cat "$LIB/.complete")" = "$STAMP" ] \
   && [ -f "$LIB/kafka_2.13-$VERSION.jar" ]; then
  echo "kafka $VERSION: cached in $LIB ($(elapsed) s)" >&2
  echo "$LIB"
  exit 0
fi

# Copy into a fresh sibling directory, then move it into place, so that an interrupted
# fetch never leaves a half-filled lib directory that looks usable.
mkdir -p "$(dirname "$LIB")"
tmp="$(mktemp -d "$(dirname "$LIB")/.lib.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
echo "kafka $VERSION: resolving from Maven Central into $LIB ..." >&2
log="$tmp/mvn.log"
if ! mvn -B -q -f "$POM" dependency:copy-dependencies \
      -Dkafka.version="$VERSION" -Dkafka.lib="$tmp/lib" >"$log" 2>&1; then
  echo "fetch_kafka.sh: mvn failed for Kafka $VERSION; its output:" >&2
  tail -n 40 "$log" >&2
  exit 1
fi
# mvn writes target/ next to the pom only for reports; keep the source tree clean.
rm -rf "$HERE/kafka/target"
if [ ! -f "$tmp/lib/kafka_2.13-$VERSION.jar" ]; then
  echo "fetch_kafka.sh: kafka_2.13-$VERSION.jar missing after mvn" >&2
  exit 1
fi
echo "$STAMP" > "$tmp/lib/.complete"
rm -rf "$LIB"
mv "$tmp/lib" "$LIB"
echo "kafka $VERSION: $(ls "$LIB" | grep -c '\.jar$') jars, $(du -sh "$LIB" | cut -f1) in $LIB ($(elapsed) s)" >&2
echo "$LIB"
