/**
 * The coordinator runtime's transactions (Kafka's scheduleTransactionalWriteOperation and
 * scheduleTransactionCompletion) over an in-memory internal topic: a transactional operation's
 * records are a batch of their own carrying its producer, never shared; an end marker is applied in
 * order, appended after what came before it, and answered once durable; a refused marker fails its
 * call and the shard reloads from a log without it; replay hands over producers and markers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '../../../../src/common/logger.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { CoordinatorRuntime, type CoordinatorShard, type ShardResult } from '../../../../src/coordinator/runtime/coordinator-runtime.js';
import type { TxnMarker } from '../../../../src/coordinator/runtime/transaction-marker.js';
import { MemoryPartitions, memoryOffsetsLog } from './memory-partitions.js';
import { settledYet } from '../../../helpers/promise-state.js';

/** Records what it applies: `<key> <producer id or ->`, `marker <producer id> <epoch> <commit|abort>`. */
class RecordingShard implements CoordinatorShard<never> {
  readonly applied: string[] = [];
  replay(key: Buffer, _value: Buffer | null, producerId: bigint | null): void {
    this.applied.push(`${key.toString()} ${producerId ?? '-'}`);
  }
  replayEndTransactionMarker(producerId: bigint, producerEpoch: number, commit: boolean): void {
    this.applied.push(`marker ${producerId} ${producerEpoch} ${commit ? 'commit' : 'abort'}`);
  }
  loaded(): void {}
  tick(): { records: []; released: [] } {
    return { records: [], released: [] };
  }
  nextDeadline(): null {
    return null;
  }
  unload(): never[] {
    return [];
  }
}

function runtimeOver(partitions: MemoryPartitions): { runtime: CoordinatorRuntime<RecordingShard, never>; shards: RecordingShard[] } {
  const shards: RecordingShard[] = [];
  const runtime = new CoordinatorRuntime<RecordingShard, never>({
    topic: '__consumer_offsets',
    log: memoryOffsetsLog(partitions),
    newShard: () => {
      const shard = new RecordingShard();
      shards.push(shard);
      return shard;
    },
    deliver: () => assert.fail('nothing is parked'),
    logger: new Logger('test'),
  });
  return { runtime, shards };
}

/** An operation writing records keyed `keys`, applied to the shard as a live write is. */
const write =
  (...keys: string[]) =>
  (shard: RecordingShard): ShardResult<string, never> => {
    for (const k of keys) shard.applied.push(`${k} live`);
    return { records: keys.map((k) => ({ key: Buffer.from(k), value: Buffer.from('v') })), response: keys.join(','), released: [] };
  };

const P7 = { producerId: 7n, producerEpoch: 2 };
const MARKER: TxnMarker = { producerId: 7n, producerEpoch: 2, coordinatorEpoch: 5, commit: true, transactionVersion: 0 };
const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

test('a transactional operation is a batch of its own with its producer id and epoch; plain records around it are grouped, never mixed in', async () => {
  const partitions = new MemoryPartitions();
  const { runtime } = runtimeOver(partitions);
  await runtime.load(0);
  partitions.hold();
  const ops = [
    runtime.run(0, write('a1', 'a2')),
    runtime.runTransactional(0, P7, write('t1', 't2')),
    runtime.run(0, write('b')),
    runtime.runTransactional(0, P7, write('t3')),
    runtime.runTransactional(0, { producerId: 9n, producerEpoch: 0 }, write('u')),
    runtime.run(0, write('c')),
    runtime.run(0, write('d')),
  ];
  await turn();
  partitions.release();
  assert.deepEqual(await Promise.all(ops), ['a1,a2', 't1,t2', 'b', 't3', 'u', 'c', 'd']);
  assert.deepEqual(
    partitions.batches(0).map((b) => [b.keys, b.transactional, b.producerId, b.producerEpoch]),
    [
      [['a1', 'a2'], false, -1n, -1],
      [['t1', 't2'], true, 7n, 2],
      [['b'], false, -1n, -1],
      // Each transactional operation is its own batch, as in Kafka, even for the same producer.
      [['t3'], true, 7n, 2],
      [['u'], true, 9n, 0],
      [['c', 'd'], false, -1n, -1],
    ],
  );

  // Replayed, each record comes with the producer of its transactional batch.
  const reloaded = runtimeOver(partitions);
  await reloaded.runtime.load(0);
  assert.deepEqual(reloaded.shards[0]!.applied, ['a1 -', 'a2 -', 't1 7', 't2 7', 'b -', 't3 7', 'u 9', 'c -', 'd -']);
  runtime.close();
  reloaded.runtime.close();
});

