"""Smoke tests of the real upstream brokers in upstreams.py (not of kacl).

    tests/gateway/install.sh && tests/gateway/.venv/bin/python -m pytest -q tests/gateway/test_upstreams.py

Each broker is started for real on loopback: Apache Kafka (PLAINTEXT, and SASL/PLAIN with
the StandardAuthorizer: the ACL oracle) and Tansu. Real clients (confluent-kafka and
kafka-python) produce 10 messages and read them back through a consumer group with a
commit. A missing broker is a skip, or a failure when KACL_REQUIRE_EXTERNAL=1 (as in CI).
"""

from __future__ import annotations

import os
import time
import uuid

import pytest

import upstreams
from upstreams import kafka_broker, tansu_broker

confluent_kafka = pytest.importorskip("confluent_kafka")
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import (  # noqa: E402
    AclBinding,
    AclOperation,
    AclPermissionType,
    AdminClient,
    NewTopic,
    ResourcePatternType,
    ResourceType,
)

pytestmark = pytest.mark.timeout(180)

N = 10
# Tansu holds a classic JoinGroup for about session.timeout.ms / 2 (22 s with librdkafka's
# default 45 s), so the group tests use a short session timeout on every broker.
SESSION_TIMEOUT_MS = 6000


def _need(reason):
    if reason:
        if os.environ.get("KACL_REQUIRE_EXTERNAL") == "1":
            pytest.fail(reason)
        pytest.skip(reason)


@pytest.fixture(scope="module")
def kafka():
    _need(upstreams.kafka_missing_reason())
    with kafka_broker() as k:
        yield k


@pytest.fixture(scope="module")
def tansu():
    _need(upstreams.tansu_missing_reason())
    with tansu_broker() as t:
        yield t


@pytest.fixture(params=["kafka", "tansu"])
def broker(request):
    return request.getfixturevalue(request.param)


def _topic(prefix="smoke"):
    return "%s-%s" % (prefix, uuid.uuid4().hex[:8])


def _create_topic(conf, topic, partitions=2):
    admin = AdminClient(conf)
    admin.create_topics([NewTopic(topic, partitions, 1)], request_timeout=15)[topic].result(20)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        md = admin.list_topics(topic, timeout=5)
        t = md.topics.get(topic)
        if t is not None and t.error is None and len(t.partitions) == partitions:
            return
        time.sleep(0.2)
    raise AssertionError("topic %s not in metadata after 15 s" % topic)


def _produce(conf, topic, n=N):
    """Produces n keyed messages; returns the list of delivery errors (None = delivered)."""
    p = Producer({**conf, "message.timeout.ms": 15000, "enable.idempotence": True})
    results = []
    for i in range(n):
        p.produce(topic, key=b"k%d" % i, value=b"v%d" % i,
                  on_delivery=lambda err, msg: results.append(err))
    left = p.flush(30)
    assert left == 0, "%d messages still queued after 30 s" % left
    return results


def _consume_group(conf, topic, n=N, partitions=2):
    group = "g-" + uuid.uuid4().hex[:8]
    c = Consumer({**conf, "group.id": group, "auto.offset.reset": "earliest",
                  "enable.auto.commit": False, "session.timeout.ms": SESSION_TIMEOUT_MS})
    try:
        c.subscribe([topic])
        got = []
        deadline = time.monotonic() + 60
        while len(got) < n and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is None:
                continue
            assert m.error() is None, m.error()
            got.append(m)
        assert len(got) == n, "consumed %d of %d in 60 s" % (len(got), n)
        c.commit(asynchronous=False)
        committed = c.committed([TopicPartition(topic, p) for p in range(partitions)], timeout=15)
        ends = {}
        for m in got:
            ends[m.partition()] = max(ends.get(m.partition(), 0), m.offset() + 1)
        assert {tp.partition: tp.offset for tp in committed if tp.offset >= 0} == ends
        return sorted(m.value() for m in got)
    finally:
        c.close()


def test_confluent_roundtrip(broker):
    conf = broker.client_config()
    topic = _topic()
    _create_topic(conf, topic)
    assert _produce(conf, topic) == [None] * N
    assert _consume_group(conf, topic) == sorted(b"v%d" % i for i in range(N))


def test_kafka_python_roundtrip(broker):
    kafka = pytest.importorskip("kafka")
    topic = _topic("kp")
    _create_topic(broker.client_config(), topic, partitions=1)
    p = kafka.KafkaProducer(bootstrap_servers=broker.bootstrap, acks="all")
    futures = [p.send(topic, b"x%d" % i) for i in range(N)]
    offsets = [f.get(timeout=15).offset for f in futures]
    p.close(timeout=10)
    assert offsets == list(range(N))
    c = kafka.KafkaConsumer(topic, bootstrap_servers=broker.bootstrap, group_id="kp-" + uuid.uuid4().hex[:8],
                            auto_offset_reset="earliest", enable_auto_commit=False,
                            session_timeout_ms=SESSION_TIMEOUT_MS, heartbeat_interval_ms=1000)
    try:
        got = []
        deadline = time.monotonic() + 60
        while len(got) < N and time.monotonic() < deadline:
            for records in c.poll(timeout_ms=500).values():
                got.extend(r.value for r in records)
        assert got == [b"x%d" % i for i in range(N)]
        c.commit()
        assert c.committed(kafka.TopicPartition(topic, 0)) == N
    finally:
        c.close()


