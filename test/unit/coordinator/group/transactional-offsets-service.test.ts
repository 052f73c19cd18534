/**
 * TxnOffsetCommit and WriteTxnMarkers through the group coordinator service, over an in-memory
 * `__consumer_offsets`: the offsets are written as the producer's transactional batch, the end
 * marker as a control batch, and a reloaded coordinator holds the same state; a partition not led
 * here answers NOT_COORDINATOR; a refused marker answers the log's error and leaves the
 * transaction open.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '../../../../src/common/logger.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { ZERO_UUID } from '@sluice/protocol/common/uuid.js';
import { GroupCoordinatorService } from '../../../../src/coordinator/group/group-coordinator-service.js';
import type { TxnMarker } from '../../../../src/coordinator/runtime/transaction-marker.js';
import { MemoryPartitions, memoryOffsetsLog } from '../runtime/memory-partitions.js';

const GROUP = 'g';
const PRODUCER = { producerId: 42n, producerEpoch: 3 };
const commitMarker = (commit: boolean): TxnMarker => ({ ...PRODUCER, coordinatorEpoch: 1, commit, transactionVersion: 0 });

function service(partitions: MemoryPartitions, leads: (partition: number) => boolean = () => true): GroupCoordinatorService {
  return new GroupCoordinatorService({
    log: memoryOffsetsLog(partitions),
    numPartitions: 1,
    config: {},
    leads,
    logger: new Logger('test'),
  });
}

function txnCommit(groups: GroupCoordinatorService, offset: bigint): Promise<unknown> {
  return groups.commitTransactionalOffsets(
    {
      transactionalId: 'tx',
      groupId: GROUP,
      ...PRODUCER,
      generationIdOrMemberEpoch: -1,
      memberId: '',
      groupInstanceId: null,
      topics: [
        {
          name: 't',
          topicId: ZERO_UUID,
          partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: null }],
        },
      ],
    },
    5,
  );
}

/** Partition t-0 of the group, requireStable: `[offset, error]`. */
async function stableOffset(groups: GroupCoordinatorService): Promise<[bigint, number]> {
  const response = await groups.read(GROUP, (c) =>
    c.fetchOffsets(
      {
        groupId: '',
        topics: null,
        requireStable: true,
        groups: [{ groupId: GROUP, memberId: null, memberEpoch: -1, topics: [{ name: 't', topicId: ZERO_UUID, partitionIndexes: [0] }] }],
      },
      9,
    ),
  );
  const p = response.groups?.[0]?.topics?.[0]?.partitions?.[0];
  return [p?.committedOffset ?? -2n, p?.errorCode ?? ErrorCode.NONE];
}

test('a transactional commit is the producer’s transactional batch; its COMMIT marker is a control batch; a reloaded coordinator holds the same offsets', async () => {
  const partitions = new MemoryPartitions();
  const groups = service(partitions);
  assert.deepEqual(await txnCommit(groups, 17n), {
    topics: [{ name: 't', topicId: ZERO_UUID, partitions: [{ partitionIndex: 0, errorCode: ErrorCode.NONE }] }],
  });
  assert.deepEqual(await stableOffset(groups), [-1n, ErrorCode.UNSTABLE_OFFSET_COMMIT]);
  assert.equal(await groups.completeTransaction(0, commitMarker(true)), ErrorCode.NONE);
  assert.deepEqual(await stableOffset(groups), [17n, ErrorCode.NONE]);
  assert.deepEqual(
    partitions.batches(0).map((b) => [b.transactional, b.control, b.producerId, b.producerEpoch]),
    [
      [true, false, 42n, 3],
      [true, true, 42n, 3],
    ],
  );
  groups.close();

  const reloaded = service(partitions);
  assert.deepEqual(await stableOffset(reloaded), [17n, ErrorCode.NONE]);
  reloaded.close();
});

test('an aborted transaction leaves the committed offset as it was, live and after a reload', async () => {
  const partitions = new MemoryPartitions();
  const groups = service(partitions);
  await txnCommit(groups, 5n);
  await groups.completeTransaction(0, commitMarker(true));
  await txnCommit(groups, 9n);
  assert.equal(await groups.completeTransaction(0, commitMarker(false)), ErrorCode.NONE);
  assert.deepEqual(await stableOffset(groups), [5n, ErrorCode.NONE]);
  groups.close();
  const reloaded = service(partitions);
  assert.deepEqual(await stableOffset(reloaded), [5n, ErrorCode.NONE]);
  reloaded.close();
});

test('completeTransaction: NOT_COORDINATOR for a partition not led here; the log’s error for a refused marker, the transaction still open', async () => {
  const partitions = new MemoryPartitions();
  const follower = service(partitions, () => false);
  assert.equal(await follower.completeTransaction(0, commitMarker(true)), ErrorCode.NOT_COORDINATOR);
  assert.deepEqual(partitions.markers, []);
  follower.close();

  const groups = service(partitions);
  await txnCommit(groups, 17n);
  partitions.refuseNext(ErrorCode.NOT_ENOUGH_REPLICAS);
  assert.equal(await groups.completeTransaction(0, commitMarker(true)), ErrorCode.NOT_ENOUGH_REPLICAS);
  assert.deepEqual(await stableOffset(groups), [-1n, ErrorCode.UNSTABLE_OFFSET_COMMIT], 'reloaded from a log without the marker');
  // The transaction coordinator retries: the marker lands this time.
  assert.equal(await groups.completeTransaction(0, commitMarker(true)), ErrorCode.NONE);
  assert.deepEqual(await stableOffset(groups), [17n, ErrorCode.NONE]);
  groups.close();
});
