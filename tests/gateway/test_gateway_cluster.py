"""kacl's gateway mode in CLUSTER MODE: several gateway nodes sharing their ACLs through a
real etcd, all in front of ONE real Apache Kafka, with real clients.

    KACL_BIN=... tests/gateway/run.sh test_gateway_cluster.py

Topology (module-scoped, see gateway_harness.py and upstreams.py):
  * etcd: KACL_GATEWAY_ETCD_MEMBERS members (default 3) on free loopback ports, started with
    the flags kacl checks (--max-txn-ops, --max-request-bytes), as tests/interop/run.sh does.
  * `kafka`: Apache Kafka 4.4 (KRaft, one node, id 1), PLAINTEXT, no authorizer: the gateway
    nodes are its only authorization; tests read it DIRECTLY to see what reached it.
  * `gw_a` (node.id 1) and `gw_b` (node.id 2): `kacl serve` in gateway mode with
    kacl.metadata.store=etcd on that etcd, each with its own listener port and its own
    kacl.gateway.broker.port.base (so both coexist on 127.0.0.1), the same SASL/PLAIN users
    (gateway_harness.USERS), User:admin the super user. ACLs are created/deleted on one node
    with confluent-kafka's AdminClient and must act on the other.
  * the node-failure test starts two more nodes of the same cluster (node.id 3 and 4) and
    SIGKILLs one of them, so gw_a and gw_b are never disturbed.

What is measured (printed: `run.sh test_gateway_cluster.py -rP` shows each passed test's
output, `-s` shows it live; run.sh passes its arguments to pytest, run in tests/gateway):
  1. revocation latency across nodes: DeleteAcls answered by A -> first TOPIC_AUTHORIZATION_FAILED
     on B, for a producer in a tight loop of single acks=1 Produce requests, 5 rounds, p50/max;
     asserted max < 1 s (the target is 100 ms).
  2. failover: a producer and a group consumer bootstrapped with BOTH nodes, the node they
     use SIGKILLed: time to the next acknowledged delivery and the next consumed record,
     asserted within 30 s, and no delivery may fail or be lost.
  3. each node's Metadata / DescribeCluster / FindCoordinator show only that node's own
     endpoints (never the upstream's, never another gateway node's).

A missing kacl binary, etcd, java or Kafka jars is a skip, a failure with KACL_REQUIRE_EXTERNAL=1.
"""

from __future__ import annotations

import json
import os
import statistics
import threading
import time
import uuid

import pytest

import gateway_harness
import upstreams
from gateway_harness import KaclGateway

confluent_kafka = pytest.importorskip("confluent_kafka")
from confluent_kafka import Consumer, KafkaException, Producer  # noqa: E402
from confluent_kafka.admin import AclOperation, AdminClient, ResourceType  # noqa: E402

from test_gateway import (  # noqa: E402
    SESSION_TIMEOUT_MS,
    TOPIC_AUTHZ,
    _name,
    _wait,
    binding,
    create_topic,
    grant,
    revoke,
    topic_acls,
)

pytestmark = pytest.mark.timeout(240)

ETCD_MEMBERS = int(os.environ.get("KACL_GATEWAY_ETCD_MEMBERS", "3"))
# One prefix per run: the nodes of this module are one kacl cluster.
ETCD_PREFIX = "/kacl-gw-cluster-%s/" % uuid.uuid4().hex[:8]

REVOCATION_ROUNDS = int(os.environ.get("KACL_GATEWAY_REVOCATION_ROUNDS", "5"))
REVOCATION_BOUND_S = 1.0       # asserted; the target is 0.1 s
REVOCATION_TARGET_S = 0.1
FAILOVER_BOUND_S = 30.0


# --------------------------------------------------------------------------------------
# fixtures


def _need(reason):
    if reason:
        if os.environ.get("KACL_REQUIRE_EXTERNAL") == "1":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)


@pytest.fixture(scope="module")
def kacl_binary():
    _need(gateway_harness.binary_missing_reason())
    return gateway_harness.find_binary()


@pytest.fixture(scope="module")
def etcd(kacl_binary):
    _need(gateway_harness.etcd_missing_reason())
    with gateway_harness.etcd_cluster(members=ETCD_MEMBERS) as e:
        yield e


