"""Kafka 4.4's own `kafka-acls` (org.apache.kafka.tools.AclCommand, from the kafka-tools jar)
against kacl serve: CIDR host patterns and the TwoPhaseCommit operation (issue 37), and a
client inside a denied subnet refused by the server.

The client-address test binds its socket to 127.0.0.2 / 127.0.0.3 before connecting to the
server on 127.0.0.1 (Linux routes all of 127/8 to lo), so the server sees those addresses.
"""

from __future__ import annotations

import shutil
import socket
import struct
import subprocess
from pathlib import Path

import pytest

from harness import ADMIN, KaclServer
from test_java_admin import kafka_lib

# Seconds one kafka-acls run may take (a JVM start and a few admin calls).
TOOL_TIMEOUT_S = 120


@pytest.fixture(scope="module")
def lib() -> Path:
    path = kafka_lib()
    if not shutil.which("java") or not list(path.glob("kafka-tools-*.jar")):
        pytest.skip(f"needs java and Kafka's jars with kafka-tools in {path} (tests/interop/run.sh java fetches them)")
    return path


def kafka_acls(lib: Path, server: KaclServer, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    config = tmp_path / "admin.properties"
    config.write_text(
        "security.protocol=SASL_PLAINTEXT\n"
        "sasl.mechanism=PLAIN\n"
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
        f'username="{ADMIN.name}" password="{ADMIN.password}";\n'
    )
    return subprocess.run(
        ["java", "-cp", f"{lib}/*", "org.apache.kafka.tools.AclCommand",
         "--bootstrap-server", server.sasl, "--command-config", str(config), *args],
        capture_output=True,
        text=True,
        timeout=TOOL_TIMEOUT_S,
    )


def test_kafka_acls_adds_lists_and_removes_cidr_and_two_phase_commit(lib: Path, kacl: KaclServer, tmp_path: Path) -> None:
    run = lambda *a: kafka_acls(lib, kacl, tmp_path, *a)  # noqa: E731
    added = run("--add", "--allow-principal", "User:app", "--allow-host", "10.0.0.0/8",
                "--deny-principal", "User:app", "--deny-host", "fd00::/16",
                "--operation", "Read", "--topic", "orders")
    assert added.returncode == 0, added.stdout + added.stderr
    added = run("--add", "--allow-principal", "User:app", "--operation", "TwoPhaseCommit",
                "--transactional-id", "tx")
    assert added.returncode == 0, added.stdout + added.stderr

    listed = run("--list")
    assert listed.returncode == 0, listed.stderr
    assert "(principal=User:app, host=10.0.0.0/8, operation=READ, permissionType=ALLOW)" in listed.stdout
    assert "(principal=User:app, host=fd00::/16, operation=READ, permissionType=DENY)" in listed.stdout
    assert "(principal=User:app, host=*, operation=TWO_PHASE_COMMIT, permissionType=ALLOW)" in listed.stdout

    # Kafka's refusal of a bad range, as its own tool reports it.
    refused = run("--add", "--allow-principal", "User:app", "--allow-host", "10.0.0.0/33",
                  "--operation", "Read", "--topic", "orders")
    assert "Invalid CIDR notation '10.0.0.0/33': Value [33] not in range [0,32]" in refused.stdout + refused.stderr

    removed = run("--remove", "--force", "--topic", "orders")
    assert removed.returncode == 0, removed.stdout + removed.stderr
    removed = run("--remove", "--force", "--transactional-id", "tx", "--operation", "TwoPhaseCommit",
                  "--allow-principal", "User:app")
    assert removed.returncode == 0, removed.stdout + removed.stderr
    listed = run("--list")
    assert "User:app" not in listed.stdout, listed.stdout


def describe_acls_error(server: KaclServer, source: str) -> int:
    """A DescribeAcls v1 (ANY filter) on the PLAINTEXT listener (User:ANONYMOUS) from a
    socket bound to `source`; the answer's top-level error code."""
    host, port = server.plaintext.rsplit(":", 1)
    body = struct.pack(">bhbhhbb", 1, -1, 1, -1, -1, 1, 1)  # ANY type, null name, ANY pattern...
    client_id = b"cidr-test"
    header = struct.pack(">hhih", 29, 1, 7, len(client_id)) + client_id
    frame = header + body
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.bind((source, 0))
        sock.connect((host, int(port)))
        sock.sendall(struct.pack(">i", len(frame)) + frame)
        size = struct.unpack(">i", _read(sock, 4))[0]
        answer = _read(sock, size)
    correlation, _throttle, error = struct.unpack(">iih", answer[:10])
    assert correlation == 7
    return error


def _read(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("server closed the connection")
        data += chunk
    return data


def test_a_client_inside_a_denied_subnet_is_refused(lib: Path, kacl: KaclServer, tmp_path: Path) -> None:
    run = lambda *a: kafka_acls(lib, kacl, tmp_path, *a)  # noqa: E731
    # Everyone anonymous may describe the cluster, except from 127.0.0.2/31 (.2 and .3).
    added = run("--add", "--allow-principal", "User:ANONYMOUS", "--operation", "Describe", "--cluster")
    assert added.returncode == 0, added.stdout + added.stderr
    added = run("--add", "--deny-principal", "User:ANONYMOUS", "--deny-host", "127.0.0.2/31",
                "--operation", "Describe", "--cluster")
    assert added.returncode == 0, added.stdout + added.stderr

    assert describe_acls_error(kacl, "127.0.0.1") == 0
    assert describe_acls_error(kacl, "127.0.0.4") == 0
    for inside in ("127.0.0.2", "127.0.0.3"):
        assert describe_acls_error(kacl, inside) == 31, inside  # CLUSTER_AUTHORIZATION_FAILED
