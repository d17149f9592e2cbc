"""Start a throwaway `kacl serve` for the real-client interop suites.

Every suite gets servers from here, so they all run against the same configuration:
a PLAINTEXT and a SASL_PLAINTEXT listener on free loopback ports, `User:admin` as the
only super user, PLAIN users `admin` and `alice` (`bob` exists only as an ACL principal),
`num.partitions=2` so that topics created with -1 are told apart from explicit counts, and
a fresh data directory that is deleted when the server stops. `KaclServer.start(tls=True)`
adds a SASL_SSL listener whose certificate is signed by a throwaway CA made with the
`openssl` command line (`server.ca_path` is the CA to trust).

Used two ways:
- from Python: `with KaclServer.start() as server: ...` (see conftest.py);
- from any other language: `python harness.py serve` prints one JSON line with the
  addresses once the server accepts connections, then keeps it running until its stdin
  closes or it gets SIGTERM/SIGINT (see test_kafkajs.mjs).

Cluster mode (issue 16): with `KACL_INTEROP_CLUSTER=3` every server is three `kacl serve`
nodes (node.id 1-3) sharing the etcd cluster at `KACL_INTEROP_ETCD_ENDPOINTS` (run.sh starts
three etcd members for it), each server under its own `kacl.etcd.prefix` so that tests stay
independent. The addresses handed out are node 1's: clients bootstrap from it and Metadata
routes them to the controller and the other nodes.

Only the standard library is used, so any python3 can run it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

INTEROP_DIR = Path(__file__).resolve().parent
REPO_ROOT = INTEROP_DIR.parent.parent

# Seconds to wait for both listeners to accept TCP connections.
READY_TIMEOUT_S = 20.0
# Seconds a SIGTERM'd server gets to shut down gracefully before SIGKILL.
STOP_TIMEOUT_S = 10.0
# A port picked by `free_port` can be taken by someone else before the server binds it;
# starting again with new ports is the cure.
START_ATTEMPTS = 3


@dataclass(frozen=True)
class User:
    """A SASL/PLAIN identity known to the test server."""

    name: str
    password: str

    @property
    def principal(self) -> str:
        return f"User:{self.name}"


ADMIN = User("admin", "admin-secret")
ALICE = User("alice", "alice-secret")


class HarnessError(RuntimeError):
    """The server could not be found, started or reached; the message says why."""


def find_binary() -> Path:
    """The `kacl` binary to test: `$KACL_BIN`, else `<target dir>/release/kacl`.

    The target dir is `$CARGO_TARGET_DIR` (relative to the repo root, as run.sh runs
    cargo there) or `<repo>/target`.
    """
    explicit = os.environ.get("KACL_BIN")
    if explicit:
        path = Path(explicit)
    else:
        target = Path(os.environ.get("CARGO_TARGET_DIR") or "target")
        if not target.is_absolute():
            target = REPO_ROOT / target
        path = target / "release" / "kacl"
    if not path.is_file() or not os.access(path, os.X_OK):
        raise HarnessError(
            f"kacl binary not found or not executable at {path}; build it with "
            "`cargo build --release -p kacl` (tests/interop/run.sh does) or set KACL_BIN"
        )
    return path


def free_port() -> int:
    """A loopback port that was free a moment ago (bind to port 0, read it, release it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def make_test_ca(work_dir: Path) -> tuple[Path, Path]:
    """A CA and a server certificate for localhost/127.0.0.1 (EC P-256, two days), made with
    the openssl CLI; returns (key store with key and chain, CA certificate), both PEM."""

    def openssl(*args: str) -> None:
        done = subprocess.run(["openssl", *args], cwd=work_dir, capture_output=True, text=True)
        if done.returncode != 0:
            raise HarnessError(f"openssl {args[0]} failed: {done.stderr.strip()}")

    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
            "-subj", "/CN=kacl interop CA",
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    openssl("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost")
    (work_dir / "server.ext").write_text(
        "subjectAltName=DNS:localhost,IP:127.0.0.1\n"
        "basicConstraints=CA:FALSE\n"
        "keyUsage=critical,digitalSignature\n"
        "extendedKeyUsage=serverAuth\n"
    )
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "server.ext")
    keystore = work_dir / "keystore.pem"
    keystore.write_text((work_dir / "server.key").read_text() + (work_dir / "server.pem").read_text())
    return keystore, work_dir / "ca.pem"


