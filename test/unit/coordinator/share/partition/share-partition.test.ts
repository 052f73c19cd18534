import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ShareDeliveryState, type SharePartitionKey } from '../../../../../src/coordinator/share/share-state-persister.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  DEFAULT_SHARE_PARTITION_CONFIG,
  type SharePartitionConfig,
} from '../../../../../src/coordinator/share/partition/share-partition-config.js';
import { AcknowledgeType, SharePartition, type LogBatch } from '../../../../../src/coordinator/share/partition/share-partition.js';
import { TestSharePersister } from '../../../../helpers/share-persister.js';
import { ManualTimers } from '../../../../helpers/manual-lock-timers.js';

const KEY: SharePartitionKey = { groupId: 'g', topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partition: 0 };
const { ACCEPT, RELEASE, REJECT, RENEW, GAP } = AcknowledgeType;

function data(firstOffset: bigint, lastOffset: bigint, producerId = -1n, isTransactional = false): LogBatch {
  return { firstOffset, lastOffset, producerId, isTransactional, isControl: false };
}

function marker(offset: bigint, producerId: bigint): LogBatch {
  return { firstOffset: offset, lastOffset: offset, producerId, isTransactional: true, isControl: true };
}

/** Batches of `size` offsets from `from` to `to` inclusive. */
function batches(from: bigint, to: bigint, size: bigint): LogBatch[] {
  const out: LogBatch[] = [];
  for (let o = from; o <= to; o += size) out.push(data(o, o + size - 1n > to ? to : o + size - 1n));
  return out;
}

interface Fixture {
  readonly sp: SharePartition;
  readonly persister: TestSharePersister;
  readonly timers: ManualTimers;
}

async function open(
  config: Partial<SharePartitionConfig> = {},
  persister = new TestSharePersister(),
  leaderEpoch = 0,
  start = 0n,
): Promise<Fixture> {
  if (leaderEpoch === 0) await persister.initialize(KEY, 0, start);
  const timers = new ManualTimers();
  const sp = new SharePartition(KEY, leaderEpoch, persister, () => ({ ...DEFAULT_SHARE_PARTITION_CONFIG, ...config }), timers);
  await sp.initialize(async () => 0n);
  return { sp, persister, timers };
}

const take = (maxRecords = 500, strictRecordLimit = false) => ({ maxRecords, strictRecordLimit, abortedTransactions: null });

function states(sp: SharePartition, from: bigint, to: bigint): string[] {
  const out: string[] = [];
  for (let o = from; o <= to; o++) {
    const s = sp.stateOf(o);
    out.push(s === null ? 'none' : `${s.state}/${s.deliveryCount}${s.memberId === null ? '' : `/${s.memberId}`}`);
  }
  return out;
}

async function refused(promise: Promise<unknown>, code: number): Promise<void> {
  await assert.rejects(promise, (err: unknown) => err instanceof KafkaError && err.code === code);
}

