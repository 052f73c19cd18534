/**
 * Compaction results through LogManager.maintain: latest value per key at its original offset,
 * tombstones and the delete horizon, the dirty ratio and compaction lags, compressed batches,
 * producers' last batches, reads across a swap, the checkpoint, and the piscina pool.
 */
import { offsetOf } from '@sluice/protocol/common/offsets.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readSync } from 'node:fs';
import { CompressionType, compressionCodecId, hasDeleteHorizon } from '@sluice/protocol/records/index.js';
import { codecAvailable } from '../../../../src/native/index.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { RecordValidationError } from '@sluice/protocol/records/index.js';
import { LogManager } from '../../../../src/storage/index.js';
import { FakeClock, tempDir } from '../storage-fixtures.js';
import { clean, compactedLog, keyedBatch, logDirOf, openManager, readAll, readBatches, TP, type KV } from './cleaner-fixtures.js';

const HOUR = 3_600_000;

/** Appends `rounds` batches, each setting every key of `keys` to `v<round>`, rolling after each. */
function fill(
  log: ReturnType<typeof compactedLog>,
  clock: FakeClock,
  keys: readonly string[],
  rounds: number,
  compression: CompressionType = CompressionType.None,
): Map<string, number> {
  const latest = new Map<string, number>();
  for (let round = 0; round < rounds; round++) {
    const base = log.logEndOffset;
    log.append(
      keyedBatch(
        keys.map((key) => ({ key, value: `${key}=v${round}` })),
        clock.nowMs,
        compression,
      ),
      { leaderEpoch: 0 },
    );
    keys.forEach((key, i) => latest.set(key, base + i));
    log.highWatermark = log.logEndOffset;
    log.roll();
    clock.advance(1000);
  }
  return latest;
}

test('the latest value of each key stays at its original offset; the checkpoint moves to the end of the cleaned range', async () => {
  const root = tempDir('clean-latest');
  const clock = new FakeClock();
  const manager = openManager(root.path, clock);
  try {
    const log = compactedLog(manager);
    const latest = fill(log, clock, ['a', 'b', 'c', 'd'], 5);
    log.append(keyedBatch([{ key: 'a', value: 'active' }], clock.nowMs), { leaderEpoch: 0 });
    log.highWatermark = log.logEndOffset;
    const before = readAll(log);
    const activeBase = log.activeSegment.baseOffset;
    await clean(manager);

    const after = readAll(log);
    const cleanedPart = after.filter((r) => r.offset < activeBase);
    assert.deepEqual(
      cleanedPart.map((r) => [r.key, r.offset]),
      [...latest].sort((x, y) => x[1] - y[1]),
    );
    for (const r of after)
      assert.deepEqual(
        r,
        before.find((b) => b.offset === r.offset),
        'every kept record is unchanged',
      );
    assert.deepEqual(
      after.filter((r) => r.offset >= activeBase),
      before.filter((r) => r.offset >= activeBase),
      'the active segment is untouched',
    );
    assert.equal(log.segmentCount, 2, 'the five inactive segments were merged into one');
    const entries = manager.checkpointEntries()[0]!.cleanerOffsets;
    assert.deepEqual(entries, [{ ...TP, offset: activeBase }]);
    assert.deepEqual(
      readdirSync(logDirOf(root.path)).filter((n) => /\.(cleaned|swap)$/.test(n)),
      [],
    );

    // Nothing dirty is left: the next maintain starts no job.
    manager.maintain();
    assert.equal(manager.cleaningJobs, 0);
  } finally {
    manager.close();
    root.remove();
  }
});

test('tombstones are kept (with a delete horizon) until delete.retention.ms has passed, then removed', async () => {
  const root = tempDir('clean-tombstone');
  const clock = new FakeClock();
  const manager = openManager(root.path, clock);
  try {
    const log = compactedLog(manager, { 'delete.retention.ms': HOUR });
    log.append(
      keyedBatch(
        [
          { key: 'gone', value: 'x' },
          { key: 'kept', value: 'y' },
        ],
        clock.nowMs,
      ),
      { leaderEpoch: 0 },
    );
    log.append(keyedBatch([{ key: 'gone', value: null }], clock.nowMs), { leaderEpoch: 0 });
    log.highWatermark = log.logEndOffset;
    log.roll();
    await clean(manager);
    assert.deepEqual(readAll(log), [
      { offset: 1, key: 'kept', value: 'y' },
      { offset: 2, key: 'gone', value: null },
    ]);
    const tombstoneBatch = readBatches(log).find((b) => b.records.some((r) => r.value === null))!;
    assert.ok(hasDeleteHorizon(tombstoneBatch.header.attributes), 'the rewritten batch carries the delete horizon');
    assert.equal(Number(tombstoneBatch.header.baseTimestamp), clock.nowMs + HOUR);

    clock.advance(HOUR - 1);
    await clean(manager);
    assert.equal(readAll(log).length, 2, 'before the horizon the tombstone stays');

    clock.advance(1);
    await clean(manager);
    assert.deepEqual(readAll(log), [{ offset: 1, key: 'kept', value: 'y' }], 'past the horizon the tombstone goes');
  } finally {
    manager.close();
    root.remove();
  }
});

