"""kafka-python 3.0.12 (pure Python) against kacl serve, through its KafkaAdminClient.

The same ACL cases as test_confluent.py (acl_cases.json); topics in tests named
test_topic_*; SCRAM (marked `scram`, skipped with KACL_INTEROP_SCRAM=0).
"""

from __future__ import annotations

import time

from collections.abc import Iterator
from pathlib import Path

import kafka.errors as Errors
import pytest
from kafka.admin import (
    ACL,
    ACLFilter,
    ACLOperation,
    ACLPermissionType,
    ACLResourcePatternType,
    KafkaAdminClient,
    ResourcePattern,
    ResourcePatternFilter,
    ResourceType,
    UserScramCredentialUpsertion,
)

from cases import (
    ANY_FILTER,
    DELETE_CASE,
    DESCRIBE_CASES,
    GRANT_CLUSTER_DESCRIBE_TO_ALICE,
    NON_SUPER_USER_CREATE,
    SEED,
    AclKey,
    expected,
)
from conftest import REAUTH_MS
from harness import ADMIN, ALICE, KaclServer, User

# Milliseconds kafka-python may spend bootstrapping and on one request.
TIMEOUT_MS = 15_000


# --- the client's own types ----------------------------------------------------------


def acl(spec: dict) -> ACL:
    return ACL(
        principal=spec["principal"],
        host=spec["host"],
        operation=ACLOperation[spec["operation"]],
        permission_type=ACLPermissionType[spec["permission"]],
        resource_pattern=ResourcePattern(
            ResourceType[spec["resource_type"]], spec["name"], ACLResourcePatternType[spec["pattern_type"]]
        ),
    )


def acl_filter(spec: dict) -> ACLFilter:
    return ACLFilter(
        principal=spec["principal"],
        host=spec["host"],
        operation=ACLOperation[spec["operation"]],
        permission_type=ACLPermissionType[spec["permission"]],
        resource_pattern=ResourcePatternFilter(
            ResourceType[spec["resource_type"]], spec["name"], ACLResourcePatternType[spec["pattern_type"]]
        ),
    )


def key(entry: ACL) -> AclKey:
    pattern = entry.resource_pattern
    return AclKey(
        pattern.resource_type.name,
        pattern.resource_name,
        pattern.pattern_type.name,
        entry.principal,
        entry.host,
        entry.operation.name,
        entry.permission_type.name,
    )


def admin_client(
    server: KaclServer, user: User = ADMIN, mechanism: str = "PLAIN", bootstrap_timeout_ms: int = TIMEOUT_MS
) -> KafkaAdminClient:
    return KafkaAdminClient(
        bootstrap_servers=server.sasl,
        client_id="kacl-interop",
        security_protocol="SASL_PLAINTEXT",
        sasl_mechanism=mechanism,
        sasl_plain_username=user.name,
        sasl_plain_password=user.password,
        request_timeout_ms=TIMEOUT_MS,
        bootstrap_timeout_ms=bootstrap_timeout_ms,
    )


def create(admin: KafkaAdminClient, specs: list[dict]) -> None:
    result = admin.create_acls([acl(s) for s in specs])
    assert result["failed"] == []
    assert len(result["succeeded"]) == len(specs)


def describe(admin: KafkaAdminClient, spec: dict) -> list[AclKey]:
    acls, error = admin.describe_acls(acl_filter(spec))
    assert error is Errors.NoError
    return sorted(key(a) for a in acls)


@pytest.fixture
def admin(kacl: KaclServer) -> Iterator[KafkaAdminClient]:
    client = admin_client(kacl)
    yield client
    client.close()


@pytest.fixture
def alice(kacl: KaclServer) -> Iterator[KafkaAdminClient]:
    client = admin_client(kacl, ALICE)
    yield client
    client.close()


@pytest.fixture
def seeded(admin: KafkaAdminClient) -> KafkaAdminClient:
    """The admin client, after it created every seed ACL of acl_cases.json."""
    create(admin, list(SEED.values()))
    return admin


# --- ACLs ----------------------------------------------------------------------------


def test_acl_create_as_super_user(admin: KafkaAdminClient) -> None:
    create(admin, list(SEED.values()))
    assert describe(admin, ANY_FILTER) == expected(list(SEED))


def test_acl_create_is_idempotent(admin: KafkaAdminClient) -> None:
    create(admin, list(SEED.values()))
    create(admin, list(SEED.values()))
    assert describe(admin, ANY_FILTER) == expected(list(SEED))


@pytest.mark.parametrize("case", DESCRIBE_CASES, ids=[c["id"] for c in DESCRIBE_CASES])
def test_acl_describe(seeded: KafkaAdminClient, case: dict) -> None:
    assert describe(seeded, case["filter"]) == expected(case["expect"])