describe('SharePartition', () => {
  test('acquires whole log batches up to maxRecords, with one delivery count and one lock for them', async () => {
    const { sp, timers } = await open({ recordLockDurationMs: 15_000 });
    const acquired = sp.acquire('m1', batches(0n, 9n, 3n), take(4));
    assert.deepEqual(
      acquired,
      [{ firstOffset: 0n, lastOffset: 5n, deliveryCount: 1 }],
      'the second batch is taken whole although it passes maxRecords',
    );
    assert.deepEqual(
      states(sp, 0n, 6n),
      [...Array<string>(6).fill('ACQUIRED/1/m1'), 'none'],
      'a batch read but not acquired is not in flight',
    );
    assert.deepEqual(timers.delays, [15_000]);
    assert.equal(sp.nextFetchOffset(), 6n);
  });

  test('record-limit mode acquires exactly maxRecords, splitting a batch', async () => {
    const { sp } = await open();
    assert.deepEqual(sp.acquire('m1', batches(0n, 9n, 3n), take(4, true)), [{ firstOffset: 0n, lastOffset: 3n, deliveryCount: 1 }]);
    assert.equal(sp.nextFetchOffset(), 4n, 'the rest of the split batch is available');
  });

  test('accepted records move the start offset, and the write carries it before the acknowledgement completes', async () => {
    const { sp, persister } = await open();
    sp.acquire('m1', batches(0n, 5n, 3n), take());
    await sp.acknowledge('m1', [{ firstOffset: 0n, lastOffset: 2n, acknowledgeTypes: [ACCEPT] }], false);
    assert.equal(sp.start, 3n);
    assert.deepEqual(
      persister.writes.map((w) => w.state.startOffset),
      [3n],
    );
    assert.equal((await persister.read(KEY, 0)).startOffset, 3n);
  });

  test('released records are delivered again, to any member, with the next delivery count', async () => {
    const { sp, persister } = await open();
    sp.acquire('m1', batches(0n, 2n, 3n), take());
    await sp.acknowledge('m1', [{ firstOffset: 0n, lastOffset: 2n, acknowledgeTypes: [RELEASE] }], false);
    assert.deepEqual(persister.writes.at(-1)!.state.stateBatches, [
      { firstOffset: 0n, lastOffset: 2n, deliveryState: ShareDeliveryState.AVAILABLE, deliveryCount: 1 },
    ]);
    assert.equal(sp.nextFetchOffset(), 0n);
    assert.deepEqual(sp.acquire('m2', batches(0n, 2n, 3n), take()), [{ firstOffset: 0n, lastOffset: 2n, deliveryCount: 2 }]);
  });

  test('rejected records are archived and never delivered again', async () => {
    const { sp, persister } = await open();
    sp.acquire('m1', batches(0n, 3n, 2n), take());
    await sp.acknowledge('m1', [{ firstOffset: 2n, lastOffset: 3n, acknowledgeTypes: [REJECT] }], false);
    assert.deepEqual(persister.writes.at(-1)!.state.stateBatches, [
      { firstOffset: 2n, lastOffset: 3n, deliveryState: ShareDeliveryState.ARCHIVED, deliveryCount: 1 },
    ]);
    await sp.acknowledge('m1', [{ firstOffset: 0n, lastOffset: 1n, acknowledgeTypes: [ACCEPT] }], false);
    assert.equal(sp.start, 4n, 'the start offset moves over accepted and archived records alike');
    assert.deepEqual(sp.acquire('m1', batches(0n, 3n, 2n), take()), []);
  });

  test('a partially acknowledged batch is then acquired record by record', async () => {
    const { sp } = await open();
    sp.acquire('m1', [data(0n, 4n)], take());
    await sp.acknowledge('m1', [{ firstOffset: 0n, lastOffset: 4n, acknowledgeTypes: [ACCEPT, RELEASE, ACCEPT, RELEASE, RELEASE] }], false);
    assert.deepEqual(states(sp, 1n, 4n), ['AVAILABLE/1', 'ACKNOWLEDGED/1', 'AVAILABLE/1', 'AVAILABLE/1']);
    assert.deepEqual(sp.acquire('m2', [data(0n, 4n)], take(2)), [
      { firstOffset: 1n, lastOffset: 1n, deliveryCount: 2 },
      { firstOffset: 3n, lastOffset: 3n, deliveryCount: 2 },
    ]);
    assert.deepEqual(states(sp, 4n, 4n), ['AVAILABLE/1'], 'maxRecords counts single records once the batch is split');
  });

  test('acknowledging records the member has not acquired is INVALID_RECORD_STATE, and changes nothing', async () => {
    const { sp, persister } = await open();
    sp.acquire('m1', batches(0n, 3n, 2n), take());
    await refused(
      sp.acknowledge('m2', [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [ACCEPT] }], false),
      ErrorCode.INVALID_RECORD_STATE,
    );
    await refused(
      sp.acknowledge('m1', [{ firstOffset: 3n, lastOffset: 4n, acknowledgeTypes: [ACCEPT] }], false),
      ErrorCode.INVALID_RECORD_STATE,
    );
    await refused(
      sp.acknowledge(
        'm1',
        [
          { firstOffset: 0n, lastOffset: 1n, acknowledgeTypes: [ACCEPT] },
          { firstOffset: 7n, lastOffset: 7n, acknowledgeTypes: [ACCEPT] },
        ],
        false,
      ),
      ErrorCode.INVALID_RECORD_STATE,
    );
    assert.deepEqual(states(sp, 0n, 3n), Array(4).fill('ACQUIRED/1/m1'), 'the valid batch of a refused call was not applied');
    await sp.acknowledge('m1', [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [ACCEPT] }], false);
    await refused(
      sp.acknowledge('m1', [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [ACCEPT] }], false),
      ErrorCode.INVALID_RECORD_STATE,
    );
    assert.equal(persister.writes.length, 1);
  });

  test('malformed acknowledgements are INVALID_REQUEST: type count, unknown type, RENEW before v2', async () => {
    const { sp } = await open();
    sp.acquire('m1', batches(0n, 3n, 4n), take());
    await refused(
      sp.acknowledge('m1', [{ firstOffset: 0n, lastOffset: 2n, acknowledgeTypes: [ACCEPT, ACCEPT] }], false),
      ErrorCode.INVALID_REQUEST,
    );
    await refused(sp.acknowledge('m1', [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [5] }], true), ErrorCode.INVALID_REQUEST);
    await refused(sp.acknowledge('m1', [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [RENEW] }], false), ErrorCode.INVALID_REQUEST);
    await refused(
      sp.acknowledge('m1', [{ firstOffset: 2n, lastOffset: 1n, acknowledgeTypes: [ACCEPT] }], false),
      ErrorCode.INVALID_REQUEST,
    );
  });

  test('a GAP acknowledgement archives the offset', async () => {
    const { sp } = await open();
    sp.acquire('m1', batches(0n, 1n, 2n), take());
    await sp.acknowledge('m1', [{ firstOffset: 0n, lastOffset: 1n, acknowledgeTypes: [GAP, ACCEPT] }], false);
    assert.equal(sp.start, 2n);
  });

  test('an expired acquisition lock makes the records available to another member, and is persisted', async () => {
    const { sp, persister, timers } = await open();
    sp.acquire('m1', batches(0n, 2n, 3n), take());
    timers.expireAll();
    // Operations on a share partition run in order: this one completes after the expiry's write.
    await sp.releaseMember('nobody');
    assert.deepEqual(states(sp, 0n, 2n), Array(3).fill('AVAILABLE/1'));
    assert.deepEqual(persister.writes.at(-1)!.state.stateBatches, [
      { firstOffset: 0n, lastOffset: 2n, deliveryState: ShareDeliveryState.AVAILABLE, deliveryCount: 1 },
    ]);
    assert.deepEqual(sp.acquire('m2', batches(0n, 2n, 3n), take()), [{ firstOffset: 0n, lastOffset: 2n, deliveryCount: 2 }]);
    await refused(
      sp.acknowledge('m1', [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [ACCEPT] }], false),
      ErrorCode.INVALID_RECORD_STATE,
    );
  });

  test('RENEW gives the records a new lock: the old one expiring leaves them acquired', async () => {
    const { sp, timers } = await open();
    sp.acquire('m1', batches(0n, 1n, 2n), take());
    await sp.acknowledge('m1', [{ firstOffset: 0n, lastOffset: 1n, acknowledgeTypes: [RENEW] }], true);
    assert.equal(timers.delays.length, 1, 'the first lock, with no holder left, was cancelled');
    assert.deepEqual(states(sp, 0n, 1n), Array(2).fill('ACQUIRED/1/m1'));
    timers.expireAll();
    await sp.releaseMember('nobody');
    assert.deepEqual(states(sp, 0n, 1n), Array(2).fill('AVAILABLE/1'), 'the renewed lock expires in its turn');
  });

  test('a record released after share.delivery.count.limit deliveries is archived', async () => {
    const { sp } = await open({ deliveryCountLimit: 2 });
    for (const member of ['m1', 'm2']) {
      sp.acquire(member, [data(0n, 1n)], take());
      await sp.acknowledge(member, [{ firstOffset: 0n, lastOffset: 1n, acknowledgeTypes: [RELEASE] }], false);
    }
    assert.equal(sp.start, 2n);
    assert.deepEqual(sp.acquire('m3', [data(0n, 1n)], take()), []);
  });

  test('no new records are acquired beyond group.share.partition.max.record.locks in flight', async () => {
    const { sp } = await open({ partitionMaxRecordLocks: 3 });
    assert.deepEqual(sp.acquire('m1', batches(0n, 5n, 2n), take()), [{ firstOffset: 0n, lastOffset: 3n, deliveryCount: 1 }]);
    assert.equal(sp.inFlightCount, 4);
    assert.equal(sp.nextFetchOffset(), null, 'nothing available and the window full: no read');
    await sp.acknowledge('m1', [{ firstOffset: 0n, lastOffset: 1n, acknowledgeTypes: [ACCEPT] }], false);
    assert.equal(sp.nextFetchOffset(), 4n);
  });

  test('acquisitionEnd bounds what an acquisition can take: batches starting at or after it are never acquired', async () => {
    const { sp } = await open({ partitionMaxRecordLocks: 3 });
    assert.equal(sp.acquisitionEnd, 3n, 'the window from the start offset');
    const log = batches(0n, 9n, 2n);
    sp.acquire('m1', log, take());
    assert.equal(sp.acquisitionEnd, 4n, 'a batch overshooting the window extends it');
    await sp.acknowledge('m1', [{ firstOffset: 0n, lastOffset: 3n, acknowledgeTypes: [ACCEPT] }], false);
    assert.equal(sp.acquisitionEnd, 7n, 'accepted records move it on');
    assert.deepEqual(
      sp.acquire(
        'm2',
        log.filter((b) => b.lastOffset >= 4n),
        take(),
      ),
      [{ firstOffset: 4n, lastOffset: 7n, deliveryCount: 1 }],
      'the batch at 8 starts past it',
    );
    assert.equal(sp.stateOf(8n), null);
  });

  test('offsets missing from the log (compacted away) are archived, not acquired', async () => {
    const { sp } = await open();
    assert.deepEqual(sp.acquire('m1', [data(0n, 1n), data(5n, 6n)], take()), [
      { firstOffset: 0n, lastOffset: 1n, deliveryCount: 1 },
      { firstOffset: 5n, lastOffset: 6n, deliveryCount: 1 },
    ]);
    assert.deepEqual(states(sp, 2n, 4n), Array(3).fill('ARCHIVED/0'));
  });

  test('read_committed: an aborted transaction and every control batch are archived, never acquired', async () => {
    const txn = [data(0n, 2n, 7n, true), marker(3n, 7n), data(4n, 4n)];
    const committed = await open();
    assert.deepEqual(committed.sp.acquire('m1', txn, { ...take(), abortedTransactions: [] }), [
      { firstOffset: 0n, lastOffset: 2n, deliveryCount: 1 },
      { firstOffset: 4n, lastOffset: 4n, deliveryCount: 1 },
    ]);
    const aborted = await open({ readCommitted: true });
    assert.deepEqual(aborted.sp.acquire('m1', txn, { ...take(), abortedTransactions: [{ producerId: 7n, firstOffset: 0n }] }), [
      { firstOffset: 4n, lastOffset: 4n, deliveryCount: 1 },
    ]);
    assert.equal(aborted.sp.start, 4n);
  });

  test('a new leader restarts from the persisted state, and fences the old one', async () => {
    const old = await open();
    old.sp.acquire('m1', [data(0n, 5n)], take());
    await old.sp.acknowledge(
      'm1',
      [{ firstOffset: 0n, lastOffset: 5n, acknowledgeTypes: [ACCEPT, ACCEPT, RENEW, REJECT, RELEASE, RENEW] }],
      true,
    );
    await old.sp.acknowledge('m1', [{ firstOffset: 2n, lastOffset: 2n, acknowledgeTypes: [RELEASE] }], false);
    const next = await open({}, old.persister, 1);
    assert.equal(next.sp.start, 2n);
    assert.deepEqual(
      states(next.sp, 2n, 5n),
      ['AVAILABLE/1', 'ARCHIVED/1', 'AVAILABLE/1', 'none'],
      'offset 5 was only acquired: the acquisition was not persisted',
    );
    assert.equal(next.sp.endOffset, 5n);
    assert.deepEqual(next.sp.acquire('m2', [data(0n, 5n), data(6n, 6n)], take()), [
      { firstOffset: 2n, lastOffset: 2n, deliveryCount: 2 },
      { firstOffset: 4n, lastOffset: 4n, deliveryCount: 2 },
      { firstOffset: 5n, lastOffset: 6n, deliveryCount: 1 },
    ]);
    await refused(
      old.sp.acknowledge('m1', [{ firstOffset: 5n, lastOffset: 5n, acknowledgeTypes: [ACCEPT] }], false),
      ErrorCode.FENCED_LEADER_EPOCH,
    );
  });

  test('an unset start offset is resolved by share.auto.offset.reset', async () => {
    const persister = new TestSharePersister();
    await persister.initialize(KEY, 0, -1n);
    const sp = new SharePartition(KEY, 0, persister, () => DEFAULT_SHARE_PARTITION_CONFIG, new ManualTimers());
    await sp.initialize(async () => 42n);
    assert.deepEqual([sp.start, sp.nextFetchOffset()], [42n, 42n]);
    assert.deepEqual(sp.acquire('m1', [data(40n, 43n)], take()), [{ firstOffset: 42n, lastOffset: 43n, deliveryCount: 1 }]);
  });

  test('a share-partition the share coordinator never initialized fails to open with its error', async () => {
    const sp = new SharePartition(KEY, 0, new TestSharePersister(), () => DEFAULT_SHARE_PARTITION_CONFIG, new ManualTimers());
    // Kafka 4.4's share coordinator refuses to read a share-partition it never initialized.
    await refused(
      sp.initialize(async () => 0n),
      ErrorCode.INVALID_REQUEST,
    );
    assert.throws(
      () => sp.acquire('m1', [data(0n, 0n)], take()),
      (err: unknown) => err instanceof KafkaError && err.code === ErrorCode.NOT_LEADER_OR_FOLLOWER,
    );
  });

  test('a failed write undoes the acknowledgement: the records stay acquired and can be acknowledged again', async () => {
    const { sp, persister, timers } = await open();
    sp.acquire('m1', batches(0n, 1n, 2n), take());
    persister.failNextWrite(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    await refused(
      sp.acknowledge('m1', [{ firstOffset: 0n, lastOffset: 1n, acknowledgeTypes: [ACCEPT] }], false),
      ErrorCode.COORDINATOR_NOT_AVAILABLE,
    );
    assert.deepEqual([sp.start, ...states(sp, 0n, 1n)], [0n, 'ACQUIRED/1/m1', 'ACQUIRED/1/m1']);
    assert.equal(timers.delays.length, 1, 'still under a lock');
    await sp.acknowledge('m1', [{ firstOffset: 0n, lastOffset: 1n, acknowledgeTypes: [ACCEPT] }], false);
    assert.equal(sp.start, 2n);
  });

  test('a write that fails while records are acquired keeps both the undone acknowledgement and the new acquisition', async () => {
    const { sp, persister } = await open();
    sp.acquire('m1', [data(0n, 1n)], take());
    persister.failNextWrite(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    // The write waits until the test lets it fail, once the acknowledgement is applied in memory.
    let writing!: () => void;
    const written = new Promise<void>((resolve) => (writing = resolve));
    let letFail!: () => void;
    const gate = new Promise<void>((resolve) => (letFail = resolve));
    const write = persister.write.bind(persister);
    persister.write = async (key, state) => {
      writing();
      await gate;
      return write(key, state);
    };
    const acknowledging = sp.acknowledge('m1', [{ firstOffset: 0n, lastOffset: 1n, acknowledgeTypes: [ACCEPT] }], false);
    await written;
    assert.equal(sp.start, 2n, 'applied, not yet persisted');
    assert.deepEqual(sp.acquire('m2', [data(2n, 3n)], take()), [{ firstOffset: 2n, lastOffset: 3n, deliveryCount: 1 }]);
    letFail();
    await refused(acknowledging, ErrorCode.COORDINATOR_NOT_AVAILABLE);
    assert.deepEqual([sp.start, ...states(sp, 0n, 3n)], [0n, 'ACQUIRED/1/m1', 'ACQUIRED/1/m1', 'ACQUIRED/1/m2', 'ACQUIRED/1/m2']);
  });

  test("releasing a member releases only that member's records", async () => {
    const { sp, timers } = await open();
    sp.acquire('m1', [data(0n, 1n)], take());
    sp.acquire('m2', [data(2n, 3n)], take());
    await sp.releaseMember('m1');
    assert.deepEqual(states(sp, 0n, 3n), ['AVAILABLE/1', 'AVAILABLE/1', 'ACQUIRED/1/m2', 'ACQUIRED/1/m2']);
    assert.equal(timers.delays.length, 1, "m1's lock was cancelled");
  });

  test('a log start offset past the start offset forgets what was in flight before it', async () => {
    const { sp, timers } = await open();
    sp.acquire('m1', [data(0n, 1n), data(2n, 3n)], take());
    sp.moveStartTo(2n);
    assert.deepEqual([sp.start, sp.inFlightCount, timers.delays.length], [2n, 2, 1], 'the lock still holds offsets 2-3');
    sp.moveStartTo(10n);
    assert.deepEqual([sp.start, sp.inFlightCount, timers.delays.length, sp.nextFetchOffset()], [10n, 0, 0, 10n]);
  });

  test('every write carries the delivery-complete count: acknowledged and archived records at or after the start offset', async () => {
    const { sp, persister } = await open();
    sp.acquire('m1', [data(0n, 9n)], take());
    await sp.acknowledge('m1', [{ firstOffset: 0n, lastOffset: 1n, acknowledgeTypes: [ACCEPT] }], false);
    await sp.acknowledge('m1', [{ firstOffset: 4n, lastOffset: 7n, acknowledgeTypes: [ACCEPT, REJECT, RELEASE, GAP] }], false);
    await sp.acknowledge('m1', [{ firstOffset: 2n, lastOffset: 2n, acknowledgeTypes: [ACCEPT] }], false);
    assert.equal(sp.start, 3n);
    assert.deepEqual(
      persister.writes.map((w) => [w.state.startOffset, w.state.deliveryCompleteCount]),
      [
        [2n, 0],
        [2n, 3],
        [3n, 3],
      ],
      'records the start offset moved over leave the count; 4, 5 and 7 are complete, 6 was released',
    );
    assert.equal((await persister.readSummary(KEY, 0)).deliveryCompleteCount, 3, 'the share coordinator answers what was written');
    const next = await open({}, persister, 1);
    assert.equal(next.sp.deliveryCompleteCount, 3, 'a new leader counts the complete records it restores');
  });

  test('after close (leadership moved) nothing is acquired and expiring locks change nothing', async () => {
    const { sp, timers, persister } = await open();
    sp.acquire('m1', [data(0n, 1n)], take());
    sp.close();
    assert.equal(timers.delays.length, 0);
    timers.expireAll();
    assert.throws(() => sp.acquire('m1', [data(0n, 1n)], take()));
    assert.equal(persister.writes.length, 0);
  });
});
