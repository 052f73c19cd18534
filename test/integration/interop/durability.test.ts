// Durability with real clients: what the broker acknowledged is still there, byte for byte and at
// the same offsets, after a clean restart and after SIGKILL, and the log continues where it ended.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompressionTypes, Kafka, logLevel, type Producer } from 'kafkajs';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { freePort, kcatRead, runJava } from '../../helpers/interop.js';
import {
  kafkajsHeaders,
  makeRecords,
  recordsByPartition,
  toKafkaJsMessage,
  type ReadRecord,
  type TestRecord,
} from '../../helpers/interop-records.js';
import { javaSkip, kcatSkip } from '../../helpers/requirements.js';

const PARTITIONS = 3;

interface Batch {
  readonly partition: number;
  readonly records: TestRecord[];
}

interface AckedBatch extends Batch {
  readonly baseOffset: number;
}

// kcat reads back here, which has no byte-safe header format and no null header values.
function records(tag: string, perPartition: number): TestRecord[] {
  return makeRecords(tag, PARTITIONS, perPartition, { nullHeaderValues: false, textHeaders: true });
}

/** Batches of up to `size` consecutive records of one partition, alternating partitions. */
function batches(list: readonly TestRecord[], size: number): Batch[] {
  const out: Batch[] = [];
  for (const [partition, rs] of recordsByPartition(list)) {
    for (let i = 0; i < rs.length; i += size) out.push({ partition, records: rs.slice(i, i + size) });
  }
  return out.sort((a, b) => a.records[0]!.timestamp - b.records[0]!.timestamp);
}

/** Record identity without the offset, with headers in the order KafkaJS sends them. */
const sentForm = (r: TestRecord): string => JSON.stringify([r.partition, r.key, r.value, r.timestamp, kafkajsHeaders(r.headers).sent]);

function producer(bootstrap: string): Producer {
  // No retries: a send to a killed broker fails instead of waiting for a broker that never returns.
  return new Kafka({ brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 } }).producer({ allowAutoTopicCreation: true });
}

async function sendBatch(p: Producer, topic: string, b: Batch, gzip: boolean): Promise<AckedBatch> {
  const [ack] = await p.send({
    topic,
    acks: -1,
    compression: gzip ? CompressionTypes.GZIP : CompressionTypes.None,
    messages: b.records.map(toKafkaJsMessage),
  });
  assert.equal(ack!.errorCode, 0);
  return { ...b, baseOffset: Number(ack!.baseOffset) };
}

/** Every acknowledged record is read at the offset it was acknowledged with, byte for byte. */
function assertAckedPresent(acked: readonly AckedBatch[], read: readonly ReadRecord[]): void {
  const at = new Map(read.map((r) => [`${r.partition}@${r.offset}`, r]));
  for (const b of acked) {
    b.records.forEach((r, i) => {
      const got = at.get(`${b.partition}@${b.baseOffset + i}`);
      assert.ok(got !== undefined, `acknowledged record ${b.partition}@${b.baseOffset + i} is missing`);
      assert.equal(sentForm(got), sentForm(r), `record ${b.partition}@${b.baseOffset + i}`);
    });
  }
}