def cluster_size() -> int:
    """`KACL_INTEROP_CLUSTER` (nodes per server; 1, the default, is a single redb node)."""
    text = os.environ.get("KACL_INTEROP_CLUSTER", "1")
    try:
        size = int(text)
    except ValueError:
        raise HarnessError(f"KACL_INTEROP_CLUSTER={text!r} is not a number of nodes") from None
    if size > 1 and not os.environ.get("KACL_INTEROP_ETCD_ENDPOINTS"):
        raise HarnessError(
            "KACL_INTEROP_CLUSTER needs etcd: set KACL_INTEROP_ETCD_ENDPOINTS "
            "(tests/interop/run.sh starts three etcd members for it)"
        )
    return max(size, 1)


def server_properties(
    plaintext_port: int,
    sasl_port: int,
    data_dir: Path,
    ssl: tuple[int, Path] | None = None,
    extra: dict[str, str] | None = None,
    node_id: int = 1,
    cluster_prefix: str | None = None,
) -> str:
    """The server.properties every suite runs against, in Kafka's key names; `ssl` (port, key
    store) adds a SASL_SSL listener with the same PLAIN users; `extra` keys come last."""
    jaas = (
        "org.apache.kafka.common.security.plain.PlainLoginModule required "
        f'user_{ADMIN.name}="{ADMIN.password}" user_{ALICE.name}="{ALICE.password}";'
    )
    listeners = f"PLAINTEXT://127.0.0.1:{plaintext_port},SASL_PLAINTEXT://127.0.0.1:{sasl_port}"
    if ssl is not None:
        listeners += f",SASL_SSL://127.0.0.1:{ssl[0]}"
    lines = [
        f"node.id={node_id}",
        f"listeners={listeners}",
        f"super.users={ADMIN.principal}",
        "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
        f"listener.name.sasl_plaintext.plain.sasl.jaas.config={jaas}",
        f"metadata.log.dir={data_dir}",
        "num.partitions=2",
        "default.replication.factor=1",
    ]
    if ssl is not None:
        lines += [
            f"listener.name.sasl_ssl.plain.sasl.jaas.config={jaas}",
            "ssl.keystore.type=PEM",
            f"ssl.keystore.location={ssl[1]}",
        ]
    if cluster_prefix is not None:
        lines += [
            "kacl.metadata.store=etcd",
            f"kacl.etcd.endpoints={os.environ['KACL_INTEROP_ETCD_ENDPOINTS']}",
            f"kacl.etcd.prefix={cluster_prefix}",
            "kacl.etcd.lease.ttl.ms=3000",
        ]
    lines += [f"{key}={value}" for key, value in (extra or {}).items()]
    return "\n".join(lines) + "\n"


def _load_prctl():
    """libc's prctl, looked up once in the parent (nothing but the call runs after fork)."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (ImportError, OSError, AttributeError):  # not Linux/glibc: stop() still applies
        return None


_PRCTL = _load_prctl()
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child before exec: get SIGTERM if the process that started us dies (Linux).

    Keeps a crashed or killed test run from leaving servers behind.
    """
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, int(signal.SIGTERM))


