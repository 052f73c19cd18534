/**
 * The share coordinator's periodic jobs over a `__share_group_state` kept by the real
 * `InternalTopicLog` on in-memory partitions: pruning below the oldest still-needed snapshot
 * (DeleteRecords on the partition), cold-partition snapshots, and tombstones for deleted topics —
 * each checked by replaying what is left of the log into a fresh coordinator.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Logger } from '../../../../src/common/logger.js';
import { InternalTopicLog } from '../../../../src/coordinator/runtime/coordinator-log.js';
import { RedundantOffsets } from '../../../../src/coordinator/share/redundant-offsets.js';
import {
  shareSnapshotRecord,
  shareStateTombstone,
  shareUpdateRecord,
  type ShareSnapshot,
} from '../../../../src/coordinator/share/records.js';
import { ShareCoordinatorService } from '../../../../src/coordinator/share/share-coordinator-service.js';
import type { SharePartitionKey } from '../../../../src/coordinator/share/share-state-persister.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { SHARE_GROUP_STATE_TOPIC } from '@sluice/protocol/internal-topics.js';
import { MemoryPartitions } from '../runtime/memory-partitions.js';
import { waitFor, when } from '../../../helpers/wait-for.js';

const T1 = 'AAAAAAAAAAAAAAAAAAAAEg';
const T2 = 'BBBBBBBBBBBBBBBBBBBBBA';
const A: SharePartitionKey = { groupId: 'g', topicId: T1, partition: 0 };
const B: SharePartitionKey = { groupId: 'h', topicId: T2, partition: 0 };
const COLD_MS = 60_000;

/** A one-partition share coordinator on `memory`, with a clock the test moves and the topics it names. */
function coordinator(
  memory: MemoryPartitions,
  env: { now: number; topics: Set<string> },
  perSnapshot = 2,
  pruneIntervalMs?: number,
): ShareCoordinatorService {
  return new ShareCoordinatorService({
    log: new InternalTopicLog({ name: SHARE_GROUP_STATE_TOPIC, numPartitions: 1, configs: new Map() }, memory),
    numPartitions: 1,
    config: { snapshotUpdateRecordsPerSnapshot: perSnapshot, coldPartitionSnapshotIntervalMs: COLD_MS },
    leads: () => true,
    partitionCount: (id) => (env.topics.has(id) ? 1 : undefined),
    logger: new Logger('test'),
    clock: () => env.now,
    deleteRecords: async (partition, offset) => {
      memory.deleteRecords(partition, offset);
      return ErrorCode.NONE;
    },
    topicIds: () => env.topics,
    ...(pruneIntervalMs === undefined ? {} : { pruneIntervalMs }),
  });
}

const write = (c: ShareCoordinatorService, key: SharePartitionKey, first: bigint) =>
  c.write(key, {
    stateEpoch: 0,
    leaderEpoch: 0,
    startOffset: -1n,
    deliveryCompleteCount: -1,
    stateBatches: [{ firstOffset: first, lastOffset: first, deliveryState: 2, deliveryCount: 1 }],
  });

/** What a share-partition's state reads as, through a coordinator. */
async function stateOf(c: ShareCoordinatorService, key: SharePartitionKey) {
  const s = await c.readSummary(key, 0);
  const r = await c.read(key, 0);
  return { summary: s, read: r };
}

function logKeys(memory: MemoryPartitions): number[] {
  return memory.batches(0).flatMap((b) => b.keys.map((_, i) => Number(b.baseOffset) + i));
}

describe('RedundantOffsets (Kafka 4.4 ShareCoordinatorOffsetsManager)', () => {
  const snapshot: ShareSnapshot = {
    snapshotEpoch: 0,
    stateEpoch: 0,
    leaderEpoch: 0,
    startOffset: 0n,
    deliveryCompleteCount: 0,
    createTimestamp: 0n,
    writeTimestamp: 0n,
    stateBatches: [],
  };
  const update = { snapshotEpoch: 0, leaderEpoch: 0, startOffset: 0n, deliveryCompleteCount: 0, stateBatches: [] };

  it('is the oldest latest-snapshot of the live share-partitions; updates hold nothing back; nothing below 1', () => {
    const r = new RedundantOffsets();
    r.appended([shareSnapshotRecord(A, snapshot), shareSnapshotRecord(B, snapshot)], 0n);
    assert.equal(r.redundantBelow(), null, 'offset 0 is the start of the log: nothing to delete');
    r.appended([shareUpdateRecord(A, update), shareSnapshotRecord(A, snapshot)], 2n);
    assert.equal(r.redundantBelow(), 1n, 'B still needs its snapshot at 1');
    r.appended([shareSnapshotRecord(B, snapshot)], 4n);
    assert.equal(r.redundantBelow(), 3n);
  });

  it('counts a tombstone where it is, then forgets its share-partition', () => {
    const r = new RedundantOffsets();
    r.appended([shareSnapshotRecord(A, snapshot), shareSnapshotRecord(B, snapshot), shareSnapshotRecord(A, snapshot)], 0n);
    r.record(shareStateTombstone(B).key, null, 3n);
    assert.equal(r.redundantBelow(), 2n);
    r.record(shareSnapshotRecord(A, snapshot).key, shareSnapshotRecord(A, snapshot).value, 4n);
    assert.equal(r.redundantBelow(), 4n, 'B, deleted, holds nothing back');
  });
});

