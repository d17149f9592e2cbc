#!/usr/bin/env python3
"""Produce and consume throughput of one librdkafka client (confluent-kafka) against a bootstrap
server: the same command measures an upstream directly and through a kacl gateway in front of
it, so runs can be interleaved (issue 20's figures; BENCHMARKS.md, "Gateway").

    scripts/gateway_throughput.py BOOTSTRAP TOPIC [--records N] [--size BYTES] [--json]
        [--phase both|produce|consume]

Produces N records of SIZE bytes with acks=all (librdkafka's defaults otherwise: linger 5 ms,
5 requests in flight per connection) into a new single-partition TOPIC and waits for every
delivery report, then reads them back from offset 0 with an assigned consumer (no group), and
prints records/s and MB/s (MB = 2^20 bytes) of each; then deletes TOPIC. Bounded: gives up after 120 s per phase.
`--phase produce` creates and fills TOPIC and keeps it; `--phase consume` only reads an existing
TOPIC's N records (so one topic can be read back through several sides in turn).
"""
import argparse
import json
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("bootstrap")
    ap.add_argument("topic")
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--phase", choices=["both", "produce", "consume"], default="both")
    ap.add_argument("--delete-after", action="store_true",
                    help="with --phase produce: delete TOPIC once its records are in")
    args = ap.parse_args()
    common = {"bootstrap.servers": args.bootstrap}
    admin = AdminClient(common)
    produce_s = consume_s = 0.0
    if args.phase != "consume":
        left, failed, produce_s = produce_phase(args, common, admin)
        if left or failed:
            print(f"produce: {left} undelivered, errors {failed[:3]}", file=sys.stderr)
            return 1
        if args.phase == "produce" and args.delete_after:
            for future in admin.delete_topics([args.topic], request_timeout=30).values():
                future.result()
    if args.phase != "produce":
        got, consume_s = consume_phase(args, common)
        if args.phase == "both":
            # The topic goes again, so that a series of runs measures the same broker state.
            for future in admin.delete_topics([args.topic], request_timeout=30).values():
                future.result()
        if got < args.records:
            print(f"consume: {got} of {args.records} within 120 s", file=sys.stderr)
            return 1
    mb = args.records * args.size / 2**20
    rate = lambda n, s: round(n / s, 1) if s else 0.0  # noqa: E731
    result = {
        "bootstrap": args.bootstrap,
        "records": args.records,
        "record_bytes": args.size,
        "produce_records_per_s": round(rate(args.records, produce_s)),
        "produce_mb_per_s": rate(mb, produce_s),
        "consume_records_per_s": round(rate(args.records, consume_s)),
        "consume_mb_per_s": rate(mb, consume_s),
    }
    print(json.dumps(result) if args.json else
          f"{args.bootstrap}: produce {result['produce_records_per_s']} rec/s "
          f"{result['produce_mb_per_s']} MB/s; consume {result['consume_records_per_s']} rec/s "
          f"{result['consume_mb_per_s']} MB/s")
    return 0


def produce_phase(args, common, admin):
    for future in admin.create_topics([NewTopic(args.topic, 1, 1)], request_timeout=30).values():
        future.result()
    time.sleep(0.5)

    producer = Producer({**common, "acks": "all"})
    value = b"x" * args.size
    failed = []
    started = time.perf_counter()
    for _ in range(args.records):
        while True:
            try:
                producer.produce(args.topic, value, on_delivery=lambda e, m: e and failed.append(e))
                break
            except BufferError:
                producer.poll(0.01)
        producer.poll(0)
    left = producer.flush(120)
    return left, failed, time.perf_counter() - started


def consume_phase(args, common):
    consumer = Consumer({**common, "group.id": "gateway-throughput", "enable.auto.commit": False,
                         "fetch.max.bytes": 52428800, "max.partition.fetch.bytes": 1048576})
    consumer.assign([TopicPartition(args.topic, 0, 0)])
    got = 0
    started = time.perf_counter()
    deadline = started + 120
    while got < args.records and time.perf_counter() < deadline:
        for message in consumer.consume(num_messages=10_000, timeout=1.0):
            if message.error() is None:
                got += 1
    consume_s = time.perf_counter() - started
    consumer.close()
    return got, consume_s


if __name__ == "__main__":
    sys.exit(main())
