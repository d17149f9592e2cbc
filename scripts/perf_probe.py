#!/usr/bin/env python3
"""Small probes of a running kacl (or Kafka) server for scripts/bench_whole_server.sh.

  perf_probe.py ready HOST:PORT [--timeout S]
      Polls with ApiVersions v0 every 5 ms until the server answers; prints the milliseconds
      it took (from this command's start) on stdout.
  perf_probe.py idle HOST:PORT COUNT [--hold S]
      Opens COUNT connections, sends one ApiVersions v0 on each and reads the answer (so the
      server has accepted the connection and set up its state), prints "holding COUNT" and
      keeps them open for S seconds (default: until killed). Raise `ulimit -n` first.
  perf_probe.py rss PID
      Prints VmRSS and VmHWM of PID in KiB, from /proc/PID/status.

Standard library only.
"""

import argparse
import socket
import struct
import sys
import time

API_VERSIONS = 18


def api_versions_v0(correlation_id):
    """A size-prefixed ApiVersions v0 request (request header v1, empty body)."""
    client_id = b"kacl-probe"
    header = struct.pack(">hhih", API_VERSIONS, 0, correlation_id, len(client_id)) + client_id
    return struct.pack(">i", len(header)) + header


def read_exact(sock, n):
    data = bytearray()
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("connection closed")
        data.extend(chunk)
    return bytes(data)


def exchange(sock, correlation_id):
    sock.sendall(api_versions_v0(correlation_id))
    (size,) = struct.unpack(">i", read_exact(sock, 4))
    payload = read_exact(sock, size)
    (answered,) = struct.unpack(">i", payload[:4])
    if answered != correlation_id:
        raise ConnectionError(f"correlation id {answered}, expected {correlation_id}")


def split_addr(addr):
    host, _, port = addr.rpartition(":")
    return host, int(port)


def ready(args):
    host, port = split_addr(args.addr)
    start = time.monotonic()
    deadline = start + args.timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=1.0) as sock:
                exchange(sock, 1)
            print(f"{(time.monotonic() - start) * 1000:.0f}")
            return 0
        except OSError:
            time.sleep(0.005)
    print(f"not ready after {args.timeout} s", file=sys.stderr)
    return 1


def idle(args):
    host, port = split_addr(args.addr)
    sockets = []
    for i in range(args.count):
        sock = socket.create_connection((host, port), timeout=10.0)
        exchange(sock, i)
        sockets.append(sock)
    print(f"holding {len(sockets)}", flush=True)
    if args.hold is None:
        while True:
            time.sleep(3600)
    time.sleep(args.hold)
    # Check they were held: every connection still answers.
    for i, sock in enumerate(sockets):
        exchange(sock, args.count + i)
    print(f"all {len(sockets)} still answer", flush=True)
    return 0


def rss(args):
    fields = {}
    with open(f"/proc/{args.pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            fields[key] = value.split()[0] if value.split() else ""
    print(f"VmRSS {fields.get('VmRSS')} VmHWM {fields.get('VmHWM')}")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("ready")
    p.add_argument("addr")
    p.add_argument("--timeout", type=float, default=60.0)
    p.set_defaults(run=ready)
    p = sub.add_parser("idle")
    p.add_argument("addr")
    p.add_argument("count", type=int)
    p.add_argument("--hold", type=float)
    p.set_defaults(run=idle)
    p = sub.add_parser("rss")
    p.add_argument("pid", type=int)
    p.set_defaults(run=rss)
    args = parser.parse_args()
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
