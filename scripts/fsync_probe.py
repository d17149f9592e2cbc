#!/usr/bin/env python3
"""How long this disk takes to make a small write durable: the floor under a durable create.

  python3 scripts/fsync_probe.py [DIR] [--count N]

In DIR (default: the current directory; use the filesystem of the kacl data dir) a 64 MiB file
is preallocated, then N times (default 500) a 4 KiB page is overwritten at a spread offset and
fsync'ed (what a redb commit ends with: its dirty pages, then an fsync). Prints fsyncs/s and latency percentiles; the
file is removed. Standard library only.
"""

import argparse
import os
import statistics
import tempfile
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir", nargs="?", default=".")
    parser.add_argument("--count", type=int, default=500)
    args = parser.parse_args()
    page = os.urandom(4096)
    fd, path = tempfile.mkstemp(prefix="fsync-probe.", dir=args.dir)
    try:
        size = 64 << 20
        os.posix_fallocate(fd, 0, size)
        os.fsync(fd)
        latencies = []
        started = time.perf_counter()
        for i in range(args.count):
            os.pwrite(fd, page, (i * 7919 * 4096) % size)
            t = time.perf_counter()
            os.fsync(fd)
            latencies.append(time.perf_counter() - t)
        total = time.perf_counter() - started
    finally:
        os.close(fd)
        os.unlink(path)
    latencies.sort()

    def pct(p):
        return latencies[min(len(latencies) - 1, int(len(latencies) * p))] * 1000

    print(
        f"fsync of a 4 KiB page in {os.path.abspath(args.dir)}: {args.count} in {total:.2f} s, "
        f"{args.count / total:.0f} fsyncs/s; latency ms p50 {pct(0.5):.3f} p99 {pct(0.99):.3f} "
        f"max {latencies[-1] * 1000:.3f} mean {statistics.mean(latencies) * 1000:.3f}"
    )


if __name__ == "__main__":
    main()
