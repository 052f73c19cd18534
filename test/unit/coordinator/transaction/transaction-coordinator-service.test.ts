/**
 * The transaction coordinators over the generic runtime: routing (NOT_COORDINATOR,
 * COORDINATOR_LOAD_IN_PROGRESS), producer ids allocated outside the shard, markers written through
 * the port with retries and Complete* appended only after, markers of Prepare* transactions resumed
 * on load and stopped on unload, AddOffsetsToTxn, DescribeTransactions and ListTransactions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '../../../../src/common/logger.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  TransactionCoordinatorService,
  type TxnMarkerWriter,
} from '../../../../src/coordinator/transaction/transaction-coordinator-service.js';
import { MemoryLog } from './harness.js';
import { waitFor, when } from '../../../helpers/wait-for.js';
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';

const PARTITIONS = 4;
const TP0: TopicPartition = { topic: 't', partition: 0 };
const TP1: TopicPartition = { topic: 't', partition: 1 };

type Marker = Parameters<TxnMarkerWriter['write']>[0];

/** Answers each write with `answer` (NONE by default) and keeps every call. */
class FakeMarkers implements TxnMarkerWriter {
  readonly calls: Marker[] = [];
  answer: (marker: Marker, tp: TopicPartition, call: number) => number = () => ErrorCode.NONE;
  /** While set, writes are answered only once it resolves. */
  gate: Promise<void> | null = null;

  async write(marker: Marker): Promise<Array<TopicPartition & { errorCode: number }>> {
    this.calls.push(marker);
    const call = this.calls.length;
    if (this.gate !== null) await this.gate;
    return marker.partitions.map((tp) => ({ ...tp, errorCode: this.answer(marker, tp, call) }));
  }
}

interface Setup {
  log: MemoryLog;
  markers: FakeMarkers;
  led: Set<number>;
  service: TransactionCoordinatorService;
}

function setup(log = new MemoryLog(), markers = new FakeMarkers()): Setup {
  const led = new Set([0, 1, 2, 3]);
  let nextId = 500n;
  const service = new TransactionCoordinatorService({
    log,
    numPartitions: PARTITIONS,
    config: { markerRetryBackoffMs: 1 },
    leads: (p) => led.has(p),
    coordinatorEpoch: (p) => 10 + p,
    producerIds: { nextProducerId: async () => nextId++ },
    markers,
    offsetsPartitionFor: (groupId) => groupId.length,
    logger: new Logger('test'),
  });
  return { log, markers, led, service };
}

async function eventually(what: string, cond: () => boolean): Promise<void> {
  await waitFor(what, 5000, () => when(cond()), 2);
}

const init = (s: TransactionCoordinatorService, transactionalId: string) =>
  s.initProducerId({ transactionalId, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 });
const add = (
  s: TransactionCoordinatorService,
  transactionalId: string,
  p: { producerId: bigint; producerEpoch: number },
  partitions: TopicPartition[],
  verifyOnly = false,
) => s.addPartitions({ transactionalId, ...p, partitions, verifyOnly, clientTransactionVersion: 0 });
const state = async (s: TransactionCoordinatorService, id: string) => (await s.describe([id]))[0]!.transactionState;

async function untilState(s: TransactionCoordinatorService, id: string, wanted: string): Promise<void> {
  const reached = await waitFor(`${id} to reach ${wanted}`, 5000, async () => when((await state(s, id)) === wanted), 2).catch(() => false);
  if (reached !== true) assert.fail(`${id} never reached ${wanted}; it is ${await state(s, id)}`);
}

test('a full TV1 transaction: producer id allocated, markers written with the coordinator epoch, then CompleteCommit', async () => {
  const { service, markers } = setup();
  const id = 'txn-a';
  await service.prepare(id);
  const p = await init(service, id);
  assert.deepEqual(p, { errorCode: ErrorCode.NONE, producerId: 500n, producerEpoch: 0 });
  assert.deepEqual(await add(service, id, p, [TP0, TP1]), [
    { ...TP0, errorCode: ErrorCode.NONE },
    { ...TP1, errorCode: ErrorCode.NONE },
  ]);
  assert.deepEqual(await service.endTxn({ transactionalId: id, ...p, commit: true, clientTransactionVersion: 0 }), {
    errorCode: ErrorCode.NONE,
    producerId: -1n,
    producerEpoch: -1,
  });
  await untilState(service, id, 'CompleteCommit');
  assert.deepEqual(markers.calls, [
    {
      producerId: 500n,
      producerEpoch: 0,
      coordinatorEpoch: 10 + service.partitionOf(id),
      commit: true,
      transactionVersion: 0,
      partitions: [TP0, TP1],
    },
  ]);
  service.close();
});

