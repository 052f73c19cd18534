/**
 * The transaction handlers over the in-memory partition owner, a `__transaction_state` in memory
 * and the broker's own marker writes: InitProducerId with a transactional id (fencing by epoch),
 * Produce of transactional batches verified with the coordinator (KIP-890: refused until the
 * partition is in the transaction on transaction version 1, added for the producer on version 2),
 * AddPartitionsToTxn for partitions that do not exist, EndTxn writing the markers (and, on version
 * 2, answering the bumped epoch), TxnOffsetCommit adding or verifying the group's partition,
 * WriteTxnMarkers, DescribeTransactions and ListTransactions, and the features in ApiVersions.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { produceHandler } from '../../../src/handlers/00-produce.js';
import { apiVersionsHandler } from '../../../src/handlers/18-api-versions.js';
import { initProducerIdHandler } from '../../../src/handlers/22-init-producer-id.js';
import { addPartitionsToTxnHandler } from '../../../src/handlers/24-add-partitions-to-txn.js';
import { endTxnHandler } from '../../../src/handlers/26-end-txn.js';
import { writeTxnMarkersHandler } from '../../../src/handlers/27-write-txn-markers.js';
import { txnOffsetCommitHandler } from '../../../src/handlers/28-txn-offset-commit.js';
import { describeTransactionsHandler } from '../../../src/handlers/65-describe-transactions.js';
import { listTransactionsHandler } from '../../../src/handlers/66-list-transactions.js';
import { writeMarkers } from '../../../src/handlers/txn-marker-writes.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import * as M from '@sluice/protocol/messages/index.js';
import { encodeRecordBatch, isControl, readBatchHeader } from '@sluice/protocol/records/index.js';
import { MemoryPartitions, memoryOffsetsLog } from '../coordinator/runtime/memory-partitions.js';
import { MemoryLog } from '../coordinator/transaction/harness.js';
import { dataHarnesses, type DataHarness } from './data-harness.js';
import { waitFor, when } from '../../helpers/wait-for.js';

const {
  NONE,
  INVALID_TXN_STATE,
  TRANSACTION_ABORTABLE,
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
  INVALID_PRODUCER_ID_MAPPING,
  UNKNOWN_TOPIC_OR_PARTITION,
  OPERATION_NOT_ATTEMPTED,
  INVALID_REQUEST,
} = ErrorCode;

const fresh = dataHarnesses();

/** A harness whose transaction coordinator writes its markers through the handlers' own path, as the broker wires it. */
function txnHarness(): DataHarness {
  const d: DataHarness = fresh(undefined, {
    groupLog: memoryOffsetsLog(new MemoryPartitions()),
    transactionLog: new MemoryLog(),
    markers: { write: (marker) => writeMarkers(d.h.cluster, marker) },
  });
  return d;
}

async function initProducer(d: DataHarness, transactionalId: string): Promise<{ producerId: bigint; producerEpoch: number }> {
  const res = await d.call(initProducerIdHandler, M.InitProducerIdRequest, M.InitProducerIdResponse, 4, {
    transactionalId,
    transactionTimeoutMs: 60_000,
    producerId: -1n,
    producerEpoch: -1,
  });
  assert.equal(res.errorCode, NONE);
  return res;
}

function transactionalBatch(p: { producerId: bigint; producerEpoch: number }, baseSequence: number, values: readonly string[]): Buffer {
  return encodeRecordBatch({
    ...p,
    baseSequence,
    isTransactional: true,
    records: values.map((v) => ({ key: null, value: Buffer.from(v), headers: [], timestamp: 1n })),
  });
}

async function produce(
  d: DataHarness,
  version: number,
  transactionalId: string | null,
  partitions: Array<[string, number, Buffer]>,
): Promise<number[]> {
  const res = await d.call(produceHandler, M.ProduceRequest, M.ProduceResponse, version, {
    acks: -1,
    timeoutMs: 1000,
    transactionalId,
    topicData: [...new Set(partitions.map(([t]) => t))].map((name) => ({
      name,
      partitionData: partitions.filter(([t]) => t === name).map(([, index, records]) => ({ index, records })),
    })),
  });
  return res.responses.flatMap((t) => t.partitionResponses.map((p) => p.errorCode));
}