@pytest.fixture(scope="module")
def kafka(kacl_binary, etcd):
    _need(upstreams.kafka_missing_reason())
    with upstreams.kafka_broker() as k:
        yield k


def start_node(kafka, etcd, node_id) -> KaclGateway:
    """One gateway node of this module's kacl cluster, in front of `kafka`."""
    return KaclGateway.start(kafka.bootstrap, kafka.client_config(),
                             extra=gateway_harness.cluster_node_config(etcd.endpoints, node_id, ETCD_PREFIX))


@pytest.fixture(scope="module")
def gw_a(kafka, etcd):
    gw = start_node(kafka, etcd, 1)
    yield gw
    gw.stop()


@pytest.fixture(scope="module")
def gw_b(kafka, etcd, gw_a):
    gw = start_node(kafka, etcd, 2)
    yield gw
    gw.stop()


@pytest.fixture(scope="module")
def up_admin(kafka):
    """AdminClient straight to the upstream (kept for the module: a dropped client fails its
    futures)."""
    return AdminClient(kafka.client_config())


_admins = {}


def gw_admin(gw: KaclGateway) -> AdminClient:
    """kacl's super user on node `gw` (kept per node)."""
    if gw.bootstrap not in _admins:
        _admins[gw.bootstrap] = AdminClient(gw.client_config("admin"))
    return _admins[gw.bootstrap]


def both_nodes_config(user, *nodes: KaclGateway) -> dict:
    conf = nodes[0].client_config(user)
    conf["bootstrap.servers"] = ",".join(n.bootstrap for n in nodes)
    return conf


def _end_offset_direct(kafka, topic, partition=0):
    """The high watermark of a partition, read DIRECTLY from the upstream."""
    from confluent_kafka import TopicPartition

    c = Consumer({**kafka.client_config(), "group.id": _name("wm"), "enable.auto.commit": False})
    try:
        return c.get_watermark_offsets(TopicPartition(topic, partition), timeout=10, cached=False)[1]
    finally:
        c.close()


# --------------------------------------------------------------------------------------
# 3. each node shows only its own endpoints


def _metadata_view(gw: KaclGateway, user, topic=None):
    admin = AdminClient(gw.client_config(user))
    md = admin.list_topics(topic, timeout=15)
    cluster = admin.describe_cluster(request_timeout=15).result(20)
    return ({b.id: (b.host, b.port) for b in md.brokers.values()}, md.controller_id,
            {(n.id, n.host, n.port) for n in cluster.nodes},
            None if cluster.controller is None else (cluster.controller.id, cluster.controller.port),
            set(md.topics))


def test_each_node_shows_only_its_own_endpoints(gw_a, gw_b, kafka, up_admin):
    topic, group = _name("tc3"), _name("gc3")
    create_topic(up_admin, topic)
    # Granted on A only: the grant reaches B through etcd.
    grant(gw_admin(gw_a), topic_acls("viewer", topic, AclOperation.DESCRIBE)
          + topic_acls("alice", topic, AclOperation.DESCRIBE, AclOperation.READ, AclOperation.WRITE)
          + [binding(ResourceType.GROUP, group, "alice", AclOperation.READ)])
    assert gw_a.all_ports.isdisjoint(gw_b.all_ports)
    for gw, other in ((gw_a, gw_b), (gw_b, gw_a)):
        foreign = other.all_ports | {kafka.port, kafka.controller_port}
        own = {n: ("127.0.0.1", p) for n, p in gw.broker_ports.items()}

        def described():
            brokers, _, _, _, topics = _metadata_view(gw, "viewer")
            return topics == {topic} and brokers
        # B sees the topic once the grant made on A reached it.
        _wait(described, 10, "viewer's DESCRIBE on %s at %s" % (topic, gw.bootstrap))
        brokers, controller_id, nodes, controller, topics = _metadata_view(gw, "viewer")
        print("node %s: Metadata brokers %s controller %s; DescribeCluster %s controller %s"
              % (gw.bootstrap, brokers, controller_id, sorted(nodes), controller))
        assert brokers == own, "Metadata from %s: %r, expected only its own %r" % (gw.bootstrap, brokers, own)
        assert not {p for _, p in brokers.values()} & foreign
        assert nodes == {(n, h, p) for n, (h, p) in own.items()}, nodes
        assert controller is None or controller[1] in gw.all_ports, controller
        assert topics == {topic}
        # The super user sees more topics, still only this node's brokers.
        brokers_admin, _, _, _, _ = _metadata_view(gw, "admin")
        assert brokers_admin == own
        # A Metadata request sent to the per-broker port (not the listener) answers the same.
        conf = gw.client_config("viewer")
        conf["bootstrap.servers"] = ",".join("127.0.0.1:%d" % p for p in gw.broker_ports.values())
        md = AdminClient(conf).list_topics(timeout=15)
        assert {b.id: (b.host, b.port) for b in md.brokers.values()} == own

        # FindCoordinator: the group coordinator is at one of this node's ports.
        c = Consumer({**gw.client_config("alice"), "group.id": group, "auto.offset.reset": "earliest",
                      "session.timeout.ms": SESSION_TIMEOUT_MS})
        try:
            c.subscribe([topic])
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and not c.assignment():
                c.poll(0.2)
            assert c.assignment(), "alice never got an assignment through %s" % gw.bootstrap
        finally:
            c.close()
        alice_admin = AdminClient(gw.client_config("alice"))
        res = alice_admin.describe_consumer_groups([group], request_timeout=15)[group].result(20)
        assert res.coordinator.port in gw.broker_ports.values(), (gw.bootstrap, res.coordinator)

        # kafka-python's view.
        kafka_python = pytest.importorskip("kafka")
        kc = kafka_python.KafkaConsumer(**gw.kafka_python_config("viewer"))
        try:
            assert kc.topics() == {topic}
            kp = {(getattr(b, "node_id", None), b.host, b.port) for b in kc._client.cluster.brokers()}
        finally:
            kc.close()
        assert kp == {(n, h, p) for n, (h, p) in own.items()}, kp


