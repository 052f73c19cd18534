"""confluent-kafka-python (unmodified, over librdkafka) driven by the interop tests.

Usage: confluent_clients.py <scenario> <bootstrap>, with the scenario's input as JSON on stdin.
Prints one JSON object per line on stdout for the test to parse; keys, values and header
values travel as hex, null as null.
"""
import json
import sys
import time

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic


def emit(kind, **fields):
    print(json.dumps({"type": kind, **fields}), flush=True)


def unhex(v):
    return None if v is None else bytes.fromhex(v)


def tohex(v):
    return None if v is None else v.hex()


def wait_all(futures):
    """The error name of each admin future (None for success), in the futures' order."""
    out = {}
    for name, f in futures.items():
        try:
            f.result(timeout=30)
            out[name] = None
        except KafkaException as e:
            out[name] = e.args[0].name()
    return out


def produce(bootstrap, topic, codec, records):
    # The idempotent producer: InitProducerId, sequence numbers, acks=all.
    producer = Producer({"bootstrap.servers": bootstrap, "compression.codec": codec, "enable.idempotence": True, "linger.ms": 5})
    acked = []

    def on_delivery(err, msg):
        if err is not None:
            raise KafkaException(err)
        acked.append((msg.partition(), msg.offset()))

    for r in records:
        headers = [(k, unhex(v)) for k, v in r["headers"]]
        producer.produce(topic, partition=r["partition"], key=unhex(r["key"]), value=unhex(r["value"]), headers=headers, timestamp=r["timestamp"], on_delivery=on_delivery)
    if producer.flush(60) != 0:
        raise RuntimeError("records left unacknowledged")
    for partition, offset in acked:
        emit("sent", topic=topic, partition=partition, offset=offset)


def consume(bootstrap, topic, partitions):
    """assign() from the beginning, then poll until every partition reaches its high watermark."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused-assign-only", "enable.auto.commit": False, "enable.partition.eof": True})
    try:
        tps = [TopicPartition(topic, p, -2) for p in range(partitions)]  # -2: OFFSET_BEGINNING
        ends = {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1] for p in range(partitions)}
        consumer.assign(tps)
        positions = {p: 0 for p in range(partitions)}
        deadline = time.time() + 30
        while any(positions[p] < ends[p] for p in positions):
            if time.time() > deadline:
                raise RuntimeError(f"read stopped at {positions}, end offsets {ends}")
            msg = consumer.poll(0.5)
            if msg is None or (msg.error() is not None and msg.error().code() == -191):  # -191: partition EOF
                continue
            if msg.error() is not None:
                raise KafkaException(msg.error())
            ts_type, ts = msg.timestamp()
            emit("record", topic=topic, partition=msg.partition(), offset=msg.offset(), key=tohex(msg.key()), value=tohex(msg.value()),
                 headers=[[k, tohex(v)] for k, v in (msg.headers() or [])], timestamp=ts, timestampType=ts_type)
            positions[msg.partition()] = msg.offset() + 1
        emit("end", topic=topic, offsets=[ends[p] for p in range(partitions)])
    finally:
        consumer.close()


def offsets_for_times(bootstrap, topic, queries):
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused-assign-only", "enable.auto.commit": False})
    try:
        # One call per query: a call takes one timestamp per partition.
        for q in queries:
            [found] = consumer.offsets_for_times([TopicPartition(topic, q["partition"], q["timestamp"])], timeout=10)
            emit("offsetForTime", topic=topic, partition=found.partition, timestamp=q["timestamp"], offset=found.offset)
    finally:
        consumer.close()


def roundtrip(bootstrap, spec):
    """For each codec: create a topic, produce every record, read it all back, query offsets by time."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    topics = [f"{spec['topic']}-{c}" for c in spec["codecs"]]
    errors = wait_all(admin.create_topics([NewTopic(t, num_partitions=spec["partitions"], replication_factor=1) for t in topics]))
    if any(errors.values()):
        raise RuntimeError(f"create_topics failed: {errors}")
    for codec, topic in zip(spec["codecs"], topics):
        produce(bootstrap, topic, codec, spec["records"])
        consume(bootstrap, topic, spec["partitions"])
        offsets_for_times(bootstrap, topic, spec["queries"])


def admin_scenario(bootstrap, spec):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    topic = spec["topic"]
    emit("create", errors=wait_all(admin.create_topics([NewTopic(topic, num_partitions=3, replication_factor=1, config={"retention.ms": "60000"})])))
    emit("createAgain", errors=wait_all(admin.create_topics([NewTopic(topic, num_partitions=3, replication_factor=1)])))
    md = admin.list_topics(timeout=10)
    emit("listTopics", brokers=[f"{b.host}:{b.port}" for b in md.brokers.values()], controller=md.controller_id,
         partitions={t: sorted(p.id for p in m.partitions.values()) for t, m in md.topics.items()},
         leaders=sorted({p.leader for p in md.topics[topic].partitions.values()}))
    emit("delete", errors=wait_all(admin.delete_topics([topic])))
    emit("deleteAgain", errors=wait_all(admin.delete_topics([topic])))
    emit("listedAfterDelete", present=topic in admin.list_topics(timeout=10).topics)


def read_values(bootstrap, topic, partitions, isolation, expect):
    """Every value of the topic at `isolation`, read until each partition reached its end and at least `expect` values came."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused-assign-only", "enable.auto.commit": False,
                         "enable.partition.eof": True, "isolation.level": isolation})
    try:
        consumer.assign([TopicPartition(topic, p, -2) for p in range(partitions)])  # -2: OFFSET_BEGINNING
        values, at_end = [], set()
        deadline = time.time() + 30
        while len(at_end) < partitions or len(values) < expect:
            if time.time() > deadline:
                raise RuntimeError(f"{isolation}: {len(values)} values of {expect}, partitions at their end: {sorted(at_end)}")
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            if msg.error() is not None:
                if msg.error().code() == -191:  # partition EOF
                    at_end.add(msg.partition())
                    continue
                raise KafkaException(msg.error())
            at_end.discard(msg.partition())
            values.append(msg.value().decode())
        return values
    finally:
        consumer.close()


def transactions(bootstrap, spec):
    """Transactions c1 (committed), a2 (aborted), c3 (committed) of `count` records each, then what each isolation level reads."""
    topic, count, partitions = spec["topic"], spec["count"], spec["partitions"]
    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": spec["transactionalId"], "linger.ms": 5})
    producer.init_transactions(30)
    for tag in ("c1", "a2", "c3"):
        producer.begin_transaction()
        for i in range(count):
            producer.produce(topic, key=f"{tag}-{i}", value=f"{tag}-{i}")
        producer.flush(30)
        if tag.startswith("a"):
            producer.abort_transaction(30)
        else:
            producer.commit_transaction(30)
        emit("ended", tag=tag)
    emit("read", isolation="read_committed", values=read_values(bootstrap, topic, partitions, "read_committed", 2 * count))
    emit("read", isolation="read_uncommitted", values=read_values(bootstrap, topic, partitions, "read_uncommitted", 3 * count))


def main():
    scenario, bootstrap = sys.argv[1], sys.argv[2]
    spec = json.load(sys.stdin)
    {"roundtrip": roundtrip, "admin": admin_scenario, "transactions": transactions}[scenario](bootstrap, spec)


if __name__ == "__main__":
    main()
