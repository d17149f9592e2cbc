"""Kafka 4.4's own command-line tools against `kacl serve` and against a Kafka 4.4 broker,
output for output: each case runs one tool invocation against both (concurrently), then
compares exit codes and normalized output (see tools.normalize).

The cases run in order and change both clusters the same way (create, alter, delete), so
each one sees the same state on both sides. A comparison is one of:
  exact      the normalized output is identical;
  unordered  the same lines in any order (ACL listings: Kafka prints them in hash order);
  keys       `key=value ...` lines compared key by key for the keys both print, minus the
             keys that name this server (its listeners, paths), with some keys required in
             both (the broker config table: kacl lists only the keys it knows, see
             DIFFERENCES_FROM_KAFKA).
Every difference the suite lets through is named in ALLOWED with the DIFFERENCES_FROM_KAFKA
entry it stands for; a case that names one must still differ (else the entry is stale).
"""

from dataclasses import dataclass, field
import re

import pytest

ACLS, TOPICS, CONFIGS, GROUPS = "kafka-acls", "kafka-topics", "kafka-configs", "kafka-consumer-groups"

#: Differences the suite accepts, each one an entry of kacl_server::DIFFERENCES_FROM_KAFKA.
ALLOWED = {
    "broker-config-table": "DescribeConfigs of this broker lists the keys the server's "
                           "properties set plus the defaults kacl knows, not every KafkaConfig key",
}


@dataclass
class Case:
    id: str
    tool: str
    args: list
    compare: str = "exact"
    #: keys mode: keys that name the server itself (compared by presence only).
    own_keys: tuple = ()
    #: keys mode: keys both must print.
    required: tuple = ()
    allowed: str = None
    marks: list = field(default_factory=list)


def acl(id, *args, compare="unordered"):
    return Case(id, ACLS, list(args), compare)


def topic(id, *args):
    return Case(id, TOPICS, list(args))


def config(id, *args, **kw):
    return Case(id, CONFIGS, list(args), **kw)


def group(id, *args):
    return Case(id, GROUPS, list(args))


TOPIC_ALL = ("--describe", "--entity-type", "topics", "--entity-name")

