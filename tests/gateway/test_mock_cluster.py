"""A kacl gateway in front of a three-broker upstream: librdkafka's mock cluster
(confluent-kafka's `test.mock.num.brokers=3`), real brokers on three loopback ports inside
this test process, with partition leaders spread over them (issue 20, item 2).

What it shows: every broker the upstream has gets its own gateway port and is the only
address a client learns (Metadata, FindCoordinator); records produced to every partition of a
topic through the gateway reach each partition's leader through that leader's gateway port,
and come back to a consumer group through the gateway; a principal without WRITE is refused
per partition (TOPIC_AUTHORIZATION_FAILED) with nothing written.

The mock cluster names no controller (CreateTopics cannot be sent to it) and creates topics
when a producer's Metadata asks for them (its default: 4 partitions over the 3 brokers), so
the topics here are made that way, which through the gateway needs CREATE (Kafka's rule).
"""

from __future__ import annotations

import os
import time
import uuid

import pytest

import gateway_harness
from gateway_harness import KaclGateway

confluent_kafka = pytest.importorskip("confluent_kafka")
from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import (  # noqa: E402
    AclBinding,
    AclOperation,
    AclPermissionType,
    AdminClient,
    ResourcePatternType,
    ResourceType,
)

pytestmark = pytest.mark.timeout(240)


def _need(reason):
    if reason:
        if os.environ.get("KACL_REQUIRE_EXTERNAL") == "1":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)


def _name(prefix):
    return "%s-%s" % (prefix, uuid.uuid4().hex[:10])


@pytest.fixture(scope="module")
def mock_upstream():
    """The mock cluster lives as long as the client that created it: keep that client."""
    holder = Producer({"test.mock.num.brokers": 3, "bootstrap.servers": ""})
    md = holder.list_topics(timeout=10)
    brokers = sorted(md.brokers.values(), key=lambda b: b.id)
    assert len(brokers) == 3, brokers
    bootstrap = ",".join("%s:%d" % (b.host, b.port) for b in brokers)
    yield bootstrap, {b.id: b.port for b in brokers}
    holder.flush(1)


@pytest.fixture(scope="module")
def gateway(mock_upstream):
    _need(gateway_harness.binary_missing_reason())
    bootstrap, _ = mock_upstream
    gw = KaclGateway.start(bootstrap, {"bootstrap.servers": bootstrap})
    try:
        yield gw
    finally:
        gw.stop()


def _allow(admin, principal, rtype, name, *ops):
    bindings = [AclBinding(rtype, name, ResourcePatternType.LITERAL, "User:" + principal, "*", op,
                           AclPermissionType.ALLOW) for op in ops]
    for f in admin.create_acls(bindings, request_timeout=15).values():
        f.result(20)


def _partitions(conf, topic, timeout=20):
    """The partition ids of `topic` and their leaders, once every partition has one."""
    deadline = time.monotonic() + timeout
    while True:
        md = AdminClient(conf).list_topics(topic, timeout=15)
        t = md.topics.get(topic)
        if t is not None and t.error is None and t.partitions and all(
                p.leader >= 0 for p in t.partitions.values()):
            return {p.id: p.leader for p in t.partitions.values()}
        assert time.monotonic() < deadline, "topic %s has no leaders: %r" % (topic, t)
        time.sleep(0.3)


def _auto_create(conf, topic):
    """Has the upstream create `topic`: a producer's Metadata asks for it (librdkafka's
    producers ask with allow_auto_topic_creation)."""
    p = Producer({**conf, "allow.auto.create.topics": True})
    p.list_topics(topic, timeout=15)
    p.flush(1)


