/**
 * Model-based property test: random keyed appends (values and tombstones, plain and compressed),
 * rolls, clock steps, cleanings and reopenings against a model holding every appended record.
 * After each step, what the log serves must be a compaction of the model: every record read is
 * the one appended at that offset, and for each key the newest appended record is still present
 * (or, for a tombstone, possibly removed once delete.retention.ms has passed).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CompressionType } from '@sluice/protocol/records/index.js';
import type { LogManager } from '../../../../src/storage/index.js';
import { FakeClock, tempDir } from '../storage-fixtures.js';
import { clean, compactedLog, keyedBatch, openManager, readAll, TP, type KV } from './cleaner-fixtures.js';

const RETENTION_MS = 10_000;

type Command =
  | { kind: 'append'; records: KV[]; codec: CompressionType }
  | { kind: 'roll' }
  | { kind: 'tick'; ms: number }
  | { kind: 'clean' }
  | { kind: 'reopen' };

const key = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      records: fc.array(fc.record({ key, value: fc.option(fc.string({ maxLength: 6 }), { freq: 4 }) }), { minLength: 1, maxLength: 5 }),
      codec: fc.constantFrom(CompressionType.None, CompressionType.Gzip),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'roll' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 1, max: 2 * RETENTION_MS }) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'clean' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reopen' as const }) },
);

test('compaction never serves a record that was not appended at its offset, nor loses the newest record of a key', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 40 }), async (commands) => {
      const root = tempDir('clean-model');
      const clock = new FakeClock();
      let manager: LogManager = openManager(root.path, clock);
      const appended = new Map<number, KV>();
      const newest = new Map<string, number>();
      try {
        for (const c of commands) {
          const log = manager.getLog(TP) ?? compactedLog(manager, { 'delete.retention.ms': RETENTION_MS, 'segment.bytes': 400 });
          if (c.kind === 'append') {
            const base = log.logEndOffset;
            log.append(keyedBatch(c.records, clock.nowMs, c.codec), { leaderEpoch: 0 });
            log.highWatermark = log.logEndOffset;
            c.records.forEach((r, i) => {
              appended.set(base + i, { key: r.key, value: r.value });
              newest.set(r.key!, base + i);
            });
          } else if (c.kind === 'roll') log.roll();
          else if (c.kind === 'tick') clock.advance(c.ms);
          else if (c.kind === 'clean') await clean(manager);
          else {
            manager.close();
            manager = openManager(root.path, clock);
          }
          const served = readAll(manager.getLog(TP) ?? log);
          for (const r of served) assert.deepEqual({ key: r.key, value: r.value }, appended.get(r.offset), `offset ${r.offset}`);
          const present = new Set(served.map((r) => r.offset));
          for (const [k, offset] of newest) {
            if (appended.get(offset)!.value === null) continue; // a tombstone may be gone after its horizon
            assert.ok(present.has(offset), `newest record of ${k} (offset ${offset}) is served`);
          }
        }
      } finally {
        manager.close();
        root.remove();
      }
    }),
    { numRuns: Number(process.env['CLEANER_MODEL_RUNS'] ?? 40) },
  );
});
