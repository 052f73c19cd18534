/**
 * The `.snapshot` file: Kafka's byte layout, round trips, CRC32C corruption detection, and
 * Kafka 4.4.0's own `DumpLogSegments` reading a snapshot Sluice wrote (skipped without Java or
 * Kafka's jars).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { crc32c } from '../../../../src/native/index.js';
import { offsetOf } from '@sluice/protocol/common/offsets.js';
import { batchMetadata, ProducerStateEntry } from '../../../../src/storage/producer-state/producer-state-entry.js';
import {
  CorruptSnapshotError,
  decodeSnapshot,
  encodeSnapshot,
  readSnapshot,
  snapshotPath,
  writeSnapshot,
} from '../../../../src/storage/producer-state/producer-snapshot.js';
import { kafkaClasspath } from '../../../../tools/kafka/kafka-release.js';
import { FakeClock, openLog, tempDir } from '../storage-fixtures.js';
import { idempotentBatch } from './producer-fixtures.js';
import { javaSkip } from '../../../helpers/requirements.js';

const execFileAsync = promisify(execFile);
const root = tempDir('pstate-snap');
process.on('exit', root.remove);

function entry(
  producerId: bigint,
  epoch: number,
  lastSeq: number,
  lastOffset: number,
  offsetDelta: number,
  timestamp: number,
): ProducerStateEntry {
  return new ProducerStateEntry(producerId, epoch, timestamp, batchMetadata(lastSeq, offsetOf(lastOffset), offsetDelta, timestamp));
}

test('layout: int16 version 1, uint32 CRC32C of the rest, int32 count, 46-byte entries in schema order', () => {
  const buf = encodeSnapshot([entry(7n, 3, 4, 104, 1, 1_700_000_000_123), new ProducerStateEntry(9n, 0, -1)]);
  assert.equal(buf.length, 2 + 4 + 4 + 2 * 46);
  assert.equal(buf.readInt16BE(0), 1);
  assert.equal(buf.readUInt32BE(2), crc32c(buf.subarray(6)));
  assert.equal(buf.readInt32BE(6), 2);
  const at = 10;
  assert.deepEqual(
    [
      buf.readBigInt64BE(at), // producer id
      buf.readInt16BE(at + 8), // epoch
      buf.readInt32BE(at + 10), // last sequence
      buf.readBigInt64BE(at + 14), // last offset
      buf.readInt32BE(at + 22), // offset delta
      buf.readBigInt64BE(at + 26), // timestamp
      buf.readInt32BE(at + 34), // coordinator epoch
      buf.readBigInt64BE(at + 38), // current txn first offset
    ],
    [7n, 3, 4, 104n, 1, 1_700_000_000_123n, -1, -1n],
  );
  // An entry without batches: last sequence and offset -1, delta 0 (Kafka's empty entry).
  const empty = at + 46;
  assert.deepEqual(
    [buf.readInt16BE(empty + 8), buf.readInt32BE(empty + 10), buf.readBigInt64BE(empty + 14), buf.readInt32BE(empty + 22)],
    [0, -1, -1n, 0],
  );
});

const entryArb = fc.record({
  producerId: fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }),
  epoch: fc.integer({ min: 0, max: 32767 }),
  lastSeq: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  lastOffset: fc.integer({ min: -1, max: 2 ** 50 }),
  offsetDelta: fc.integer({ min: 0, max: 5000 }),
  timestamp: fc.integer({ min: -1, max: 2 ** 45 }),
  coordinatorEpoch: fc.integer({ min: -1, max: 2 ** 31 - 1 }),
  txn: fc.integer({ min: -1, max: 2 ** 50 }),
});

test('round trip: decode(encode(entries)) keeps every field; the last batch comes back with its first sequence and offset', () => {
  fc.assert(
    fc.property(fc.array(entryArb, { maxLength: 20 }), (specs) => {
      const entries = specs.map((s) => {
        const last = s.lastOffset >= s.offsetDelta ? batchMetadata(s.lastSeq, offsetOf(s.lastOffset), s.offsetDelta, s.timestamp) : null;
        return new ProducerStateEntry(s.producerId, s.epoch, s.timestamp, last, s.coordinatorEpoch, s.txn);
      });
      const decoded = decodeSnapshot(encodeSnapshot(entries), 'mem');
      const view = (e: ProducerStateEntry): unknown[] => [
        e.producerId,
        e.producerEpoch,
        e.lastTimestamp,
        e.lastSeq,
        e.batches,
        e.coordinatorEpoch,
        e.currentTxnFirstOffset,
      ];
      assert.deepEqual(decoded.map(view), entries.map(view));
    }),
    { numRuns: 200 },
  );
});

test('corruption: any flipped byte, a cut file or trailing bytes are a CorruptSnapshotError', () => {
  const good = encodeSnapshot([entry(1n, 0, 9, 10, 2, 5), entry(2n, 1, 0, 11, 0, 6)]);
  assert.equal(decodeSnapshot(good, 'mem').length, 2);
  fc.assert(
    fc.property(fc.integer({ min: 0, max: good.length - 1 }), fc.integer({ min: 1, max: 255 }), (at, xor) => {
      const bad = Buffer.from(good);
      bad[at] = bad[at]! ^ xor;
      assert.throws(() => decodeSnapshot(bad, 'mem'), CorruptSnapshotError);
    }),
  );
  assert.throws(() => decodeSnapshot(good.subarray(0, good.length - 1), 'mem'), CorruptSnapshotError);
  assert.throws(() => decodeSnapshot(good.subarray(0, 5), 'mem'), CorruptSnapshotError);
  // Extra bytes with a CRC recomputed over them still do not frame as whole entries.
  const longer = Buffer.concat([good, Buffer.alloc(3)]);
  longer.writeUInt32BE(crc32c(longer.subarray(6)), 2);
  assert.throws(() => decodeSnapshot(longer, 'mem'), /do not fill/);
});

test('writeSnapshot names the file by its offset in 20 digits and leaves no .tmp behind', () => {
  const dir = join(root.path, 'files');
  mkdirSync(dir);
  writeSnapshot(dir, offsetOf(42), [entry(5n, 0, 3, 41, 3, 9)]);
  assert.equal(snapshotPath(dir, offsetOf(42)), join(dir, '00000000000000000042.snapshot'));
  assert.equal(existsSync(snapshotPath(dir, offsetOf(42)) + '.tmp'), false);
  const [loaded] = readSnapshot(dir, offsetOf(42));
  assert.deepEqual(loaded!.batches, [batchMetadata(3, offsetOf(41), 3, 9)]);
});

test("Kafka's DumpLogSegments reads a snapshot Sluice wrote, and refuses it once a byte is flipped", { skip: javaSkip() }, async () => {
  const clock = new FakeClock();
  const log = openLog(join(root.path, 'dump'), clock);
  const big = (1n << 40n) + 3n;
  log.append(idempotentBatch({ producerId: 7n, epoch: 3, sequence: 0, count: 3, timestamp: clock.nowMs }), { leaderEpoch: 0 });
  log.append(idempotentBatch({ producerId: 7n, epoch: 3, sequence: 3, count: 2, timestamp: clock.nowMs + 1 }), { leaderEpoch: 0 });
  log.append(idempotentBatch({ producerId: big, epoch: 0, sequence: 2_147_483_647, count: 2, timestamp: clock.nowMs + 2 }), {
    leaderEpoch: 0,
  });
  log.close();
  const file = snapshotPath(log.dir, offsetOf(7));
  const classpath = kafkaClasspath();
  const dump = (): Promise<{ stdout: string; stderr: string }> =>
    execFileAsync('java', ['-cp', classpath, 'org.apache.kafka.tools.DumpLogSegments', '--files', file], { timeout: 60_000 });
  const { stdout } = await dump();
  const lines = stdout.split('\n').filter((l) => l.startsWith('producerId:'));
  assert.deepEqual(lines, [
    `producerId: 7 producerEpoch: 3 coordinatorEpoch: -1 currentTxnFirstOffset: OptionalLong.empty lastTimestamp: ${clock.nowMs + 1} firstSequence: 3 lastSequence: 4 lastOffset: 4 offsetDelta: 1 timestamp: ${clock.nowMs + 1}`,
    `producerId: ${big} producerEpoch: 0 coordinatorEpoch: -1 currentTxnFirstOffset: OptionalLong.empty lastTimestamp: ${clock.nowMs + 2} firstSequence: 2147483647 lastSequence: 0 lastOffset: 6 offsetDelta: 1 timestamp: ${clock.nowMs + 2}`,
  ]);
  const bytes = readFileSync(file);
  bytes[20] = bytes[20]! ^ 1;
  writeFileSync(file, bytes);
  const corrupt = await dump().then(
    (r) => r.stdout + r.stderr,
    (e: { stdout?: string; stderr?: string }) => `${e.stdout ?? ''}${e.stderr ?? ''}`,
  );
  assert.match(corrupt, /CRC is no longer valid/);
});