def test_acl_delete_with_filters(seeded: KafkaAdminClient) -> None:
    results = seeded.delete_acls([acl_filter(f) for f in DELETE_CASE["filters"]])
    assert [error for _filter, _matching, error in results] == [Errors.NoError] * len(DELETE_CASE["filters"])
    deleted = [sorted(key(a) for a in matching) for _filter, matching, _error in results]
    assert deleted == [expected(names) for names in DELETE_CASE["expect"]]
    assert describe(seeded, ANY_FILTER) == expected(DELETE_CASE["remaining"])


def test_acl_describe_refused_for_non_super_user(seeded: KafkaAdminClient, alice: KafkaAdminClient) -> None:
    with pytest.raises(Errors.ClusterAuthorizationFailedError):
        alice.describe_acls(acl_filter(ANY_FILTER))


def test_acl_create_refused_for_non_super_user(admin: KafkaAdminClient, alice: KafkaAdminClient) -> None:
    result = alice.create_acls([acl(s) for s in NON_SUPER_USER_CREATE.values()])
    assert result["succeeded"] == []
    assert result["failed"] == [Errors.ClusterAuthorizationFailedError] * len(NON_SUPER_USER_CREATE)
    assert describe(admin, ANY_FILTER) == []


def test_acl_delete_refused_for_non_super_user(seeded: KafkaAdminClient, alice: KafkaAdminClient) -> None:
    results = alice.delete_acls([acl_filter(ANY_FILTER)])
    assert [(error, matching) for _filter, matching, error in results] == [(Errors.ClusterAuthorizationFailedError, [])]
    assert describe(seeded, ANY_FILTER) == expected(list(SEED))


def test_acl_cluster_describe_grant_lets_user_describe(seeded: KafkaAdminClient, alice: KafkaAdminClient) -> None:
    create(seeded, [GRANT_CLUSTER_DESCRIBE_TO_ALICE])
    want = sorted(expected(list(SEED)) + [key(acl(GRANT_CLUSTER_DESCRIBE_TO_ALICE))])
    assert describe(alice, ANY_FILTER) == want


def test_wrong_password_is_refused(kacl: KaclServer, caplog: pytest.LogCaptureFixture) -> None:
    assert_login_refused(kacl, "PLAIN", User(ALICE.name, "not-" + ALICE.password), caplog)


def assert_login_refused(server: KaclServer, mechanism: str, user: User, caplog: pytest.LogCaptureFixture) -> None:
    """kafka-python bootstraps in its constructor and retries a refused login until
    bootstrap_timeout_ms; the refusal itself (error 58) is only logged."""
    with pytest.raises(Errors.KafkaTimeoutError):
        admin_client(server, user, mechanism, bootstrap_timeout_ms=3000)
    messages = [record.getMessage() for record in caplog.records]
    assert any("SaslAuthenticationFailedError" in m for m in messages), messages


# --- topics --------------------------------------------------------------------------


def partition_counts(admin: KafkaAdminClient) -> dict[str, int]:
    """Partition count per topic, from Metadata for all topics (describe_topics)."""
    topics = admin.describe_topics()
    for topic in topics:
        assert topic["error_code"] == 0, topic
    counts = {topic["name"]: len(topic["partitions"]) for topic in topics}
    assert sorted(admin.list_topics()) == sorted(counts)
    return counts


def new_topic(partitions: int) -> dict:
    return {"num_partitions": partitions, "replication_factor": 1}


def test_topic_create_and_list(admin: KafkaAdminClient) -> None:
    result = admin.create_topics({"orders": new_topic(3), "audit": new_topic(1)})
    assert sorted((t["name"], t["error_code"]) for t in result["topics"]) == [("audit", 0), ("orders", 0)]
    counts = partition_counts(admin)
    assert counts.get("orders") == 3
    assert counts.get("audit") == 1


def test_topic_create_with_broker_defaults(admin: KafkaAdminClient) -> None:
    # A bare name is sent with -1/-1: the server's num.partitions (2 in harness.py) applies.
    admin.create_topics(["defaults"])
    assert partition_counts(admin).get("defaults") == 2


def test_topic_create_duplicate_refused(admin: KafkaAdminClient) -> None:
    admin.create_topics({"orders": new_topic(1)})
    with pytest.raises(Errors.TopicAlreadyExistsError):
        admin.create_topics({"orders": new_topic(4)})
    assert partition_counts(admin).get("orders") == 1


@pytest.mark.parametrize("name", ["bad/name", "..", "x" * 250], ids=["slash", "dot-dot", "250-chars"])
def test_topic_create_invalid_name_refused(admin: KafkaAdminClient, name: str) -> None:
    with pytest.raises(Errors.InvalidTopicError):
        admin.create_topics({name: new_topic(1)})
    assert name not in partition_counts(admin)


