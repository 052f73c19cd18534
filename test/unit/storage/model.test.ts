import { test } from 'node:test';
import { offsetOf } from '@sluice/protocol/common/offsets.js';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { PartitionLog } from '../../../src/storage/index.js';
import { FakeClock, openLog, producedBatch, tempDir } from './storage-fixtures.js';

const root = tempDir('model');
process.on('exit', root.remove);

/** What the log should hold: the batches as written, in offset order. */
interface ModelBatch {
  baseOffset: number;
  lastOffset: number;
  bytes: Buffer;
  timestamp: number;
}

/** Deterministic PRNG (mulberry32) so a failing seed can be replayed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CONFIG = { 'segment.bytes': 4096, 'index.interval.bytes': 300, 'retention.ms': 60_000, 'file.delete.delay.ms': 0 };

function runSequence(seed: number, steps: number): void {
  const random = rng(seed);
  const int = (n: number): number => Math.floor(random() * n);
  const dir = join(root.path, `seed-${seed}`);
  const clock = new FakeClock();
  let log: PartitionLog = openLog(dir, clock, CONFIG);
  let model: ModelBatch[] = [];
  let leo = 0;
  const trace: string[] = [];
  const check = (): void => {
    assert.equal(log.logEndOffset, leo, `log end offset (${trace.join(' ')})`);
    model = model.filter((b) => b.lastOffset >= log.logStartOffset);
    if (leo === log.logStartOffset) return;
    const probe = log.logStartOffset + int(leo - log.logStartOffset);
    const batch = model.find((b) => b.lastOffset >= probe)!;
    const read = log.readBuffer(offsetOf(probe), 1);
    assert.ok(read.equals(batch.bytes), `read ${probe} (${trace.join(' ')})`);
  };
  for (let step = 0; step < steps; step++) {
    const op = int(100);
    if (op < 55) {
      const count = 1 + int(4);
      const bytes = producedBatch(count, 20 + int(600), clock.nowMs, step);
      const r = log.append(bytes, { leaderEpoch: 0 });
      assert.equal(r.baseOffset, leo);
      model.push({ baseOffset: leo, lastOffset: leo + count - 1, bytes: Buffer.from(bytes), timestamp: clock.nowMs });
      leo += count;
      log.highWatermark = offsetOf(leo);
      clock.advance(int(3000));
      trace.push(`a${count}`);
    } else if (op < 62) {
      log.roll();
      trace.push('roll');
    } else if (op < 68) {
      clock.advance(int(40_000));
      const start = log.logStartOffset;
      log.deleteOldSegments();
      assert.ok(log.logStartOffset >= start);
      assert.ok(log.logStartOffset <= log.highWatermark);
      // Retention drops whole segments only: the new start is where a batch starts.
      assert.ok(log.logStartOffset === leo || model.some((b) => b.baseOffset === log.logStartOffset) || log.logStartOffset === start);
      trace.push(`ret->${log.logStartOffset}`);
    } else if (op < 73 && leo > log.logStartOffset) {
      const to = log.logStartOffset + int(leo - log.logStartOffset + 1);
      assert.equal(log.deleteRecordsTo(offsetOf(to)), Math.max(to, log.logStartOffset));
      trace.push(`del${to}`);
    } else if (op < 78 && leo > log.logStartOffset) {
      const to = log.logStartOffset + int(leo - log.logStartOffset);
      log.truncateTo(offsetOf(to));
      model = model.filter((b) => b.lastOffset < to);
      leo = model.at(-1)?.lastOffset !== undefined ? model.at(-1)!.lastOffset + 1 : Math.min(leo, to);
      if (model.length === 0) leo = log.logEndOffset;
      trace.push(`trunc${to}->${log.logEndOffset}`);
    } else if (op < 84) {
      const clean = random() < 0.5;
      const recoveryPoint = log.recoveryPoint;
      const start = log.logStartOffset;
      if (clean) log.close();
      else log.abandon();
      log = openLog(dir, clock, CONFIG, { cleanShutdown: clean, recoveryPoint, logStartOffset: start });
      trace.push(clean ? 'close' : 'crash');
    } else if (op < 92) {
      const target = clock.nowMs - int(60_000);
      const expected = model.find((b) => b.timestamp >= target && b.lastOffset >= log.logStartOffset);
      const found = log.offsetForTimestamp(target);
      if (expected === undefined) assert.equal(found, null);
      else
        assert.deepEqual(
          found,
          { timestamp: expected.timestamp, offset: Math.max(expected.baseOffset, log.logStartOffset) },
          `time ${target} (${trace.join(' ')})`,
        );
      trace.push('time');
    } else {
      log.maintain();
      trace.push('maint');
    }
    check();
  }
  log.close();
}

test('random append/read/roll/retention/DeleteRecords/truncate/close/crash sequences match an in-memory model', () => {
  const seeds = process.env['STORAGE_MODEL_SEEDS'] === undefined ? 15 : Number(process.env['STORAGE_MODEL_SEEDS']);
  for (let seed = 1; seed <= seeds; seed++) runSequence(seed, 150);
});
