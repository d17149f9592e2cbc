"""The Java AdminClient of Kafka 4.x (kafka-clients from Maven Central) against kacl serve.

java/AdminProbe.java makes the admin calls newer tools and consoles make and prints one
`key=value` line per call; this compiles it against Kafka's jars ($KACL_KAFKA_LIB, which
run.sh fetches with tests/gateway/upstream/fetch_kafka.sh), runs it against a fresh server
and checks each answer, and reads the server's /metrics to check which APIs the client used
(DescribeTopicPartitions for describeTopics, paged by its cursor).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import urllib.request
from pathlib import Path

import pytest

from harness import ADMIN, KaclServer, free_port

HERE = Path(__file__).resolve().parent
PROBE = HERE / "java" / "AdminProbe.java"
# Seconds the probe may take: a JVM start and some twenty admin calls.
PROBE_TIMEOUT_S = 120


def kafka_lib() -> Path:
    explicit = os.environ.get("KACL_KAFKA_LIB")
    if explicit:
        return Path(explicit)
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    version = (HERE.parent / "gateway" / "upstream" / "kafka" / "VERSION").read_text().strip()
    return cache / "kacl-kafka" / version / "lib"


@pytest.fixture(scope="module")
def probe_classes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    lib = kafka_lib()
    if not shutil.which("javac") or not list(lib.glob("kafka-clients-*.jar")):
        # run.sh checks both before it runs this suite; only a hand run lands here.
        pytest.skip(f"needs javac and Kafka's jars in {lib} (tests/interop/run.sh java fetches them)")
    out = tmp_path_factory.mktemp("probe")
    done = subprocess.run(
        ["javac", "-nowarn", "-d", str(out), "-cp", f"{lib}/*", str(PROBE)],
        capture_output=True,
        text=True,
        timeout=PROBE_TIMEOUT_S,
    )
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture
def kacl_metrics(request: pytest.FixtureRequest):
    """A server with its Prometheus endpoint on a free port (`server.metrics_url`)."""
    port = free_port()
    server = KaclServer.start(extra={"kacl.metrics.listen": f"127.0.0.1:{port}"})
    server.metrics_url = f"http://127.0.0.1:{port}/metrics"
    request.node.kacl_server = server
    try:
        yield server
    finally:
        server.stop()


def requests_by_api(metrics_url: str) -> dict[str, int]:
    with urllib.request.urlopen(metrics_url, timeout=10) as response:
        text = response.read().decode()
    counts: dict[str, int] = {}
    for api, n in re.findall(r'^kacl_requests_total\{api="(\w+)",version="\d+"\} (\d+)$', text, re.M):
        counts[api] = counts.get(api, 0) + int(n)
    return counts


def run_probe(classes: Path, server: KaclServer) -> dict[str, str]:
    done = subprocess.run(
        ["java", "-cp", f"{classes}:{kafka_lib()}/*", "AdminProbe", server.sasl, ADMIN.name, ADMIN.password],
        capture_output=True,
        text=True,
        timeout=PROBE_TIMEOUT_S,
    )
    answers = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
    assert done.returncode == 0 and answers.get("done") == "ok", done.stdout + done.stderr[-3000:]
    return answers


def test_java_admin_client_newer_admin_apis(probe_classes: Path, kacl_metrics: KaclServer) -> None:
    answers = run_probe(probe_classes, kacl_metrics)
    assert answers["create"] == "ok"
    # describeTopics through DescribeTopicPartitions, two partitions per answer: all five
    # partitions of orders arrive, each led by node 1.
    assert answers["describe_paged"] == "audit[0:1:1];orders[0:1:1,1:1:1,2:1:1,3:1:1,4:1:1]"
    assert answers["describe_missing"] == "error:UnknownTopicOrPartitionException"
    # Reassignments: none in progress before or after; a move within the live nodes is
    # accepted, one to a node that does not exist refused, a cancel finds nothing to cancel.
    assert answers["reassignments_before"] == "0"
    assert answers["reassign_same_node"] == "ok"
    assert answers["reassign_unknown_broker"] == "error:InvalidReplicaAssignmentException"
    assert answers["reassign_cancel"] == "error:NoReassignmentInProgressException"
    assert answers["reassignments_after"] == "0"
    # One log directory, the data directory, holding no partitions, sizes unknown.
    directory, replicas, total, error = answers["log_dirs"].split("|")
    assert Path(directory).resolve() == (kacl_metrics.work_dir / "data").resolve()
    assert (replicas, total, error) == ("replicas=0", "total=false", "error=none")
    # No groups, no transactions: empty listings and Kafka's not-found answers.
    assert answers["list_groups"] == "0"
    assert answers["list_consumer_groups"] == "0"
    assert answers["describe_consumer_group"] == "error:GroupIdNotFoundException"
    assert answers["list_transactions"] == "0"
    assert answers["describe_transaction"] == "error:TransactionalIdNotFoundException"

    used = requests_by_api(kacl_metrics.metrics_url)
    # 6 partitions at 2 per answer: at least 3 DescribeTopicPartitions answers for the paged
    # call, never a Metadata fallback for it.
    assert used.get("DescribeTopicPartitions", 0) >= 4, used
    for api in (
        "ListPartitionReassignments",
        "AlterPartitionReassignments",
        "DescribeLogDirs",
        "ListGroups",
        "FindCoordinator",
        "ListTransactions",
        "DescribeTransactions",
    ):
        assert used.get(api, 0) >= 1, (api, used)
    assert used.get("ConsumerGroupDescribe", 0) + used.get("DescribeGroups", 0) >= 1, used