class KaclServer:
    """One running `kacl serve` child with its own temp directory; a context manager."""

    def __init__(
        self,
        process: subprocess.Popen,
        work_dir: Path,
        plaintext_port: int,
        sasl_port: int,
        ssl_port: int | None = None,
    ):
        self.process = process
        self.work_dir = work_dir
        self.plaintext_port = plaintext_port
        self.sasl_port = sasl_port
        self.ssl_port = ssl_port
        self._log_text: str | None = None
        # Cluster mode: the other nodes (each a KaclServer of its own).
        self.peers: list[KaclServer] = []

    @property
    def plaintext(self) -> str:
        """`host:port` of the PLAINTEXT listener (principal User:ANONYMOUS)."""
        return f"127.0.0.1:{self.plaintext_port}"

    @property
    def sasl(self) -> str:
        """`host:port` of the SASL_PLAINTEXT listener."""
        return f"127.0.0.1:{self.sasl_port}"

    @property
    def sasl_ssl(self) -> str:
        """`host:port` of the SASL_SSL listener (only with `start(tls=True)`)."""
        if self.ssl_port is None:
            raise HarnessError("this server has no SASL_SSL listener; start it with tls=True")
        return f"127.0.0.1:{self.ssl_port}"

    @property
    def ca_path(self) -> Path:
        """The CA certificate that signed the SASL_SSL listener's certificate."""
        return self.work_dir / "ca.pem"

    @property
    def log_path(self) -> Path:
        return self.work_dir / "kacl.log"

    @classmethod
    def start(
        cls, binary: Path | None = None, tls: bool = False, extra: dict[str, str] | None = None
    ) -> "KaclServer":
        """Start a server on fresh ports and data dir; return once every listener accepts.
        `extra` adds server properties."""
        binary = binary or find_binary()
        size = cluster_size()
        last_error = HarnessError("kacl serve was not started")
        for _ in range(START_ATTEMPTS):
            if size == 1:
                server = cls._launch(binary, tls, extra)
            else:
                prefix = f"/kacl-interop/{uuid.uuid4().hex}/"
                server = cls._launch(binary, tls, extra, 1, prefix)
                # The nodes write one log (node 1's), so that a test reading it sees what
                # happened on whichever node the client was routed to.
                server.peers = [
                    cls._launch(binary, tls, extra, node, prefix, server.log_path)
                    for node in range(2, size + 1)
                ]
            try:
                for node in [server, *server.peers]:
                    node._wait_ready()
                return server
            except HarnessError as error:
                log = server.stop()
                last_error = error
                if "in use" not in log.lower():
                    break
        raise last_error

    @classmethod
    def _launch(
        cls,
        binary: Path,
        tls: bool = False,
        extra: dict[str, str] | None = None,
        node_id: int = 1,
        cluster_prefix: str | None = None,
        shared_log: Path | None = None,
    ) -> "KaclServer":
        work_dir = Path(tempfile.mkdtemp(prefix="kacl-interop-"))
        data_dir = work_dir / "data"
        data_dir.mkdir()
        plaintext_port, sasl_port = free_port(), free_port()
        while sasl_port == plaintext_port:
            sasl_port = free_port()
        ssl = None
        if tls:
            ssl_port = free_port()
            while ssl_port in (plaintext_port, sasl_port):
                ssl_port = free_port()
            if shared_log is not None:
                # Cluster mode: node 1's certificate (127.0.0.1) for every node, so that the
                # clients' one CA covers the node Metadata routes them to.
                keystore = shared_log.parent / "keystore.pem"
            else:
                try:
                    keystore, _ca = make_test_ca(work_dir)
                except (HarnessError, OSError) as error:
                    shutil.rmtree(work_dir, ignore_errors=True)
                    raise HarnessError(f"cannot make the test CA: {error}") from error
            ssl = (ssl_port, keystore)
        config = work_dir / "server.properties"
        config.write_text(
            server_properties(
                plaintext_port, sasl_port, data_dir, ssl, extra, node_id, cluster_prefix
            )
        )
        # Appending: in cluster mode several processes write this file.
        log = open(shared_log or work_dir / "kacl.log", "ab")
        try:
            process = subprocess.Popen(
                [str(binary), "serve", "--config", str(config)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=work_dir,
                preexec_fn=_die_with_parent,
            )
        except OSError as error:
            shutil.rmtree(work_dir, ignore_errors=True)
            raise HarnessError(f"could not run {binary}: {error}") from error
        finally:
            log.close()
        return cls(process, work_dir, plaintext_port, sasl_port, ssl[0] if ssl else None)

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_S
        pending = [self.sasl_port, self.plaintext_port]
        if self.ssl_port is not None:
            pending.append(self.ssl_port)
        while pending:
            code = self.process.poll()
            if code is not None:
                raise HarnessError(f"kacl serve exited with code {code} before it was ready:\n{self.log_tail()}")
            if time.monotonic() > deadline:
                raise HarnessError(
                    f"kacl serve did not accept connections on 127.0.0.1:{pending[0]} "
                    f"within {READY_TIMEOUT_S:.0f} s:\n{self.log_tail()}"
                )
            try:
                with socket.create_connection(("127.0.0.1", pending[0]), timeout=0.5):
                    pending.pop(0)
            except OSError:
                time.sleep(0.05)

    def log_tail(self, lines: int = 60) -> str:
        """The last lines the server printed (kept after stop() removed the directory)."""
        if self._log_text is None:
            try:
                text = self.log_path.read_text(errors="replace")
            except OSError:
                text = ""
        else:
            text = self._log_text
        tail = text.splitlines()[-lines:]
        return "\n".join(f"  | {line}" for line in tail) if tail else "  | (no output)"

    def stop(self) -> str:
        """SIGTERM, then SIGKILL after STOP_TIMEOUT_S; remove the temp dir; return the log.

        Set KACL_INTEROP_KEEP=1 to keep the directory (its path is printed). In cluster
        mode the other nodes stop first; the log returned is node 1's.
        """
        # All nodes get SIGTERM at once: each may take seconds to stop its etcd watch.
        for node in [*self.peers, self]:
            node._terminate()
        for peer in self.peers:
            peer.stop()
        if self.process.poll() is None:
            self._terminate()
            try:
                self.process.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._log_text is None:
            try:
                self._log_text = self.log_path.read_text(errors="replace")
            except OSError:
                self._log_text = ""
            if os.environ.get("KACL_INTEROP_KEEP") == "1":
                print(f"kept kacl interop dir {self.work_dir}", file=sys.stderr)
            else:
                shutil.rmtree(self.work_dir, ignore_errors=True)
        return self._log_text

    def _terminate(self) -> None:
        """SIGTERM, once (a second one could cut the clean stop short)."""
        if self.process.poll() is None and not getattr(self, "_terminated", False):
            self._terminated = True
            self.process.send_signal(signal.SIGTERM)

    def __enter__(self) -> "KaclServer":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def serve_until_stdin_closes(extra: dict[str, str]) -> int:
    """`python harness.py serve [KEY=VALUE...]`: start (with those extra server properties),
    print the addresses as JSON, stop on EOF or signal."""
    try:
        server = KaclServer.start(extra=extra)
    except HarnessError as error:
        print(f"harness: {error}", file=sys.stderr)
        return 2

    def stop_on_signal(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop_on_signal)
    signal.signal(signal.SIGINT, stop_on_signal)
    try:
        ready = {"plaintext": server.plaintext, "sasl": server.sasl, "log": str(server.log_path)}
        print(json.dumps(ready), flush=True)
        sys.stdin.read()
    finally:
        server.stop()
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["serve"] and all("=" in arg for arg in argv[1:]):
        return serve_until_stdin_closes(dict(arg.split("=", 1) for arg in argv[1:]))
    if argv == ["check"]:
        try:
            print(find_binary())
        except HarnessError as error:
            print(f"harness: {error}", file=sys.stderr)
            return 2
        return 0
    print("usage: harness.py serve [KEY=VALUE...] | check", file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