test('markers are written again after a retriable error, a deleted partition is dropped, and Complete* only follows once all are done', async () => {
  const { service, markers } = setup();
  markers.answer = (_m, tp, call) =>
    tp.partition === 1 ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : call < 3 ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.NONE;
  let open = (): void => undefined;
  const id = 'txn-b';
  await service.prepare(id);
  const p = await init(service, id);
  await add(service, id, p, [TP0, TP1]);
  await service.endTxn({ transactionalId: id, ...p, commit: false, clientTransactionVersion: 0 });
  await eventually('two writes', () => markers.calls.length === 2);
  markers.gate = new Promise((r) => (open = r));
  await eventually('the third write', () => markers.calls.length === 3);
  assert.deepEqual(markers.calls[1]!.partitions, [TP0], 'the dropped partition is not written again');
  assert.equal(await state(service, id), 'PrepareAbort', 'not complete while a marker is missing');
  open();
  await untilState(service, id, 'CompleteAbort');
  assert.equal(markers.calls.length, 3);
  service.close();
});

test('a fenced coordinator stops writing markers and leaves the transaction in Prepare*', async () => {
  const { service, markers } = setup();
  markers.answer = () => ErrorCode.TRANSACTION_COORDINATOR_FENCED;
  const id = 'txn-c';
  await service.prepare(id);
  const p = await init(service, id);
  await add(service, id, p, [TP0]);
  await service.endTxn({ transactionalId: id, ...p, commit: true, clientTransactionVersion: 0 });
  await eventually('a write', () => markers.calls.length === 1);
  // Fixed on purpose: a coordinator that kept retrying would write again within these 20 ms.
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(markers.calls.length, 1);
  assert.equal(await state(service, id), 'PrepareCommit');
  service.close();
});

test('a transaction found in Prepare* on load gets its markers written and completes; losing leadership stops the writing', async () => {
  const first = setup();
  first.markers.answer = () => ErrorCode.NOT_LEADER_OR_FOLLOWER;
  const id = 'txn-d';
  await first.service.prepare(id);
  const p = await init(first.service, id);
  await add(first.service, id, p, [TP0]);
  await first.service.endTxn({ transactionalId: id, ...p, commit: true, clientTransactionVersion: 0 });
  await eventually('retries', () => first.markers.calls.length >= 2);
  first.led.delete(first.service.partitionOf(id));
  first.service.onLeadership();
  const stoppedAt = first.markers.calls.length;
  // Fixed on purpose: writing that had not stopped would retry within these 20 ms.
  await new Promise((r) => setTimeout(r, 20));
  assert.ok(first.markers.calls.length <= stoppedAt + 1, 'at most the write in flight');
  first.service.close();

  const second = setup(first.log);
  second.service.onLeadership();
  await eventually('markers resumed', () => second.markers.calls.length === 1);
  assert.deepEqual(second.markers.calls[0]!.partitions, [TP0]);
  await untilState(second.service, id, 'CompleteCommit');
  second.service.close();
});

test('when appending Complete* fails, the coordinator reloads and writes the markers again before completing', async () => {
  const { service, markers, log } = setup();
  let open = (): void => undefined;
  markers.gate = new Promise((r) => (open = r));
  const id = 'txn-i';
  await service.prepare(id);
  const p = await init(service, id);
  await add(service, id, p, [TP0]);
  await service.endTxn({ transactionalId: id, ...p, commit: true, clientTransactionVersion: 0 });
  await eventually('the first write', () => markers.calls.length === 1);
  log.failAppends = 1;
  markers.gate = null;
  open();
  await eventually('the markers written again', () => markers.calls.length === 2);
  await untilState(service, id, 'CompleteCommit');
  service.close();
});