test('min.cleanable.dirty.ratio: no cleaning until dirty bytes exceed the ratio of the cleanable bytes', async () => {
  const root = tempDir('clean-ratio');
  const clock = new FakeClock();
  const manager = openManager(root.path, clock);
  try {
    const log = compactedLog(manager, { 'min.cleanable.dirty.ratio': 0.5 });
    const keys = Array.from({ length: 20 }, (_, i) => `key-${i}`);
    fill(log, clock, keys, 1);
    await clean(manager); // all dirty: ratio 1 > 0.5
    const cleanEnd = manager.checkpointEntries()[0]!.cleanerOffsets[0]!.offset;
    // A small dirty segment: ratio about 1/3.
    fill(log, clock, keys.slice(0, 10), 1);
    manager.maintain();
    assert.equal(manager.cleaningJobs, 0, 'below the ratio: no job');
    assert.equal(manager.checkpointEntries()[0]!.cleanerOffsets[0]!.offset, cleanEnd);
    // Two more such segments: dirty 3 of 4 parts.
    fill(log, clock, keys.slice(0, 10), 2);
    await clean(manager);
    assert.equal(manager.checkpointEntries()[0]!.cleanerOffsets[0]!.offset, log.activeSegment.baseOffset);
    assert.equal(readAll(log).length, 20);
  } finally {
    manager.close();
    root.remove();
  }
});

test('min.compaction.lag.ms holds young segments back; max.compaction.lag.ms forces a cleaning whatever the ratio', async () => {
  const root = tempDir('clean-lag');
  const clock = new FakeClock();
  const manager = openManager(root.path, clock);
  try {
    const log = compactedLog(manager, { 'min.compaction.lag.ms': HOUR, 'min.cleanable.dirty.ratio': 1 });
    fill(log, clock, ['a', 'b'], 3);
    manager.maintain();
    assert.equal(manager.cleaningJobs, 0, 'ratio 1 is never exceeded');
    log.updateConfig({ 'max.compaction.lag.ms': 2 * HOUR });
    clock.advance(HOUR);
    manager.maintain();
    assert.equal(manager.cleaningJobs, 0, 'not yet past max.compaction.lag.ms');
    clock.advance(HOUR);
    await clean(manager);
    assert.equal(readAll(log).length, 2, 'forced by max.compaction.lag.ms');

    fill(log, clock, ['a'], 2); // young: inside min.compaction.lag.ms
    log.updateConfig({ 'min.cleanable.dirty.ratio': 0 });
    manager.maintain();
    assert.equal(manager.cleaningJobs, 0, 'segments younger than min.compaction.lag.ms are not cleanable');
    clock.advance(HOUR + 1);
    await clean(manager);
    assert.deepEqual(
      readAll(log).map((r) => r.key),
      ['b', 'a'],
    );
  } finally {
    manager.close();
    root.remove();
  }
});

for (const codec of [CompressionType.Gzip, CompressionType.Snappy, CompressionType.Lz4, CompressionType.Zstd]) {
  test(`compressed batches (codec ${codec}) are decompressed, filtered and recompressed with their codec`, async (t) => {
    if (!codecAvailable(codec)) return t.skip(`codec ${codec} is not in this build`);
    const root = tempDir('clean-codec');
    const clock = new FakeClock();
    const manager = openManager(root.path, clock);
    try {
      const log = compactedLog(manager);
      log.append(
        keyedBatch(
          [
            { key: 'a', value: 'a0' },
            { key: 'b', value: 'b0' },
            { key: 'c', value: 'c0' },
          ],
          clock.nowMs,
          codec,
        ),
        { leaderEpoch: 0 },
      );
      log.append(keyedBatch([{ key: 'b', value: 'b1' }], clock.nowMs, codec), { leaderEpoch: 0 });
      log.highWatermark = log.logEndOffset;
      log.roll();
      await clean(manager);
      const batches = readBatches(log);
      assert.deepEqual(
        batches.map((b) => b.records.map((r) => `${r.offset}:${r.key}=${r.value}`)),
        [['0:a=a0', '2:c=c0'], ['3:b=b1']],
      );
      for (const b of batches) assert.equal(compressionCodecId(b.header.attributes), codec);
      assert.equal(batches[0]!.header.lastOffsetDelta, 2, 'the rewritten batch keeps its offset range');
      assert.equal(batches[0]!.header.recordsCount, 2);
    } finally {
      manager.close();
      root.remove();
    }
  });
}