def test_topic_create_colliding_name_refused(admin: KafkaAdminClient) -> None:
    admin.create_topics({"metrics.eu": new_topic(1)})
    with pytest.raises(Errors.InvalidTopicError):
        admin.create_topics({"metrics_eu": new_topic(1)})


def test_topic_create_partitions_increases(admin: KafkaAdminClient) -> None:
    admin.create_topics({"orders": new_topic(2)})
    admin.create_partitions({"orders": 5})
    assert partition_counts(admin).get("orders") == 5


@pytest.mark.parametrize("new_total", [3, 4], ids=["fewer", "same"])
def test_topic_create_partitions_not_larger_refused(admin: KafkaAdminClient, new_total: int) -> None:
    admin.create_topics({"orders": new_topic(4)})
    with pytest.raises(Errors.InvalidPartitionsError):
        admin.create_partitions({"orders": new_total})
    assert partition_counts(admin).get("orders") == 4


def test_topic_delete(admin: KafkaAdminClient) -> None:
    admin.create_topics({"keep": new_topic(1), "drop-a": new_topic(1), "drop-b": new_topic(1)})
    result = admin.delete_topics(["drop-a", "drop-b"])
    assert sorted((t["name"], t["error_code"]) for t in result["topics"]) == [("drop-a", 0), ("drop-b", 0)]
    counts = partition_counts(admin)
    assert "keep" in counts
    assert "drop-a" not in counts and "drop-b" not in counts


def test_topic_delete_missing_refused(admin: KafkaAdminClient) -> None:
    with pytest.raises(Errors.UnknownTopicOrPartitionError):
        admin.delete_topics(["never-created"])


# --- SCRAM (issue 7) -----------------------------------------------------------------

CAROL = User("carol", "carol-secret")


def add_scram_user(admin: KafkaAdminClient, user: User, mechanism: str) -> None:
    result = admin.alter_user_scram_credentials([UserScramCredentialUpsertion(user.name, mechanism, user.password)])
    assert result == {user.name: None}


@pytest.mark.scram
@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_scram_login_and_describe(admin: KafkaAdminClient, kacl: KaclServer, mechanism: str) -> None:
    add_scram_user(admin, CAROL, mechanism)
    grant = dict(GRANT_CLUSTER_DESCRIBE_TO_ALICE, principal=CAROL.principal)
    create(admin, [grant])
    carol = admin_client(kacl, CAROL, mechanism)
    try:
        assert describe(carol, ANY_FILTER) == [key(acl(grant))]
    finally:
        carol.close()


@pytest.mark.scram
@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_scram_wrong_password_is_refused(
    admin: KafkaAdminClient, kacl: KaclServer, mechanism: str, caplog: pytest.LogCaptureFixture
) -> None:
    add_scram_user(admin, CAROL, mechanism)
    assert_login_refused(kacl, mechanism, User(CAROL.name, "not-" + CAROL.password), caplog)


# --- SASL re-authentication (KIP-368) ---------------------------------------------------


def test_sessions_are_renewed_by_reauthentication(kacl_reauth: KaclServer) -> None:
    """With connections.max.reauth.ms set, kafka-python re-authenticates on its connection
    before the session expires: calls over several lifetimes keep working, and the server
    logs renewals and never closes an expired session."""
    client = admin_client(kacl_reauth)
    try:
        deadline = time.monotonic() + 3 * REAUTH_MS / 1000 + 1
        calls = 0
        while time.monotonic() < deadline:
            describe(client, ANY_FILTER)
            calls += 1
            time.sleep(0.25)
    finally:
        client.close()
    log = kacl_reauth.log_path.read_text(errors="replace")
    assert calls > 10
    assert "re-authenticated" in log, kacl_reauth.log_tail()
    assert "session expired" not in log, kacl_reauth.log_tail()


# --- configs -------------------------------------------------------------------------


def test_config_describe_and_alter(admin: KafkaAdminClient) -> None:
    from kafka.admin import ConfigResource, ConfigResourceType, NewTopic

    admin.create_topics([NewTopic("cfg", 1, 1, topic_configs={"cleanup.policy": "compact"})])

    def described(config_filter: str) -> dict:
        result = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, "cfg")], config_filter=config_filter)
        return result["topic"]["cfg"]

    configs = described("all")
    assert configs["cleanup.policy"]["value"] == "compact"
    assert configs["cleanup.policy"]["config_source"] == "DYNAMIC_TOPIC_CONFIG"
    assert configs["retention.ms"]["value"] == "604800000"
    assert configs["retention.ms"]["config_source"] == "DEFAULT_CONFIG"
    assert configs["retention.ms"]["is_sensitive"] is False
    # The client's own filter keeps the non-default ones: the topic's setting only.
    assert list(described("modified")) == ["cleanup.policy"]

    # The legacy AlterConfigs (the client fills in the keys already set, since the request
    # replaces the whole set).
    result = admin.alter_configs([ConfigResource(ConfigResourceType.TOPIC, "cfg", configs={"retention.ms": "1000"})], incremental=False)
    assert result == {"topic": {"cfg": "OK"}}
    configs = described("modified")
    assert configs["retention.ms"]["value"] == "1000"
    assert configs["cleanup.policy"]["value"] == "compact"

    result = admin.alter_configs(
        [ConfigResource(ConfigResourceType.TOPIC, "cfg", configs={"nope": "1"})], incremental=False, raise_on_unknown=False
    )
    assert "Unknown topic config name: nope" in result["topic"]["cfg"]
    assert "InvalidConfigurationError" in result["topic"]["cfg"] or "40" in result["topic"]["cfg"]


