"""kafka-python 3.0.12 (pure Python) against kacl serve, through its KafkaAdminClient.

The same ACL cases as test_confluent.py (acl_cases.json); topics in tests named
test_topic_*; SCRAM (marked `scram`, skipped with KACL_INTEROP_SCRAM=0).
"""

from __future__ import annotations

import time

from collections.abc import Iterator

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


def config_entries(response) -> dict[str, dict]:
    """name -> entry of the first resource of a DescribeConfigs response (as plain dicts)."""
    resource = response.to_object()["resources"][0]
    assert resource["error_code"] == 0, resource
    entries = {}
    for entry in resource["config_entries"]:
        name = entry.get("config_names", entry.get("config_name"))
        entries[name] = entry
    return entries


def test_config_describe_and_alter(admin: KafkaAdminClient) -> None:
    from kafka.admin import ConfigResource, ConfigResourceType, NewTopic

    admin.create_topics([NewTopic("cfg", 1, 1, topic_configs={"cleanup.policy": "compact"})])
    responses = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, "cfg")])
    entries = config_entries(responses[0])
    assert entries["cleanup.policy"]["config_value"] == "compact"
    assert entries["retention.ms"]["config_value"] == "604800000"
    if "config_source" in entries["cleanup.policy"]:
        assert entries["cleanup.policy"]["config_source"] == 1  # TOPIC_CONFIG
        assert entries["retention.ms"]["config_source"] == 5  # DEFAULT_CONFIG
    else:
        assert entries["retention.ms"]["is_default"] is True

    # AlterConfigs replaces the whole set: cleanup.policy returns to its default.
    response = admin.alter_configs([ConfigResource(ConfigResourceType.TOPIC, "cfg", configs={"retention.ms": "1000"})])
    result = response.to_object()["resources"][0]
    assert result["error_code"] == 0, result
    entries = config_entries(admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, "cfg")])[0])
    assert entries["retention.ms"]["config_value"] == "1000"
    assert entries["cleanup.policy"]["config_value"] == "delete"

    response = admin.alter_configs([ConfigResource(ConfigResourceType.TOPIC, "cfg", configs={"nope": "1"})])
    result = response.to_object()["resources"][0]
    assert result["error_code"] == 40  # INVALID_CONFIG
    assert result["error_message"] == "Unknown topic config name: nope"