test('completeTransaction applies the marker in order, appends it as a control batch after the writes before it, and answers (as do reads after it) once it is durable', async () => {
  const partitions = new MemoryPartitions();
  const { runtime, shards } = runtimeOver(partitions);
  await runtime.load(0);
  partitions.hold();
  const txn = runtime.runTransactional(0, P7, write('t'));
  const completed = runtime.completeTransaction(0, MARKER);
  const after = runtime.read(0, (shard) => [...shard.applied]);
  await turn();
  assert.deepEqual(shards[0]!.applied, ['t live', 'marker 7 2 commit'], 'applied in arrival order');
  assert.equal(await settledYet(completed), false, 'not durable yet');
  assert.equal(await settledYet(after), false, 'a read after the marker waits for it to be durable');
  assert.deepEqual(partitions.markers, [], 'the marker waits for the transaction’s batch');
  partitions.release();
  await txn;
  await completed;
  assert.deepEqual(await after, ['t live', 'marker 7 2 commit']);
  assert.deepEqual(partitions.markers, [MARKER]);
  assert.deepEqual(
    partitions.batches(0).map((b) => [b.keys, b.control, b.transactional, b.producerId, b.producerEpoch]),
    [
      [['t'], false, true, 7n, 2],
      [[], true, true, 7n, 2],
    ],
  );

  const reloaded = runtimeOver(partitions);
  await reloaded.runtime.load(0);
  assert.deepEqual(reloaded.shards[0]!.applied, ['t 7', 'marker 7 2 commit'], 'a replay hands the marker over in log order');
  runtime.close();
  reloaded.runtime.close();
});

test('a marker the log refuses fails the call with the log’s error; the shard reloads from the log, which does not hold it', async () => {
  const partitions = new MemoryPartitions();
  const { runtime, shards } = runtimeOver(partitions);
  await runtime.runTransactional(0, P7, write('t'));
  partitions.hold();
  partitions.refuseNext(ErrorCode.INVALID_PRODUCER_EPOCH);
  const completed = runtime.completeTransaction(0, MARKER);
  const after = runtime.read(0, () => 'read');
  await assert.rejects(completed, (err: unknown) => (err as { code?: number }).code === ErrorCode.INVALID_PRODUCER_EPOCH);
  await assert.rejects(after, (err: unknown) => (err as { code?: number }).code === ErrorCode.COORDINATOR_NOT_AVAILABLE);
  partitions.release();
  assert.equal(await runtime.read(0, () => 'reloaded'), 'reloaded');
  assert.equal(shards.length, 2, 'a new shard');
  assert.deepEqual(shards[1]!.applied, ['t 7'], 'the transaction is still open');
  runtime.close();
});

test('a write that fails before the marker loses the marker too: it is never appended, and its call fails COORDINATOR_NOT_AVAILABLE', async () => {
  const partitions = new MemoryPartitions();
  const { runtime } = runtimeOver(partitions);
  await runtime.load(0);
  partitions.hold();
  partitions.refuseNext(ErrorCode.NOT_ENOUGH_REPLICAS);
  const txn = runtime.runTransactional(0, P7, write('t'));
  const completed = runtime.completeTransaction(0, MARKER);
  await assert.rejects(txn, (err: unknown) => (err as { code?: number }).code === ErrorCode.COORDINATOR_NOT_AVAILABLE);
  await assert.rejects(completed, (err: unknown) => (err as { code?: number }).code === ErrorCode.COORDINATOR_NOT_AVAILABLE);
  partitions.release();
  assert.deepEqual(partitions.markers, []);
  assert.deepEqual(partitions.batches(0), []);
  runtime.close();
});