describe('ShareCoordinatorService periodic jobs', () => {
  it('prunes the log below the oldest still-needed snapshot; a fresh coordinator replays the same state', async () => {
    const memory = new MemoryPartitions();
    const env = { now: 1000, topics: new Set([T1, T2]) };
    const c = coordinator(memory, env);
    assert.equal((await c.initialize(A, 0, 0n)).errorCode, ErrorCode.NONE); // snapshot @0
    assert.equal((await c.initialize(B, 0, 0n)).errorCode, ErrorCode.NONE); // snapshot @1
    for (let i = 0n; i < 3n; i++) assert.equal((await write(c, A, i)).errorCode, ErrorCode.NONE); // updates @2 @3, snapshot @4
    await c.pruneRecords();
    assert.deepEqual(logKeys(memory), [1, 2, 3, 4], 'A no longer needs offset 0; B still needs 1');
    const before = { a: await stateOf(c, A), b: await stateOf(c, B) };
    c.close();

    const fresh = coordinator(memory, env);
    assert.deepEqual({ a: await stateOf(fresh, A), b: await stateOf(fresh, B) }, before);
    fresh.close();
  });

  it('snapshots share-partitions whose last snapshot is cold, which lets the prune move on', async () => {
    const memory = new MemoryPartitions();
    const env = { now: 1000, topics: new Set([T1, T2]) };
    const c = coordinator(memory, env, 500);
    await c.initialize(A, 0, 0n); // snapshot @0
    await c.initialize(B, 0, 0n); // snapshot @1
    await write(c, A, 0n); // update @2
    await c.snapshotColdPartitions();
    assert.equal(logKeys(memory).length, 3, 'nothing is cold yet');
    env.now += COLD_MS;
    await c.snapshotColdPartitions(); // A @3, B @4
    const types = memory.batches(0).flatMap((b) => b.keys.map((k) => Buffer.from(k, 'latin1').readInt16BE(0)));
    assert.deepEqual(types, [0, 0, 1, 0, 0]);
    await c.pruneRecords();
    assert.deepEqual(logKeys(memory), [3, 4]);
    const before = await stateOf(c, A);
    assert.deepEqual(before.read.stateBatches, [{ firstOffset: 0n, lastOffset: 0n, deliveryState: 2, deliveryCount: 1 }]);
    // Every last snapshot is a cold rewrite now: the next round writes nothing.
    env.now += COLD_MS;
    await c.snapshotColdPartitions();
    assert.deepEqual(logKeys(memory), [3, 4]);
    c.close();
    const fresh = coordinator(memory, env, 500);
    assert.deepEqual(await stateOf(fresh, A), before);
    fresh.close();
  });

  it('tombstones the share-partitions of a topic that left the metadata, and only those', async () => {
    const memory = new MemoryPartitions();
    const env = { now: 1000, topics: new Set([T1, T2]) };
    const c = coordinator(memory, env);
    await c.initialize(A, 0, 5n);
    await c.initialize(B, 0, 7n);
    await c.forgetDeletedTopics();
    assert.equal(logKeys(memory).length, 2, 'no topic was deleted');
    env.topics.delete(T1);
    await c.forgetDeletedTopics();
    const last = memory.batches(0).at(-1)!;
    assert.equal(last.keys.length, 1);
    env.topics.add(T1); // the same id back (only to read A): its state is gone
    assert.equal((await c.read(A, 0)).errorCode, ErrorCode.INVALID_REQUEST);
    assert.equal((await c.readSummary(B, 0)).startOffset, 7n);
    c.close();
    const fresh = coordinator(memory, env);
    assert.equal((await fresh.read(A, 0)).errorCode, ErrorCode.INVALID_REQUEST);
    assert.equal((await fresh.readSummary(B, 0)).startOffset, 7n);
    fresh.close();
  });

  it('runs the prune by itself every prune interval once started, and stops on close', async () => {
    const memory = new MemoryPartitions();
    const env = { now: 1000, topics: new Set([T1, T2]) };
    const c = coordinator(memory, env, 0, 5);
    await c.initialize(A, 0, 0n); // snapshot @0
    await write(c, A, 0n); // every write is a snapshot: @1
    c.startPeriodicJobs();
    await waitFor('the periodic job to clean the log up to the last snapshot', 4000, () => when(logKeys(memory)[0] === 1), 10);
    assert.deepEqual(logKeys(memory), [1]);
    c.close();
  });
});