describe('durability with real clients', { skip: kcatSkip() }, () => {
  let dir: string;
  let broker: BrokerProcess;
  const restart = async (): Promise<void> => {
    broker = await startBrokerProcess({ 'log.dirs': dir, 'num.partitions': String(PARTITIONS) });
  };
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-interop-durability-'));
    await restart();
  });
  after(async () => {
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('clean restart: everything reads back, and appends continue at the old end', async () => {
    const topic = 'durable-clean';
    const list = records('clean', 10);
    const p = producer(broker.bootstrap);
    await p.connect();
    const acked: AckedBatch[] = [];
    for (const [i, b] of batches(list, 4).entries()) acked.push(await sendBatch(p, topic, b, i % 2 === 1));
    await p.disconnect();
    assert.equal(await broker.stop(), 0, 'clean exit');

    await restart();
    const read = await kcatRead(broker.bootstrap, topic);
    assert.equal(read.length, list.length);
    assertAckedPresent(acked, read);

    const more = records('clean-after', 1);
    const p2 = producer(broker.bootstrap);
    await p2.connect();
    const next = await sendBatch(p2, topic, { partition: 1, records: more.filter((r) => r.partition === 1) }, false);
    await p2.disconnect();
    assert.equal(next.baseOffset, 10, 'the first append after the restart takes the next offset');
    assertAckedPresent([...acked, next], await kcatRead(broker.bootstrap, topic));
  });

  test('SIGKILL while producing: every acknowledged record survives at its offset', async () => {
    const topic = 'durable-kill';
    const all = batches(records('kill', 40), 3);
    const p = producer(broker.bootstrap);
    await p.connect();
    const acked: AckedBatch[] = [];
    const killAfter = Math.floor(all.length / 2);
    const killed = once(broker.child, 'exit');
    // Several sends in flight at once, so the kill lands while requests are being written.
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < all.length) {
        const b = all[next++]!;
        acked.push(await sendBatch(p, topic, b, next % 2 === 0));
        if (acked.length === killAfter) broker.child.kill('SIGKILL');
      }
    };
    const outcome = await Promise.allSettled([worker(), worker(), worker()]);
    await killed;
    await p.disconnect().catch(() => undefined);
    assert.ok(
      outcome.some((o) => o.status === 'rejected'),
      'sends after the kill failed',
    );
    assert.ok(acked.length >= killAfter);

    await restart();
    const read = await kcatRead(broker.bootstrap, topic);
    assertAckedPresent(acked, read);
    // Unacknowledged batches may or may not have made it, but nothing else may appear, and
    // each partition's offsets stay contiguous (no hole, no torn batch).
    const sent = new Set(all.flatMap((b) => b.records.map(sentForm)));
    for (const r of read) assert.ok(sent.has(sentForm(r)), `record ${r.partition}@${r.offset} was never sent`);
    for (const [partition, rs] of recordsByPartition(read))
      assert.deepEqual(
        rs.map((r) => r.offset),
        rs.map((_, i) => i),
        `partition ${partition}`,
      );

    const ends = new Map([...recordsByPartition(read)].map(([partition, rs]) => [partition, rs.length]));
    const p2 = producer(broker.bootstrap);
    await p2.connect();
    const after = await sendBatch(p2, topic, { partition: 0, records: records('kill-after', 1).filter((r) => r.partition === 0) }, true);
    await p2.disconnect();
    assert.equal(after.baseOffset, ends.get(0) ?? 0, 'appends continue at the recovered end');
    assertAckedPresent([after], await kcatRead(broker.bootstrap, topic));
  });
});

describe('idempotent Java producer across a broker crash', { skip: javaSkip() ?? kcatSkip() }, () => {
  let dir: string;
  let broker: BrokerProcess;
  let listeners: string;
  const start = async (): Promise<void> => {
    broker = await startBrokerProcess({ 'log.dirs': dir, listeners });
  };
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-interop-retry-'));
    listeners = `PLAINTEXT://127.0.0.1:${await freePort()}`;
    await start();
  });
  after(async () => {
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('retries after SIGKILL and restart: every record exactly once, in order, no failure', async () => {
    const count = 150;
    const bootstrap = broker.bootstrap;
    // Crash the broker once a fifth of the records are acknowledged, while the producer keeps
    // sending, then bring it back on the same address and log dirs.
    let ackedSoFar = 0;
    let crashedAt = Infinity;
    let restarted: Promise<void> | undefined;
    const crash = async (): Promise<void> => {
      const exited = once(broker.child, 'exit');
      broker.child.kill('SIGKILL');
      await exited;
      crashedAt = Date.now();
      await start();
    };
    const run = runJava('stream', bootstrap, { topic: 'retried', partitions: PARTITIONS, count, intervalMs: 20 }, (line) => {
      if (line['type'] === 'acked' && ++ackedSoFar === count / 5) restarted = crash();
    });
    const lines = await run;
    assert.ok(restarted !== undefined, `the crash never came (${ackedSoFar} acknowledged)`);
    await restarted;

    assert.deepEqual(
      lines.filter((l) => l['type'] === 'failed'),
      [],
      'no send failed',
    );
    const acked = lines.filter((l) => l['type'] === 'acked');
    assert.equal(acked.length, count);
    assert.ok(
      acked.some((l) => Number(l['atMs']) < crashedAt),
      'some records were acknowledged before the crash',
    );
    assert.ok(
      acked.some((l) => Number(l['atMs']) > crashedAt),
      'some records were acknowledged after the restart',
    );

    const read = await kcatRead(broker.bootstrap, 'retried');
    assert.equal(read.length, count, 'no duplicate, nothing lost');
    for (const [partition, rs] of recordsByPartition(read)) {
      const values = rs.map((r) => Buffer.from(r.value!, 'hex').toString());
      const expected = [...Array(count).keys()].filter((i) => i % PARTITIONS === partition).map((i) => `v${i}`);
      assert.deepEqual(values, expected, `partition ${partition}: each record once, in send order`);
      assert.deepEqual(
        rs.map((r) => r.offset),
        rs.map((_, i) => i),
      );
    }
    // The offsets the producer was given are the ones the records have.
    const at = new Map(read.map((r) => [`${r.partition}@${r.offset}`, r.value]));
    for (const l of acked)
      assert.equal(at.get(`${l['partition']}@${l['offset']}`), Buffer.from(`v${l['index']}`).toString('hex'), `record ${l['index']}`);
  });
});
