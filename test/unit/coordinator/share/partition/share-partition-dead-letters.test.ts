// KIP-1191 in the share partition: which records go to the dead-letter queue, in which state they
// wait (ARCHIVING, persisted as state 3), when they are archived, and what a new leader does with
// ARCHIVING records it finds in the persisted state.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ShareDeliveryState, type SharePartitionKey } from '../../../../../src/coordinator/share/share-state-persister.js';
import {
  DEFAULT_SHARE_PARTITION_CONFIG,
  type SharePartitionConfig,
} from '../../../../../src/coordinator/share/partition/share-partition-config.js';
import { AcknowledgeType, SharePartition, type LogBatch } from '../../../../../src/coordinator/share/partition/share-partition.js';
import type { DeadLetterQueue, DeadLetterRange } from '../../../../../src/coordinator/share/partition/dead-letter.js';
import { restoredCause } from '../../../../../src/coordinator/share/partition/dead-letter.js';
import { TestSharePersister } from '../../../../helpers/share-persister.js';
import { ManualTimers } from '../../../../helpers/manual-lock-timers.js';
import { waitFor, when } from '../../../../helpers/wait-for.js';
import { ErrorCode } from '@sluice/protocol/errors.js';

const KEY: SharePartitionKey = { groupId: 'g', topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partition: 0 };
const { ACCEPT, RELEASE, REJECT, GAP } = AcknowledgeType;
const take = { maxRecords: 500, strictRecordLimit: false, abortedTransactions: null };
const WITH_DLQ: Partial<SharePartitionConfig> = { deadLetterQueue: true, deliveryCountLimit: 2 };

function data(firstOffset: bigint, lastOffset: bigint): LogBatch {
  return { firstOffset, lastOffset, producerId: -1n, isTransactional: false, isControl: false };
}

/** A dead-letter queue whose writes the test completes, one by one. */
class HeldDeadLetters implements DeadLetterQueue {
  readonly writes: Array<{ range: DeadLetterRange; done: () => void }> = [];

  write(_key: SharePartitionKey, range: DeadLetterRange): Promise<void> {
    return new Promise((resolve) => this.writes.push({ range, done: resolve }));
  }

  ranges(): DeadLetterRange[] {
    return this.writes.map((w) => w.range);
  }
}

async function open(config: Partial<SharePartitionConfig>, persister = new TestSharePersister(), leaderEpoch = 0) {
  if (leaderEpoch === 0) await persister.initialize(KEY, 0, 0n);
  const timers = new ManualTimers();
  const dlq = new HeldDeadLetters();
  const sp = new SharePartition(
    KEY,
    leaderEpoch,
    persister,
    () => ({ ...DEFAULT_SHARE_PARTITION_CONFIG, ...config }),
    timers,
    () => undefined,
    dlq,
  );
  await sp.initialize(async () => 0n);
  return { sp, persister, timers, dlq };
}

const stateAt = (sp: SharePartition, offset: bigint): string => sp.stateOf(offset)?.state ?? 'none';
const archived = (sp: SharePartition, offset: bigint) =>
  waitFor(`offset ${offset} archived`, 5000, () => when(sp.stateOf(offset) === null || stateAt(sp, offset) === 'ARCHIVED'), 2);

