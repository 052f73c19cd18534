/**
 * The differential harness over a transaction's life: InitProducerId with a transactional id,
 * AddPartitionsToTxn (with a bad partition and an unknown topic), a transactional Produce,
 * AddOffsetsToTxn, TxnOffsetCommit, DescribeTransactions and ListTransactions while it is open,
 * EndTxn with a stale epoch and then for real, and the descriptions after. Each API at the
 * lowest, a middle and the highest version both brokers serve; the nth version of every API works
 * on the nth transactional id, so each walks a whole transaction.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KAFKA_VERSION } from '../../tools/kafka/kafka-release.js';
import { javaSkip } from '../helpers/requirements.js';
import * as M from '@sluice/protocol/messages/index.js';
import { encodeRecordBatch } from '@sluice/protocol/records/index.js';
import { createServedTopic, initProducer } from '../helpers/compat-setup.js';
import { differentialRun, step, type Scenario, type Vars } from '../helpers/differential.js';
import { awaitCoordinator } from '../helpers/offset-wire.js';
import type { MaskRule } from '../helpers/response-diff.js';
import { wireCall } from '../helpers/wire-call.js';

const TOPIC = 'compat-txn';
const GROUP = 'compat-txn-group';
const MISSING = 'compat-never-created';
const UNKNOWN_TXN = 'compat-no-such-txn';
const TIMEOUT_MS = 60_000;

const PRODUCER_MASK: readonly MaskRule[] = [
  { path: '**.producerId', treat: 'kind', why: 'each broker allocates its own producer ids' },
  { path: '**.transactionStartTimeMs', treat: 'kind', why: 'each broker’s own clock' },
];

const txnOf = (i: number): string => `compat-txn-${i}`;
const producerOf = (vars: Vars, i: number): { producerId: bigint; producerEpoch: number } => ({
  producerId: (vars.get(`pid-${i}`) as bigint | undefined) ?? -1n,
  producerEpoch: (vars.get(`epoch-${i}`) as number | undefined) ?? -1,
});

function addPartitions(
  v: number,
  vars: Vars,
  i: number,
  topics: M.AddPartitionsToTxnRequestAddPartitionsToTxnTopicInput[],
): M.AddPartitionsToTxnRequestDataInput {
  const { producerId, producerEpoch } = producerOf(vars, i);
  return v >= 4
    ? { transactions: [{ transactionalId: txnOf(i), producerId, producerEpoch, verifyOnly: false, topics }] }
    : {
        v3AndBelowTransactionalId: txnOf(i),
        v3AndBelowProducerId: producerId,
        v3AndBelowProducerEpoch: producerEpoch,
        v3AndBelowTopics: topics,
      };
}

function transactionScenario(): Scenario {
  const describe = (label: string) =>
    step({
      label,
      request: M.DescribeTransactionsRequest,
      response: M.DescribeTransactionsResponse,
      versions: 'spread',
      mask: PRODUCER_MASK,
      unordered: ['transactionStates[].topics', 'transactionStates[].topics[].partitions'],
      body: () => ({ transactionalIds: [txnOf(0), txnOf(1), txnOf(2), UNKNOWN_TXN] }),
      settled: (r) => r.transactionStates.every((t) => !t.transactionState.startsWith('Prepare')),
    });
  const list = (label: string, stateFilters: string[]) =>
    step({
      label,
      request: M.ListTransactionsRequest,
      response: M.ListTransactionsResponse,
      versions: 'spread',
      mask: PRODUCER_MASK,
      unordered: ['transactionStates'],
      body: (v) => ({
        stateFilters,
        producerIdFilters: [],
        ...(v >= 1 ? { durationFilter: -1n } : {}),
        ...(v >= 2 ? { transactionalIdPattern: 'compat-txn-.*' } : {}),
      }),
    });
  const endTxn = (label: string, epochOffset: number) =>
    step({
      label,
      request: M.EndTxnRequest,
      response: M.EndTxnResponse,
      versions: 'spread',
      mask: PRODUCER_MASK,
      body: (_v, vars, i) => ({
        transactionalId: txnOf(i),
        ...producerOf(vars, i),
        producerEpoch: producerOf(vars, i).producerEpoch + epochOffset,
        committed: true,
      }),
    });
  return {
    name: 'A transaction’s life: init, add partitions and offsets, produce, commit offsets, describe, list, end',
    setup: async (bootstrap, vars) => {
      vars.set('topicId', await createServedTopic(bootstrap, TOPIC, 2));
      await awaitCoordinator(bootstrap, GROUP);
      // The transaction coordinator is ready once a transactional id gets a producer id.
      await initProducer(bootstrap, 'compat-txn-warmup');
    },
    steps: [
      step({
        label: 'a transactional id',
        request: M.InitProducerIdRequest,
        response: M.InitProducerIdResponse,
        versions: 'spread',
        mask: PRODUCER_MASK,
        body: (_v, _vars, i) => ({ transactionalId: txnOf(i), transactionTimeoutMs: TIMEOUT_MS }),
        keep: (r, vars, i) => {
          vars.set(`pid-${i}`, r.producerId);
          vars.set(`epoch-${i}`, r.producerEpoch);
        },
      }),
      step({
        label: 'a bad partition and an unknown topic next to a good partition',
        request: M.AddPartitionsToTxnRequest,
        response: M.AddPartitionsToTxnResponse,
        versions: [0, 3],
        mask: PRODUCER_MASK,
        unordered: ['**.results', '**.resultsByTopicV3AndBelow', '**.resultsByPartition'],
        body: (v, vars, i) =>
          addPartitions(v, vars, i, [
            { name: TOPIC, partitions: [0, 9] },
            { name: MISSING, partitions: [0] },
          ]),
      }),
      step({
        label: 'both partitions',
        request: M.AddPartitionsToTxnRequest,
        response: M.AddPartitionsToTxnResponse,
        versions: [0, 3],
        mask: PRODUCER_MASK,
        unordered: ['**.resultsByTopicV3AndBelow', '**.resultsByPartition'],
        body: (v, vars, i) => addPartitions(v, vars, i, [{ name: TOPIC, partitions: [0, 1] }]),
      }),
      step({
        label: 'a transactional batch',
        request: M.ProduceRequest,
        response: M.ProduceResponse,
        versions: [9],
        body: (_v, vars) => ({
          transactionalId: txnOf(0),
          acks: -1,
          timeoutMs: 10_000,
          topicData: [
            {
              name: TOPIC,
              partitionData: [
                {
                  index: 0,
                  records: encodeRecordBatch({
                    ...producerOf(vars, 0),
                    baseSequence: 0,
                    isTransactional: true,
                    records: [{ key: null, value: Buffer.from('in a transaction'), timestamp: 1_700_000_000_000n }],
                  }),
                },
              ],
            },
          ],
        }),
      }),
      step({
        label: 'the group’s offsets',
        request: M.AddOffsetsToTxnRequest,
        response: M.AddOffsetsToTxnResponse,
        versions: 'spread',
        body: (_v, vars, i) => ({ transactionalId: txnOf(i), ...producerOf(vars, i), groupId: GROUP }),
      }),
      step({
        label: 'offsets of a partition, a bad partition and an unknown topic',
        request: M.TxnOffsetCommitRequest,
        response: M.TxnOffsetCommitResponse,
        versions: 'spread',
        body: (v, vars, i) => ({
          transactionalId: txnOf(i),
          groupId: GROUP,
          ...producerOf(vars, i),
          topics: [
            {
              ...(v >= 6 ? { topicId: vars.get('topicId') as string } : { name: TOPIC }),
              partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: '' }],
            },
            ...(v >= 6 ? [] : [{ name: MISSING, partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: '' }] }]),
          ],
        }),
      }),
      describe('the open transactions and an unknown id'),
      list('the ongoing transactions', ['Ongoing']),
      endTxn('a commit with a stale epoch', -1),
      endTxn('a commit', 0),
      describe('the transactions after their end'),
      list('every transaction', []),
    ],
  };
}

function producerFencingScenario(): Scenario {
  const txn = 'compat-txn-fenced';
  return {
    name: 'A transactional id initialized twice: the first producer is fenced',
    setup: async (bootstrap, vars) => {
      await createServedTopic(bootstrap, `${TOPIC}-fenced`, 1);
      const first = await initProducer(bootstrap, txn);
      vars.set('first', first);
      await wireCall(bootstrap, M.InitProducerIdRequest, M.InitProducerIdResponse, 4, {
        transactionalId: txn,
        transactionTimeoutMs: TIMEOUT_MS,
      });
    },
    steps: [
      step({
        label: 'add a partition as the fenced producer',
        request: M.AddPartitionsToTxnRequest,
        response: M.AddPartitionsToTxnResponse,
        versions: [0, 1, 2, 3],
        body: (_v, vars) => {
          const first = vars.get('first') as { producerId: bigint; producerEpoch: number };
          return {
            v3AndBelowTransactionalId: txn,
            v3AndBelowProducerId: first.producerId,
            v3AndBelowProducerEpoch: first.producerEpoch,
            v3AndBelowTopics: [{ name: `${TOPIC}-fenced`, partitions: [0] }],
          };
        },
      }),
      step({
        label: 'add the group’s offsets as the fenced producer',
        request: M.AddOffsetsToTxnRequest,
        response: M.AddOffsetsToTxnResponse,
        versions: [0, 1, 2, 4],
        body: (_v, vars) => ({
          transactionalId: txn,
          ...(vars.get('first') as { producerId: bigint; producerEpoch: number }),
          groupId: GROUP,
        }),
      }),
      step({
        label: 'end the transaction as the fenced producer',
        request: M.EndTxnRequest,
        response: M.EndTxnResponse,
        versions: [0, 1, 2, 5],
        mask: PRODUCER_MASK,
        body: (_v, vars) => ({
          transactionalId: txn,
          ...(vars.get('first') as { producerId: bigint; producerEpoch: number }),
          committed: false,
        }),
      }),
      step({
        label: 'init again as the fenced producer',
        request: M.InitProducerIdRequest,
        response: M.InitProducerIdResponse,
        versions: [3, 4, 6],
        mask: PRODUCER_MASK,
        body: (_v, vars) => ({
          transactionalId: txn,
          transactionTimeoutMs: TIMEOUT_MS,
          ...(vars.get('first') as { producerId: bigint; producerEpoch: number }),
        }),
      }),
    ],
  };
}

function readCommittedScenario(): Scenario {
  const topic = `${TOPIC}-read-committed`;
  const txn = 'compat-txn-aborted';
  const listOffsets = (label: string) =>
    step({
      label,
      request: M.ListOffsetsRequest,
      response: M.ListOffsetsResponse,
      versions: [2, 6, 10],
      body: () => ({ replicaId: -1, isolationLevel: 1, topics: [{ name: topic, partitions: [{ partitionIndex: 0, timestamp: -1n }] }] }),
    });
  const fetch = (label: string) =>
    step({
      label,
      request: M.FetchRequest,
      response: M.FetchResponse,
      versions: 'spread',
      mask: [
        ...PRODUCER_MASK,
        // The batches carry each broker's producer id and the marker its coordinator's clock.
        { path: 'responses[].partitions[].records', treat: 'kind', why: 'the batches hold each broker’s producer id and marker time' },
      ],
      body: (v, vars) => ({
        replicaId: -1,
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes: 1 << 20,
        isolationLevel: 1,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [
          {
            ...(v >= 13 ? { topicId: vars.get('topicId') as string } : { topic }),
            partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }],
          },
        ],
      }),
    });
  return {
    name: 'An open, then aborted transaction as read_committed consumers see it: ListOffsets, Fetch, DescribeProducers',
    setup: async (bootstrap, vars) => {
      vars.set('topicId', await createServedTopic(bootstrap, topic, 1));
      const producer = await initProducer(bootstrap, txn);
      vars.set('producer', producer);
      await wireCall(bootstrap, M.AddPartitionsToTxnRequest, M.AddPartitionsToTxnResponse, 3, {
        v3AndBelowTransactionalId: txn,
        v3AndBelowProducerId: producer.producerId,
        v3AndBelowProducerEpoch: producer.producerEpoch,
        v3AndBelowTopics: [{ name: topic, partitions: [0] }],
      });
      await wireCall(bootstrap, M.ProduceRequest, M.ProduceResponse, 9, {
        transactionalId: txn,
        acks: -1,
        timeoutMs: 10_000,
        topicData: [
          {
            name: topic,
            partitionData: [
              {
                index: 0,
                records: encodeRecordBatch({
                  ...producer,
                  baseSequence: 0,
                  isTransactional: true,
                  records: [{ key: null, value: Buffer.from('to be aborted'), timestamp: 1_700_000_000_000n }],
                }),
              },
            ],
          },
        ],
      });
    },
    steps: [
      listOffsets('the last stable offset while the transaction is open'),
      fetch('read_committed while the transaction is open'),
      step({
        label: 'the producer with its open transaction',
        request: M.DescribeProducersRequest,
        response: M.DescribeProducersResponse,
        versions: 'spread',
        mask: [...PRODUCER_MASK, { path: '**.lastTimestamp', treat: 'kind', why: 'written at each broker’s now' }],
        body: () => ({ topics: [{ name: topic, partitionIndexes: [0] }] }),
      }),
      step({
        label: 'abort',
        request: M.EndTxnRequest,
        response: M.EndTxnResponse,
        versions: [3],
        mask: PRODUCER_MASK,
        body: (_v, vars) => ({
          transactionalId: txn,
          ...(vars.get('producer') as { producerId: bigint; producerEpoch: number }),
          committed: false,
        }),
      }),
      step({
        label: 'the aborted transaction',
        request: M.DescribeTransactionsRequest,
        response: M.DescribeTransactionsResponse,
        versions: 'spread',
        mask: PRODUCER_MASK,
        body: () => ({ transactionalIds: [txn] }),
        settled: (r) => r.transactionStates.every((t) => t.transactionState === 'CompleteAbort'),
      }),
      listOffsets('the last stable offset after the abort'),
      fetch('read_committed after the abort: the aborted transactions'),
    ],
  };
}

const SCENARIOS = [transactionScenario(), producerFencingScenario(), readCommittedScenario()];

describe(`Transactions, Sluice against Apache Kafka ${KAFKA_VERSION}`, { skip: javaSkip() }, () => {
  const run = differentialRun(SCENARIOS);
  for (const scenario of SCENARIOS) {
    test(scenario.name, () => {
      const { sluiceAsked, kafkaAsked, differences } = run.compare(scenario);
      assert.deepEqual(sluiceAsked, kafkaAsked, 'both brokers were asked the same questions');
      assert.deepEqual(differences, []);
    });
  }
});
