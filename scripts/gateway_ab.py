#!/usr/bin/env python3
"""Gateway throughput, interleaved: one upstream broker, the same librdkafka client run
directly against it and through one kacl gateway per binary given, round after round, so that
every figure has its reference measured minutes apart on the same machine (BENCHMARKS.md,
"Gateway").

    tests/gateway/.venv/bin/python scripts/gateway_ab.py [--upstream kafka|tansu]
        [--rounds 5] [--warmup-rounds 0] [--produce-only|--consume-only] [--records 200000] [--size 1024] [--gateway-cpus 1]
        NAME=KACL_BIN[,KEY=VALUE...] ...

`--warmup-rounds N` runs N whole rounds on every side first and counts none of them: a fresh
Kafka broker's JIT takes a few hundred MB to warm up (direct produce rose from 95 to 350 MB/s
over one run's first five rounds), and rounds taken while it does compare sides at different
broker speeds. A `,KEY=VALUE` after a binary adds that line to that gateway's config only.

With `--latency`, each round instead runs `kacl perf records --workload produce
--record-size 1024 --batch-records 1 --acks -1 --rate 1000 --duration 10s` against each side
(the first gateway's binary as the client), latency counted from each request's scheduled
send time, and prints p50/p99 per side and the gateway's added median p50/p99.

`--client-cpus 0` pins only the client (the load generator) to CPU 0 and leaves the upstream
and the gateways free to run anywhere: on two cores an unpinned librdkafka client's own
throughput is bimodal (its Python and broker threads on one core or on two), which moves the
direct figure by 2x between rounds. `--passthrough` adds a side "haproxy": HAProxy in TCP mode
with splice(2) forced both ways (no copy through user space, no parsing), in front of a second
listener of the Kafka upstream that advertises HAProxy's port, so every byte of that side goes
through it. It is the floor a proxy can reach on the machine (`apt-get install haproxy`).
`--consume-only` produces one topic once, directly, and then only reads it back on every side
each round (produce figures are 0; gateway CPU is per MB consumed): the consume ratio without
the broker's state changing between runs. `--produce-only` only produces (a fresh topic each
run, deleted after it; consume figures are 0; gateway CPU is per MB produced).

Each round runs scripts/gateway_throughput.py (a fresh single-partition topic, N records of
SIZE bytes produced with acks=all, then read back) once directly and once through each
gateway, in a rotating order. The gateways listen on PLAINTEXT with
allow.everyone.if.no.acl.found=true, so every request still goes through the authorizer
(which finds no ACL and allows). `--gateway-cpus 1` pins each gateway to CPU 1 and the client
to CPU 0 (taskset), so the gateway's cost is not hidden by the client's. Prints each run, then
the median MB/s of each side, its ratio to direct and the gateway's CPU time per MB relayed,
plus the CPU steal over the whole run (/proc/stat's counter, which vmstat's `st` shows). Bounded: each run is capped by gateway_throughput.py's 120 s per phase.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "gateway"))

import gateway_harness  # noqa: E402
import upstreams  # noqa: E402


def start_gateway(binary: str, upstream: str, node_ids, cpus: str | None, extra=()):
    """One kacl gateway in front of `upstream` on PLAINTEXT; returns (process, bootstrap, dir)."""
    port, base = gateway_harness.pick_ports(node_ids)
    work = Path(tempfile.mkdtemp(prefix="kacl-gw-ab-"))
    (work / "data").mkdir()
    config = work / "server.properties"
    config.write_text("\n".join([
        "node.id=1",
        "listeners=PLAINTEXT://127.0.0.1:%d" % port,
        "allow.everyone.if.no.acl.found=true",
        "metadata.log.dir=%s" % (work / "data"),
        "kacl.gateway.upstream.bootstrap.servers=%s" % upstream,
        "kacl.gateway.broker.port.base=%d" % base,
        *extra,
    ]) + "\n")
    argv = [binary, "serve", "--config", str(config)]
    if cpus:
        argv = ["taskset", "-c", cpus, *argv]
    log = open(work / "kacl.log", "ab")
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    log.close()
    deadline = time.monotonic() + 30
    import socket
    for p in [port, *(base + n for n in node_ids)]:
        while True:
            if proc.poll() is not None:
                raise RuntimeError("gateway %s exited: %s" % (binary, (work / "kacl.log").read_text()[-2000:]))
            try:
                with socket.create_connection(("127.0.0.1", p), timeout=0.5):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("gateway %s not ready on %d" % (binary, p))
                time.sleep(0.05)
    return proc, "127.0.0.1:%d" % port, work


def start_haproxy(listen_port: int, upstream_port: int):
    """HAProxy relaying 127.0.0.1:listen_port to the upstream's relayed listener by splice."""
    work = Path(tempfile.mkdtemp(prefix="kacl-haproxy-"))
    config = work / "haproxy.cfg"
    config.write_text("\n".join([
        "global", "  maxconn 1000",
        "defaults", "  mode tcp", "  timeout connect 5s", "  timeout client 1h",
        "  timeout server 1h", "  option splice-request", "  option splice-response",
        "listen kafka", "  bind 127.0.0.1:%d" % listen_port,
        "  server upstream 127.0.0.1:%d" % upstream_port,
    ]) + "\n")
    log = open(work / "haproxy.log", "ab")
    proc = subprocess.Popen(["haproxy", "-f", str(config), "-db"], stdin=subprocess.DEVNULL,
                            stdout=log, stderr=subprocess.STDOUT)
    log.close()
    import socket
    deadline = time.monotonic() + 10
    while True:
        if proc.poll() is not None:
            raise RuntimeError("haproxy exited: %s" % (work / "haproxy.log").read_text()[-2000:])
        try:
            with socket.create_connection(("127.0.0.1", listen_port), timeout=0.5):
                return proc
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError("haproxy not ready on %d" % listen_port)
            time.sleep(0.05)