CASES = [
    # ---- ACLs -------------------------------------------------------------------------------
    acl("acl-list-empty", "--list"),
    acl("acl-add-read", "--add", "--allow-principal", "User:alice", "--operation", "Read",
        "--topic", "orders"),
    acl("acl-add-producer-prefixed", "--add", "--allow-principal", "User:bob", "--producer",
        "--topic", "pay-", "--resource-pattern-type", "prefixed"),
    acl("acl-add-consumer", "--add", "--allow-principal", "User:carol", "--consumer",
        "--topic", "orders", "--group", "billing"),
    acl("acl-add-deny-host", "--add", "--deny-principal", "User:mallory", "--deny-host",
        "10.0.0.1", "--operation", "Write", "--topic", "orders"),
    acl("acl-add-cluster-and-txn", "--add", "--allow-principal", "User:dave", "--operation",
        "Describe", "--cluster", "--transactional-id", "tx-1"),
    acl("acl-add-wildcard", "--add", "--allow-principal", "User:*", "--operation",
        "Describe", "--topic", "*"),
    acl("acl-list-topic", "--list", "--topic", "orders"),
    acl("acl-list-topic-match", "--list", "--topic", "orders", "--resource-pattern-type",
        "match"),
    acl("acl-list-prefixed", "--list", "--topic", "pay-", "--resource-pattern-type", "prefixed"),
    acl("acl-list-principal", "--list", "--principal", "User:bob"),
    acl("acl-list-all", "--list"),
    acl("acl-remove", "--remove", "--allow-principal", "User:alice", "--operation", "Read",
        "--topic", "orders", "--force"),
    acl("acl-remove-by-principal", "--remove", "--principal", "User:carol", "--force",
        "--topic", "orders"),
    acl("acl-list-after-remove", "--list"),
    acl("acl-idempotent-write-removed", "--add", "--allow-principal", "User:x", "--operation",
        "IdempotentWrite", "--cluster"),
    # ---- topics -----------------------------------------------------------------------------
    topic("topic-create", "--create", "--topic", "t1", "--partitions", "3",
          "--replication-factor", "1"),
    topic("topic-create-again", "--create", "--topic", "t1"),
    topic("topic-create-if-not-exists", "--create", "--topic", "t1", "--if-not-exists"),
    topic("topic-create-with-configs", "--create", "--topic", "t2", "--config",
          "retention.ms=1000", "--config", "cleanup.policy=compact,delete"),
    topic("topic-create-replication-unreachable", "--create", "--topic", "t3",
          "--replication-factor", "3"),
    topic("topic-create-bad-value", "--create", "--topic", "t3", "--config", "retention.ms=-5"),
    topic("topic-create-unknown-config", "--create", "--topic", "t3", "--config",
          "no.such.config=1"),
    topic("topic-create-removed-config", "--create", "--topic", "t3", "--config",
          "message.downconversion.enable=true"),
    topic("topic-create-new-config", "--create", "--topic", "t4", "--config",
          "remote.copy.lag.ms=-1", "--config", "errors.deadletterqueue.group.enable=true"),
    topic("topic-create-assignment", "--create", "--topic", "t5", "--replica-assignment",
          "1,1"),
    topic("topic-create-bad-name", "--create", "--topic", "bad/name"),
    topic("topic-create-collision", "--create", "--topic", "t.1"),
    topic("topic-create-del", "--create", "--topic", "t-del"),
    topic("topic-list", "--list", "--exclude-internal"),
    topic("topic-describe", "--describe", "--topic", "t1"),
    topic("topic-describe-configs", "--describe", "--topic", "t2"),
    topic("topic-describe-all", "--describe", "--exclude-internal"),
    topic("topic-describe-missing", "--describe", "--topic", "nosuch"),
    topic("topic-alter-partitions", "--alter", "--topic", "t1", "--partitions", "5"),
    topic("topic-alter-partitions-decrease", "--alter", "--topic", "t1", "--partitions", "2"),
    topic("topic-delete", "--delete", "--topic", "t-del"),
    topic("topic-delete-missing", "--delete", "--topic", "nosuch"),
    topic("topic-list-after", "--list", "--exclude-internal"),
    topic("topic-describe-after-alter", "--describe", "--topic", "t1"),
    # ---- topic configs ----------------------------------------------------------------------
    config("topic-config-describe", *TOPIC_ALL, "t2"),
    config("topic-config-describe-all", *TOPIC_ALL, "t1", "--all"),
    config("topic-config-describe-all-set", *TOPIC_ALL, "t2", "--all"),
    config("topic-config-add", "--alter", "--entity-type", "topics", "--entity-name", "t1",
           "--add-config", "retention.ms=86400000,max.decompressed.message.bytes=1048576"),
    config("topic-config-describe-all-after-add", *TOPIC_ALL, "t1", "--all"),
    config("topic-config-append", "--alter", "--entity-type", "topics", "--entity-name", "t1",
           "--add-config", "cleanup.policy=[compact,delete]"),
    config("topic-config-delete", "--alter", "--entity-type", "topics", "--entity-name", "t1",
           "--delete-config", "retention.ms"),
    config("topic-config-describe-after-delete", *TOPIC_ALL, "t1"),
    config("topic-config-bad-lag", "--alter", "--entity-type", "topics", "--entity-name", "t1",
           "--add-config", "remote.copy.lag.ms=-2"),
    config("topic-config-bad-lag-bytes", "--alter", "--entity-type", "topics", "--entity-name",
           "t1", "--add-config", "remote.copy.lag.bytes=-2"),
    config("topic-config-bad-decompressed", "--alter", "--entity-type", "topics",
           "--entity-name", "t1", "--add-config", "max.decompressed.message.bytes=0"),
    config("topic-config-removed", "--alter", "--entity-type", "topics", "--entity-name", "t1",
           "--add-config", "message.downconversion.enable=false"),
    config("topic-config-missing-topic", "--alter", "--entity-type", "topics", "--entity-name",
           "nosuch", "--add-config", "retention.ms=1"),
    config("topic-config-describe-missing", *TOPIC_ALL, "nosuch"),
    # ---- broker configs ---------------------------------------------------------------------
    config("broker-config-default", "--describe", "--entity-type", "brokers",
           "--entity-default"),
    config("broker-config-dynamic", "--describe", "--entity-type", "brokers", "--entity-name",
           "1"),
    config("broker-config-every-broker", "--describe", "--entity-type", "brokers"),
    config("broker-config-all", "--describe", "--entity-type", "brokers", "--entity-name", "1",
           "--all", compare="keys",
           own_keys=("listeners", "metadata.log.dir", "node.id", "listener.security.protocol.map",
                     "advertised.listeners"),
           required=("super.users", "allow.everyone.if.no.acl.found", "min.insync.replicas",
                     "sasl.enabled.mechanisms", "num.partitions", "log.retention.hours",
                     "log.remote.copy.lag.ms", "max.decompressed.message.bytes"),
           allowed="broker-config-table"),
    config("broker-config-other-broker", "--describe", "--entity-type", "brokers",
           "--entity-name", "7"),
    # ---- SCRAM users ------------------------------------------------------------------------
    config("scram-add", "--alter", "--entity-type", "users", "--entity-name", "alice",
           "--add-config", "SCRAM-SHA-256=[iterations=8192,password=alice-secret]"),
    config("scram-add-512", "--alter", "--entity-type", "users", "--entity-name", "alice",
           "--add-config", "SCRAM-SHA-512=[password=alice-secret]"),
    config("scram-add-too-few-iterations", "--alter", "--entity-type", "users", "--entity-name",
           "bob", "--add-config", "SCRAM-SHA-256=[iterations=100,password=x]"),
    config("scram-describe", "--describe", "--entity-type", "users", "--entity-name", "alice"),
    config("scram-describe-all", "--describe", "--entity-type", "users"),
    config("scram-delete", "--alter", "--entity-type", "users", "--entity-name", "alice",
           "--delete-config", "SCRAM-SHA-512"),
    config("scram-describe-after-delete", "--describe", "--entity-type", "users",
           "--entity-name", "alice"),
    config("scram-delete-missing", "--alter", "--entity-type", "users", "--entity-name",
           "nobody", "--delete-config", "SCRAM-SHA-256"),
    # ---- client quotas ----------------------------------------------------------------------
    config("quota-user", "--alter", "--entity-type", "users", "--entity-name", "carol",
           "--add-config", "producer_byte_rate=1024,consumer_byte_rate=2048"),
    config("quota-client", "--alter", "--entity-type", "clients", "--entity-name", "app-1",
           "--add-config", "request_percentage=50"),
    config("quota-user-client", "--alter", "--entity-type", "users", "--entity-name", "carol",
           "--entity-type", "clients", "--entity-name", "app-1", "--add-config",
           "producer_byte_rate=512"),
    config("quota-user-default", "--alter", "--entity-type", "users", "--entity-default",
           "--add-config", "consumer_byte_rate=4096"),
    config("quota-bad-key", "--alter", "--entity-type", "users", "--entity-name", "carol",
           "--add-config", "no_such_quota=1"),
    config("quota-describe-user", "--describe", "--entity-type", "users", "--entity-name",
           "carol"),
    config("quota-describe-users", "--describe", "--entity-type", "users"),
    config("quota-describe-clients", "--describe", "--entity-type", "clients"),
    config("quota-describe-user-default", "--describe", "--entity-type", "users",
           "--entity-default"),
    config("quota-describe-user-client", "--describe", "--entity-type", "users",
           "--entity-name", "carol", "--entity-type", "clients", "--entity-name", "app-1"),
    config("quota-delete", "--alter", "--entity-type", "users", "--entity-name", "carol",
           "--delete-config", "producer_byte_rate"),
    config("quota-describe-after-delete", "--describe", "--entity-type", "users",
           "--entity-name", "carol"),
    # ---- consumer groups (kacl serve has none; Kafka has none either) ----------------------
    group("group-list", "--list"),
    group("group-list-state", "--list", "--state"),
    group("group-describe-missing", "--describe", "--group", "nosuch"),
    group("group-delete-missing", "--delete", "--group", "nosuch"),
    group("group-delete-several", "--delete", "--group", "a", "--group", "b"),
]