test('routing: NOT_COORDINATOR for an id this broker does not lead, COORDINATOR_LOAD_IN_PROGRESS while loading, INVALID_REQUEST for an empty id', async () => {
  const { service, led, log } = setup();
  const id = 'txn-e';
  await service.prepare(id);
  led.delete(service.partitionOf(id));
  assert.equal((await init(service, id)).errorCode, ErrorCode.NOT_COORDINATOR);
  assert.deepEqual(await add(service, id, { producerId: 1n, producerEpoch: 0 }, [TP0]), [{ ...TP0, errorCode: ErrorCode.NOT_COORDINATOR }]);
  assert.equal((await service.describe([id]))[0]!.errorCode, ErrorCode.NOT_COORDINATOR);
  assert.equal((await init(service, '')).errorCode, ErrorCode.INVALID_REQUEST);
  service.close();

  let release = (): void => undefined;
  log.holdReplay = new Promise((r) => (release = r));
  const loading = setup(log);
  const other = 'txn-f';
  const load = loading.service.prepare(other);
  await new Promise((r) => setImmediate(r));
  assert.equal((await init(loading.service, other)).errorCode, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
  assert.equal(
    (await loading.service.list({ stateFilters: [], producerIdFilters: [], durationFilter: -1n, transactionalIdPattern: null })).errorCode,
    ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  );
  release();
  await load;
  assert.equal((await init(loading.service, other)).errorCode, ErrorCode.NONE);
  loading.service.close();
});

test('TV2 through the service: EndTxn answers the bumped epoch, the markers carry it with transaction version 2', async () => {
  const { service, markers } = setup();
  const id = 'txn-h';
  await service.prepare(id);
  const p = await init(service, id);
  await service.addPartitions({ transactionalId: id, ...p, partitions: [TP0], verifyOnly: false, clientTransactionVersion: 2 });
  assert.deepEqual(await service.endTxn({ transactionalId: id, ...p, commit: true, clientTransactionVersion: 2 }), {
    errorCode: ErrorCode.NONE,
    producerId: p.producerId,
    producerEpoch: 1,
  });
  await untilState(service, id, 'CompleteCommit');
  assert.deepEqual([markers.calls[0]!.producerEpoch, markers.calls[0]!.transactionVersion], [1, 2]);
  service.close();
});

test("AddOffsetsToTxn adds the group's __consumer_offsets partition; verifyOnly reads without writing", async () => {
  const { service, log } = setup();
  const id = 'txn-g';
  await service.prepare(id);
  const p = await init(service, id);
  assert.equal(await service.addOffsets({ transactionalId: id, ...p, groupId: 'group' }), ErrorCode.NONE);
  const described = (await service.describe([id]))[0]!;
  assert.deepEqual(described.topics, [{ topic: '__consumer_offsets', partitions: [5] }]);
  const records = log.partitions.get(service.partitionOf(id))!.length;
  assert.deepEqual(await add(service, id, p, [TP0], true), [{ ...TP0, errorCode: ErrorCode.TRANSACTION_ABORTABLE }]);
  assert.equal(log.partitions.get(service.partitionOf(id))!.length, records);
  service.close();
});

test('ListTransactions covers every led partition; a bad pattern is INVALID_REGULAR_EXPRESSION', async () => {
  const { service } = setup();
  const ids = ['l-1', 'l-2', 'l-3', 'l-4', 'l-5'];
  for (const id of ids) {
    await service.prepare(id);
    await init(service, id);
  }
  assert.ok(new Set(ids.map((id) => service.partitionOf(id))).size > 1, 'spread over partitions');
  const listed = await service.list({
    stateFilters: ['Empty', 'Nope'],
    producerIdFilters: [],
    durationFilter: -1n,
    transactionalIdPattern: null,
  });
  assert.equal(listed.errorCode, ErrorCode.NONE);
  assert.deepEqual(listed.unknownStateFilters, ['Nope']);
  assert.deepEqual(listed.transactionStates?.map((t) => t.transactionalId).sort(), ids);
  const bad = await service.list({ stateFilters: [], producerIdFilters: [], durationFilter: -1n, transactionalIdPattern: '(' });
  assert.equal(bad.errorCode, ErrorCode.INVALID_REGULAR_EXPRESSION);
  service.close();
});