def cpu_times() -> list[int]:
    """The machine's CPU time counters (user nice system idle iowait irq softirq steal ...)."""
    return [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process `pid` so far."""
    fields = Path("/proc/%d/stat" % pid).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_once(bootstrap: str, records: int, size: int, cpus: str | None,
             phase: str = "both", topic: str | None = None, delete_after: bool = False) -> dict:
    topic = topic or "ab-%d-%d" % (os.getpid(), time.monotonic_ns())
    argv = [sys.executable, str(HERE / "gateway_throughput.py"), bootstrap, topic,
            "--records", str(records), "--size", str(size), "--json", "--phase", phase]
    if delete_after:
        argv.append("--delete-after")
    if cpus:
        argv = ["taskset", "-c", cpus, *argv]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise RuntimeError("throughput run against %s failed: %s" % (bootstrap, out.stderr[-2000:]))
    return json.loads(out.stdout.strip().splitlines()[-1])


def latency_once(kacl: str, bootstrap: str, cpus: str | None) -> dict:
    topic = "lat-%d-%d" % (os.getpid(), time.monotonic_ns())
    argv = [kacl, "perf", "records", "--workload", "produce", "--bootstrap-server", bootstrap,
            "--topic", topic, "--record-size", "1024", "--batch-records", "1", "--acks", "-1",
            "--rate", "1000", "--duration", "10s", "--output", "json"]
    if cpus:
        argv = ["taskset", "-c", cpus, *argv]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise RuntimeError("latency run against %s failed: %s" % (bootstrap, out.stderr[-2000:]))
    report = json.loads(out.stdout)
    lat = report["latency_ms"]
    return {"p50": lat["p50"], "p99": lat["p99"]}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("gateways", nargs="+",
                    help="NAME=PATH_TO_KACL[,KEY=VALUE...]: the KEY=VALUE lines go into that "
                         "gateway's server.properties only")
    ap.add_argument("--upstream", choices=["kafka", "tansu"], default="kafka")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--warmup-rounds", type=int, default=0,
                    help="whole rounds on every side first, not counted (the broker's JIT warms "
                         "up over the first few hundred MB: direct produce rose 95 -> 350 MB/s "
                         "over one run's first five rounds)")
    ap.add_argument("--records", type=int, default=200_000)
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--gateway-cpus", default=None, help="pin gateways here, the client elsewhere")
    ap.add_argument("--client-cpus", default=None,
                    help="pin only the client here (taskset list); the rest runs anywhere")
    ap.add_argument("--passthrough", action="store_true",
                    help="also measure HAProxy (TCP mode, splice) as a bare relay")
    ap.add_argument("--latency", action="store_true", help="p50/p99 at 1,000 produce requests/s")
    ap.add_argument("--kafka-heap", default="512m",
                    help="the Kafka upstream's -Xmx (kafka-server-start.sh's default is 1g; "
                         "at 512m G1's concurrent marking took 15%% of the machine at 300 MB/s)")
    ap.add_argument("--produce-only", action="store_true",
                    help="only produce on every side (each round's topic deleted after it); "
                         "the gateway's CPU is then per MB produced")
    ap.add_argument("--consume-only", action="store_true",
                    help="produce one topic once (directly), then only read it back on every side")
    ap.add_argument("--gateway-property", action="append", default=[], metavar="KEY=VALUE",
                    help="one more line of every gateway's server.properties")
    args = ap.parse_args()
    named = []
    for g in args.gateways:
        name, rest = g.split("=", 1)
        binary, *own = rest.split(",")
        named.append((name, binary, own))
    client_cpus = args.client_cpus
    if args.gateway_cpus is not None:
        client_cpus = "0" if args.gateway_cpus != "0" else "1"
    if args.passthrough and args.upstream != "kafka":
        ap.error("--passthrough needs --upstream kafka (a second, relayed listener)")
    steal_before = cpu_times()
    relay = upstreams.free_ports(2) if args.passthrough else None
    # Each run's topic is deleted after it; without a delete delay its segments go at once
    # rather than piling up on the broker's (tmpfs) disk for a minute, round after round.
    cm = (upstreams.kafka_broker(extra_listener=tuple(relay) if relay else None,
                                 extra_props={"log.segment.delete.delay.ms": 0},
                                 heap=args.kafka_heap)
          if args.upstream == "kafka"
          else upstreams.tansu_broker())
    results: dict[str, list[dict]] = {"direct": [], **{name: [] for name, _, _ in named}}
    gateways = []
    try:
        with cm as broker:
            if relay:
                haproxy = start_haproxy(relay[1], relay[0])
                gateways.append(("haproxy", haproxy, "127.0.0.1:%d" % relay[1], None))
                results["haproxy"] = []
            node_ids = gateway_harness.upstream_node_ids({"bootstrap.servers": broker.bootstrap})
            for name, binary, own in named:
                proc, bootstrap, work = start_gateway(binary, broker.bootstrap, node_ids,
                                                      args.gateway_cpus,
                                                      [*args.gateway_property, *own])
                gateways.append((name, proc, bootstrap, work))
            sides = [("direct", broker.bootstrap)] + [(n, b) for n, _, b, _ in gateways]
            client_kacl = named[0][1]
            if args.latency:
                latency_once(client_kacl, broker.bootstrap, client_cpus)  # warm-up
            else:
                run_once(broker.bootstrap, min(args.records, 20_000), args.size, client_cpus)
            shared_topic = None
            if args.consume_only:
                shared_topic = "ab-read-%d" % os.getpid()
                run_once(broker.bootstrap, args.records, args.size, client_cpus, "produce", shared_topic)
            for r in range(-args.warmup_rounds, args.rounds):
                order = sides[r % len(sides):] + sides[:r % len(sides)]
                for name, bootstrap in order:
                    pid = next((p.pid for n, p, _, _ in gateways if n == name), None)
                    cpu_before = cpu_seconds(pid) if pid else 0.0
                    if r < 0:
                        label = "warm-up"
                    else:
                        label = "round %d" % (r + 1)
                    if args.latency:
                        res = latency_once(client_kacl, bootstrap, client_cpus)
                        print("%s %-10s p50 %6.3f ms  p99 %6.3f ms" % (
                            label, name, res["p50"], res["p99"]), flush=True)
                    else:
                        if args.produce_only:
                            res = run_once(bootstrap, args.records, args.size, client_cpus,
                                           "produce", delete_after=True)
                            mb = args.records * args.size / 2**20  # produced only
                        elif shared_topic:
                            res = run_once(bootstrap, args.records, args.size, client_cpus,
                                           "consume", shared_topic)
                            mb = args.records * args.size / 2**20  # consumed only
                        else:
                            res = run_once(bootstrap, args.records, args.size, client_cpus)
                            mb = 2 * args.records * args.size / 2**20  # produced, then consumed
                        res["gateway_cpu_ms_per_mb"] = (
                            (cpu_seconds(pid) - cpu_before) * 1000 / mb if pid else 0.0)
                        print("%s %-10s produce %7.1f MB/s  consume %7.1f MB/s  gateway CPU %.2f ms/MB" % (
                            label, name, res["produce_mb_per_s"], res["consume_mb_per_s"],
                            res["gateway_cpu_ms_per_mb"]), flush=True)
                    if r >= 0:
                        results[name].append(res)
    finally:
        for _, proc, _, _ in gateways:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
    steal_after = cpu_times()
    total = sum(steal_after) - sum(steal_before)
    steal_pct = 100.0 * (steal_after[7] - steal_before[7]) / total if total else 0.0
    steal_line = "cpu steal over the whole run (/proc/stat, what vmstat's st column shows): %.1f%%" % steal_pct
    if args.latency:
        d50 = statistics.median(r["p50"] for r in results["direct"])
        d99 = statistics.median(r["p99"] for r in results["direct"])
        print("\nmedian of %d rounds at 1,000 produce requests/s, upstream %s, gateway cpus %s" % (
            args.rounds, args.upstream, args.gateway_cpus or "shared"))
        for name, runs in results.items():
            p50 = statistics.median(r["p50"] for r in runs)
            p99 = statistics.median(r["p99"] for r in runs)
            print("%-10s p50 %6.3f ms (%+.3f)  p99 %6.3f ms (%+.3f)" % (name, p50, p50 - d50, p99, p99 - d99))
        print(steal_line)
        return 0
    direct_p = statistics.median(r["produce_mb_per_s"] for r in results["direct"])
    direct_c = statistics.median(r["consume_mb_per_s"] for r in results["direct"])
    placement = ("gateway on cpus %s, client on %s" % (args.gateway_cpus, client_cpus)
                 if args.gateway_cpus else
                 "client on cpus %s, the rest anywhere" % client_cpus if client_cpus else
                 "everything anywhere")
    print("\nmedian of %d rounds, %d records of %d B, upstream %s, %s" % (
        args.rounds, args.records, args.size, args.upstream, placement))
    for name, runs in results.items():
        p = statistics.median(r["produce_mb_per_s"] for r in runs)
        c = statistics.median(r["consume_mb_per_s"] for r in runs)
        cpu = statistics.median(r.get("gateway_cpu_ms_per_mb", 0.0) for r in runs)
        print("%-10s produce %7.1f MB/s (%.2fx direct)  consume %7.1f MB/s (%.2fx direct)  gateway CPU %.2f ms/MB" % (
            name, p, p / direct_p if direct_p else 0.0, c, c / direct_c if direct_c else 0.0, cpu))
    # Each round's ratio to the direct run of the same round, the median of those: the paired
    # figure, which a slow or fast stretch of the machine moves less than a ratio of medians.
    for name, runs in results.items():
        if name == "direct":
            continue
        pairs = list(zip(runs, results["direct"]))
        rp = statistics.median(g["produce_mb_per_s"] / d["produce_mb_per_s"] if d["produce_mb_per_s"] else 0.0
                               for g, d in pairs)
        rc = statistics.median(g["consume_mb_per_s"] / d["consume_mb_per_s"] if d["consume_mb_per_s"] else 0.0
                               for g, d in pairs)
        print("%-10s paired: median of per-round ratios  produce %.2fx  consume %.2fx" % (name, rp, rc))
    print(steal_line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
