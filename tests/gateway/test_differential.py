"""The gateway decides as Kafka 4.4's KafkaApis (issue 36): the same request bytes, from the same
principal holding the same ACLs, sent through a kacl gateway and straight to Kafka 4.4 with the
StandardAuthorizer, get the same answer per topic, partition and group.

One Kafka broker for the whole module: SASL/PLAIN, StandardAuthorizer, super users admin and
kaclgw. The gateway logs in to it as kaclgw (so the upstream's authorizer never refuses the
gateway) and holds its own copy of the ACLs (granted through it); the test principals reach
Kafka directly with Kafka's copy. Both paths see the same topics, ids, transactions and groups.
Where the gateway differs deliberately, the test says so (DIFFERENCES_FROM_KAFKA).

    KACL_BIN=target/release/kacl tests/gateway/run.sh test_differential.py
"""

from __future__ import annotations

import os
import socket
import struct
import threading
import time
import uuid

import pytest

import gateway_harness
import upstreams
from gateway_harness import KaclGateway
from kafka_wire import Conn, W

confluent_kafka = pytest.importorskip("confluent_kafka")
from confluent_kafka import Consumer, Producer  # noqa: E402
from confluent_kafka.admin import (  # noqa: E402
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AdminClient,
    ConfigResource,
    NewTopic,
    ResourcePatternType,
    ResourceType,
)

pytestmark = pytest.mark.timeout(240)

USERS = {n: "%s-secret-%s" % (n, uuid.uuid4().hex[:6])
         for n in ("admin", "kaclgw", "diff", "deleter", "idem", "dev", "subnet")}


def _need(reason):
    if reason:
        if os.environ.get("KACL_REQUIRE_EXTERNAL") == "1":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)


def _name(prefix):
    return "%s-%s" % (prefix, uuid.uuid4().hex[:10])


