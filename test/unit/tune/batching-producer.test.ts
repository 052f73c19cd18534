import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { KafkaCluster } from '@sluice/client/cluster.js';
import { parseBootstrapServers } from '@sluice/client/broker-address.js';
import type { RecordDelivery } from '@sluice/client/producer-accumulator.js';
import { BatchingProducer, type BatchingProducerOptions } from '@sluice/client/producer-batching.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { FakeProduceBroker, type ProduceCall } from './fake-produce-broker-helper.js';
import { until } from '../../helpers/offset-wire.js';

const TOPIC = 't';

describe('BatchingProducer against a scripted broker', () => {
  let broker: FakeProduceBroker;
  let cluster: KafkaCluster;
  beforeEach(async () => {
    broker = new FakeProduceBroker(TOPIC, 2);
    cluster = new KafkaCluster({ bootstrap: parseBootstrapServers(await broker.listen()) });
  });
  afterEach(async () => {
    cluster.close();
    await broker.close();
  });

  /** Sends `n` records to `partition`, resolving each record's delivery (or failure). */
  function sendAll(producer: BatchingProducer, n: number, partition?: number): Array<Promise<RecordDelivery>> {
    return Array.from(
      { length: n },
      (_, i) =>
        new Promise<RecordDelivery>((resolve, reject) =>
          producer.send(TOPIC, { key: null, value: Buffer.from(`r${i}`), partition }, (err, d) => (err ? reject(err) : resolve(d!))),
        ),
    );
  }

  const producer = (options: BatchingProducerOptions): BatchingProducer => new BatchingProducer(cluster, options);

  test('acks=1: each record is acknowledged at its offset, in send order, with its latency', async () => {
    const p = producer({ acks: 1, lingerMs: 0 });
    const first = await Promise.all(sendAll(p, 3, 0));
    const second = await Promise.all(sendAll(p, 2, 0));
    assert.deepEqual(
      [...first, ...second].map((d) => d.offset),
      [0n, 1n, 2n, 3n, 4n],
    );
    assert.ok(first.every((d) => d.partition === 0 && d.latencyMs >= 0));
    assert.ok(broker.calls.every((c) => c.acks === 1));
    const stats = p.stats();
    assert.equal(stats.acknowledgedRecords, 5);
    assert.equal(stats.batches, broker.calls.length);
    await p.close();
  });

  test('acks=0: records count as delivered once written, at offset -1, and the broker got them', async () => {
    const p = producer({ acks: 0, lingerMs: 0 });
    const deliveries = await Promise.all(sendAll(p, 4, 1));
    assert.deepEqual(
      deliveries.map((d) => d.offset),
      [-1n, -1n, -1n, -1n],
    );
    await p.close();
    // Written is not yet read: the scripted broker gets them when its socket is next read.
    const received = (): number => broker.calls.reduce((n, c) => n + c.partitions.reduce((m, x) => m + x.recordCount, 0), 0);
    await until('the broker to read the four records', async () => (received() === 4 ? true : undefined));
    assert.ok(broker.calls.every((c) => c.acks === 0));
  });

  test('linger.ms holds a partial batch: three quick records leave together, not before the linger', async () => {
    const p = producer({ acks: -1, lingerMs: 40 });
    const started = performance.now();
    const deliveries = await Promise.all(sendAll(p, 3, 0));
    assert.ok(performance.now() - started >= 39, 'not sent before linger.ms');
    assert.equal(broker.calls.length, 1);
    assert.deepEqual(broker.calls[0]!.partitions, [{ partition: 0, recordCount: 3 }]);
    assert.ok(deliveries.every((d) => d.latencyMs >= 39));
    await p.close();
  });

  test('max.in.flight bounds the requests outstanding; meanwhile records gather into larger batches', async () => {
    const held: ProduceCall[] = [];
    broker.onProduce = (call) => held.push(call);
    const p = producer({ acks: 1, lingerMs: 0, maxInFlight: 2 });
    const sent: Array<Promise<RecordDelivery>> = [];
    // Each of the first two sends becomes a request of its own once the broker holds the one before.
    for (const inFlight of [1, 2]) {
      sent.push(...sendAll(p, 10, 0));
      await until(`request ${inFlight} at the broker`, async () => (held.length === inFlight ? true : undefined));
    }
    for (let i = 0; i < 3; i++) sent.push(...sendAll(p, 10, 0));
    // Fixed on purpose: a third request must not be sent, so there is no event to wait for, only time.
    await sleep(50);
    assert.equal(held.length, 2, 'two requests in flight, the rest waits in the accumulator');
    broker.onProduce = (call) => call.respond();
    for (const call of held.splice(0)) call.respond();
    await Promise.all(sent);
    const counts = broker.calls.map((c) => c.partitions[0]!.recordCount);
    assert.equal(
      counts.reduce((a, b) => a + b, 0),
      50,
    );
    assert.ok(counts.length < 5, `records sent while the leader was busy went out together: ${counts.join(', ')}`);
    await p.close();
  });

  test('retries a retriable error after a metadata refresh; a fatal one fails the records', async () => {
    let failures = 1;
    broker.onProduce = (call) => call.respond(failures-- > 0 ? new Map([[0, ErrorCode.NOT_LEADER_OR_FOLLOWER]]) : undefined);
    const p = producer({ acks: -1, lingerMs: 0, retryBackoffMs: 10 });
    const [d] = await Promise.all(sendAll(p, 1, 0));
    assert.equal(d!.offset, 0n);
    assert.equal(p.stats().retries, 1);

    // CORRUPT_MESSAGE is retriable in Kafka's table: a refused authorization is final.
    broker.onProduce = (call) => call.respond(new Map([[0, ErrorCode.TOPIC_AUTHORIZATION_FAILED]]));
    await assert.rejects(Promise.all(sendAll(p, 1, 0)), /TOPIC_AUTHORIZATION_FAILED|authoriz/i);
    assert.equal(p.stats().failedRecords, 1);
    await p.close();
  });

  test('flush sends lingering batches at once; a partition outside the topic fails the record', async () => {
    const p = producer({ acks: 1, lingerMs: 60_000 });
    const pending = sendAll(p, 2, 1);
    // Fixed on purpose: nothing may be sent before the flush (linger is a minute), so there is only time to wait.
    await sleep(20);
    assert.equal(broker.calls.length, 0);
    await p.flush();
    await Promise.all(pending);
    assert.equal(broker.calls.length, 1);
    await assert.rejects(Promise.all(sendAll(p, 1, 7)), /partition 7 is not in \[0, 2\)/);
    await p.close();
  });

  test('unkeyed records stick to one partition until its batch fills', async () => {
    const p = producer({ acks: 1, lingerMs: 5, batchSize: 200 });
    const deliveries = await Promise.all(sendAll(p, 40));
    const switches = deliveries.filter((d, i) => i > 0 && d.partition !== deliveries[i - 1]!.partition).length;
    assert.ok(switches >= 2 && switches < 20, `partition changed ${switches} times over 40 records`);
    await p.close();
  });
});