# --------------------------------------------------------------------------------------
# 1. a revocation on node A reaches node B


class ProduceLoop:
    """A producer in a tight loop of single acks=1 Produce requests (produce one, flush,
    repeat), in a thread; `results` holds (sent, answered, kind, error code or None) with
    kind "dr" (the broker answered: a delivery report) or "local" (librdkafka refused at
    once, remembering the topic's last error)."""

    MAX_REQUESTS = 50000

    def __init__(self, conf, topic, max_seconds=30.0):
        self.producer = Producer({**conf, "acks": 1, "linger.ms": 0, "retries": 0,
                                  "enable.idempotence": False, "message.timeout.ms": 5000})
        self.topic = topic
        self.results = []
        self.stop = threading.Event()
        self.max_seconds = max_seconds
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        deadline = time.monotonic() + self.max_seconds
        seq = 0
        while not self.stop.is_set() and seq < self.MAX_REQUESTS and time.monotonic() < deadline:
            sent = time.monotonic()
            box = []
            try:
                self.producer.produce(self.topic, value=b"%d" % seq,
                                      on_delivery=lambda err, msg: box.append((time.monotonic(), err)))
            except KafkaException as e:
                self.results.append((sent, time.monotonic(), "local", e.args[0].code()))
                seq += 1
                time.sleep(0.001)
                continue
            self.producer.flush(6)
            if box:
                done, err = box[0]
                self.results.append((sent, done, "dr", None if err is None else err.code()))
            else:
                self.results.append((sent, time.monotonic(), "none", "no delivery report"))
            seq += 1

    def close(self):
        self.stop.set()
        self.thread.join(15)
        self.producer.flush(5)


def _revocation_round(admin_a, conf_b, topic):
    loop = ProduceLoop(conf_b, topic)
    try:
        grant(admin_a, topic_acls("rev", topic, AclOperation.WRITE))
        t_grant = time.monotonic()
        first_ok = _wait(lambda: next((r for r in list(loop.results) if r[3] is None and r[0] > t_grant), None),
                         10, "a delivery through B after WRITE was granted on A", pause=0.005)
        # Steady state: a few more deliveries.
        n_ok = sum(1 for r in list(loop.results) if r[3] is None)
        _wait(lambda: sum(1 for r in list(loop.results) if r[3] is None) >= n_ok + 20, 10,
              "20 more deliveries", pause=0.005)
        start = len(loop.results)
        revoke(admin_a, ResourceType.TOPIC, topic, "rev", AclOperation.WRITE)
        t0 = time.monotonic()
        idx = _wait(lambda: next((i for i, r in enumerate(list(loop.results)) if i >= start and r[3] is not None),
                                 None), 5, "a refusal on B after DeleteAcls on A", pause=0.001)
        _wait(lambda: len(loop.results) >= idx + 30, 10, "30 more requests after the first refusal", pause=0.005)
    finally:
        loop.close()
    results = loop.results
    first = results[idx]
    after = results[idx + 1:]
    return {
        "latency": first[1] - t0,
        "first": first,
        "grant_visible": first_ok[1] - t_grant,
        "stale_ok": sum(1 for r in results[start:] if r[3] is None and r[0] > t0),
        "ok_after_first_refusal": [r for r in after if r[3] is None],
        "after_codes": sorted({(r[2], r[3]) for r in after}),
        "requests": len(results),
    }