describe('SharePartition dead-letter queue (KIP-1191)', () => {
  test('a rejected record waits ARCHIVING (persisted as 3) until its dead-letter write is done, then is archived', async () => {
    const { sp, persister, dlq } = await open(WITH_DLQ);
    sp.acquire('m1', [data(0n, 3n)], take);
    await sp.acknowledge('m1', [{ firstOffset: 0n, lastOffset: 3n, acknowledgeTypes: [ACCEPT, REJECT, REJECT, GAP] }], false);
    assert.deepEqual(persister.writes.at(-1)!.state.stateBatches, [
      { firstOffset: 1n, lastOffset: 2n, deliveryState: ShareDeliveryState.ARCHIVING, deliveryCount: 1 },
      { firstOffset: 3n, lastOffset: 3n, deliveryState: ShareDeliveryState.ARCHIVED, deliveryCount: 1 },
    ]);
    assert.equal(sp.start, 1n, 'the start offset stops at an ARCHIVING record');
    assert.equal(sp.deliveryCompleteCount, 1, 'an ARCHIVING record is not delivered for good yet');
    assert.deepEqual(dlq.ranges(), [{ firstOffset: 1n, lastOffset: 2n, deliveryCount: 1, cause: 'rejected', resumed: false }]);
    assert.deepEqual(sp.acquire('m2', [data(0n, 3n)], take), [], 'an ARCHIVING record is never delivered again');

    dlq.writes[0]!.done();
    await archived(sp, 2n);
    assert.equal(sp.start, 4n);
    assert.equal(persister.writes.at(-1)!.state.startOffset, 4n, 'the archive is persisted as the start offset passing the records');
  });

  test('a record released, or whose lock expires, at the delivery-count limit goes with the limit as its cause', async () => {
    const { sp, dlq, timers } = await open(WITH_DLQ);
    sp.acquire('m1', [data(0n, 1n)], take);
    await sp.acknowledge('m1', [{ firstOffset: 0n, lastOffset: 1n, acknowledgeTypes: [RELEASE] }], false);
    assert.deepEqual(dlq.ranges(), [], 'below the limit the records are delivered again');
    sp.acquire('m1', [data(0n, 1n)], take);
    await sp.acknowledge('m1', [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [RELEASE] }], false);
    timers.expireAll();
    await waitFor('the expired lock', 5000, () => when(dlq.writes.length === 2), 2);
    assert.deepEqual(dlq.ranges(), [
      { firstOffset: 0n, lastOffset: 0n, deliveryCount: 2, cause: 'delivery-count-exceeded', resumed: false },
      { firstOffset: 1n, lastOffset: 1n, deliveryCount: 2, cause: 'delivery-count-exceeded', resumed: false },
    ]);
    assert.deepEqual([stateAt(sp, 0n), stateAt(sp, 1n)], ['ARCHIVING', 'ARCHIVING']);
  });

  test('without a dead-letter queue the records are archived at once and nothing is written', async () => {
    const { sp, persister, dlq } = await open({ deliveryCountLimit: 2 });
    sp.acquire('m1', [data(0n, 1n)], take);
    await sp.acknowledge('m1', [{ firstOffset: 0n, lastOffset: 1n, acknowledgeTypes: [REJECT] }], false);
    assert.equal(persister.writes.at(-1)!.state.startOffset, 2n);
    assert.equal(sp.start, 2n);
    assert.deepEqual(dlq.ranges(), []);
  });

  test('a failed write of the REJECT undoes it and hands nothing to the dead-letter queue', async () => {
    const { sp, persister, dlq } = await open(WITH_DLQ);
    sp.acquire('m1', [data(0n, 0n)], take);
    persister.failNextWrite(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    await assert.rejects(sp.acknowledge('m1', [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [REJECT] }], false));
    assert.equal(stateAt(sp, 0n), 'ACQUIRED');
    assert.deepEqual(dlq.ranges(), []);
  });

  test('a new leader writes again what it finds ARCHIVING, marked as resumed, with the cause its delivery count tells', async () => {
    const old = await open(WITH_DLQ);
    old.sp.acquire('m1', [data(0n, 1n)], take);
    await old.sp.acknowledge('m1', [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [REJECT] }], false);
    await old.sp.acknowledge('m1', [{ firstOffset: 1n, lastOffset: 1n, acknowledgeTypes: [RELEASE] }], false);
    old.sp.acquire('m1', [data(0n, 1n)], take);
    await old.sp.acknowledge('m1', [{ firstOffset: 1n, lastOffset: 1n, acknowledgeTypes: [RELEASE] }], false);
    assert.equal(old.dlq.writes.length, 2);
    old.sp.close();
    old.dlq.writes.forEach((w) => w.done());

    const next = await open(WITH_DLQ, old.persister, 1);
    assert.deepEqual(next.dlq.ranges(), [
      { firstOffset: 0n, lastOffset: 0n, deliveryCount: 1, cause: 'rejected', resumed: true },
      { firstOffset: 1n, lastOffset: 1n, deliveryCount: 2, cause: 'delivery-count-exceeded', resumed: true },
    ]);
    next.dlq.writes.forEach((w) => w.done());
    await archived(next.sp, 1n);
    assert.equal(next.sp.start, 2n);
  });

  test('the cause of a restored record: its delivery count at the limit means the limit', () => {
    assert.deepEqual(
      [restoredCause(1, 3), restoredCause(3, 3), restoredCause(4, 3)],
      ['rejected', 'delivery-count-exceeded', 'delivery-count-exceeded'],
    );
  });
});