async function addPartitions(
  d: DataHarness,
  transactionalId: string,
  p: { producerId: bigint; producerEpoch: number },
  topics: Array<{ name: string; partitions: number[] }>,
) {
  const res = await d.call(addPartitionsToTxnHandler, M.AddPartitionsToTxnRequest, M.AddPartitionsToTxnResponse, 3, {
    v3AndBelowTransactionalId: transactionalId,
    v3AndBelowProducerId: p.producerId,
    v3AndBelowProducerEpoch: p.producerEpoch,
    v3AndBelowTopics: topics,
  });
  return res.resultsByTopicV3AndBelow.flatMap((t) => t.resultsByPartition.map((r) => [t.name, r.partitionIndex, r.partitionErrorCode]));
}

async function describeTxn(d: DataHarness, transactionalId: string) {
  const res = await d.call(describeTransactionsHandler, M.DescribeTransactionsRequest, M.DescribeTransactionsResponse, 0, {
    transactionalIds: [transactionalId],
  });
  return res.transactionStates[0]!;
}

/** Polls DescribeTransactions until the transaction reaches `state` (markers are written after EndTxn answers). */
async function awaitState(d: DataHarness, transactionalId: string, state: string): Promise<void> {
  const reached = await waitFor(
    `${transactionalId} to reach ${state}`,
    5000,
    async () => when((await describeTxn(d, transactionalId)).transactionState === state),
    20,
  ).catch(() => false);
  if (reached !== true)
    assert.fail(`${transactionalId} never reached ${state}: ${(await describeTxn(d, transactionalId)).transactionState}`);
}

const controlBatches = (d: DataHarness, topic: string, partition: number): number =>
  d.owner.batchesOf({ topic, partition }).filter((b) => isControl(readBatchHeader(b, 0)!.attributes)).length;