def _wait(cond, timeout, what, pause=0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = cond()
        if got:
            return got
        time.sleep(pause)
    raise AssertionError("timed out after %.0f s waiting for %s" % (timeout, what))


class Stack:
    """The broker, the gateway in front of it, and an admin client for each."""

    def __init__(self, kafka, gateway: KaclGateway):
        self.kafka = kafka
        self.gateway = gateway
        self.kafka_admin = AdminClient(self.direct_conf("admin"))
        self.gw_admin = AdminClient(self.gw_conf("admin"))

    def direct_conf(self, user):
        return self.kafka.client_config(user, USERS[user])

    def gw_conf(self, user):
        return {"bootstrap.servers": self.gateway.bootstrap, "security.protocol": "SASL_PLAINTEXT",
                "sasl.mechanism": "PLAIN", "sasl.username": user, "sasl.password": USERS[user]}

    def conns(self, user):
        """A wire connection as `user` to (the gateway, Kafka)."""
        return (Conn(self.gateway.bootstrap, user, USERS[user]),
                Conn(self.kafka.bootstrap, user, USERS[user]))

    def both(self, user, ask):
        """`ask(conn)` through the gateway and straight to Kafka: (gateway's, Kafka's)."""
        gw, direct = self.conns(user)
        with gw, direct:
            return ask(gw), ask(direct)

    def create_topic(self, name, partitions=1):
        self.kafka_admin.create_topics([NewTopic(name, partitions, 1)], request_timeout=15)[name].result(30)
        _wait(lambda: name in self.kafka_admin.list_topics(timeout=10).topics, 20, "topic " + name)

    def grant(self, user, *acls):
        """ACLs (resource type, name, operation) for `user` in the gateway and in Kafka."""
        bindings = [AclBinding(rtype, name, ResourcePatternType.LITERAL, "User:" + user, "*", op,
                               AclPermissionType.ALLOW) for rtype, name, op in acls]
        for admin in (self.gw_admin, self.kafka_admin):
            for future in admin.create_acls(bindings, request_timeout=15).values():
                future.result(20)
        for b in bindings:
            f = AclBindingFilter(b.restype, b.name, ResourcePatternType.LITERAL, b.principal, None,
                                 b.operation, AclPermissionType.ALLOW)
            _wait(lambda: self.kafka_admin.describe_acls(f, request_timeout=15).result(20), 20,
                  "Kafka's ACL %r" % (b,))


@pytest.fixture(scope="module")
def stack():
    _need(gateway_harness.binary_missing_reason())
    _need(upstreams.kafka_missing_reason())
    with upstreams.kafka_broker(sasl_users=USERS, authorizer=True, super_users=["admin", "kaclgw"]) as kafka:
        gw = KaclGateway.start(kafka.bootstrap, kafka.client_config("admin", USERS["admin"]),
                               upstream_user="kaclgw", upstream_password=USERS["kaclgw"], users=USERS)
        try:
            yield Stack(kafka, gw)
        finally:
            gw.stop()


@pytest.fixture(scope="module")
def topics(stack):
    """Two topics: `open` (diff may describe and write it) and `secret` (diff holds nothing)."""
    names = {"open": _name("open"), "secret": _name("secret")}
    for name in names.values():
        stack.create_topic(name, partitions=2)
    stack.grant("diff", (ResourceType.TOPIC, names["open"], AclOperation.DESCRIBE),
                (ResourceType.TOPIC, names["open"], AclOperation.WRITE))
    return names


# --------------------------------------------------------------------------------------
# CIDR hosts (Kafka 4.4): the client's real address decides


def test_a_client_inside_a_denied_subnet_is_refused_as_kafka_refuses_it(stack, topics):
    """ALLOW Describe from every host, DENY Describe from 127.0.0.2/31: a client connecting
    from 127.0.0.2 or .3 is refused the topic (29), from .1 and .4 it is shown it, through
    the gateway exactly as by Kafka 4.4 itself."""
    name = topics["open"]
    acls = [AclBinding(ResourceType.TOPIC, name, ResourcePatternType.LITERAL, "User:subnet",
                       host, AclOperation.DESCRIBE, permission)
            for host, permission in (("*", AclPermissionType.ALLOW),
                                     ("127.0.0.2/31", AclPermissionType.DENY))]
    for admin in (stack.gw_admin, stack.kafka_admin):
        for future in admin.create_acls(acls, request_timeout=15).values():
            future.result(20)
    deny = AclBindingFilter(ResourceType.TOPIC, name, ResourcePatternType.LITERAL,
                            "User:subnet", "127.0.0.2/31", AclOperation.DESCRIBE,
                            AclPermissionType.DENY)
    _wait(lambda: stack.kafka_admin.describe_acls(deny, request_timeout=15).result(20), 20,
          "Kafka's CIDR ACL")

    def errors(bootstrap, source):
        with Conn(bootstrap, "subnet", USERS["subnet"], source_host=source) as c:
            found, _ = metadata(c, 12, [(name, None)])
        return [(t[0], t[1]) for t in found]

    for source, code in (("127.0.0.1", 0), ("127.0.0.2", 29), ("127.0.0.3", 29),
                         ("127.0.0.4", 0)):
        by_kafka = errors(stack.kafka.bootstrap, source)
        by_gateway = errors(stack.gateway.bootstrap, source)
        assert by_kafka == [(code, name)], (source, by_kafka)
        assert by_gateway == by_kafka, (source, by_gateway, by_kafka)


# --------------------------------------------------------------------------------------
# Metadata (3) and DescribeCluster (60)


def metadata_request(version, entries, include_cluster_ops=False):
    """entries: (name or None, id bytes or None)."""
    w = W()
    w.carray(entries, lambda w, e: (w.uuid(e[1] or bytes(16)), w.cstring(e[0]), w.tags()))
    w.bool(False)  # allow_auto_topic_creation
    if 8 <= version <= 10:
        w.bool(include_cluster_ops)
    w.bool(False)  # include_topic_authorized_operations
    return w.tags()


def read_metadata(r, version):
    r.i32()
    r.carray(lambda r: (r.i32(), r.cstring(), r.i32(), r.cstring(), r.tags()))
    r.cstring()
    r.i32()

    def partition(r):
        p = {"error": r.i16(), "index": r.i32(), "leader": r.i32(), "epoch": r.i32()}
        p["replicas"] = r.carray(lambda r: r.i32())
        r.carray(lambda r: r.i32())
        r.carray(lambda r: r.i32())
        r.tags()
        return (p["index"], p["error"], p["leader"], tuple(p["replicas"]))

    def topic(r):
        t = (r.i16(), r.cstring(), r.uuid(), r.bool(), tuple(sorted(r.carray(partition))), r.i32())
        r.tags()
        return t

    topics = r.carray(topic)
    cluster_ops = r.i32() if 8 <= version <= 10 else None
    return sorted(topics, key=repr), cluster_ops


def metadata(conn, version, entries, include_cluster_ops=False):
    return read_metadata(conn.call(3, version, metadata_request(version, entries, include_cluster_ops),
                                   flexible=True), version)


def topic_id(stack, name):
    with Conn(stack.kafka.bootstrap, "admin", USERS["admin"]) as c:
        (t,), _ = metadata(c, 12, [(name, None)])
    assert t[0] == 0 and t[1] == name
    return t[2]


@pytest.mark.parametrize("seen", [False, True], ids=["ids-unseen", "ids-seen"])
def test_metadata_by_id_answers_for_the_id_and_hides_an_undescribable_topic(stack, topics, seen):
    open_id, secret_id = topic_id(stack, topics["open"]), topic_id(stack, topics["secret"])
    if seen:
        # The gateway learns the ids from an answer it passes on (its admin may see all).
        with Conn(stack.gateway.bootstrap, "admin", USERS["admin"]) as c:
            metadata(c, 12, None)
    refused = (29, None, secret_id, False, (), -2147483648)
    cases = {
        # A name the principal may describe beside another topic's id: Kafka answers for the
        # id (names are ignored once one entry carries an id) and refuses it without its name.
        "name and a hidden id": ([(topics["open"], secret_id)], [refused]),
        "a hidden id alone": ([(None, secret_id)], [refused]),
        "an open name beside a hidden id": ([(topics["open"], None), (None, secret_id)], [refused]),
        "two ids": ([(None, open_id), (None, secret_id)], None),
        "unknown id": ([(None, uuid.uuid4().bytes)], None),
    }
    answers = {}
    for label, (entries, expected) in cases.items():
        via_gateway, direct = stack.both("diff", lambda c: metadata(c, 12, entries)[0])
        assert via_gateway == direct, "%s: gateway %r, Kafka %r" % (label, via_gateway, direct)
        if expected is not None:
            assert direct == expected, label
        answers[label] = direct
    shown = [t for t in answers["two ids"] if t[1] == topics["open"]]
    assert shown and shown[0][0] == 0 and len(shown[0][4]) == 2
    assert [t[0] for t in answers["unknown id"]] == [100]


def test_cluster_authorized_operations_without_describe_on_the_cluster_are_zero(stack):
    stack.grant("idem", (ResourceType.BROKER, "kafka-cluster", AclOperation.IDEMPOTENT_WRITE))
    stack.grant("deleter", (ResourceType.BROKER, "kafka-cluster", AclOperation.DELETE))

    def describe_cluster(c):
        r = c.call(60, 0, W().bool(True).tags(), flexible=True)
        r.i32()
        code, _message, _cluster = r.i16(), r.cstring(), r.cstring()
        r.i32()
        r.carray(lambda r: (r.i32(), r.cstring(), r.i32(), r.cstring(), r.tags()))
        return code, r.i32()

    for user, described in (("idem", False), ("deleter", True), ("diff", False)):
        via_gateway, direct = stack.both(user, lambda c: (metadata(c, 10, [], True)[1], describe_cluster(c)))
        assert via_gateway == direct, user
        if not described:
            assert direct == (0, (0, 0)), user
        else:
            assert direct[0] not in (0, -2147483648), user


# --------------------------------------------------------------------------------------
# DescribeTransactions (65) and ConsumerGroupDescribe (69)


def test_describe_transactions_leaves_out_undescribable_topics(stack, topics):
    tid = _name("tx")
    producer = Producer({**stack.direct_conf("admin"), "transactional.id": tid})
    producer.init_transactions(30)
    producer.begin_transaction()
    for name in topics.values():
        producer.produce(name, b"x", partition=0)
    producer.flush(30)
    stack.grant("diff", (ResourceType.TRANSACTIONAL_ID, tid, AclOperation.DESCRIBE))

    def describe(c):
        r = c.call(65, 0, W().carray([tid], lambda w, t: w.cstring(t)).tags(), flexible=True)
        r.i32()

        def state(r):
            s = (r.i16(), r.cstring(), r.cstring(), r.i32(), r.i64(), r.i64(), r.i16(),
                 tuple(sorted(r.carray(lambda r: (r.cstring(), tuple(r.carray(lambda r: r.i32())), r.tags())[:2]))))
            r.tags()
            return (s[0], s[1], s[2], s[7])

        return r.carray(state)

    try:
        via_gateway, direct = stack.both("diff", describe)
    finally:
        producer.abort_transaction(30)
    assert via_gateway == direct
    assert direct == [(0, tid, "Ongoing", ((topics["open"], (0,)),))]


def _kip848_member(stack, group, topic_names):
    consumer = Consumer({**stack.direct_conf("admin"), "group.id": group, "group.protocol": "consumer",
                         "auto.offset.reset": "earliest"})
    consumer.subscribe(list(topic_names))
    deadline = time.monotonic() + 60
    while not consumer.assignment() and time.monotonic() < deadline:
        consumer.poll(0.5)
    assert consumer.assignment(), "the KIP-848 member got no assignment"
    return consumer


def test_consumer_group_describe_refuses_a_group_assigned_an_undescribable_topic(stack, topics):
    hidden, plain = _name("cg-hidden"), _name("cg-open")
    members = [_kip848_member(stack, hidden, topics.values()), _kip848_member(stack, plain, [topics["open"]])]
    stack.grant("diff", (ResourceType.GROUP, hidden, AclOperation.DESCRIBE),
                (ResourceType.GROUP, plain, AclOperation.DESCRIBE))

    def describe(group):
        def ask(c):
            for m in members:
                m.poll(0.1)
            r = c.call(69, 0, W().carray([group], lambda w, g: w.cstring(g)).bool(False).tags(), flexible=True)
            r.i32()
            n = r.uvarint() - 1
            assert n == 1
            code, message, gid, state = r.i16(), r.cstring(), r.cstring(), r.cstring()
            r.i32()
            r.i32()
            r.cstring()
            return code, message, gid, state, r.uvarint() - 1
        return ask

    try:
        for group in (hidden, plain):
            via_gateway, direct = stack.both("diff", describe(group))
            assert via_gateway == direct, group
        refused, _ = stack.both("diff", describe(hidden))
        assert refused == (29, "The group has described topic(s) that the client is not authorized to describe.",
                           hidden, "", 0)
        shown, _ = stack.both("diff", describe(plain))
        assert shown[0] == 0 and shown[4] == 1
    finally:
        for m in members:
            m.close()


# --------------------------------------------------------------------------------------
# DescribeConfigs (32) of a broker: a deliberate difference


def test_describe_configs_of_the_broker_never_shows_upstream_addresses(stack):
    """DIFFERENCES_FROM_KAFKA: Kafka shows its listeners to a principal with DESCRIBE_CONFIGS on
    the cluster; through the gateway, every config naming an upstream address is sensitive."""
    node = str(stack.gateway.node_ids[0])
    resource = ConfigResource(ResourceType.BROKER, node)

    def configs(admin):
        return {name: (e.value, e.is_sensitive)
                for name, e in admin.describe_configs([resource], request_timeout=15)[resource].result(30).items()}

    via_gateway, direct = configs(stack.gw_admin), configs(stack.kafka_admin)
    upstream = ["127.0.0.1:%d" % stack.kafka.port, "127.0.0.1:%d" % stack.kafka.controller_port,
                ":%d" % stack.kafka.port, ":%d" % stack.kafka.controller_port]
    assert any(a in (direct["listeners"][0] or "") for a in upstream), "the oracle shows its listeners"
    for name in ("listeners", "advertised.listeners", "controller.quorum.voters",
                 "controller.quorum.bootstrap.servers"):
        if name in direct:
            assert via_gateway[name] == (None, True), name
    leaked = {n: v for n, (v, _) in via_gateway.items() if v and any(a in v for a in upstream)}
    assert leaked == {}
    same = {n for n, (v, _) in direct.items() if not (v and any(a in v for a in upstream))}
    same -= {"listeners", "advertised.listeners", "controller.quorum.voters",
             "controller.quorum.bootstrap.servers"}
    assert {n: via_gateway.get(n) for n in same} == {n: direct[n] for n in same}


# --------------------------------------------------------------------------------------
# Answers that used to differ


def test_delete_topics_with_delete_on_the_cluster_only(stack):
    stack.grant("deleter", (ResourceType.BROKER, "kafka-cluster", AclOperation.DELETE))
    names = [_name("del-gw"), _name("del-direct")]
    for name in names:
        stack.create_topic(name)
    results = []
    for name, conf in zip(names, (stack.gw_conf("deleter"), stack.direct_conf("deleter"))):
        admin = AdminClient(conf)
        try:
            admin.delete_topics([name], request_timeout=15)[name].result(30)
            results.append(None)
        except confluent_kafka.KafkaException as e:
            results.append(e.args[0].code())
    assert results == [None, None]


def test_offset_fetch_v5_of_an_undescribable_group_is_only_its_top_level_error(stack, topics):
    group = _name("nogroup")

    def fetch(c):
        body = W().string(group).array([(topics["open"], [0, 1])],
                                        lambda w, t: (w.string(t[0]), w.array(t[1], lambda w, p: w.i32(p))))
        r = c.call(9, 5, body, flexible=False)
        r.i32()
        got = r.array(lambda r: (r.string(), r.array(lambda r: (r.i32(), r.i64(), r.i32(), r.string(), r.i16()))))
        return got, r.i16()

    via_gateway, direct = stack.both("diff", fetch)
    assert via_gateway == direct == ([], 30)


def test_add_partitions_to_txn_v3_unknown_topic_beside_a_refused_one(stack, topics):
    tid, unknown = _name("apt"), _name("unknown")
    stack.grant("diff", (ResourceType.TRANSACTIONAL_ID, tid, AclOperation.WRITE),
                (ResourceType.TOPIC, unknown, AclOperation.WRITE))
    # A producer asks its topics' metadata before it adds them: so does this one.
    with Conn(stack.gateway.bootstrap, "diff", USERS["diff"]) as c:
        metadata(c, 12, [(topics["open"], None)])

    def add(c):
        body = W().cstring(tid).i64(0).i16(0)
        body.carray([(unknown, [0]), (topics["secret"], [0]), (topics["open"], [1]), ("__consumer_offsets", [0])],
                    lambda w, t: (w.cstring(t[0]), w.carray(t[1], lambda w, p: w.i32(p)), w.tags()))
        r = c.call(24, 3, body.tags(), flexible=True)
        r.i32()
        out = r.carray(lambda r: (r.cstring(), r.carray(lambda r: (r.i32(), r.i16(), r.tags())[:2]), r.tags())[:2])
        return sorted((name, p, code) for name, parts in out for p, code in parts)

    via_gateway, direct = stack.both("diff", add)
    assert via_gateway == direct
    assert direct == sorted([(unknown, 0, 3), (topics["secret"], 0, 29), (topics["open"], 1, 55),
                             ("__consumer_offsets", 0, 29)])


def test_describe_producers_validates_the_topic_name_first(stack, topics):
    def describe(c):
        body = W().carray([("bad name!", [0]), (topics["secret"], [0])],
                          lambda w, t: (w.cstring(t[0]), w.carray(t[1], lambda w, p: w.i32(p)), w.tags()))
        r = c.call(61, 0, body.tags(), flexible=True)
        r.i32()

        def partition(r):
            p = (r.i32(), r.i16(), r.cstring())
            r.carray(lambda r: (r.i64(), r.i32(), r.i32(), r.i64(), r.i32(), r.i64(), r.tags()))
            r.tags()
            return p

        out = r.carray(lambda r: (r.cstring(), r.carray(partition), r.tags())[:2])
        return sorted((name, tuple(parts)) for name, parts in out)

    via_gateway, direct = stack.both("diff", describe)
    assert via_gateway == direct
    assert [(name, parts[0][1]) for name, parts in direct] == [("bad name!", 17), (topics["secret"], 29)]


def test_create_topics_naming_a_topic_twice_without_create(stack):
    name = _name("twice")

    def create(c):
        body = W().carray([name, name], lambda w, n: (w.cstring(n), w.i32(1), w.i16(1),
                                                       w.carray([], None), w.carray([], None), w.tags()))
        r = c.call(19, 5, body.i32(15000).bool(False).tags(), flexible=True)
        r.i32()

        def result(r):
            t = (r.cstring(), r.i16(), r.cstring())
            r.i32()
            r.i16()
            r.carray(lambda r: (r.cstring(), r.cstring(), r.bool(), r.i8(), r.bool(), r.tags()))
            r.tags()
            return t

        return r.carray(result)

    via_gateway, direct = stack.both("diff", create)
    assert via_gateway == direct == [(name, 42, "Duplicate topic name.")]


def test_produce_whose_batch_runs_past_its_end(stack, topics):
    # A record batch header announcing 100 bytes of which 49 follow.
    records = bytes(8) + (100).to_bytes(4, "big") + bytes(4) + b"\x02" + bytes(44)

    def produce(c):
        body = W().cstring(None).i16(1).i32(15000)
        body.carray([topics["open"]], lambda w, t: (
            w.cstring(t), w.carray([0], lambda w, p: (w.i32(p), w.cbytes(records), w.tags())), w.tags()))
        r = c.call(0, 9, body.tags(), flexible=True)

        def partition(r):
            p = (r.i32(), r.i16())
            r.i64()
            r.i64()
            r.i64()
            r.carray(lambda r: (r.i32(), r.cstring(), r.tags()))
            r.cstring()
            r.tags()
            return p

        out = r.carray(lambda r: (r.cstring(), r.carray(partition), r.tags())[:2])
        return sorted((name, p, code) for name, parts in out for p, code in parts)

    via_gateway, direct = stack.both("diff", produce)
    assert via_gateway == direct == [(topics["open"], 0, 87)]


# --------------------------------------------------------------------------------------
# An upstream advertising API keys kacl does not know


class VendorKeysRelay:
    """A TCP relay in front of Kafka that adds private API keys (vendors' extensions) to every
    ApiVersions v3+ answer, as some Kafka-compatible brokers do."""

    EXTRA = ((1000, 0, 3), (32000, 2, 1))

    def __init__(self, target):
        self.target = target
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(16)
        self.port = self.server.getsockname()[1]
        self.injected = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            asked = {}
            threading.Thread(target=self._requests, args=(client, upstream, asked), daemon=True).start()
            threading.Thread(target=self._answers, args=(upstream, client, asked), daemon=True).start()

    @staticmethod
    def _frame(sock):
        head = b""
        while len(head) < 4:
            chunk = sock.recv(4 - len(head))
            if not chunk:
                return None
            head += chunk
        size = struct.unpack(">i", head)[0]
        body = b""
        while len(body) < size:
            chunk = sock.recv(size - len(body))
            if not chunk:
                return None
            body += chunk
        return body

    def _requests(self, client, upstream, asked):
        while (body := self._frame(client)) is not None:
            key, version, correlation = struct.unpack_from(">hhi", body, 0)
            asked[correlation] = (key, version)
            upstream.sendall(struct.pack(">i", len(body)) + body)
        upstream.close()

    def _answers(self, upstream, client, asked):
        while (body := self._frame(upstream)) is not None:
            correlation = struct.unpack_from(">i", body, 0)[0]
            key, version = asked.pop(correlation, (None, None))
            if key == 18 and version >= 3 and body[4:6] == b"\x00\x00":
                count = body[6]
                assert count < 0x80 - len(self.EXTRA)
                extra = b"".join(struct.pack(">hhh", *e) + b"\x00" for e in self.EXTRA)
                body = body[:6] + bytes([count + len(self.EXTRA)]) + extra + body[7:]
                self.injected += 1
            client.sendall(struct.pack(">i", len(body)) + body)
        client.close()

    def close(self):
        self.server.close()


def test_an_upstreams_unknown_api_keys_are_left_out(stack):
    relay = VendorKeysRelay((stack.kafka.host, stack.kafka.port))
    try:
        gw = KaclGateway.start("127.0.0.1:%d" % relay.port, stack.direct_conf("admin"),
                               upstream_user="kaclgw", upstream_password=USERS["kaclgw"], users=USERS)
        try:
            assert relay.injected >= 1, "the gateway asked the relay's ApiVersions"
            offered = upstreams.api_versions("127.0.0.1", gw.port)
            assert not {1000, 32000} & set(offered)
            assert offered.get(3) and offered.get(0), offered
            with Conn(gw.bootstrap, "admin", USERS["admin"]) as c:
                metadata(c, 12, None)
        finally:
            gw.stop()
    finally:
        relay.close()


# --------------------------------------------------------------------------------------
# OffsetForLeaderEpoch (23): what a consumer asks after a leader change (KIP-320)


def test_offset_for_leader_epoch_is_forwarded_with_kafkas_checks(stack, topics):
    def ask(c):
        body = W().i32(-1)
        body.carray([(topics["open"], [0, 1]), (topics["secret"], [0])], lambda w, t: (
            w.cstring(t[0]),
            w.carray(t[1], lambda w, p: (w.i32(p), w.i32(-1), w.i32(0), w.tags())),
            w.tags()))
        r = c.call(23, 4, body.tags(), flexible=True)
        r.i32()
        out = r.carray(lambda r: (r.cstring(), r.carray(lambda r: (r.i16(), r.i32(), r.i32(), r.i64(), r.tags())[:4]),
                                  r.tags())[:2])
        return sorted((name, part) for name, parts in out for part in parts)

    via_gateway, direct = stack.both("diff", ask)
    assert via_gateway == direct
    by_topic = {}
    for name, (code, partition, _epoch, _end) in direct:
        by_topic.setdefault(name, []).append((partition, code))
    assert by_topic == {topics["open"]: [(0, 0), (1, 0)], topics["secret"]: [(0, 29)]}


def test_offset_for_leader_epoch_is_offered_at_kafkas_versions(stack):
    offered = upstreams.api_versions("127.0.0.1", stack.gateway.port)
    direct = upstreams.api_versions(stack.kafka.host, stack.kafka.port)
    assert offered.get(23) == direct.get(23) == (2, 4)
