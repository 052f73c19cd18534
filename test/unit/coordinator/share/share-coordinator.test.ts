import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CoordinatorRecord } from '../../../../src/coordinator/runtime/coordinator-log.js';
import type { ShardResult } from '../../../../src/coordinator/runtime/coordinator-runtime.js';
import { combineStateBatches } from '../../../../src/coordinator/share/batch-combiner.js';
import { decodeShareRecord, shareSnapshotRecord, shareUpdateRecord } from '../../../../src/coordinator/share/records.js';
import { ShareCoordinator } from '../../../../src/coordinator/share/share-coordinator.js';
import type { SharePartitionKey, ShareStateBatch } from '../../../../src/coordinator/share/share-state-persister.js';
import { ErrorCode } from '@sluice/protocol/errors.js';

const TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAEg';
const KEY: SharePartitionKey = { groupId: 'g', topicId: TOPIC_ID, partition: 0 };
const batch = (firstOffset: bigint, lastOffset: bigint, deliveryState: number, deliveryCount: number): ShareStateBatch => ({
  firstOffset,
  lastOffset,
  deliveryState,
  deliveryCount,
});

/** A shard whose every emitted record is kept: its log, which a fresh shard replays. */
class Shard {
  readonly log: CoordinatorRecord[] = [];
  readonly c: ShareCoordinator;
  constructor(readonly perSnapshot = 500) {
    this.c = new ShareCoordinator((id) => (id === TOPIC_ID ? 3 : undefined), { snapshotUpdateRecordsPerSnapshot: perSnapshot });
  }
  run<R>(result: ShardResult<R, never>): R {
    this.log.push(...result.records);
    return result.response;
  }
  replayed(): ShareCoordinator {
    const fresh = new ShareCoordinator(() => 3, { snapshotUpdateRecordsPerSnapshot: this.perSnapshot });
    for (const r of this.log) fresh.replay(r.key, r.value);
    return fresh;
  }
}

describe('combineStateBatches (Kafka 4.4 PersisterStateBatchCombiner)', () => {
  it('drops batches below the start offset and cuts the one straddling it', () => {
    assert.deepEqual(combineStateBatches([batch(0n, 4n, 0, 1), batch(5n, 9n, 2, 1)], [], 7n), [batch(7n, 9n, 2, 1)]);
  });

  it('lets the higher delivery count, then the higher state, win an overlap', () => {
    assert.deepEqual(combineStateBatches([batch(0n, 9n, 0, 1)], [batch(3n, 5n, 2, 1)], 0n), [
      batch(0n, 2n, 0, 1),
      batch(3n, 5n, 2, 1),
      batch(6n, 9n, 0, 1),
    ]);
    assert.deepEqual(combineStateBatches([batch(0n, 9n, 0, 2)], [batch(3n, 5n, 2, 1)], 0n), [batch(0n, 9n, 0, 2)]);
  });

  it('joins adjacent runs of the same delivery', () => {
    assert.deepEqual(combineStateBatches([batch(0n, 4n, 2, 1)], [batch(5n, 9n, 2, 1)], -1n), [batch(0n, 9n, 2, 1)]);
  });
});

describe('__share_group_state records', () => {
  it('encode key type, key version 0 and value version 0 as Kafka writes them', () => {
    const r = shareUpdateRecord(KEY, {
      snapshotEpoch: 1,
      leaderEpoch: 2,
      startOffset: 5n,
      deliveryCompleteCount: -1,
      stateBatches: [batch(5n, 6n, 2, 1)],
    });
    // int16 type 1, string "g", 16-byte uuid, int32 partition 0.
    assert.equal(r.key.toString('hex'), '0001' + '0001' + '67' + Buffer.from(TOPIC_ID, 'base64url').toString('hex') + '00000000');
    // int16 version 0, snapshotEpoch 1, leaderEpoch 2, startOffset 5, compact array of 1 batch, no tagged fields (dcc at its default).
    assert.equal(
      r.value!.toString('hex'),
      '0000' + '00000001' + '00000002' + '0000000000000005' + '02' + '0000000000000005' + '0000000000000006' + '02' + '0001' + '00' + '00',
    );
    const snapshot = {
      snapshotEpoch: 0,
      stateEpoch: 3,
      leaderEpoch: 1,
      startOffset: 0n,
      deliveryCompleteCount: 4,
      createTimestamp: 10n,
      writeTimestamp: 11n,
      stateBatches: [batch(0n, 3n, 2, 1)],
    };
    const decoded = decodeShareRecord(shareSnapshotRecord(KEY, snapshot).key, shareSnapshotRecord(KEY, snapshot).value);
    assert.deepEqual(decoded, { type: 'snapshot', key: KEY, value: snapshot });
  });
});