def test_revocation_on_one_node_reaches_the_other_fast(gw_a, gw_b, kafka, up_admin):
    topic = _name("tc1")
    create_topic(up_admin, topic)
    admin_a = gw_admin(gw_a)
    # DESCRIBE stays granted (Metadata keeps answering); only WRITE comes and goes.
    grant(admin_a, topic_acls("rev", topic, AclOperation.DESCRIBE))
    conf_b = gw_b.client_config("rev")
    rounds = []
    for _ in range(REVOCATION_ROUNDS):
        rounds.append(_revocation_round(admin_a, conf_b, topic))
    lat = [r["latency"] for r in rounds]
    vis = [r["grant_visible"] for r in rounds]
    print("revocation across nodes (DeleteAcls answered by node A -> first refusal on node B), "
          "%d rounds, etcd members=%d: p50 %.1f ms, max %.1f ms; each: %s ms"
          % (len(lat), ETCD_MEMBERS, 1000 * statistics.median(lat), 1000 * max(lat),
             ", ".join("%.1f" % (1000 * x) for x in lat)))
    print("  requests allowed by B although sent after A answered DeleteAcls, per round: %s"
          % [r["stale_ok"] for r in rounds])
    print("  grant on A -> first delivery through B (includes librdkafka clearing its cached "
          "topic error): p50 %.1f ms, max %.1f ms" % (1000 * statistics.median(vis), 1000 * max(vis)))
    print("  requests per round: %s" % [r["requests"] for r in rounds])
    for i, r in enumerate(rounds):
        assert r["first"][2] == "dr" and r["first"][3] == TOPIC_AUTHZ, \
            "round %d: the first refusal was %r, expected a broker answer TOPIC_AUTHORIZATION_FAILED (29)" % (i, r["first"])
        assert r["ok_after_first_refusal"] == [], \
            "round %d: delivered after node B had refused: %r" % (i, r["ok_after_first_refusal"][:5])
        assert all(code == TOPIC_AUTHZ for _, code in r["after_codes"]), (i, r["after_codes"])
    assert max(lat) < REVOCATION_BOUND_S, \
        "revocation reached node B only after %.3f s (max of %s)" % (max(lat), lat)
    if max(lat) > REVOCATION_TARGET_S:
        print("  NOTE: max %.1f ms is above the %.0f ms target" % (1000 * max(lat), 1000 * REVOCATION_TARGET_S))


# --------------------------------------------------------------------------------------
# 2. a gateway node killed: clients bootstrapped with both move to the other


def _client_ports(stats):
    """Ports of the brokers (and coordinator) a librdkafka client has UP, from its stats."""
    ports = set()
    for b in stats.get("brokers", {}).values():
        if b.get("state") == "UP" and b.get("nodename") and (b.get("nodeid", -1) >= 0 or b.get("name") == "GroupCoordinator"):
            ports.add(int(b["nodename"].rsplit(":", 1)[1]))
    return ports


def _node_used(stats, nodes):
    ports = _client_ports(stats)
    for n in nodes:
        if ports and ports <= n.all_ports:
            return n
    return None


