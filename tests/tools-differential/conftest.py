"""Fixtures of the tools-differential suite: one Kafka 4.4 broker and one `kacl serve` for the
whole session, and a runner that gives both the same Kafka command-line tool invocation.

Both run with the same authorization setup: Kafka with StandardAuthorizer, kacl with its own
authorizer; every client is User:ANONYMOUS on PLAINTEXT, a super user on both, and
allow.everyone.if.no.acl.found=false on both. Ports are picked free on 127.0.0.1.
"""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "gateway"))

import upstreams  # noqa: E402  (tests/gateway/upstreams.py, stdlib only)
from tools import ToolRunner  # noqa: E402

KACL_READY_TIMEOUT_S = 30


def _require(reason):
    if os.environ.get("KACL_REQUIRE_EXTERNAL") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


class KaclServe:
    """One `kacl serve`, standalone, PLAINTEXT on a free loopback port."""

    def __init__(self, binary):
        self.dir = Path(tempfile.mkdtemp(prefix="kacl-tools-"))
        self.port = upstreams.free_port()
        lines = [
            "node.id=1",
            "listeners=PLAINTEXT://127.0.0.1:%d" % self.port,
            "super.users=User:ANONYMOUS",
            "allow.everyone.if.no.acl.found=false",
            "num.partitions=1",
            "default.replication.factor=1",
            "metadata.log.dir=%s" % (self.dir / "data"),
        ]
        (self.dir / "server.properties").write_text("\n".join(lines) + "\n")
        self.log = open(self.dir / "kacl.log", "ab")
        self.process = subprocess.Popen(
            [binary, "serve", "--config", str(self.dir / "server.properties")],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT, cwd=self.dir)
        deadline = time.monotonic() + KACL_READY_TIMEOUT_S
        while True:
            if self.process.poll() is not None:
                raise RuntimeError("kacl serve exited with %s:\n%s" % (self.process.returncode, self.tail()))
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("kacl serve did not listen within %d s:\n%s"
                                       % (KACL_READY_TIMEOUT_S, self.tail()))
                time.sleep(0.05)

    @property
    def bootstrap(self):
        return "127.0.0.1:%d" % self.port

    def tail(self):
        path = self.dir / "kacl.log"
        return "\n".join(path.read_text(errors="replace").splitlines()[-30:]) if path.exists() else ""

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)
        self.log.close()
        if os.environ.get("KACL_UPSTREAM_KEEP") == "1":
            print("kacl tools suite: kept kacl dir %s" % self.dir, file=sys.stderr)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="session")
def runner():
    binary = os.environ.get("KACL_BIN")
    if not binary or not os.access(binary, os.X_OK):
        _require("KACL_BIN does not name an executable kacl binary")
    reason = upstreams.kafka_missing_reason()
    if reason:
        _require(reason)
    lib = upstreams.kafka_lib_dir()
    if not list(lib.glob("kafka-tools-*.jar")):
        _require("no kafka-tools jar in %s (tests/gateway/upstream/fetch_kafka.sh)" % lib)
    with upstreams.kafka_broker(authorizer=True, super_users=["ANONYMOUS"]) as kafka:
        kacl = KaclServe(binary)
        try:
            runner = ToolRunner(lib, kafka.bootstrap, kacl.bootstrap, kacl.dir)
            runner.warm_up()
            yield runner
        finally:
            kacl.stop()
