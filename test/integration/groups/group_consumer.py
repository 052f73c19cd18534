"""confluent-kafka-python (unmodified, over librdkafka) as a subscribe-based group member.

Usage: group_consumer.py <bootstrap> <group> <topic> <count>
Joins <group>, reads until it has <count> records, commits them synchronously, reads on for a
moment (so a record read twice would show) and closes (LeaveGroup). Prints one JSON line per
assignment, record and commit.
"""
import json
import sys
import time

from confluent_kafka import Consumer


def emit(kind, **fields):
    print(json.dumps({"type": kind, **fields}), flush=True)


def main(bootstrap, group, topic, count):
    consumer = Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
        "session.timeout.ms": 6000,
    })
    consumer.subscribe([topic], on_assign=lambda _c, tps: emit("assigned", partitions=sorted(tp.partition for tp in tps)))
    read = 0
    deadline = time.monotonic() + 30
    linger_until = None
    while time.monotonic() < deadline and (linger_until is None or time.monotonic() < linger_until):
        msg = consumer.poll(0.2)
        if msg is None:
            continue
        if msg.error():
            raise RuntimeError(str(msg.error()))
        emit("record", partition=msg.partition(), offset=msg.offset(), value=msg.value().decode())
        read += 1
        if read == count:
            committed = consumer.commit(asynchronous=False)
            emit("committed", offsets=sorted([tp.partition, tp.offset] for tp in committed))
            linger_until = time.monotonic() + 1
    consumer.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]))