class PacedProducer:
    """Produces seq = 0, 1, ... every `every` seconds (acks=all, librdkafka's retries) in a
    thread; records when each was sent and acknowledged, and its stats."""

    def __init__(self, conf, topic, every=0.02, max_seconds=90.0, max_messages=4000):
        self.stats = {}
        self.sent = {}        # seq -> time produced
        self.acked = {}       # seq -> time delivered
        self.failed = []      # (seq, time, error)
        self.producer = Producer({**conf, "linger.ms": 0, "acks": "all", "message.timeout.ms": 60000,
                                  "statistics.interval.ms": 200,
                                  "stats_cb": lambda s: self.stats.update(json.loads(s))})
        self.topic, self.every, self.max_seconds, self.max_messages = topic, every, max_seconds, max_messages
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _report(self, seq):
        def on_delivery(err, msg):
            if err is None:
                self.acked[seq] = time.monotonic()
            else:
                self.failed.append((seq, time.monotonic(), err))
        return on_delivery

    def _run(self):
        deadline = time.monotonic() + self.max_seconds
        seq = 0
        while not self.stop.is_set() and seq < self.max_messages and time.monotonic() < deadline:
            self.sent[seq] = time.monotonic()
            try:
                self.producer.produce(self.topic, value=b"%d" % seq, on_delivery=self._report(seq))
            except (KafkaException, BufferError) as e:
                self.failed.append((seq, time.monotonic(), e))
            self.producer.poll(0)
            seq += 1
            time.sleep(self.every)
        end = time.monotonic() + 30
        while len(self.producer) and time.monotonic() < end:
            self.producer.poll(0.1)

    def close(self):
        self.stop.set()
        self.thread.join(40)


