#!/usr/bin/env bash
# The authorizer differential: kacl's ACL model against Apache Kafka 4.4's own classes, no
# broker. kacl's driver (crates/kacl-acl/examples/authorizer_differential.rs) writes seeded
# random ACL sets and questions with kacl's answers; AuthorizerDifferential.java asks
# Kafka's StandardAuthorizer (authorize, authorizeByResourceType) and its ACL validation
# (AclControlManager.validateNewAcl) the same, and counts differences.
#
#   tests/authorizer-differential/run.sh [SEED [SETS]]
#
# SEED defaults to a fresh one (printed, so a failing run can be repeated); SETS to 100
# (about 20,000 cases). A seed that ever finds a difference becomes a case of the driver's
# fixed set. Needs java, javac and mvn (fetch_kafka.sh brings Kafka's jars).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
SEED="${1:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}"
SETS="${2:-100}"

LIB="$("$ROOT/tests/gateway/upstream/fetch_kafka.sh" | tail -n 1)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
javac -nowarn -d "$WORK" -cp "$LIB/*" "$HERE/AuthorizerDifferential.java"

cd "$ROOT"
cargo build --quiet --release -p kacl-acl --example authorizer_differential
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
echo "authorizer differential: seed $SEED, $SETS sets (repeat: $0 $SEED $SETS)"
started=$SECONDS
"$TARGET/release/examples/authorizer_differential" "$SEED" "$SETS" > "$WORK/cases.tsv"
echo "$(grep -c . "$WORK/cases.tsv") cases written"
java -cp "$LIB/*:$WORK" AuthorizerDifferential < "$WORK/cases.tsv"
echo "compared in $((SECONDS - started)) s"
