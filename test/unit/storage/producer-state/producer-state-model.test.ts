/**
 * Random sequences of idempotent appends, retries, epoch bumps, rolls, truncations, clean
 * restarts and crashes: at every step the producer table must describe the log's contents — for
 * each producer, its newest batch in the log (epoch, sequence range, offsets) — and a retry of that
 * batch must be answered as a duplicate with its original offsets.
 */
import { offsetOf } from '@sluice/protocol/common/offsets.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import fc from 'fast-check';
import type { PartitionLog } from '../../../../src/storage/log/partition-log.js';
import { incrementSequence } from '../../../../src/storage/producer-state/sequence.js';
import { FakeClock, openLog, tempDir } from '../storage-fixtures.js';
import { idempotentBatch } from './producer-fixtures.js';

const root = tempDir('pstate-model');
process.on('exit', root.remove);
let n = 0;

interface ModelBatch {
  readonly producerId: bigint;
  readonly epoch: number;
  readonly firstSeq: number;
  readonly count: number;
  readonly baseOffset: number;
}

type Op =
  | { kind: 'append'; producer: number; count: number; bump: boolean }
  | { kind: 'retry'; producer: number }
  | { kind: 'roll' }
  | { kind: 'truncate'; fraction: number }
  | { kind: 'restart'; clean: boolean };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      producer: fc.integer({ min: 1, max: 3 }),
      count: fc.integer({ min: 1, max: 4 }),
      bump: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('retry' as const), producer: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('roll' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncate' as const), fraction: fc.double({ min: 0, max: 1, noNaN: true }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restart' as const), clean: fc.boolean() }) },
);

function newest(model: readonly ModelBatch[], producerId: bigint): ModelBatch | undefined {
  for (let i = model.length - 1; i >= 0; i--) if (model[i]!.producerId === producerId) return model[i];
  return undefined;
}

function checkTable(log: PartitionLog, model: readonly ModelBatch[]): void {
  const expected = new Map<bigint, ModelBatch>();
  for (const b of model) expected.set(b.producerId, b);
  const table = log.activeProducers();
  assert.deepEqual([...table.keys()].sort(), [...expected.keys()].sort());
  for (const [producerId, b] of expected) {
    const entry = table.get(producerId)!;
    const last = entry.batches[entry.batches.length - 1]!;
    assert.deepEqual(
      [entry.producerEpoch, last.firstSeq, last.lastSeq, last.firstOffset, last.lastOffset],
      [b.epoch, b.firstSeq, incrementSequence(b.firstSeq, b.count - 1), b.baseOffset, b.baseOffset + b.count - 1],
      `producer ${producerId}`,
    );
  }
}

test('the producer table always describes the newest batch of each producer in the log', () => {
  fc.assert(
    fc.property(fc.array(opArb, { minLength: 5, maxLength: 40 }), (ops) => {
      const dir = join(root.path, String(n++));
      const clock = new FakeClock();
      const overrides = { 'segment.bytes': 400 };
      let log = openLog(dir, clock, overrides);
      let model: ModelBatch[] = [];
      const epochs = new Map<bigint, number>();
      try {
        for (const op of ops) {
          if (op.kind === 'append') {
            const producerId = BigInt(op.producer);
            const last = newest(model, producerId);
            const bump = op.bump && last !== undefined;
            const epoch = (epochs.get(producerId) ?? 0) + (bump ? 1 : 0);
            epochs.set(producerId, epoch);
            const sequence = last === undefined || bump || last.epoch !== epoch ? 0 : incrementSequence(last.firstSeq, last.count);
            const r = log.append(idempotentBatch({ producerId, epoch, sequence, count: op.count, timestamp: clock.nowMs }), {
              leaderEpoch: 0,
            });
            assert.equal(r.duplicate, false);
            model.push({ producerId, epoch, firstSeq: sequence, count: op.count, baseOffset: r.baseOffset });
          } else if (op.kind === 'retry') {
            const last = newest(model, BigInt(op.producer));
            if (last === undefined) continue;
            const r = log.append(
              idempotentBatch({
                producerId: last.producerId,
                epoch: last.epoch,
                sequence: last.firstSeq,
                count: last.count,
                timestamp: clock.nowMs,
              }),
              { leaderEpoch: 0 },
            );
            assert.deepEqual([r.duplicate, r.baseOffset], [true, last.baseOffset]);
          } else if (op.kind === 'roll') {
            log.roll();
          } else if (op.kind === 'truncate') {
            log.truncateTo(offsetOf(Math.floor(op.fraction * log.logEndOffset)));
            model = model.filter((b) => b.baseOffset + b.count - 1 < log.logEndOffset);
          } else {
            const end = log.logEndOffset;
            if (op.clean) log.close();
            else log.abandon();
            log = openLog(dir, clock, overrides, op.clean ? { cleanShutdown: true, recoveryPoint: end } : {});
            assert.equal(log.logEndOffset, end);
          }
          checkTable(log, model);
        }
      } finally {
        log.close();
      }
    }),
    { numRuns: Number(process.env['PRODUCER_MODEL_RUNS'] ?? 25) },
  );
});