# --- admin APIs of newer tools (issue 29) ----------------------------------------------


def test_admin_describe_topic_partitions_follows_the_cursor(admin: KafkaAdminClient) -> None:
    admin.create_topics({"orders": new_topic(3), "audit": new_topic(1)})
    seen = []
    cursor = None
    for _ in range(5):
        page = admin.describe_topic_partitions(["orders", "audit"], response_partition_limit=2, cursor=cursor)
        assert sum(len(t["partitions"]) for t in page["topics"]) <= 2
        for topic in page["topics"]:
            assert topic["error_code"] == 0
            seen += [(topic["name"], p["partition_index"], p["leader_id"]) for p in topic["partitions"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    # Name order, every partition once, led by node 1.
    assert seen == [("audit", 0, 1), ("orders", 0, 1), ("orders", 1, 1), ("orders", 2, 1)]
    missing = admin.describe_topic_partitions(["never-created"])
    assert [(t["name"], t["error_code"]) for t in missing["topics"]] == [("never-created", 3)]


def test_admin_describe_topic_partitions_refuses_undescribable_topics(
    admin: KafkaAdminClient, alice: KafkaAdminClient
) -> None:
    admin.create_topics({"secret": new_topic(1)})
    page = alice.describe_topic_partitions(["secret", "never-created"])
    # Unauthorized whether the topic exists or not, so nothing leaks.
    assert sorted((t["name"], t["error_code"]) for t in page["topics"]) == [("never-created", 29), ("secret", 29)]


def test_admin_partition_reassignments(admin: KafkaAdminClient, alice: KafkaAdminClient) -> None:
    from kafka import TopicPartition

    admin.create_topics({"orders": new_topic(2)})
    assert admin.list_partition_reassignments() == {}
    result = admin.alter_partition_reassignments(
        {TopicPartition("orders", 0): [1], TopicPartition("orders", 1): [2], TopicPartition("orders", 7): [1]}
    )
    assert result[TopicPartition("orders", 0)] is None
    assert result[TopicPartition("orders", 1)] is Errors.InvalidReplicationAssignmentError
    assert result[TopicPartition("orders", 7)] is Errors.UnknownTopicOrPartitionError
    cancelled = admin.alter_partition_reassignments({TopicPartition("orders", 0): None})
    assert cancelled[TopicPartition("orders", 0)] is Errors.NoReassignmentInProgressError
    assert admin.list_partition_reassignments() == {}
    with pytest.raises(Errors.ClusterAuthorizationFailedError):
        alice.alter_partition_reassignments({TopicPartition("orders", 0): [1]})
    with pytest.raises(Errors.ClusterAuthorizationFailedError):
        alice.list_partition_reassignments()


def test_admin_describe_log_dirs(admin: KafkaAdminClient, kacl: KaclServer) -> None:
    admin.create_topics({"orders": new_topic(2)})
    brokers = admin.describe_log_dirs()
    # One directory, the data directory, holding no partition logs, its sizes unknown.
    assert [b["broker"] for b in brokers] == [1]
    (directory,) = brokers[0]["log_dirs"]
    assert Path(directory["log_dir"]).resolve() == (kacl.work_dir / "data").resolve()
    assert (directory["error_code"], directory["topics"]) == (0, [])
    assert (directory["total_bytes"], directory["usable_bytes"]) == (-1, -1)


def test_admin_groups_and_transactions_are_empty(admin: KafkaAdminClient) -> None:
    assert admin.list_groups() == []
    # DescribeGroups v6 (KIP-1043): Kafka's answer for a group it does not know.
    described = admin.describe_groups(["nope"])["nope"]
    assert described["group_state"] == "Dead"
    assert described["members"] == []
    assert "GroupIdNotFoundError: Group nope not found." in described["error"]
    listed = admin.list_transactions()
    assert all(states == [] for states in listed.values()) and listed
    with pytest.raises(Errors.TransactionalIdNotFoundError):
        admin.describe_transactions(["txn-1"])
