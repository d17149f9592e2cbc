"""Start a `kacl serve` in gateway mode in front of a real upstream broker (for test_gateway.py).

    from upstreams import kafka_broker
    from gateway_harness import KaclGateway, USERS

    with kafka_broker(...) as k, KaclGateway.start(k, upstream_user="kaclgw") as gw:
        client({"bootstrap.servers": gw.bootstrap, **gw.sasl("alice")})

The gateway has ONE client listener, SASL_PLAINTEXT on 127.0.0.1 (so the per-broker ports,
which take the first listener's host and protocol, are SASL_PLAINTEXT too), with the PLAIN
users of `USERS` and `User:admin` as its only super user. Its upstream connection is
PLAINTEXT, or SASL_PLAINTEXT/PLAIN as `upstream_user` when given (the upstream must know that
user, e.g. as a super user of its StandardAuthorizer).

Ports: the listener port and the per-broker ports (`kacl.gateway.broker.port.base` + node id,
for every node id the upstream's Metadata names) are picked free at run time and checked
bindable before kacl starts; a start that loses a port race is retried with new ports.
Every wait is bounded. Standard library only (plus confluent-kafka, imported lazily, to ask
the upstream for its node ids).

Cluster mode (test_gateway_cluster.py): `etcd_cluster(members)` starts etcd members on free
loopback ports with the flags kacl checks; `cluster_node_config(endpoints, node_id)` is the
`extra` of KaclGateway.start that makes a node use it (kacl.metadata.store=etcd);
`KaclGateway.kill()` SIGKILLs a node.

Environment:
  KACL_BIN            the kacl binary (default: <repo>/target-gw/release/kacl, then
                      <repo>/target/release/kacl)
  KACL_GATEWAY_KEEP=1 keep each gateway's temp dir (config, data, kacl.log) and print it
  KACL_GATEWAY_LOG    RUST_LOG for the gateway (default: kacl's own default)
  KACL_ETCD_BIN       the etcd binary for etcd_cluster() (default: etcd on PATH)
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterable, Optional, Sequence

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent

READY_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0
START_ATTEMPTS = 3

# kacl's PLAIN users (name -> password). `admin` is kacl's super user; the others get
# exactly the ACLs each test gives them. The Kafka ACL oracle knows the same users.
USERS = {
    name: "%s-secret" % name
    for name in (
        "admin",      # super user
        "alice",      # the allowed principal of the round trips
        "bob",        # denials
        "carol",      # denials: no group READ
        "dave",       # denials: transactional id
        "nowrite",    # never has WRITE on any topic (idempotent producer -> 31)
        "viewer",     # DESCRIBE on one topic only
        "rev",        # revocation
        "txn",        # transactions
        "diff",       # differential oracle
        "kp",         # kafka-python
        "kjs",        # kafkajs
    )
}


def find_binary() -> Optional[Path]:
    """$KACL_BIN, or the release binary of target-gw/ or target/; None if there is none."""
    explicit = os.environ.get("KACL_BIN")
    candidates = [Path(explicit)] if explicit else [
        REPO_ROOT / "target-gw" / "release" / "kacl",
        REPO_ROOT / "target" / "release" / "kacl",
    ]
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            return c
    return None


def binary_missing_reason() -> Optional[str]:
    if find_binary() is None:
        where = os.environ.get("KACL_BIN") or "target-gw/release/kacl or target/release/kacl"
        return "no kacl binary at %s (set KACL_BIN to a build with gateway mode)" % where
    return None


def _bindable(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def _free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def pick_ports(node_ids: Sequence[int]) -> tuple[int, int]:
    """(listener port, broker port base) with the listener port and base + each node id free."""
    lo = min(node_ids)
    for _ in range(50):
        listener = _free_port()
        first = _free_port()
        base = first - lo
        if base <= 0:
            continue
        ports = [base + n for n in node_ids]
        if listener in ports or any(p > 65535 for p in ports):
            continue
        if all(_bindable(p) for p in ports) and _bindable(listener):
            return listener, base
    raise RuntimeError("could not find free ports for node ids %s" % list(node_ids))


def upstream_node_ids(client_conf: dict, timeout: float = 15.0) -> list[int]:
    """The broker ids the upstream's Metadata answer names (asked with confluent-kafka)."""
    from confluent_kafka.admin import AdminClient

    admin = AdminClient(dict(client_conf))
    md = admin.list_topics(timeout=timeout)
    ids = sorted(md.brokers)
    if not ids:
        raise RuntimeError("the upstream's Metadata names no broker")
    return ids