test("a producer's last batch stays as an empty batch when all its records are superseded", async () => {
  const root = tempDir('clean-producer');
  const clock = new FakeClock();
  const manager = openManager(root.path, clock);
  try {
    const log = compactedLog(manager);
    log.append(keyedBatch([{ key: 'a', value: '1' }], clock.nowMs, CompressionType.None, { id: 7n, epoch: 0, sequence: 0 }), {
      leaderEpoch: 0,
    });
    log.append(keyedBatch([{ key: 'a', value: '2' }], clock.nowMs), { leaderEpoch: 0 });
    log.highWatermark = log.logEndOffset;
    log.roll();
    await clean(manager);
    const batches = readBatches(log);
    assert.equal(batches.length, 2);
    assert.equal(batches[0]!.header.producerId, 7n);
    assert.equal(batches[0]!.header.recordsCount, 0);
    assert.deepEqual(readAll(log), [{ offset: 1, key: 'a', value: '2' }]);
    manager.close();
    const reopened = openManager(root.path, clock);
    try {
      const again = reopened.getLog(TP)!;
      assert.equal(again.activeProducers().get(7n)?.lastSeq, 0, 'producer state survives compaction and reopening');
      // The next sequence is accepted, a duplicate of sequence 0 is still recognised.
      assert.equal(
        again.append(keyedBatch([{ key: 'a', value: '1' }], clock.nowMs, CompressionType.None, { id: 7n, epoch: 0, sequence: 0 }), {
          leaderEpoch: 0,
        }).duplicate,
        true,
      );
    } finally {
      reopened.close();
    }
  } finally {
    root.remove();
  }
});

test('a read holding a lease across the swap keeps the old bytes; reads after it see the cleaned segment', async () => {
  const root = tempDir('clean-lease');
  const clock = new FakeClock();
  const manager = openManager(root.path, clock);
  try {
    const log = compactedLog(manager);
    fill(log, clock, ['x', 'y'], 3);
    const slice = log.read(offsetOf(0), 1 << 20)!;
    const expected = log.readBuffer(offsetOf(0), 1 << 20);
    await clean(manager);
    const held = Buffer.alloc(slice.length);
    readSync(slice.fd, held, 0, slice.length, slice.position);
    assert.deepEqual(
      held.subarray(0, expected.length),
      expected.subarray(0, held.length),
      'the leased descriptor still reads the old segment',
    );
    assert.ok(
      readdirSync(logDirOf(root.path)).some((n) => n.endsWith('.log.deleted')),
      'the old segment waits for its lease',
    );
    slice.release();
    log.runDeletions();
    assert.ok(!readdirSync(logDirOf(root.path)).some((n) => n.endsWith('.deleted')), 'unlinked once released');
    assert.deepEqual(
      readAll(log).map((r) => `${r.key}=${r.value}`),
      ['x=x=v2', 'y=y=v2'],
    );
  } finally {
    manager.close();
    root.remove();
  }
});

test('appends continue while a job runs; a job overtaken by a truncation is discarded', async () => {
  const root = tempDir('clean-concurrent');
  const clock = new FakeClock();
  const manager = openManager(root.path, clock);
  try {
    const log = compactedLog(manager);
    fill(log, clock, ['p', 'q'], 3);
    manager.maintain();
    assert.equal(manager.cleaningJobs, 1);
    log.append(keyedBatch([{ key: 'p', value: 'during' }], clock.nowMs), { leaderEpoch: 0 });
    log.highWatermark = log.logEndOffset;
    await manager.cleaningIdle();
    assert.deepEqual(
      readAll(log).map((r) => r.value),
      ['p=v2', 'q=v2', 'during'],
    );

    fill(log, clock, ['p', 'q'], 2);
    manager.maintain();
    assert.equal(manager.cleaningJobs, 1);
    const before = readAll(log);
    const target = log.logEndOffset - 2; // the start of the last batch
    log.truncateTo(offsetOf(target));
    await manager.cleaningIdle();
    assert.deepEqual(
      readAll(log),
      before.filter((r) => r.offset < target),
      'nothing swapped after the truncation',
    );
    assert.deepEqual(
      readdirSync(logDirOf(root.path)).filter((n) => n.includes('.cleaned')),
      [],
    );
  } finally {
    manager.close();
    root.remove();
  }
});

test('produce without a key to a compacted topic: INVALID_RECORD (87) with a record error', () => {
  const root = tempDir('clean-nokey');
  const clock = new FakeClock();
  const manager = openManager(root.path, clock);
  try {
    const log = compactedLog(manager);
    const records: KV[] = [
      { key: 'k', value: 'v' },
      { key: null, value: 'v' },
    ];
    assert.throws(
      () => log.append(keyedBatch(records, clock.nowMs), { leaderEpoch: 0 }),
      (e: unknown) =>
        e instanceof RecordValidationError &&
        e.code === ErrorCode.INVALID_RECORD &&
        e.recordErrors.length === 1 &&
        e.recordErrors[0]!.batchIndex === 1,
    );
    assert.equal(log.logEndOffset, 0);
  } finally {
    manager.close();
    root.remove();
  }
});

test('the default runner cleans on a piscina thread', async () => {
  const root = tempDir('clean-pool');
  const clock = new FakeClock();
  const manager = LogManager.open({ logDirs: [root.path], clock: clock.now });
  try {
    const log = compactedLog(manager);
    fill(log, clock, ['a', 'b', 'c'], 4, CompressionType.Gzip);
    await clean(manager);
    assert.deepEqual(
      readAll(log).map((r) => r.value),
      ['a=v3', 'b=v3', 'c=v3'],
    );
  } finally {
    manager.close();
    root.remove();
  }
});
