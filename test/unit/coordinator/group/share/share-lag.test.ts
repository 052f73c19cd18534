/**
 * KIP-1226's share-partition lag as Kafka 4.4's group coordinator computes it for
 * DescribeShareGroupOffsets v1: the partition end minus the start offset minus the
 * delivery-complete count; -1 without a start offset or a count, and the end lookup's error for
 * the partition when it fails.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '../../../../../src/common/logger.js';
import { ShareGroupService, sharePartitionLag, type PartitionEnd } from '../../../../../src/coordinator/group/share/share-group-service.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { TestSharePersister } from '../../../../helpers/share-persister.js';
import { FakeTopics } from '../consumer/harness.js';

describe('share-partition lag', () => {
  test('end - start offset - delivery-complete count; -1 when either is unknown', () => {
    assert.equal(sharePartitionLag({ stateEpoch: 0, leaderEpoch: 0, startOffset: 10n, deliveryCompleteCount: 3 }, 20n), 7n);
    assert.equal(sharePartitionLag({ stateEpoch: 0, leaderEpoch: 0, startOffset: 20n, deliveryCompleteCount: 0 }, 20n), 0n);
    assert.equal(
      sharePartitionLag({ stateEpoch: 0, leaderEpoch: 0, startOffset: -1n, deliveryCompleteCount: -1 }, 20n),
      -1n,
      'never initialized',
    );
    assert.equal(
      sharePartitionLag({ stateEpoch: 0, leaderEpoch: 0, startOffset: 10n, deliveryCompleteCount: -1 }, 20n),
      -1n,
      'written by a leader that sent no count (v0)',
    );
    assert.equal(sharePartitionLag({ stateEpoch: 0, leaderEpoch: 0, startOffset: 10n }, 20n), -1n);
  });

  test('DescribeShareGroupOffsets asks the ends of only the share-partitions with a lag to compute, and answers a failed lookup as the partition error', async () => {
    const persister = new TestSharePersister();
    const topics = new FakeTopics();
    const topicId = topics.add('t', 4);
    await persister.initialize({ groupId: 'g', topicId, partition: 0 }, 0, 5n);
    await persister.write(
      { groupId: 'g', topicId, partition: 0 },
      { stateEpoch: 0, leaderEpoch: 0, startOffset: 5n, deliveryCompleteCount: 2, stateBatches: [] },
    );
    await persister.initialize({ groupId: 'g', topicId, partition: 1 }, 0, 0n);
    await persister.initialize({ groupId: 'g', topicId, partition: 2 }, 0, -1n);
    const asked: Array<{ topic: string; partition: number }> = [];
    const answers: Record<number, PartitionEnd> = {
      0: { errorCode: ErrorCode.NONE, offset: 12n },
      1: { errorCode: ErrorCode.LEADER_NOT_AVAILABLE, offset: -1n },
    };
    const unused = () => Promise.reject(new Error('named topics need no group'));
    const service = new ShareGroupService<string>({ run: unused, read: unused }, persister, new Logger('test'));
    const described = await service.describeOffsets(
      { groupId: 'g', topics: [{ topicName: 't', partitions: [0, 1, 2, 3] }] },
      topics,
      async (partitions) => {
        asked.push(...partitions);
        return partitions.map((p) => answers[p.partition]!);
      },
    );
    assert.deepEqual(
      asked,
      [
        { topic: 't', partition: 0 },
        { topic: 't', partition: 1 },
      ],
      'partitions 2 (no start offset) and 3 (never initialized) need no end',
    );
    assert.deepEqual(
      described.topics!.flatMap((t) => t.partitions!.map((p) => [p.partitionIndex, p.errorCode ?? ErrorCode.NONE, p.startOffset, p.lag])),
      [
        [0, ErrorCode.NONE, 5n, 5n],
        [1, ErrorCode.LEADER_NOT_AVAILABLE, undefined, undefined],
        [2, ErrorCode.NONE, -1n, -1n],
        [3, ErrorCode.NONE, -1n, -1n],
      ],
    );
  });
});