def _jaas(users: dict) -> str:
    return ("org.apache.kafka.common.security.plain.PlainLoginModule required "
            + " ".join('user_%s="%s"' % (u, p) for u, p in users.items()) + ";")


def _load_prctl():
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (ImportError, OSError, AttributeError):
        return None


_PRCTL = _load_prctl()


def _die_with_parent() -> None:
    if _PRCTL is not None:
        _PRCTL(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG


class KaclGateway:
    """One running `kacl serve` in gateway mode; a context manager."""

    def __init__(self, process, work_dir: Path, port: int, base: int, node_ids: Sequence[int],
                 upstream_bootstrap: str):
        self.process = process
        self.work_dir = work_dir
        self.port = port
        self.base = base
        self.node_ids = list(node_ids)
        self.upstream_bootstrap = upstream_bootstrap
        self._log_text: Optional[str] = None

    # --- addresses and client configs -------------------------------------------------

    @property
    def bootstrap(self) -> str:
        return "127.0.0.1:%d" % self.port

    @property
    def broker_ports(self) -> dict:
        """Upstream node id -> the gateway port that routes to it."""
        return {n: self.base + n for n in self.node_ids}

    @property
    def all_ports(self) -> set:
        return {self.port, *self.broker_ports.values()}

    def client_config(self, user: str) -> dict:
        """confluent-kafka config for `user` (a name in USERS) through the gateway."""
        return {"bootstrap.servers": self.bootstrap, "security.protocol": "SASL_PLAINTEXT",
                "sasl.mechanism": "PLAIN", "sasl.username": user,
                "sasl.password": USERS[user]}

    def kafka_python_config(self, user: str) -> dict:
        return {"bootstrap_servers": self.bootstrap, "security_protocol": "SASL_PLAINTEXT",
                "sasl_mechanism": "PLAIN", "sasl_plain_username": user,
                "sasl_plain_password": USERS[user]}

    @property
    def log_path(self) -> Path:
        return self.work_dir / "kacl.log"

    def log_text(self) -> str:
        if self._log_text is not None:
            return self._log_text
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def log_tail(self, lines: int = 60) -> str:
        tail = self.log_text().splitlines()[-lines:]
        return "\n".join("  | " + line for line in tail) if tail else "  | (no output)"

    # --- lifecycle --------------------------------------------------------------------

    @classmethod
    def start(cls, upstream_bootstrap: str, upstream_conf: dict, upstream_user: Optional[str] = None,
              upstream_password: Optional[str] = None, users: Optional[dict] = None,
              extra: Optional[dict] = None) -> "KaclGateway":
        """A gateway in front of `upstream_bootstrap`. `upstream_conf` is a confluent-kafka
        config that reaches the upstream directly (to learn its node ids)."""
        binary = find_binary()
        if binary is None:
            raise RuntimeError(binary_missing_reason())
        node_ids = upstream_node_ids(upstream_conf)
        last: Exception = RuntimeError("not started")
        for _ in range(START_ATTEMPTS):
            port, base = pick_ports(node_ids)
            gw = cls._launch(binary, upstream_bootstrap, upstream_user, upstream_password,
                             users or USERS, extra or {}, port, base, node_ids)
            try:
                gw._wait_ready()
                return gw
            except RuntimeError as e:
                log = gw.stop()
                last = e
                if "in use" not in log.lower():
                    break
        raise last

    @classmethod
    def _launch(cls, binary, upstream_bootstrap, upstream_user, upstream_password, users, extra,
                port, base, node_ids) -> "KaclGateway":
        work_dir = Path(tempfile.mkdtemp(prefix="kacl-gateway-"))
        data = work_dir / "data"
        data.mkdir()
        lines = [
            "node.id=1",
            "listeners=SASL_PLAINTEXT://127.0.0.1:%d" % port,
            "super.users=User:admin",
            "sasl.enabled.mechanisms=PLAIN",
            "listener.name.sasl_plaintext.plain.sasl.jaas.config=" + _jaas(users),
            "metadata.log.dir=%s" % data,
            "kacl.gateway.upstream.bootstrap.servers=%s" % upstream_bootstrap,
            "kacl.gateway.broker.port.base=%d" % base,
            "kacl.gateway.upstream.client.id=kacl-gateway-test",
        ]
        if upstream_user is not None:
            lines += [
                "kacl.gateway.upstream.security.protocol=SASL_PLAINTEXT",
                "kacl.gateway.upstream.sasl.mechanism=PLAIN",
                'kacl.gateway.upstream.sasl.jaas.config=org.apache.kafka.common.security.plain.'
                'PlainLoginModule required username="%s" password="%s";' % (upstream_user, upstream_password),
            ]
        lines += ["%s=%s" % kv for kv in extra.items()]
        config = work_dir / "server.properties"
        config.write_text("\n".join(lines) + "\n")
        env = dict(os.environ)
        if os.environ.get("KACL_GATEWAY_LOG"):
            env["RUST_LOG"] = os.environ["KACL_GATEWAY_LOG"]
        log = open(work_dir / "kacl.log", "ab")
        try:
            process = subprocess.Popen([str(binary), "serve", "--config", str(config)],
                                       stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                       cwd=work_dir, env=env, preexec_fn=_die_with_parent)
        finally:
            log.close()
        return cls(process, work_dir, port, base, node_ids, upstream_bootstrap)

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_S
        pending = [self.port, *self.broker_ports.values()]
        while pending:
            code = self.process.poll()
            if code is not None:
                raise RuntimeError("kacl serve (gateway) exited with code %s before it was ready:\n%s"
                                   % (code, self.log_tail()))
            if time.monotonic() > deadline:
                raise RuntimeError("kacl gateway did not accept connections on 127.0.0.1:%d within %.0f s:\n%s"
                                   % (pending[0], READY_TIMEOUT_S, self.log_tail()))
            try:
                with socket.create_connection(("127.0.0.1", pending[0]), timeout=0.5):
                    pending.pop(0)
            except OSError:
                time.sleep(0.05)

    def stop(self) -> str:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        if self._log_text is None:
            self._log_text = self.log_text()
            if os.environ.get("KACL_GATEWAY_KEEP") == "1":
                print("kept kacl gateway dir %s" % self.work_dir, file=sys.stderr)
            else:
                shutil.rmtree(self.work_dir, ignore_errors=True)
        return self._log_text

    def __enter__(self) -> "KaclGateway":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # --- added for test_gateway_cluster.py (cluster mode) -----------------------------

    def kill(self) -> None:
        """SIGKILL the node (no clean stop: its connections just drop), wait for it, and keep
        its log for log_text()/log_tail(). stop() afterwards only cleans up."""
        if self.process.poll() is None:
            self.process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(STOP_TIMEOUT_S)


# --------------------------------------------------------------------------------------
# Cluster mode: several gateway nodes sharing their ACLs through etcd


ETCD_READY_TIMEOUT_S = 30.0


def etcd_binary() -> Optional[str]:
    """$KACL_ETCD_BIN, else `etcd` on PATH; None if there is none."""
    explicit = os.environ.get("KACL_ETCD_BIN")
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    return shutil.which("etcd")


def etcd_missing_reason() -> Optional[str]:
    if etcd_binary() is None:
        return "no etcd binary (apt-get install etcd-server, or set KACL_ETCD_BIN)"
    return None


def cluster_node_config(endpoints: str, node_id: int, prefix: Optional[str] = None) -> dict:
    """The `extra` lines of KaclGateway.start for one cluster-mode node on etcd `endpoints`
    (later lines win in kacl's properties file, so this overrides the default node.id=1)."""
    conf = {"node.id": node_id, "kacl.metadata.store": "etcd", "kacl.etcd.endpoints": endpoints}
    if prefix is not None:
        conf["kacl.etcd.prefix"] = prefix
    return conf


class EtcdCluster:
    """etcd members started by etcd_cluster(); `endpoints` is kacl.etcd.endpoints."""

    def __init__(self, work_dir: Path, client_ports: Sequence[int], processes: Sequence):
        self.work_dir = work_dir
        self.client_ports = list(client_ports)
        self.processes = list(processes)

    @property
    def endpoints(self) -> str:
        return ",".join("http://127.0.0.1:%d" % p for p in self.client_ports)

    def log_tail(self, member: int = 0, lines: int = 30) -> str:
        try:
            text = (self.work_dir / ("e%d.log" % member)).read_text(errors="replace")
        except OSError:
            return "  | (no log)"
        return "\n".join("  | " + line for line in text.splitlines()[-lines:])


def _etcd_answers(port: int) -> bool:
    """True when the member answers a v3 range request through its HTTP gateway."""
    import json
    import urllib.request

    req = urllib.request.Request("http://127.0.0.1:%d/v3/kv/range" % port, data=b'{"key":"eA=="}',
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=1.0) as r:
            return "header" in json.loads(r.read() or b"{}")
    except (OSError, ValueError):
        return False


@contextlib.contextmanager
def etcd_cluster(members: int = 1, timeout: float = ETCD_READY_TIMEOUT_S):
    """`members` etcd members on free 127.0.0.1 ports, with the flags kacl needs
    (--max-txn-ops, --max-request-bytes, as tests/interop/run.sh); yields an EtcdCluster once
    every member answers (bounded by `timeout`); stops them (SIGTERM, then SIGKILL) on exit."""
    binary = etcd_binary()
    if binary is None:
        raise RuntimeError(etcd_missing_reason())
    work_dir = Path(tempfile.mkdtemp(prefix="kacl-etcd-"))
    procs = []
    try:
        ports = []
        while len(ports) < 2 * members:
            p = _free_port()
            if p not in ports:
                ports.append(p)
        clients, peers = ports[:members], ports[members:]
        initial = ",".join("e%d=http://127.0.0.1:%d" % (i, peers[i]) for i in range(members))
        for i in range(members):
            log = open(work_dir / ("e%d.log" % i), "ab")
            try:
                procs.append(subprocess.Popen(
                    [binary, "--name", "e%d" % i, "--data-dir", str(work_dir / ("e%d" % i)),
                     "--listen-client-urls", "http://127.0.0.1:%d" % clients[i],
                     "--advertise-client-urls", "http://127.0.0.1:%d" % clients[i],
                     "--listen-peer-urls", "http://127.0.0.1:%d" % peers[i],
                     "--initial-advertise-peer-urls", "http://127.0.0.1:%d" % peers[i],
                     "--initial-cluster", initial, "--initial-cluster-state", "new",
                     "--initial-cluster-token", "kacl-gw-" + work_dir.name,
                     "--max-txn-ops", "10100", "--max-request-bytes", "10485760",
                     "--log-level", "warn"],
                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=work_dir,
                    preexec_fn=_die_with_parent))
            finally:
                log.close()
        cluster = EtcdCluster(work_dir, clients, procs)
        deadline = time.monotonic() + timeout
        pending = list(range(members))
        while pending:
            for i, p in enumerate(procs):
                if p.poll() is not None:
                    raise RuntimeError("etcd member e%d exited with code %s:\n%s"
                                       % (i, p.returncode, cluster.log_tail(i)))
            if _etcd_answers(clients[pending[0]]):
                pending.pop(0)
                continue
            if time.monotonic() > deadline:
                raise RuntimeError("etcd member e%d not ready within %.0f s:\n%s"
                                   % (pending[0], timeout, cluster.log_tail(pending[0])))
            time.sleep(0.1)
        yield cluster
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
        for p in procs:
            try:
                p.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)
        if os.environ.get("KACL_GATEWAY_KEEP") == "1":
            print("kept etcd dir %s" % work_dir, file=sys.stderr)
        else:
            shutil.rmtree(work_dir, ignore_errors=True)
