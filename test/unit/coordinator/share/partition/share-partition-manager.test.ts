import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { defaultSharePartitionConfig } from '../../../../../src/coordinator/share/partition/share-partition-config.js';
import { SharePartitionManager } from '../../../../../src/coordinator/share/partition/share-partition-manager.js';
import { TestSharePersister } from '../../../../helpers/share-persister.js';
import { ManualTimers } from '../../../../helpers/manual-lock-timers.js';

const T = 'AAAAAAAAAAAAAAAAAAAAAQ';
const KEY = { groupId: 'g', topicId: T, partition: 0 };
const batch = (firstOffset: bigint, lastOffset: bigint) => ({
  firstOffset,
  lastOffset,
  producerId: -1n,
  isTransactional: false,
  isControl: false,
});
const take = { maxRecords: 10, strictRecordLimit: false, abortedTransactions: null };

async function manager(): Promise<{ m: SharePartitionManager; persister: TestSharePersister; timers: ManualTimers }> {
  const persister = new TestSharePersister();
  await persister.initialize(KEY, 0, 0n);
  const timers = new ManualTimers();
  return { m: new SharePartitionManager(persister, defaultSharePartitionConfig, timers), persister, timers };
}

describe('SharePartitionManager', () => {
  test('opens a share partition once per leader epoch; a new epoch starts again from the persisted state', async () => {
    const { m, timers } = await manager();
    const first = await m.open(KEY, 3, async () => 0n);
    assert.equal(await m.open(KEY, 3, async () => 0n), first);
    first.acquire('m1', [batch(0n, 1n)], take);
    const moved = await m.open(KEY, 4, async () => 0n);
    assert.notEqual(moved, first);
    assert.equal(timers.delays.length, 0, "the old leader epoch's locks were stopped");
    assert.deepEqual(moved.acquire('m2', [batch(0n, 1n)], take), [{ firstOffset: 0n, lastOffset: 1n, deliveryCount: 1 }]);
  });

  test('a share partition that fails to open is tried again by the next fetch', async () => {
    const { m, persister } = await manager();
    const other = { ...KEY, groupId: 'other' };
    await assert.rejects(
      m.open(other, 0, async () => 0n),
      (err: unknown) => err instanceof KafkaError && err.code === ErrorCode.INVALID_REQUEST,
    );
    assert.equal(await m.find(other), undefined);
    await persister.initialize(other, 0, 5n);
    assert.equal((await m.open(other, 0, async () => 0n)).start, 5n);
  });

  test('losing leadership drops the share partitions of that partition only', async () => {
    const { m, persister } = await manager();
    const p1 = { ...KEY, partition: 1 };
    await persister.initialize(p1, 0, 0n);
    await m.open(KEY, 0, async () => 0n);
    await m.open(p1, 0, async () => 0n);
    await m.leadershipChanged(T, 0, null);
    assert.equal(await m.find(KEY), undefined);
    assert.notEqual(await m.find(p1), undefined);
    await m.leadershipChanged(T, 1, 0);
    assert.notEqual(await m.find(p1), undefined, 'still the leader at the same epoch');
  });

  test('releasing a member releases its records in every share partition of its group', async () => {
    const { m, persister } = await manager();
    const p1 = { ...KEY, partition: 1 };
    await persister.initialize(p1, 0, 0n);
    const a = await m.open(KEY, 0, async () => 0n);
    const b = await m.open(p1, 0, async () => 0n);
    a.acquire('m1', [batch(0n, 0n)], take);
    b.acquire('m1', [batch(0n, 0n)], take);
    await m.releaseMember('g', 'm1');
    assert.deepEqual([a.stateOf(0n)?.state, b.stateOf(0n)?.state], ['AVAILABLE', 'AVAILABLE']);
  });
});
