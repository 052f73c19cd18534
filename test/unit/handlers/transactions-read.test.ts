/**
 * What the read handlers do with isolation levels: Fetch answers the owner's aborted
 * transactions to a read_committed consumer ([] for none) and null to read_uncommitted, as
 * Kafka; ListOffsets asks the owner for LATEST at the request's isolation level.
 */
import { leaderEpochOf, offsetOf } from '@sluice/protocol/common/offsets.js';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fetchHandler } from '../../../src/handlers/01-fetch.js';
import { listOffsetsHandler } from '../../../src/handlers/02-list-offsets.js';
import { produceHandler } from '../../../src/handlers/00-produce.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import * as M from '@sluice/protocol/messages/index.js';
import type { AbortedTransaction, OffsetReply, ReadCommand, ReadResult } from '../../../src/partitions/partition-data.js';
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';
import { batch, dataHarnesses, type DataHarness } from './data-harness.js';
import { MemoryPartitions } from './memory-partitions-fixture.js';

const READ_UNCOMMITTED = 0;
const READ_COMMITTED = 1;

/** The in-memory owner, answering read_committed reads with `aborted` and recording ListOffsets' isolation. */
class TransactionalOwner extends MemoryPartitions {
  aborted: AbortedTransaction[] = [];
  readonly listedCommitted: boolean[] = [];

  override async readMany(commands: readonly ReadCommand[]): Promise<ReadResult[]> {
    const results = await super.readMany(commands);
    return results.map((r) => (r.abortedTransactions === null ? r : { ...r, abortedTransactions: this.aborted }));
  }

  override async listOffset(
    ref: TopicPartition,
    currentLeaderEpoch: number,
    timestamp: bigint,
    readCommitted = false,
  ): Promise<OffsetReply> {
    this.listedCommitted.push(readCommitted);
    return super.listOffset(ref, leaderEpochOf(currentLeaderEpoch), timestamp);
  }
}

const fresh = dataHarnesses((d) => assert.equal(d.owner.outstandingLeases, 0, 'every range the owner leased was released'));

async function setUp(owner: TransactionalOwner): Promise<DataHarness> {
  const d = fresh(owner);
  await d.createTopic('t');
  const res = await d.call(produceHandler, M.ProduceRequest, M.ProduceResponse, 9, {
    acks: 1,
    timeoutMs: 1000,
    topicData: [{ name: 't', partitionData: [{ index: 0, records: batch(['a']) }] }],
  });
  assert.equal(res.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.NONE);
  return d;
}

async function abortedOf(d: DataHarness, version: number, isolationLevel: number) {
  const res = await d.call(fetchHandler, M.FetchRequest, M.FetchResponse, version, {
    replicaId: -1,
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 1 << 20,
    isolationLevel,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [
      {
        topic: 't',
        topicId: d.h.cluster.metadata.topic('t')!.topicId,
        partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }],
      },
    ],
  });
  return res.responses[0]!.partitions[0]!.abortedTransactions;
}

describe('isolation levels', () => {
  test('Fetch: read_committed answers the aborted transactions ([] for none), read_uncommitted null', async () => {
    const owner = new TransactionalOwner();
    const d = await setUp(owner);
    for (const v of [4, 12, 13, 17]) {
      owner.aborted = [];
      assert.deepEqual(await abortedOf(d, v, READ_COMMITTED), [], `v${v}`);
      owner.aborted = [
        { producerId: 7n, firstOffset: offsetOf(0n) },
        { producerId: 9n, firstOffset: offsetOf(2n) },
      ];
      assert.deepEqual(
        await abortedOf(d, v, READ_COMMITTED),
        [
          { producerId: 7n, firstOffset: 0n },
          { producerId: 9n, firstOffset: 2n },
        ],
        `v${v}`,
      );
      assert.equal(await abortedOf(d, v, READ_UNCOMMITTED), null, `v${v}`);
    }
  });

  test('ListOffsets: LATEST is asked at the request isolation level', async () => {
    const owner = new TransactionalOwner();
    const d = await setUp(owner);
    for (const isolationLevel of [READ_COMMITTED, READ_UNCOMMITTED]) {
      const res = await d.call(listOffsetsHandler, M.ListOffsetsRequest, M.ListOffsetsResponse, 5, {
        replicaId: -1,
        isolationLevel,
        topics: [{ name: 't', partitions: [{ partitionIndex: 0, timestamp: -1n }] }],
      });
      assert.equal(res.topics[0]!.partitions[0]!.offset, 1n);
    }
    assert.deepEqual(owner.listedCommitted, [true, false]);
  });
});