def test_kafka_oracle_authorizer():
    """SASL/PLAIN + StandardAuthorizer: a user without ACLs is refused, an ACL lets it in."""
    _need(upstreams.kafka_missing_reason())
    users = {"admin": "admin-secret", "alice": "alice-secret"}
    with kafka_broker(sasl_users=users, authorizer=True, super_users=["admin"]) as k:
        assert k.security_protocol == "SASL_PLAINTEXT"
        admin_conf = k.client_config("admin")
        alice_conf = k.client_config("alice")
        topic = _topic("acl")
        _create_topic(admin_conf, topic)

        errors = _produce(alice_conf, topic, n=3)
        assert errors and all(e is not None for e in errors), errors
        assert {e.code() for e in errors} == {KafkaError.TOPIC_AUTHORIZATION_FAILED}, errors

        # The super user still can; and once alice has WRITE on the topic (and the
        # idempotent producer's cluster IDEMPOTENT_WRITE is implied by WRITE), so can she.
        assert _produce(admin_conf, topic) == [None] * N
        acl = AclBinding(ResourceType.TOPIC, topic, ResourcePatternType.LITERAL, "User:alice", "*",
                         AclOperation.WRITE, AclPermissionType.ALLOW)
        admin = AdminClient(admin_conf)  # keep a reference: a dropped client fails its futures
        admin.create_acls([acl], request_timeout=15)[acl].result(20)
        deadline = time.monotonic() + 20
        while True:
            errors = _produce(alice_conf, topic, n=3)
            if errors == [None] * 3 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert errors == [None] * 3, errors
        # alice has no READ: her group consume is refused too.
        c = Consumer({**alice_conf, "group.id": "alice-g", "auto.offset.reset": "earliest"})
        try:
            c.subscribe([topic])
            err = None
            deadline = time.monotonic() + 20
            while err is None and time.monotonic() < deadline:
                m = c.poll(0.5)
                if m is not None and m.error() is not None:
                    err = m.error()
            assert err is not None and err.code() in (KafkaError.GROUP_AUTHORIZATION_FAILED,
                                                       KafkaError.TOPIC_AUTHORIZATION_FAILED), err
        finally:
            c.close()


def test_tansu_known_gaps(tansu):
    """Pins the gaps listed in the upstreams module doc, so a Tansu upgrade that closes one shows."""
    versions = tansu.api_versions
    assert 68 not in versions        # ConsumerGroupHeartbeat: no KIP-848 groups
    assert 37 not in versions        # CreatePartitions
    assert 23 not in versions        # OffsetForLeaderEpoch
    conf = tansu.client_config()
    topic = _topic("gaps")
    _create_topic(conf, topic, partitions=1)
    # Two batches of 4 and 3 records: ListOffsets(latest) answers last batch's base + 1.
    for n in (4, 3):
        assert _produce(conf, topic, n=n) == [None] * n
    admin = AdminClient(conf)
    latest = admin.list_offsets({TopicPartition(topic, 0): confluent_kafka.admin.OffsetSpec.latest()},
                                request_timeout=10)
    (offset,) = [f.result().offset for f in latest.values()]
    assert offset < 7, "ListOffsets(latest) is now right (7): update the upstreams doc"  # seen: 5
    # DeleteRecords is advertised but panics in the memory engine ("not yet implemented");
    # the connection drops, the broker lives on.
    with pytest.raises(KafkaException):
        for f in admin.delete_records([TopicPartition(topic, 0, 2)], request_timeout=10).values():
            f.result()
    assert upstreams.api_versions("127.0.0.1", tansu.port)


def test_kafka_relayed_listener_advertises_the_relay_port():
    """extra_listener (scripts/gateway_ab.py --passthrough): Metadata asked on the relayed
    listener names the relay's port, so a relay there carries all of a client's traffic; the
    client listener still names its own."""
    _need(upstreams.kafka_missing_reason())
    listen, advertised = upstreams.free_ports(2)
    with kafka_broker(extra_listener=(listen, advertised)) as k:
        relayed = AdminClient({"bootstrap.servers": "127.0.0.1:%d" % listen})
        shown = {(b.host, b.port) for b in relayed.list_topics(timeout=15).brokers.values()}
        assert shown == {("127.0.0.1", advertised)}, shown
        direct = AdminClient(k.client_config())
        shown = {(b.host, b.port) for b in direct.list_topics(timeout=15).brokers.values()}
        assert shown == {("127.0.0.1", k.port)}, shown
