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
  perf_probe.py first-byte HOST:PORT [--runs N]
      N times, on a fresh connection: one DescribeAcls v1 for every ACL (the ANY filter);
      prints the milliseconds from sending it to the answer's first byte and to its last, and
      its size. Shows whether a server writes a large answer while it encodes it (issue 19).

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


DESCRIBE_ACLS = 29


def describe_all_v1(correlation_id):
    """A size-prefixed DescribeAcls v1 request with the ANY filter (every ACL)."""
    client_id = b"kacl-probe"
    header = struct.pack(">hhih", DESCRIBE_ACLS, 1, correlation_id, len(client_id)) + client_id
    # resource type ANY, name null, pattern type ANY, principal null, host null, op ANY, perm ANY
    body = struct.pack(">bhbhhbb", 1, -1, 1, -1, -1, 1, 1)
    return struct.pack(">i", len(header) + len(body)) + header + body


def first_byte(args):
    host, port = split_addr(args.addr)
    for run in range(args.runs):
        with socket.create_connection((host, port), timeout=60) as sock:
            started = time.perf_counter()
            sock.sendall(describe_all_v1(run + 1))
            size_prefix = read_exact(sock, 4)
            first = time.perf_counter()
            (size,) = struct.unpack(">i", size_prefix)
            remaining = size
            while remaining > 0:
                chunk = sock.recv(min(remaining, 1 << 20))
                if not chunk:
                    raise ConnectionError("connection closed mid-answer")
                remaining -= len(chunk)
            last = time.perf_counter()
        print(f"first byte {(first - started) * 1e3:.1f} ms, last byte {(last - started) * 1e3:.1f} ms, "
              f"{size + 4} bytes", flush=True)
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
    p = sub.add_parser("first-byte")
    p.add_argument("addr")
    p.add_argument("--runs", type=int, default=5)
    p.set_defaults(run=first_byte)
    args = parser.parse_args()
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