class GroupConsumer:
    """A subscribed consumer polled by the caller; appends (seq, time received) to `received`
    (shared by the consumers of one group that follow each other)."""

    def __init__(self, conf, topic, group, received):
        self.stats = {}
        self.assignments = 0
        self.errors = []
        self.received = received
        self.consumer = Consumer({**conf, "group.id": group, "auto.offset.reset": "earliest",
                                  "session.timeout.ms": SESSION_TIMEOUT_MS, "fetch.wait.max.ms": 100,
                                  "statistics.interval.ms": 200,
                                  "stats_cb": lambda s: self.stats.update(json.loads(s))})
        self.consumer.subscribe([topic], on_assign=lambda c, parts: self._assigned())

    def _assigned(self):
        self.assignments += 1

    def poll_for(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            m = self.consumer.poll(0.05)
            if m is None:
                continue
            if m.error() is not None:
                self.errors.append((time.monotonic(), m.error()))
                continue
            self.received.append((int(m.value()), time.monotonic()))

    def close(self):
        self.consumer.close()


def test_clients_of_a_killed_node_move_to_the_other_node(kafka, etcd, up_admin):
    # Two fresh nodes of the cluster (gw_a and gw_b stay untouched): node.id 3 and 4.
    nodes = [start_node(kafka, etcd, 3)]
    try:
        nodes.append(start_node(kafka, etcd, 4))
    except Exception:
        nodes[0].stop()
        raise
    producer = consumer = None
    try:
        topic, group = _name("tc2"), _name("gc2")
        create_topic(up_admin, topic)
        grant(gw_admin(nodes[0]), topic_acls("alice", topic, AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.READ)
              + [binding(ResourceType.GROUP, group, "alice", AclOperation.READ)])
        conf = both_nodes_config("alice", *nodes)
        # The grant (made on node 3) has reached node 4 too before the clients start.
        def described_on_node_4():
            t = AdminClient(nodes[1].client_config("alice")).list_topics(topic, timeout=5).topics.get(topic)
            return t is not None and t.error is None
        _wait(described_on_node_4, 10, "alice's DESCRIBE on node 4")

        producer = PacedProducer(conf, topic)
        _wait(lambda: len(producer.acked) >= 10 and _node_used(producer.stats, nodes), 30,
              "10 deliveries and the producer's broker connection")
        victim = _node_used(producer.stats, nodes)
        survivor = nodes[1] if victim is nodes[0] else nodes[0]
        # librdkafka learns the upstream broker from the Metadata of whichever bootstrap node
        # it asked first: recreate the consumer (same group) until it uses the victim too.
        consumer_attempts = 0
        received = []
        for consumer_attempts in range(1, 11):
            consumer = GroupConsumer(conf, topic, group, received)
            deadline = time.monotonic() + 30
            start = len(received)
            while time.monotonic() < deadline and not (len(received) >= start + 10 and _node_used(consumer.stats, nodes)):
                consumer.poll_for(0.2)
            used = _node_used(consumer.stats, nodes)
            assert used is not None, "the consumer got %d records in 30 s, stats ports %s" % (
                len(consumer.received), _client_ports(consumer.stats))
            if used is victim:
                break
            consumer.close()
            consumer = None
        assert consumer is not None, "the consumer never used the producer's node in 10 attempts"
        consumer.poll_for(1.0)
        assert consumer.errors == [], consumer.errors
        assert _node_used(producer.stats, nodes) is victim, "the producer moved before the kill"
        before_kill = {"acked": len(producer.acked), "received": len(consumer.received)}

        victim.kill()
        t_kill = time.monotonic()

        def moved():
            # 50 records (about 1 s of them) after the move, so the clients' stats are fresh.
            return (sum(1 for t in producer.acked.values() if t > t_kill) >= 50
                    and sum(1 for s, t in consumer.received if t > t_kill and producer.sent.get(s, 0) > t_kill) >= 50)
        deadline = t_kill + FAILOVER_BOUND_S + 10
        while time.monotonic() < deadline and not moved():
            consumer.poll_for(0.2)
        consumer.poll_for(1.0)
        producer.close()
        # Everything delivered is read in the end (at least once).
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not set(producer.acked) <= {s for s, _ in consumer.received}:
            consumer.poll_for(0.2)

        acked_after = sorted(t for t in producer.acked.values() if t > t_kill)
        sent_after_acked = sorted(producer.acked[s] for s, t in producer.sent.items() if t > t_kill and s in producer.acked)
        recv_after = sorted(t for s, t in consumer.received if t > t_kill and producer.sent.get(s, 0) > t_kill)
        ack_times = sorted(producer.acked.values())
        gaps = [b - a for a, b in zip(ack_times, ack_times[1:])]
        # (the longest gap of the consumer that saw the kill: earlier ones were closed)
        recv_times = sorted(t for _, t in consumer.received[start:])
        rgaps = [b - a for a, b in zip(recv_times, recv_times[1:])]
        lost = sorted(set(producer.acked) - {s for s, _ in consumer.received})
        print("failover: killed node %s (consumer attempts %d), clients now on %s / %s (survivor %s)"
              % (victim.bootstrap, consumer_attempts, sorted(_client_ports(producer.stats)),
                 sorted(_client_ports(consumer.stats)), sorted(survivor.all_ports)))
        print("  producer: first ack after the kill %s s, first ack of a record produced after it %s s; "
              "longest gap between acks %.2f s; %d acked before, %d after, %d failed"
              % ("%.2f" % (acked_after[0] - t_kill) if acked_after else "none",
                 "%.2f" % (sent_after_acked[0] - t_kill) if sent_after_acked else "none",
                 max(gaps) if gaps else 0, before_kill["acked"], len(acked_after), len(producer.failed)))
        print("  consumer: first record produced after the kill received %s s after it; longest gap "
              "between its records %.2f s; %d received (%d distinct), %d assignments, errors %s"
              % ("%.2f" % (recv_after[0] - t_kill) if recv_after else "none", max(rgaps) if rgaps else 0,
                 len(consumer.received), len({s for s, _ in consumer.received}), consumer.assignments,
                 [str(e) for _, e in consumer.errors][:5]))
        assert producer.failed == [], "deliveries failed: %r" % producer.failed[:5]
        assert sent_after_acked and sent_after_acked[0] - t_kill < FAILOVER_BOUND_S, \
            "no record produced after the kill was acknowledged within %.0f s" % FAILOVER_BOUND_S
        assert recv_after and recv_after[0] - t_kill < FAILOVER_BOUND_S, \
            "the consumer received no record produced after the kill within %.0f s" % FAILOVER_BOUND_S
        assert lost == [], "acknowledged but never consumed: %d records, first %r" % (len(lost), lost[:10])
        assert _node_used(producer.stats, nodes) is survivor, _client_ports(producer.stats)
        assert _node_used(consumer.stats, nodes) is survivor, _client_ports(consumer.stats)
        # The upstream holds at least every acknowledged record (retries may add duplicates).
        assert _end_offset_direct(kafka, topic) >= len(producer.acked)
    except BaseException:
        for n in nodes:
            print("---- last lines of the log of node %s\n%s" % (n.bootstrap, n.log_tail(40)))
        raise
    finally:
        if producer is not None:
            producer.close()
        if consumer is not None:
            consumer.close()
        for n in nodes:
            n.stop()