describe('transactions', () => {
  test('ApiVersions v3+ finalizes transaction.version 2, group.version 1 and share.version 2 (Kafka 4.4)', async () => {
    const d = fresh();
    const res = await d.call(apiVersionsHandler, M.ApiVersionsRequest, M.ApiVersionsResponse, 3, {
      clientSoftwareName: 'test',
      clientSoftwareVersion: '1',
    });
    assert.deepEqual(
      res.finalizedFeatures.map((f) => [f.name, f.minVersionLevel, f.maxVersionLevel]),
      [
        ['group.version', 1, 1],
        ['share.version', 2, 2],
        ['transaction.version', 2, 2],
      ],
    );
    assert.ok(res.finalizedFeaturesEpoch >= 0n, 'clients read the features only from an epoch they have not seen (-1 initially)');
    assert.deepEqual(
      res.supportedFeatures.find((f) => f.name === 'transaction.version'),
      { name: 'transaction.version', minVersion: 0, maxVersion: 2 },
    );
  });

  test('InitProducerId with a transactional id: a new id at epoch 0, then the next epoch fences the older instance; an empty id is refused', async () => {
    const d = txnHarness();
    const first = await initProducer(d, 'app');
    assert.equal(first.producerEpoch, 0);
    const second = await initProducer(d, 'app');
    assert.deepEqual([second.producerId, second.producerEpoch], [first.producerId, 1]);
    const empty = await d.call(initProducerIdHandler, M.InitProducerIdRequest, M.InitProducerIdResponse, 4, {
      transactionalId: '',
      transactionTimeoutMs: 60_000,
      producerId: -1n,
      producerEpoch: -1,
    });
    assert.equal(empty.errorCode, INVALID_REQUEST);
  });

  test('Produce v9 (transaction version 1): a transactional batch is refused until AddPartitionsToTxn adds its partition, then appended', async () => {
    const d = txnHarness();
    await d.createTopic('t', 2);
    const p = await initProducer(d, 'tv1');
    // TRANSACTION_ABORTABLE reaches producers before Produce v11 as INVALID_TXN_STATE.
    assert.deepEqual(await produce(d, 9, 'tv1', [['t', 0, transactionalBatch(p, 0, ['a'])]]), [INVALID_TXN_STATE]);
    assert.deepEqual(await produce(d, 11, 'tv1', [['t', 0, transactionalBatch(p, 0, ['a'])]]), [TRANSACTION_ABORTABLE]);
    assert.deepEqual(d.owner.batchesOf({ topic: 't', partition: 0 }), []);
    assert.deepEqual(await addPartitions(d, 'tv1', p, [{ name: 't', partitions: [0] }]), [['t', 0, NONE]]);
    assert.deepEqual(await produce(d, 9, 'tv1', [['t', 0, transactionalBatch(p, 0, ['a', 'b'])]]), [NONE]);
    assert.equal(d.owner.batchesOf({ topic: 't', partition: 0 }).length, 1);
    const described = await describeTxn(d, 'tv1');
    assert.equal(described.transactionState, 'Ongoing');
    assert.deepEqual(
      described.topics.map((t) => [t.topic, t.partitions]),
      [['t', [0]]],
    );
  });

  test('Produce v12 (transaction version 2): the partition is added for the producer', async () => {
    const d = txnHarness();
    await d.createTopic('t', 2);
    const p = await initProducer(d, 'tv2');
    assert.deepEqual(
      await produce(d, 12, 'tv2', [
        ['t', 0, transactionalBatch(p, 0, ['a'])],
        ['t', 1, transactionalBatch(p, 0, ['b'])],
      ]),
      [NONE, NONE],
    );
    assert.deepEqual(
      (await describeTxn(d, 'tv2')).topics.map((t) => [t.topic, t.partitions]),
      [['t', [0, 1]]],
    );
  });

  test('Produce: transactional batches need the transactional id and a single producer', async () => {
    const d = txnHarness();
    await d.createTopic('t', 2);
    const p = await initProducer(d, 'one');
    assert.deepEqual(await produce(d, 12, null, [['t', 0, transactionalBatch(p, 0, ['a'])]]), [TRANSACTIONAL_ID_AUTHORIZATION_FAILED]);
    const other = { producerId: p.producerId + 1n, producerEpoch: 0 };
    assert.deepEqual(
      await produce(d, 12, 'one', [
        ['t', 0, transactionalBatch(p, 0, ['a'])],
        ['t', 1, transactionalBatch(other, 0, ['b'])],
      ]),
      [INVALID_PRODUCER_ID_MAPPING, INVALID_PRODUCER_ID_MAPPING],
    );
  });

  test('AddPartitionsToTxn: a partition that does not exist is UNKNOWN_TOPIC_OR_PARTITION, the others OPERATION_NOT_ATTEMPTED', async () => {
    const d = txnHarness();
    await d.createTopic('t', 1);
    const p = await initProducer(d, 'missing');
    assert.deepEqual(
      await addPartitions(d, 'missing', p, [
        { name: 't', partitions: [0, 5] },
        { name: 'nope', partitions: [0] },
      ]),
      [
        ['t', 0, OPERATION_NOT_ATTEMPTED],
        ['t', 5, UNKNOWN_TOPIC_OR_PARTITION],
        ['nope', 0, UNKNOWN_TOPIC_OR_PARTITION],
      ],
    );
  });

  test('EndTxn v5 commits: the answer carries the bumped epoch, a marker lands in each partition, the transaction completes', async () => {
    const d = txnHarness();
    await d.createTopic('t', 2);
    const p = await initProducer(d, 'commit');
    assert.deepEqual(
      await produce(d, 12, 'commit', [
        ['t', 0, transactionalBatch(p, 0, ['a'])],
        ['t', 1, transactionalBatch(p, 0, ['b'])],
      ]),
      [NONE, NONE],
    );
    const end = await d.call(endTxnHandler, M.EndTxnRequest, M.EndTxnResponse, 5, {
      transactionalId: 'commit',
      producerId: p.producerId,
      producerEpoch: p.producerEpoch,
      committed: true,
    });
    assert.deepEqual([end.errorCode, end.producerId, end.producerEpoch], [NONE, p.producerId, p.producerEpoch + 1]);
    await awaitState(d, 'commit', 'CompleteCommit');
    assert.deepEqual([controlBatches(d, 't', 0), controlBatches(d, 't', 1)], [1, 1]);
    const listed = await d.call(listTransactionsHandler, M.ListTransactionsRequest, M.ListTransactionsResponse, 1, {
      stateFilters: ['CompleteCommit'],
      producerIdFilters: [],
      durationFilter: -1n,
    });
    assert.deepEqual(
      listed.transactionStates.map((t) => t.transactionalId),
      ['commit'],
    );
  });

  test('a fenced producer gets PRODUCER_FENCED from the versions that know it, INVALID_PRODUCER_EPOCH before (KIP-588)', async () => {
    const d = txnHarness();
    await d.createTopic('t', 1);
    const first = await initProducer(d, 'fenced');
    await initProducer(d, 'fenced');
    const ask = { transactionalId: 'fenced', producerId: first.producerId, producerEpoch: first.producerEpoch };
    const endTxn = async (v: number) =>
      (await d.call(endTxnHandler, M.EndTxnRequest, M.EndTxnResponse, v, { ...ask, committed: false })).errorCode;
    assert.deepEqual([await endTxn(1), await endTxn(2)], [ErrorCode.INVALID_PRODUCER_EPOCH, ErrorCode.PRODUCER_FENCED]);
    const addPartitions = async (v: number) =>
      (
        await d.call(addPartitionsToTxnHandler, M.AddPartitionsToTxnRequest, M.AddPartitionsToTxnResponse, v, {
          v3AndBelowTransactionalId: 'fenced',
          v3AndBelowProducerId: first.producerId,
          v3AndBelowProducerEpoch: first.producerEpoch,
          v3AndBelowTopics: [{ name: 't', partitions: [0] }],
        })
      ).resultsByTopicV3AndBelow[0]!.resultsByPartition[0]!.partitionErrorCode;
    assert.deepEqual([await addPartitions(1), await addPartitions(2)], [ErrorCode.INVALID_PRODUCER_EPOCH, ErrorCode.PRODUCER_FENCED]);
    const reinit = async (v: number) =>
      (await d.call(initProducerIdHandler, M.InitProducerIdRequest, M.InitProducerIdResponse, v, { ...ask, transactionTimeoutMs: 60_000 }))
        .errorCode;
    assert.deepEqual([await reinit(3), await reinit(4)], [ErrorCode.INVALID_PRODUCER_EPOCH, ErrorCode.PRODUCER_FENCED]);
  });

  test('TxnOffsetCommit v5 adds the group partition to the transaction (no AddOffsetsToTxn on version 2); v3 is refused without it', async () => {
    const d = txnHarness();
    await d.createTopic('t', 1);
    const p = await initProducer(d, 'offsets');
    const commit = (version: number) =>
      d.call(txnOffsetCommitHandler, M.TxnOffsetCommitRequest, M.TxnOffsetCommitResponse, version, {
        transactionalId: 'offsets',
        groupId: 'g',
        producerId: p.producerId,
        producerEpoch: p.producerEpoch,
        generationIdOrMemberEpoch: -1,
        memberId: '',
        groupInstanceId: null,
        topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
      });
    const codes = (res: M.TxnOffsetCommitResponseData): number[] => res.topics.flatMap((t) => t.partitions.map((x) => x.errorCode));
    assert.deepEqual(codes(await commit(3)), [INVALID_TXN_STATE]);
    assert.deepEqual(codes(await commit(5)), [NONE]);
    assert.deepEqual(
      (await describeTxn(d, 'offsets')).topics.map((t) => t.topic),
      ['__consumer_offsets'],
    );
  });

  test('WriteTxnMarkers answers a partition that does not exist with UNKNOWN_TOPIC_OR_PARTITION', async () => {
    const d = txnHarness();
    const res = await d.call(writeTxnMarkersHandler, M.WriteTxnMarkersRequest, M.WriteTxnMarkersResponse, 2, {
      markers: [
        {
          producerId: 1n,
          producerEpoch: 0,
          transactionResult: true,
          coordinatorEpoch: 0,
          transactionVersion: 2,
          topics: [{ name: 'nope', partitionIndexes: [0] }],
        },
      ],
    });
    assert.deepEqual(
      res.markers[0]!.topics.map((t) => [t.name, t.partitions.map((x) => [x.partitionIndex, x.errorCode])]),
      [['nope', [[0, UNKNOWN_TOPIC_OR_PARTITION]]]],
    );
  });
});