def test_three_upstream_brokers_each_get_a_gateway_port_and_carry_records(gateway, mock_upstream):
    _, upstream_ports = mock_upstream
    admin = AdminClient(gateway.client_config("admin"))
    topic, group = _name("spread"), _name("gspread")
    _allow(admin, "alice", ResourceType.TOPIC, topic, AclOperation.WRITE, AclOperation.READ,
           AclOperation.DESCRIBE, AclOperation.CREATE)
    _allow(admin, "alice", ResourceType.GROUP, group, AclOperation.READ)

    # Metadata through the gateway: three brokers, each at the gateway's port for its id.
    conf = gateway.client_config("alice")
    # The mock picks each partition's leader at random: with 4 partitions on 3 brokers they all
    # land on one broker once in 27 topics (a CI run saw it), so a topic whose leaders do not
    # spread is set aside for another, up to 5 times.
    for _ in range(5):
        _auto_create(conf, topic)
        leaders = _partitions(conf, topic)
        if len(set(leaders.values())) > 1:
            break
        topic = _name("spread")
        _allow(admin, "alice", ResourceType.TOPIC, topic, AclOperation.WRITE, AclOperation.READ,
               AclOperation.DESCRIBE, AclOperation.CREATE)
    md = AdminClient(conf).list_topics(topic, timeout=15)
    shown = {b.id: (b.host, b.port) for b in md.brokers.values()}
    assert set(shown) == set(upstream_ports), shown
    for node_id, (host, port) in shown.items():
        assert (host, port) == ("127.0.0.1", gateway.broker_ports[node_id]), shown
        assert port not in upstream_ports.values(), "an upstream address leaked: %r" % (shown,)
    assert len(set(leaders.values())) > 1, "the mock put every leader on one broker: %r" % leaders

    # Produce to every partition through the gateway.
    values = {p: [b"p%d-%d" % (p, i) for i in range(50)] for p in sorted(leaders)}
    total = 50 * len(values)
    producer = Producer({**conf, "acks": "all", "message.timeout.ms": 30000})
    errors = []
    for p, batch in values.items():
        for v in batch:
            producer.produce(topic, v, partition=p, on_delivery=lambda e, m: errors.append(e))
    assert producer.flush(30) == 0
    assert errors == [None] * total, [e for e in errors if e is not None][:3]

    # And read them back in a group (its coordinator is shown at a gateway port too).
    consumer = Consumer({**conf, "group.id": group, "auto.offset.reset": "earliest",
                         "enable.auto.commit": False})
    got = {p: [] for p in values}
    try:
        consumer.subscribe([topic])
        deadline = time.monotonic() + 60
        while sum(map(len, got.values())) < total and time.monotonic() < deadline:
            m = consumer.poll(0.5)
            if m is None or m.error() is not None:
                continue
            got[m.partition()].append(m.value())
        consumer.commit(asynchronous=False)
        committed = consumer.committed([TopicPartition(topic, p) for p in values], timeout=15)
    finally:
        consumer.close()
    assert got == values
    assert [tp.offset for tp in committed] == [50] * len(values)


def test_a_principal_without_write_is_refused_on_every_partition(gateway):
    admin = AdminClient(gateway.client_config("admin"))
    topic = _name("denied")
    _auto_create(gateway.client_config("admin"), topic)
    partitions = sorted(_partitions(gateway.client_config("admin"), topic))
    _allow(admin, "bob", ResourceType.TOPIC, topic, AclOperation.DESCRIBE)
    producer = Producer({**gateway.client_config("bob"), "acks": "all", "message.timeout.ms": 15000,
                         "enable.idempotence": False})
    errors = []
    for p in partitions:
        producer.produce(topic, b"nope", partition=p, on_delivery=lambda e, m: errors.append(e))
    producer.flush(30)
    assert [e.code() if e else None for e in errors] == \
        [KafkaError.TOPIC_AUTHORIZATION_FAILED] * len(partitions)
    # Nothing reached the upstream: every partition is empty, read through the gateway as admin.
    c = Consumer({**gateway.client_config("admin"), "group.id": _name("check")})
    try:
        for p in partitions:
            low, high = c.get_watermark_offsets(TopicPartition(topic, p), timeout=10, cached=False)
            assert high == 0, (p, low, high)
    finally:
        c.close()