describe('ShareCoordinator', () => {
  it('refuses a write or read of an uninitialized share-partition', () => {
    const s = new Shard();
    assert.equal(
      s.run(s.c.write(KEY, { stateEpoch: 0, leaderEpoch: 0, startOffset: 0n, deliveryCompleteCount: -1, stateBatches: [] }, 1)).errorCode,
      ErrorCode.INVALID_REQUEST,
    );
    assert.equal(s.run(s.c.read(KEY, 0, 1)).errorCode, ErrorCode.INVALID_REQUEST);
    assert.equal(s.log.length, 0);
  });

  it('fences older state and leader epochs', () => {
    const s = new Shard();
    s.run(s.c.initialize(KEY, 2, 0n, 1));
    assert.equal(s.run(s.c.initialize(KEY, 1, 0n, 1)).errorCode, ErrorCode.FENCED_STATE_EPOCH);
    assert.equal(s.run(s.c.read(KEY, 5, 2)).errorCode, ErrorCode.NONE);
    assert.equal(s.c.leaderEpochOf(KEY), 5);
    assert.equal(s.run(s.c.read(KEY, 4, 3)).errorCode, ErrorCode.FENCED_LEADER_EPOCH);
    assert.equal(
      s.run(s.c.write(KEY, { stateEpoch: 2, leaderEpoch: 4, startOffset: 0n, deliveryCompleteCount: -1, stateBatches: [] }, 4)).errorCode,
      ErrorCode.FENCED_LEADER_EPOCH,
    );
    assert.equal(
      s.run(s.c.write(KEY, { stateEpoch: 1, leaderEpoch: 5, startOffset: 0n, deliveryCompleteCount: -1, stateBatches: [] }, 4)).errorCode,
      ErrorCode.FENCED_STATE_EPOCH,
    );
    assert.equal(
      s.run(
        s.c.write(
          { ...KEY, partition: 3 },
          { stateEpoch: 2, leaderEpoch: 5, startOffset: 0n, deliveryCompleteCount: -1, stateBatches: [] },
          4,
        ),
      ).errorCode,
      ErrorCode.INVALID_REQUEST,
    );
  });

  it('combines writes, moves the start offset forward only, and replays to the same state', () => {
    const s = new Shard();
    s.run(s.c.initialize(KEY, 0, 0n, 1));
    s.run(s.c.read(KEY, 1, 2));
    s.run(
      s.c.write(KEY, { stateEpoch: 0, leaderEpoch: 1, startOffset: 0n, deliveryCompleteCount: 0, stateBatches: [batch(0n, 9n, 1, 1)] }, 3),
    );
    s.run(
      s.c.write(KEY, { stateEpoch: 0, leaderEpoch: 1, startOffset: 3n, deliveryCompleteCount: 2, stateBatches: [batch(3n, 4n, 2, 1)] }, 4),
    );
    s.run(s.c.write(KEY, { stateEpoch: 0, leaderEpoch: 1, startOffset: 1n, deliveryCompleteCount: 0, stateBatches: [] }, 5));
    const read = s.run(s.c.read(KEY, 1, 6));
    assert.equal(read.startOffset, 3n);
    assert.deepEqual(read.stateBatches, [batch(3n, 4n, 2, 1), batch(5n, 9n, 1, 1)]);
    assert.deepEqual(s.replayed().state(KEY), s.c.state(KEY));
  });

  it('writes a ShareSnapshot after every snapshot.update.records.per.snapshot updates', () => {
    const s = new Shard(2);
    s.run(s.c.initialize(KEY, 0, 0n, 1));
    for (let i = 0; i < 5; i++)
      s.run(
        s.c.write(
          KEY,
          { stateEpoch: 0, leaderEpoch: 0, startOffset: -1n, deliveryCompleteCount: -1, stateBatches: [batch(BigInt(i), BigInt(i), 2, 1)] },
          2 + i,
        ),
      );
    const types = s.log.map((r) => r.key.readInt16BE(0));
    // initialize (snapshot), two updates, a snapshot, two updates, a snapshot.
    assert.deepEqual(types, [0, 1, 1, 0, 1, 1]);
    assert.deepEqual(s.c.state(KEY)!.stateBatches, [batch(0n, 4n, 2, 1)]);
    assert.deepEqual(s.replayed().state(KEY), s.c.state(KEY));
  });

  it('deletes with a tombstone, after which the share-partition is uninitialized again', () => {
    const s = new Shard();
    s.run(s.c.initialize(KEY, 0, 7n, 1));
    assert.equal(s.run(s.c.delete(KEY)).errorCode, ErrorCode.NONE);
    assert.equal(s.log.at(-1)!.value, null);
    assert.equal(s.c.state(KEY), undefined);
    assert.equal(s.replayed().state(KEY), undefined);
    assert.deepEqual(s.run(s.c.readSummary(KEY)), {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      stateEpoch: 0,
      leaderEpoch: 0,
      startOffset: -1n,
      deliveryCompleteCount: -1,
    });
    assert.equal(s.run(s.c.delete(KEY)).errorCode, ErrorCode.NONE);
  });

  it('answers UNKNOWN_TOPIC_OR_PARTITION for a topic the metadata does not know', () => {
    const s = new Shard();
    assert.equal(
      s.run(s.c.initialize({ ...KEY, topicId: 'BBBBBBBBBBBBBBBBBBBBBB' }, 0, 0n, 1)).errorCode,
      ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    );
  });
});