_KEY_LINE = re.compile(r"^  ([^=\s]+)=")


def _by_key(lines):
    out = {}
    for line in lines:
        m = _KEY_LINE.match(line)
        if m:
            out[m.group(1)] = line
    return out


def _differences(case, kafka, kacl):
    """What differs between the two answers, as lines for an assertion message; empty when
    they agree under the case's comparison."""
    diff = []
    if kafka.code != kacl.code:
        diff.append("exit code: Kafka %d, kacl %d" % (kafka.code, kacl.code))
    if case.compare == "exact":
        if kafka.out != kacl.out:
            diff.append("output differs")
    elif case.compare == "unordered":
        if sorted(kafka.lines()) != sorted(kacl.lines()):
            diff.append("output lines differ")
    elif case.compare == "keys":
        k, c = _by_key(kafka.lines()), _by_key(kacl.lines())
        for key in case.required:
            if key not in k or key not in c:
                diff.append("required key %s: in Kafka %s, in kacl %s" % (key, key in k, key in c))
        for key in sorted(set(k) & set(c)):
            if key not in case.own_keys and k[key] != c[key]:
                diff.append("key %s:\n  Kafka: %s\n  kacl:  %s" % (key, k[key], c[key]))
        others = [line for line in kafka.lines() if not _KEY_LINE.match(line)]
        if others != [line for line in kacl.lines() if not _KEY_LINE.match(line)]:
            diff.append("lines other than key=value differ")
    else:
        raise AssertionError("unknown comparison %s" % case.compare)
    return diff


def _show(kafka, kacl):
    return "\n--- Kafka (exit %d):\n%s\n--- kacl (exit %d):\n%s" % (
        kafka.code, kafka.out, kacl.code, kacl.out)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_tool_output_matches_kafka(runner, case):
    kafka, kacl = runner.run(case.tool, case.args)
    diff = _differences(case, kafka, kacl)
    assert not diff, "%s %s\n%s%s" % (case.tool, " ".join(case.args), "\n".join(diff), _show(kafka, kacl))
    if case.allowed:
        assert case.allowed in ALLOWED
        # The allowed difference must still exist, or its entry is stale.
        assert kafka.out != kacl.out, "allowed difference %r no longer differs" % case.allowed


def test_cases_are_unique():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))
