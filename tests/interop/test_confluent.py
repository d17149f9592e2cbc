"""confluent-kafka 2.16.1 (librdkafka 2.16.0) against kacl serve, through its AdminClient.

ACLs: create, describe with every kind of filter, delete, and the refusals a non-super
user gets. Topics (tests named test_topic_*): create, list, add partitions, delete, and
their error codes. SCRAM (marked `scram`, skipped with KACL_INTEROP_SCRAM=0), also over
SASL_SSL with a CA made by the harness.
"""

from __future__ import annotations

import time

import pytest
from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import (
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AdminClient,
    NewPartitions,
    NewTopic,
    ResourcePatternType,
    ResourceType,
    ScramCredentialInfo,
    ScramMechanism,
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

# Seconds librdkafka may spend on one admin call (lookup, connect, request, response).
TIMEOUT_S = 15


# --- the client's own types ----------------------------------------------------------


def resource_type(name: str) -> ResourceType:
    # librdkafka calls Kafka's CLUSTER resource type BROKER (same code, 4).
    return ResourceType.BROKER if name == "CLUSTER" else ResourceType[name]


def binding(spec: dict) -> AclBinding:
    return AclBinding(
        resource_type(spec["resource_type"]),
        spec["name"],
        ResourcePatternType[spec["pattern_type"]],
        spec["principal"],
        spec["host"],
        AclOperation[spec["operation"]],
        AclPermissionType[spec["permission"]],
    )


def binding_filter(spec: dict) -> AclBindingFilter:
    return AclBindingFilter(
        resource_type(spec["resource_type"]),
        spec["name"],
        ResourcePatternType[spec["pattern_type"]],
        spec["principal"],
        spec["host"],
        AclOperation[spec["operation"]],
        AclPermissionType[spec["permission"]],
    )


def key(acl: AclBinding) -> AclKey:
    restype = "CLUSTER" if acl.restype == ResourceType.BROKER else acl.restype.name
    return AclKey(
        restype,
        acl.name,
        acl.resource_pattern_type.name,
        acl.principal,
        acl.host,
        acl.operation.name,
        acl.permission_type.name,
    )


def admin_client(server: KaclServer, user: User = ADMIN, **extra: object) -> AdminClient:
    conf = {
        "bootstrap.servers": server.sasl,
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "PLAIN",
        "sasl.username": user.name,
        "sasl.password": user.password,
    }
    conf.update(extra)
    return AdminClient(conf)


def error_code(excinfo: pytest.ExceptionInfo) -> int:
    """The Kafka error code inside a KafkaException."""
    return excinfo.value.args[0].code()


def create(admin: AdminClient, specs: list[dict]) -> None:
    for future in admin.create_acls([binding(s) for s in specs], request_timeout=TIMEOUT_S).values():
        assert future.result() is None


def describe(admin: AdminClient, spec: dict) -> list[AclKey]:
    result = admin.describe_acls(binding_filter(spec), request_timeout=TIMEOUT_S).result()
    return sorted(key(acl) for acl in result)


@pytest.fixture
def admin(kacl: KaclServer) -> AdminClient:
    return admin_client(kacl)


@pytest.fixture
def seeded(admin: AdminClient) -> AdminClient:
    """The admin client, after it created every seed ACL of acl_cases.json."""
    create(admin, list(SEED.values()))
    return admin


# --- ACLs ----------------------------------------------------------------------------


def test_acl_create_as_super_user(admin: AdminClient) -> None:
    create(admin, list(SEED.values()))
    assert describe(admin, ANY_FILTER) == expected(list(SEED))


def test_acl_create_is_idempotent(admin: AdminClient) -> None:
    create(admin, list(SEED.values()))
    create(admin, list(SEED.values()))
    assert describe(admin, ANY_FILTER) == expected(list(SEED))


@pytest.mark.parametrize("case", DESCRIBE_CASES, ids=[c["id"] for c in DESCRIBE_CASES])
def test_acl_describe(seeded: AdminClient, case: dict) -> None:
    assert describe(seeded, case["filter"]) == expected(case["expect"])


def test_acl_delete_with_filters(seeded: AdminClient) -> None:
    filters = [binding_filter(f) for f in DELETE_CASE["filters"]]
    futures = seeded.delete_acls(filters, request_timeout=TIMEOUT_S)
    deleted = [sorted(key(acl) for acl in futures[f].result()) for f in filters]
    assert deleted == [expected(names) for names in DELETE_CASE["expect"]]
    assert describe(seeded, ANY_FILTER) == expected(DELETE_CASE["remaining"])


def test_acl_describe_refused_for_non_super_user(seeded: AdminClient, kacl: KaclServer) -> None:
    # librdkafka 2.16.0 reads DescribeAcls' top-level error code and drops it
    # (rd_kafka_DescribeAclsResponse_parse): a refused describe comes back as an empty list.
    # alice owns seed ACLs, so an empty answer means "refused", not "nothing of hers".
    alice = admin_client(kacl, ALICE)
    assert describe(alice, ANY_FILTER) == []
    assert describe(seeded, ANY_FILTER) == expected(list(SEED))


def test_acl_create_refused_for_non_super_user(admin: AdminClient, kacl: KaclServer) -> None:
    alice = admin_client(kacl, ALICE)
    futures = alice.create_acls([binding(s) for s in NON_SUPER_USER_CREATE.values()], request_timeout=TIMEOUT_S)
    assert len(futures) == len(NON_SUPER_USER_CREATE)
    for future in futures.values():
        with pytest.raises(KafkaException) as excinfo:
            future.result()
        assert error_code(excinfo) == KafkaError.CLUSTER_AUTHORIZATION_FAILED
    assert describe(admin, ANY_FILTER) == []


def test_acl_delete_refused_for_non_super_user(seeded: AdminClient, kacl: KaclServer) -> None:
    alice = admin_client(kacl, ALICE)
    futures = alice.delete_acls([binding_filter(ANY_FILTER)], request_timeout=TIMEOUT_S)
    for future in futures.values():
        with pytest.raises(KafkaException) as excinfo:
            future.result()
        assert error_code(excinfo) == KafkaError.CLUSTER_AUTHORIZATION_FAILED
    assert describe(seeded, ANY_FILTER) == expected(list(SEED))


def test_acl_cluster_describe_grant_lets_user_describe(seeded: AdminClient, kacl: KaclServer) -> None:
    create(seeded, [GRANT_CLUSTER_DESCRIBE_TO_ALICE])
    alice = admin_client(kacl, ALICE)
    want = sorted(expected(list(SEED)) + [key(binding(GRANT_CLUSTER_DESCRIBE_TO_ALICE))])
    assert describe(alice, ANY_FILTER) == want


def test_acl_describe_refused_for_anonymous_on_plaintext(seeded: AdminClient, kacl: KaclServer) -> None:
    # User:ANONYMOUS on the PLAINTEXT listener is no super user: refused, which librdkafka
    # shows as an empty list (see test_acl_describe_refused_for_non_super_user).
    anonymous = AdminClient({"bootstrap.servers": kacl.plaintext})
    assert describe(anonymous, ANY_FILTER) == []


def test_wrong_password_is_refused(kacl: KaclServer) -> None:
    assert_login_refused(kacl, "PLAIN", User(ALICE.name, "not-" + ALICE.password))


def assert_login_refused(server: KaclServer, mechanism: str, user: User) -> None:
    """librdkafka reports a failed SASL login through error_cb, not as a request error."""
    errors: list[KafkaError] = []
    client = admin_client(server, user, **{"sasl.mechanism": mechanism, "error_cb": errors.append})
    with pytest.raises(KafkaException):
        client.list_topics(timeout=5)
    auth_codes = {KafkaError._AUTHENTICATION, KafkaError.SASL_AUTHENTICATION_FAILED}
    deadline = time.monotonic() + 10
    while not any(e.code() in auth_codes for e in errors) and time.monotonic() < deadline:
        client.poll(0.2)
    assert any(e.code() in auth_codes for e in errors), f"no authentication error reported, got {errors}"


# --- topics --------------------------------------------------------------------------


def create_topics(admin: AdminClient, topics: list[NewTopic]) -> dict:
    return admin.create_topics(topics, request_timeout=TIMEOUT_S)


def partition_counts(admin: AdminClient) -> dict[str, int]:
    metadata = admin.list_topics(timeout=TIMEOUT_S)
    for topic in metadata.topics.values():
        assert topic.error is None, f"{topic.topic}: {topic.error}"
    return {name: len(topic.partitions) for name, topic in metadata.topics.items()}


def test_topic_create_and_list(admin: AdminClient) -> None:
    futures = create_topics(
        admin,
        [NewTopic("orders", num_partitions=3, replication_factor=1), NewTopic("audit", num_partitions=1, replication_factor=1)],
    )
    for future in futures.values():
        assert future.result() is None
    counts = partition_counts(admin)
    assert counts.get("orders") == 3
    assert counts.get("audit") == 1


def test_topic_create_with_broker_defaults(admin: AdminClient) -> None:
    # NewTopic's defaults are -1/-1: the server's num.partitions (2 in harness.py) applies.
    create_topics(admin, [NewTopic("defaults")])["defaults"].result()
    assert partition_counts(admin).get("defaults") == 2


def test_topic_create_duplicate_refused(admin: AdminClient) -> None:
    create_topics(admin, [NewTopic("orders", num_partitions=1, replication_factor=1)])["orders"].result()
    with pytest.raises(KafkaException) as excinfo:
        create_topics(admin, [NewTopic("orders", num_partitions=4, replication_factor=1)])["orders"].result()
    assert error_code(excinfo) == KafkaError.TOPIC_ALREADY_EXISTS
    assert partition_counts(admin).get("orders") == 1


@pytest.mark.parametrize("name", ["bad/name", "..", "x" * 250], ids=["slash", "dot-dot", "250-chars"])
def test_topic_create_invalid_name_refused(admin: AdminClient, name: str) -> None:
    with pytest.raises(KafkaException) as excinfo:
        create_topics(admin, [NewTopic(name, num_partitions=1, replication_factor=1)])[name].result()
    assert error_code(excinfo) == KafkaError.TOPIC_EXCEPTION  # INVALID_TOPIC_EXCEPTION, 17
    assert name not in partition_counts(admin)


def test_topic_create_colliding_name_refused(admin: AdminClient) -> None:
    create_topics(admin, [NewTopic("metrics.eu", num_partitions=1, replication_factor=1)])["metrics.eu"].result()
    with pytest.raises(KafkaException) as excinfo:
        create_topics(admin, [NewTopic("metrics_eu", num_partitions=1, replication_factor=1)])["metrics_eu"].result()
    assert error_code(excinfo) == KafkaError.TOPIC_EXCEPTION


def test_topic_create_partitions_increases(admin: AdminClient) -> None:
    create_topics(admin, [NewTopic("orders", num_partitions=2, replication_factor=1)])["orders"].result()
    admin.create_partitions([NewPartitions("orders", 5)], request_timeout=TIMEOUT_S)["orders"].result()
    assert partition_counts(admin).get("orders") == 5


@pytest.mark.parametrize("new_total", [3, 4], ids=["fewer", "same"])
def test_topic_create_partitions_not_larger_refused(admin: AdminClient, new_total: int) -> None:
    create_topics(admin, [NewTopic("orders", num_partitions=4, replication_factor=1)])["orders"].result()
    with pytest.raises(KafkaException) as excinfo:
        admin.create_partitions([NewPartitions("orders", new_total)], request_timeout=TIMEOUT_S)["orders"].result()
    assert error_code(excinfo) == KafkaError.INVALID_PARTITIONS
    assert partition_counts(admin).get("orders") == 4


def test_topic_delete(admin: AdminClient) -> None:
    topics = [NewTopic(n, num_partitions=1, replication_factor=1) for n in ("keep", "drop-a", "drop-b")]
    for future in create_topics(admin, topics).values():
        future.result()
    for future in admin.delete_topics(["drop-a", "drop-b"], request_timeout=TIMEOUT_S).values():
        assert future.result() is None
    counts = partition_counts(admin)
    assert "keep" in counts
    assert "drop-a" not in counts and "drop-b" not in counts


def test_topic_delete_missing_refused(admin: AdminClient) -> None:
    with pytest.raises(KafkaException) as excinfo:
        admin.delete_topics(["never-created"], request_timeout=TIMEOUT_S)["never-created"].result()
    assert error_code(excinfo) == KafkaError.UNKNOWN_TOPIC_OR_PART


# --- SCRAM (issue 7) -----------------------------------------------------------------

CAROL = User("carol", "carol-secret")


def add_scram_user(admin: AdminClient, user: User, mechanism: str) -> None:
    info = ScramCredentialInfo(ScramMechanism[mechanism.replace("-", "_")], 4096)
    upsert = UserScramCredentialUpsertion(user.name, info, user.password.encode())
    for future in admin.alter_user_scram_credentials([upsert], request_timeout=TIMEOUT_S).values():
        assert future.result() is None


@pytest.mark.scram
@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_scram_login_and_describe(admin: AdminClient, kacl: KaclServer, mechanism: str) -> None:
    add_scram_user(admin, CAROL, mechanism)
    grant = dict(GRANT_CLUSTER_DESCRIBE_TO_ALICE, principal=CAROL.principal)
    create(admin, [grant])
    carol = admin_client(kacl, CAROL, **{"sasl.mechanism": mechanism})
    assert describe(carol, ANY_FILTER) == [key(binding(grant))]


@pytest.mark.scram
@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_scram_wrong_password_is_refused(admin: AdminClient, kacl: KaclServer, mechanism: str) -> None:
    add_scram_user(admin, CAROL, mechanism)
    assert_login_refused(kacl, mechanism, User(CAROL.name, "not-" + CAROL.password))


# --- SASL_SSL ------------------------------------------------------------------------


def tls_client(server: KaclServer, user: User, mechanism: str, **extra: object) -> AdminClient:
    """A client of the SASL_SSL listener that trusts the harness's CA and checks the
    server's name (librdkafka's default https endpoint identification)."""
    return admin_client(
        server,
        user,
        **{
            "bootstrap.servers": server.sasl_ssl,
            "security.protocol": "SASL_SSL",
            "ssl.ca.location": str(server.ca_path),
            "sasl.mechanism": mechanism,
            **extra,
        },
    )


@pytest.mark.scram
@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_sasl_ssl_scram_login_and_describe(kacl_tls: KaclServer, mechanism: str) -> None:
    admin = tls_client(kacl_tls, ADMIN, "PLAIN")
    add_scram_user(admin, CAROL, mechanism)
    grant = dict(GRANT_CLUSTER_DESCRIBE_TO_ALICE, principal=CAROL.principal)
    create(admin, [grant])
    carol = tls_client(kacl_tls, CAROL, mechanism)
    assert describe(carol, ANY_FILTER) == [key(binding(grant))]


@pytest.mark.scram
def test_sasl_ssl_wrong_password_is_refused(kacl_tls: KaclServer) -> None:
    admin = tls_client(kacl_tls, ADMIN, "PLAIN")
    add_scram_user(admin, CAROL, "SCRAM-SHA-512")
    errors: list[KafkaError] = []
    client = tls_client(
        kacl_tls, User(CAROL.name, "wrong"), "SCRAM-SHA-512", error_cb=errors.append
    )
    with pytest.raises(KafkaException):
        client.list_topics(timeout=5)
    auth_codes = {KafkaError._AUTHENTICATION, KafkaError.SASL_AUTHENTICATION_FAILED}
    deadline = time.monotonic() + 10
    while not any(e.code() in auth_codes for e in errors) and time.monotonic() < deadline:
        client.poll(0.2)
    assert any(e.code() in auth_codes for e in errors), f"no authentication error reported, got {errors}"


def test_sasl_ssl_refuses_a_client_that_does_not_trust_the_ca(kacl_tls: KaclServer) -> None:
    errors: list[KafkaError] = []
    client = tls_client(
        kacl_tls, ADMIN, "PLAIN", error_cb=errors.append, **{"ssl.ca.location": "probe"}
    )
    with pytest.raises(KafkaException):
        client.list_topics(timeout=3)


# --- SASL re-authentication (KIP-368) ---------------------------------------------------


def test_sessions_are_renewed_by_reauthentication(kacl_reauth: KaclServer) -> None:
    """With connections.max.reauth.ms set, librdkafka re-authenticates on its connection
    before the session expires: calls over several lifetimes keep working, and the server
    logs renewals and never closes an expired session."""
    client = admin_client(kacl_reauth)
    deadline = time.monotonic() + 3 * REAUTH_MS / 1000 + 1
    calls = 0
    while time.monotonic() < deadline:
        describe(client, ANY_FILTER)
        calls += 1
        time.sleep(0.25)
    log = kacl_reauth.log_path.read_text(errors="replace")
    assert calls > 10
    assert "re-authenticated" in log, kacl_reauth.log_tail()
    assert "session expired" not in log, kacl_reauth.log_tail()


# --- configs -------------------------------------------------------------------------


def test_config_describe_and_incremental_alter(admin: AdminClient) -> None:
    from confluent_kafka.admin import AlterConfigOpType, ConfigEntry, ConfigResource, ConfigSource

    created = create_topics(admin, [NewTopic("cfg", num_partitions=1, replication_factor=1, config={"cleanup.policy": "compact"})])
    created["cfg"].result()
    resource = ConfigResource(ResourceType.TOPIC, "cfg")

    def described() -> dict:
        futures = admin.describe_configs([resource], request_timeout=TIMEOUT_S)
        return futures[resource].result()

    configs = described()
    assert configs["cleanup.policy"].value == "compact"
    assert configs["cleanup.policy"].source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value
    assert configs["retention.ms"].value == "604800000"
    assert configs["retention.ms"].source == ConfigSource.DEFAULT_CONFIG.value
    assert configs["retention.ms"].is_default
    assert not configs["retention.ms"].is_sensitive

    change = ConfigResource(
        ResourceType.TOPIC,
        "cfg",
        incremental_configs=[
            ConfigEntry("retention.ms", "86400000", incremental_operation=AlterConfigOpType.SET),
            ConfigEntry("cleanup.policy", "delete", incremental_operation=AlterConfigOpType.APPEND),
        ],
    )
    for future in admin.incremental_alter_configs([change], request_timeout=TIMEOUT_S).values():
        assert future.result() is None
    configs = described()
    assert configs["retention.ms"].value == "86400000"
    assert configs["retention.ms"].source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value
    assert configs["cleanup.policy"].value == "compact,delete"

    bad = ConfigResource(
        ResourceType.TOPIC,
        "cfg",
        incremental_configs=[ConfigEntry("retention.ms", "-5", incremental_operation=AlterConfigOpType.SET)],
    )
    with pytest.raises(KafkaException) as excinfo:
        for future in admin.incremental_alter_configs([bad], request_timeout=TIMEOUT_S).values():
            future.result()
    assert error_code(excinfo) == KafkaError.INVALID_CONFIG


def test_config_describe_broker_masks_secrets(admin: AdminClient, kacl: KaclServer) -> None:
    from confluent_kafka.admin import ConfigResource, ConfigSource

    resource = ConfigResource(ResourceType.BROKER, "1")
    configs = admin.describe_configs([resource], request_timeout=TIMEOUT_S)[resource].result()
    jaas = configs["listener.name.sasl_plaintext.plain.sasl.jaas.config"]
    assert jaas.is_sensitive and jaas.value is None
    assert ADMIN.password not in repr(configs)
    # Masked as Kafka 4.4 masks it (its broker config does not type the authorizer's keys).
    assert configs["super.users"].value is None and configs["super.users"].is_sensitive
    assert "User:admin" not in repr(configs)
    assert configs["super.users"].source == ConfigSource.STATIC_BROKER_CONFIG.value
    assert configs["super.users"].is_read_only


def test_config_describe_refused_for_non_super_user(kacl: KaclServer) -> None:
    from confluent_kafka.admin import ConfigResource

    admin = admin_client(kacl)
    create_topics(admin, [NewTopic("cfg", num_partitions=1, replication_factor=1)])["cfg"].result()
    alice = admin_client(kacl, ALICE)
    resource = ConfigResource(ResourceType.TOPIC, "cfg")
    with pytest.raises(KafkaException) as excinfo:
        alice.describe_configs([resource], request_timeout=TIMEOUT_S)[resource].result()
    assert error_code(excinfo) == KafkaError.TOPIC_AUTHORIZATION_FAILED


# --- admin APIs of newer tools (issue 29): no groups on a standalone node -------------


def test_admin_list_consumer_groups_is_empty(admin: AdminClient) -> None:
    listed = admin.list_consumer_groups(request_timeout=TIMEOUT_S).result()
    assert listed.valid == [] and listed.errors == []


def test_admin_describe_consumer_groups_finds_no_group(admin: AdminClient) -> None:
    futures = admin.describe_consumer_groups(["nope"], request_timeout=TIMEOUT_S)
    # librdkafka asks FindCoordinator (this node), then ConsumerGroupDescribe and, for a group
    # not found there, DescribeGroups: Kafka's answer for a classic group it does not know.
    described = futures["nope"].result()
    assert str(described.state) == "ConsumerGroupState.DEAD"
    assert described.members == []
