"""Runs one of Kafka's command-line tools (the kafka-tools jar of Kafka 4.4.0) against Kafka
and against kacl at once, and normalizes what they print so that two answers compare equal
exactly when they say the same thing: the bootstrap address, topic ids, log timestamps and
Java stack frames (which differ run to run) are replaced or dropped, and a user's SCRAM
mechanisms are put in one order (Kafka's is hash order); nothing else.
"""

import os
import re
import subprocess
from dataclasses import dataclass

TOOL_TIMEOUT_S = 90

#: The tools, by the names their shell scripts have (bin/kafka-acls.sh and so on).
TOOLS = {
    "kafka-acls": "org.apache.kafka.tools.AclCommand",
    "kafka-topics": "org.apache.kafka.tools.TopicCommand",
    "kafka-configs": "org.apache.kafka.tools.ConfigCommand",
    "kafka-consumer-groups": "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
}

# A short-lived client JVM: C1 only and the serial collector start fastest on 2 cores; the
# JVM's own log (CDS notes among it) is off so that only the tool's output is compared.
JVM_FLAGS = ["-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto",
             "-Xlog:disable", "-Djava.awt.headless=true"]

#: A read-only run of each tool, whose loaded classes make its class-data-sharing archive.
WARM_UP = {
    "kafka-acls": ["--list"],
    "kafka-topics": ["--list"],
    "kafka-configs": ["--describe", "--entity-type", "brokers", "--entity-default"],
    "kafka-consumer-groups": ["--list"],
}

_TOPIC_ID = re.compile(r"(TopicId: )[A-Za-z0-9_-]{22}")
_LOG_TIME = re.compile(r"^\d\d:\d\d:\d\d\.\d{3} ", re.M)
_STACK = re.compile(r"^\s+(at |\.\.\. \d+ more)")
# Kafka keeps a user's SCRAM credentials in a map keyed by an enum (hash order varies from one
# broker JVM to the next): the list is compared as a set.
_SCRAM = re.compile(r"^(SCRAM credential configs for user-principal '.*' are )(.*)$", re.M)


@dataclass
class Result:
    """One tool run: its exit code and its normalized output (stdout then stderr)."""

    code: int
    out: str

    def lines(self):
        return self.out.splitlines()


def normalize(text, bootstrap):
    text = text.replace(bootstrap, "<bootstrap>")
    text = _TOPIC_ID.sub(r"\1<id>", text)
    text = _LOG_TIME.sub("<time> ", text)
    text = _SCRAM.sub(lambda m: m.group(1) + ", ".join(sorted(m.group(2).split(", "))), text)
    return "\n".join(line.rstrip() for line in text.splitlines() if not _STACK.match(line))


class ToolRunner:
    def __init__(self, lib, kafka_bootstrap, kacl_bootstrap, work_dir):
        self.lib = lib
        self.kafka = kafka_bootstrap
        self.kacl = kacl_bootstrap
        self.work_dir = work_dir
        self.archives = {}
        self.env = dict(os.environ)
        for var in ("KAFKA_OPTS", "JAVA_TOOL_OPTIONS", "KAFKA_HEAP_OPTS", "CLASSPATH"):
            self.env.pop(var, None)

    def warm_up(self):
        """Makes one class-data-sharing archive per tool (JDK 13+'s dynamic AppCDS) from a
        read-only run against Kafka: a tool's start then maps its classes instead of loading
        them from ~90 jars, about halving the suite's time. A tool whose archive is not made
        runs without one."""
        pending = list(WARM_UP.items())
        while pending:
            batch, pending = pending[:2], pending[2:]
            started = []
            for tool, args in batch:
                archive = self.work_dir / ("%s.jsa" % tool)
                flags = ["-XX:ArchiveClassesAtExit=%s" % archive]
                started.append((tool, archive, self._start(tool, self.kafka, args, flags)))
            for tool, archive, process in started:
                try:
                    process.communicate(timeout=TOOL_TIMEOUT_S)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.communicate()
                if process.returncode == 0 and archive.is_file():
                    self.archives[tool] = archive

    def _start(self, tool, bootstrap, args, extra_flags=()):
        flags = list(extra_flags)
        if not flags and tool in self.archives:
            flags = ["-XX:SharedArchiveFile=%s" % self.archives[tool]]
        argv = ["java", *JVM_FLAGS, *flags, "-cp", str(self.lib / "*"), TOOLS[tool],
                "--bootstrap-server", bootstrap, *args]
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, env=self.env)

    def run(self, tool, args):
        """Runs `tool args` against Kafka and kacl concurrently: (kafka, kacl) results."""
        running = [(self._start(tool, b, args), b) for b in (self.kafka, self.kacl)]
        results = []
        for process, bootstrap in running:
            try:
                out, _ = process.communicate(timeout=TOOL_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                process.kill()
                out, _ = process.communicate()
                out += b"\n<killed after %d s>" % TOOL_TIMEOUT_S
            results.append(Result(process.returncode, normalize(out.decode("utf-8", "replace"), bootstrap)))
        return tuple(results)
