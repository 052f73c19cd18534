/**
 * The differential harness over the data path: Produce, Fetch, ListOffsets, Metadata,
 * DescribeTopicPartitions, OffsetForLeaderEpoch, DeleteRecords, InitProducerId and
 * DescribeProducers, each at the lowest, a middle and the highest version both brokers serve,
 * with the error cases a client meets: unknown topic or id, bad partition, wrong leader epoch,
 * offsets out of range, oversize batches, bad acks, idempotent sequence gaps and stale epochs,
 * record validation, fetch sessions, auto-creation. Intended differences are masked with the
 * reason in docs/guides/compatibility.md.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KAFKA_VERSION } from '../../tools/kafka/kafka-release.js';
import { javaSkip } from '../helpers/requirements.js';
import * as M from '@sluice/protocol/messages/index.js';
import { encodeRecordBatch } from '@sluice/protocol/records/index.js';
import { INTENDED, differentialRun, step, type Scenario, type Vars } from '../helpers/differential.js';
import { createServedTopic, initProducer } from '../helpers/compat-setup.js';
import { NO_SUCH_TOPIC_ID } from '../helpers/offset-wire.js';
import { wireCall } from '../helpers/wire-call.js';

/** A fixed timestamp, so that stored batches (and what Fetch returns) are byte-identical. */
const TIMESTAMP = 1_700_000_000_000n;
const MISSING = 'compat-never-created';
/** Over the default max.message.bytes (1048588) on both. */
const OVERSIZE = 1_100_000;

const batch = (
  value: string | Buffer,
  extra: { producerId?: bigint; producerEpoch?: number; baseSequence?: number } = {},
  timestamp = TIMESTAMP,
): Buffer =>
  encodeRecordBatch({ ...extra, records: [{ key: null, value: typeof value === 'string' ? Buffer.from(value) : value, timestamp }] });

const topicIdOf = (vars: Vars): string => vars.get('topicId') as string;

/** A topic by name before Produce/Fetch v13, by id from it. */
const produceTopic = (v: number, name: string, vars: Vars) =>
  v >= 13 ? { topicId: name === MISSING ? NO_SUCH_TOPIC_ID : topicIdOf(vars) } : { name };
const fetchTopic = (v: number, name: string, vars: Vars) =>
  v >= 13 ? { topicId: name === MISSING ? NO_SUCH_TOPIC_ID : topicIdOf(vars) } : { topic: name };

async function seeded(bootstrap: string, vars: Vars, topic: string, partitions: number): Promise<void> {
  vars.set('topicId', await createServedTopic(bootstrap, topic, partitions));
  await wireCall(bootstrap, M.ProduceRequest, M.ProduceResponse, 9, {
    acks: -1,
    timeoutMs: 10_000,
    topicData: [
      { name: topic, partitionData: Array.from({ length: partitions }, (_, index) => ({ index, records: batch(`seed-${index}`) })) },
    ],
  });
}

const PRODUCE_ORDER = ['**.responses', '**.partitionResponses'];

function produceScenario(): Scenario {
  const topic = 'compat-produce';
  const produce = (label: string, acks: number, parts: (v: number, vars: Vars) => M.ProduceRequestTopicProduceDataInput[]) =>
    step({
      label,
      request: M.ProduceRequest,
      response: M.ProduceResponse,
      versions: 'spread',
      unordered: PRODUCE_ORDER,
      body: (v, vars) => ({ acks, timeoutMs: 10_000, topicData: parts(v, vars) }),
    });
  return {
    name: 'Produce: records, a bad partition, an unknown topic, an oversize batch, bad acks',
    setup: async (bootstrap, vars) => vars.set('topicId', await createServedTopic(bootstrap, topic, 2)),
    steps: [
      produce('one record to each partition and one to a partition the topic lacks', -1, (v, vars) => [
        { ...produceTopic(v, topic, vars), partitionData: [0, 1, 7].map((index) => ({ index, records: batch(`v${v}-${index}`) })) },
      ]),
      produce('acks=1 to an unknown topic', 1, (v, vars) => [
        { ...produceTopic(v, MISSING, vars), partitionData: [{ index: 0, records: batch('x') }] },
      ]),
      produce('an oversize batch next to a good one', -1, (v, vars) => [
        {
          ...produceTopic(v, topic, vars),
          partitionData: [
            { index: 0, records: batch(Buffer.alloc(OVERSIZE, 1)) },
            { index: 1, records: batch('small') },
          ],
        },
      ]),
      produce('acks=2', 2, (v, vars) => [{ ...produceTopic(v, topic, vars), partitionData: [{ index: 0, records: batch('acks') }] }]),
    ],
  };
}

function idempotenceScenario(): Scenario {
  const topic = 'compat-idempotent';
  const produce = (label: string, batchOf: (p: { producerId: bigint; producerEpoch: number }) => Buffer) =>
    step({
      label,
      request: M.ProduceRequest,
      response: M.ProduceResponse,
      versions: [9],
      body: (_v, vars) => ({
        acks: -1,
        timeoutMs: 10_000,
        topicData: [
          {
            name: topic,
            partitionData: [{ index: 0, records: batchOf(vars.get('producer') as { producerId: bigint; producerEpoch: number }) }],
          },
        ],
      }),
    });
  // The run's start, not the fixed time: a producer whose last batch is a day old goes at either
  // broker's next expiry check. One value for both, as a duplicate is answered with its batch's time.
  const recent = BigInt(Date.now());
  const seq =
    (value: string, baseSequence: number, epochOffset = 0) =>
    (p: { producerId: bigint; producerEpoch: number }) =>
      batch(value, { producerId: p.producerId, producerEpoch: p.producerEpoch + epochOffset, baseSequence }, recent);
  return {
    name: 'Idempotent Produce: in order, a retried duplicate, a gap in the sequence, a stale and a new epoch',
    setup: async (bootstrap, vars) => {
      vars.set('topicId', await createServedTopic(bootstrap, topic, 1));
      vars.set('producer', await initProducer(bootstrap));
    },
    steps: [
      produce('sequence 0', seq('first', 0)),
      produce('sequence 1', seq('second', 1)),
      produce('sequence 1 again: a retry of a batch already written', seq('second', 1)),
      produce('sequence 5: a gap', seq('gap', 5)),
      produce('the next epoch from sequence 0', seq('bumped', 0, 1)),
      produce('the old epoch again', seq('stale', 2)),
    ],
  };
}

function recordValidationScenario(): Scenario {
  const topic = 'compat-validation';
  const compacted = 'compat-validation-compacted';
  const produce = (label: string, name: string, records: () => Buffer) =>
    step({
      label,
      request: M.ProduceRequest,
      response: M.ProduceResponse,
      versions: 'spread',
      body: (v, vars) => ({
        acks: -1,
        timeoutMs: 10_000,
        topicData: [{ ...(v >= 13 ? { topicId: vars.get(name) as string } : { name }), partitionData: [{ index: 0, records: records() }] }],
      }),
    });
  const corrupt = (): Buffer => {
    const b = batch('corrupt me');
    b[b.length - 1]! ^= 0xff;
    return b;
  };
  return {
    name: 'Produce record validation: a bad CRC, a timestamp too far ahead, a null key on a compacted topic',
    setup: async (bootstrap, vars) => {
      vars.set(topic, await createServedTopic(bootstrap, topic, 1));
      vars.set(compacted, await createServedTopic(bootstrap, compacted, 1, [{ name: 'cleanup.policy', value: 'compact' }]));
    },
    steps: [
      produce('a batch whose CRC does not match', topic, corrupt),
      produce('a timestamp a day ahead', topic, () => batch('future', {}, BigInt(Date.now() + 86_400_000))),
      produce('a null key on a compacted topic', compacted, () => batch('no key')),
    ],
  };
}

function fetchScenario(): Scenario {
  const topic = 'compat-fetch';
  const fetch = (
    label: string,
    versions: 'spread' | readonly number[],
    partitions: (v: number) => M.FetchRequestFetchPartitionInput[],
    name = topic,
  ) =>
    step({
      label,
      request: M.FetchRequest,
      response: M.FetchResponse,
      versions,
      body: (v, vars) => ({
        replicaId: -1,
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes: 1 << 20,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [{ ...fetchTopic(v, name, vars), partitions: partitions(v) }],
      }),
    });
  const at = (partition: number, fetchOffset: bigint, currentLeaderEpoch = -1) => ({
    partition,
    fetchOffset,
    partitionMaxBytes: 1 << 20,
    currentLeaderEpoch,
  });
  return {
    name: 'Fetch: records, offset out of range, a bad partition, an unknown topic, a wrong leader epoch',
    setup: (bootstrap, vars) => seeded(bootstrap, vars, topic, 2),
    steps: [
      fetch('both partitions from the start', 'spread', () => [at(0, 0n), at(1, 0n)]),
      fetch('an offset past the end', 'spread', () => [at(0, 100n)]),
      fetch('a partition the topic lacks', 'spread', () => [at(0, 0n), at(9, 0n)]),
      fetch('an unknown topic', 'spread', () => [at(0, 0n)], MISSING),
      fetch('a leader epoch from the future, and the current one', [9, 12, 17], () => [at(0, 0n, 5), at(1, 0n, 0)]),
      step({
        label: 'a response limit smaller than the first batch (KIP-74)',
        request: M.FetchRequest,
        response: M.FetchResponse,
        versions: [4, 11, 18],
        body: (v, vars) => ({
          replicaId: -1,
          maxWaitMs: 0,
          minBytes: 0,
          maxBytes: 10,
          sessionId: 0,
          sessionEpoch: -1,
          topics: [
            {
              ...fetchTopic(v, topic, vars),
              partitions: [
                { partition: 0, fetchOffset: 0n, partitionMaxBytes: 10 },
                { partition: 1, fetchOffset: 0n, partitionMaxBytes: 10 },
              ],
            },
          ],
        }),
      }),
    ],
  };
}

function fetchSessionScenario(): Scenario {
  const topic = 'compat-fetch-session';
  const fetch = (
    label: string,
    session: (vars: Vars, i: number) => { sessionId: number; sessionEpoch: number },
    partitions: M.FetchRequestFetchPartitionInput[],
    keep = false,
  ) =>
    step({
      label,
      request: M.FetchRequest,
      response: M.FetchResponse,
      versions: [7, 12, 17],
      mask: [{ path: 'sessionId', treat: 'kind', why: 'each broker numbers its own fetch sessions' }],
      body: (v, vars, i) => ({
        replicaId: -1,
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes: 1 << 20,
        ...session(vars, i),
        topics: partitions.length === 0 ? [] : [{ ...fetchTopic(v, topic, vars), partitions }],
      }),
      keep: keep ? (r, vars, i) => vars.set(`session-${i}`, r.sessionId) : undefined,
    });
  const at = (partition: number, fetchOffset: bigint) => ({ partition, fetchOffset, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1 });
  const session = (epoch: number) => (vars: Vars, i: number) => ({ sessionId: vars.get(`session-${i}`) as number, sessionEpoch: epoch });
  return {
    name: 'Fetch sessions (KIP-227): a new session, an incremental fetch with nothing new, a wrong epoch, an unknown session, a closed one',
    setup: (bootstrap, vars) => seeded(bootstrap, vars, topic, 2),
    steps: [
      fetch('a new session over both partitions', () => ({ sessionId: 0, sessionEpoch: 0 }), [at(0, 0n), at(1, 0n)], true),
      fetch('an incremental fetch from the end: nothing has changed', session(1), [at(0, 1n), at(1, 1n)]),
      fetch('an incremental fetch naming no partition', session(2), []),
      fetch('a wrong session epoch', session(7), []),
      fetch('an unknown session', () => ({ sessionId: 123_456_789, sessionEpoch: 1 }), []),
      fetch('closing the session, fetching without one', session(-1), [at(0, 0n)]),
    ],
  };
}

function listOffsetsScenario(): Scenario {
  const topic = 'compat-list-offsets';
  const list = (
    label: string,
    versions: 'spread' | readonly number[],
    name: string,
    partitions: (v: number) => M.ListOffsetsRequestListOffsetsPartitionInput[],
  ) =>
    step({
      label,
      request: M.ListOffsetsRequest,
      response: M.ListOffsetsResponse,
      versions,
      body: (v) => ({ replicaId: -1, topics: [{ name, partitions: partitions(v) }] }),
    });
  return {
    name: 'ListOffsets: earliest, latest, by time, max timestamp, a bad partition, an unknown topic, a wrong leader epoch',
    setup: (bootstrap, vars) => seeded(bootstrap, vars, topic, 2),
    steps: [
      list('earliest, latest and by timestamp', 'spread', topic, () => [
        { partitionIndex: 0, timestamp: -2n },
        { partitionIndex: 1, timestamp: -1n },
      ]),
      list('a timestamp before and after the records', 'spread', topic, () => [
        { partitionIndex: 0, timestamp: TIMESTAMP - 1n },
        { partitionIndex: 1, timestamp: TIMESTAMP + 1n },
      ]),
      list('max timestamp', [7, 10], topic, () => [{ partitionIndex: 0, timestamp: -3n }]),
      list('earliest local (-4) and earliest pending upload (-5)', [9, 10], topic, () => [
        { partitionIndex: 0, timestamp: -4n },
        { partitionIndex: 1, timestamp: -5n },
      ]),
      list('a partition the topic lacks', 'spread', topic, () => [
        { partitionIndex: 0, timestamp: -1n },
        { partitionIndex: 5, timestamp: -1n },
      ]),
      list('an unknown topic', 'spread', MISSING, () => [{ partitionIndex: 0, timestamp: -1n }]),
      list('a leader epoch from the future, and the current one', [4, 10], topic, () => [
        { partitionIndex: 0, timestamp: -1n, currentLeaderEpoch: 3 },
        { partitionIndex: 1, timestamp: -1n, currentLeaderEpoch: 0 },
      ]),
    ],
  };
}

function metadataScenario(): Scenario {
  const topic = 'compat-metadata';
  return {
    name: 'Metadata and DescribeTopicPartitions: a topic, an unknown topic, an invalid name',
    setup: async (bootstrap, vars) => vars.set('topicId', await createServedTopic(bootstrap, topic, 3)),
    steps: [
      step({
        label: 'one topic',
        request: M.MetadataRequest,
        response: M.MetadataResponse,
        versions: 'spread',
        body: () => ({ topics: [{ name: topic }] }),
      }),
      step({
        label: 'an unknown topic and an invalid name, no auto-creation',
        request: M.MetadataRequest,
        response: M.MetadataResponse,
        versions: [4, 8, 12],
        unordered: ['topics'],
        body: () => ({ topics: [{ name: topic }, { name: MISSING }, { name: 'bad/name' }], allowAutoTopicCreation: false }),
      }),
      step({
        label: 'topic authorized operations',
        request: M.MetadataRequest,
        response: M.MetadataResponse,
        versions: [8, 13],
        body: () => ({ topics: [{ name: topic }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: true }),
      }),
      step({
        label: 'a topic, an unknown topic and an invalid name',
        request: M.DescribeTopicPartitionsRequest,
        response: M.DescribeTopicPartitionsResponse,
        versions: 'spread',
        body: () => ({ topics: [{ name: topic }, { name: MISSING }, { name: 'bad/name' }], responsePartitionLimit: 2000 }),
      }),
      step({
        label: 'a partition limit with a cursor',
        request: M.DescribeTopicPartitionsRequest,
        response: M.DescribeTopicPartitionsResponse,
        versions: 'spread',
        body: () => ({ topics: [{ name: topic }], responsePartitionLimit: 2, cursor: { topicName: topic, partitionIndex: 0 } }),
      }),
    ],
  };
}

function autoCreationScenario(): Scenario {
  const autoTopic = (i: number): string => `compat-auto-${i}`;
  return {
    name: 'Metadata auto-creation: the first answer for a topic created on demand, then the topic, and a name that may not be created',
    steps: [
      step({
        label: 'an unknown topic, auto-creation allowed',
        request: M.MetadataRequest,
        response: M.MetadataResponse,
        versions: 'spread',
        mask: INTENDED.autoCreatedAtOnce,
        body: (v, _vars, i) => ({ topics: [{ name: autoTopic(i) }], ...(v >= 4 ? { allowAutoTopicCreation: true } : {}) }),
      }),
      step({
        label: 'the created topic, once led',
        request: M.MetadataRequest,
        response: M.MetadataResponse,
        versions: 'spread',
        body: (v, _vars, i) => ({ topics: [{ name: autoTopic(i) }], ...(v >= 4 ? { allowAutoTopicCreation: false } : {}) }),
        settled: (r) => r.topics.every((t) => t.errorCode === 0 && t.partitions.every((p) => p.errorCode === 0 && p.leaderId >= 0)),
      }),
      step({
        label: 'an invalid name, auto-creation allowed',
        request: M.MetadataRequest,
        response: M.MetadataResponse,
        versions: 'spread',
        // Kafka lists the topics it could not describe from a hash set; clients match by name.
        unordered: ['topics'],
        body: (v) => ({ topics: [{ name: 'bad/name' }, { name: 'a'.repeat(250) }], ...(v >= 4 ? { allowAutoTopicCreation: true } : {}) }),
      }),
    ],
  };
}

function leaderEpochScenario(): Scenario {
  const topic = 'compat-epochs';
  const ask = (label: string, name: string, partitions: M.OffsetForLeaderEpochRequestOffsetForLeaderPartitionInput[]) =>
    step({
      label,
      request: M.OffsetForLeaderEpochRequest,
      response: M.OffsetForLeaderEpochResponse,
      versions: 'spread',
      body: () => ({ topics: [{ topic: name, partitions }] }),
    });
  return {
    name: 'OffsetForLeaderEpoch: the current epoch, a later one, a wrong current epoch, a bad partition, an unknown topic',
    setup: (bootstrap, vars) => seeded(bootstrap, vars, topic, 2),
    steps: [
      ask('epoch 0 and epoch 3', topic, [
        { partition: 0, leaderEpoch: 0, currentLeaderEpoch: -1 },
        { partition: 1, leaderEpoch: 3, currentLeaderEpoch: -1 },
      ]),
      ask('a current leader epoch from the future', topic, [{ partition: 0, leaderEpoch: 0, currentLeaderEpoch: 4 }]),
      ask('a partition the topic lacks', topic, [{ partition: 6, leaderEpoch: 0, currentLeaderEpoch: -1 }]),
      ask('an unknown topic', MISSING, [{ partition: 0, leaderEpoch: 0, currentLeaderEpoch: -1 }]),
    ],
  };
}

function deleteRecordsScenario(): Scenario {
  const topic = 'compat-delete-records';
  const del = (label: string, name: string, partitions: M.DeleteRecordsRequestDeleteRecordsPartitionInput[]) =>
    step({
      label,
      request: M.DeleteRecordsRequest,
      response: M.DeleteRecordsResponse,
      versions: 'spread',
      unordered: ['**.partitions'],
      body: () => ({ timeoutMs: 10_000, topics: [{ name, partitions }] }),
    });
  return {
    name: 'DeleteRecords: up to an offset, past the end, a bad partition, an unknown topic',
    setup: (bootstrap, vars) => seeded(bootstrap, vars, topic, 2),
    steps: [
      del('up to offset 1 and to the high watermark (-1)', topic, [
        { partitionIndex: 0, offset: 1n },
        { partitionIndex: 1, offset: -1n },
      ]),
      del('past the end', topic, [{ partitionIndex: 0, offset: 50n }]),
      del('a partition the topic lacks', topic, [{ partitionIndex: 4, offset: 0n }]),
      del('an unknown topic', MISSING, [{ partitionIndex: 0, offset: 0n }]),
    ],
  };
}

function producersScenario(): Scenario {
  const topic = 'compat-producers';
  return {
    name: 'InitProducerId and DescribeProducers: an idempotent producer, a bad timeout, a bad partition, an unknown topic',
    setup: async (bootstrap, vars) => {
      vars.set('topicId', await createServedTopic(bootstrap, topic, 2));
      const init = await initProducer(bootstrap);
      await wireCall(bootstrap, M.ProduceRequest, M.ProduceResponse, 9, {
        acks: -1,
        timeoutMs: 10_000,
        topicData: [
          {
            name: topic,
            partitionData: [
              {
                index: 0,
                records: batch(
                  'idempotent',
                  { producerId: init.producerId, producerEpoch: init.producerEpoch, baseSequence: 0 },
                  BigInt(Date.now()),
                ),
              },
            ],
          },
        ],
      });
    },
    steps: [
      step({
        label: 'an idempotent producer',
        request: M.InitProducerIdRequest,
        response: M.InitProducerIdResponse,
        versions: 'spread',
        mask: [{ path: 'producerId', treat: 'kind', why: 'each broker allocates its own producer ids' }],
        body: () => ({ transactionalId: null, transactionTimeoutMs: 60_000 }),
      }),
      step({
        label: 'a transactional id with a timeout over transaction.max.timeout.ms',
        request: M.InitProducerIdRequest,
        response: M.InitProducerIdResponse,
        versions: 'spread',
        body: () => ({ transactionalId: 'compat-too-long', transactionTimeoutMs: 3_600_000 }),
      }),
      step({
        label: 'the producer on a partition, an idle partition, a bad partition, an unknown topic',
        request: M.DescribeProducersRequest,
        response: M.DescribeProducersResponse,
        versions: 'spread',
        mask: [
          { path: 'topics[].partitions[].activeProducers[].producerId', treat: 'kind', why: 'each broker allocates its own producer ids' },
          // Now, not a fixed time: both brokers expire a producer whose last batch is older than producer.id.expiration.ms.
          {
            path: 'topics[].partitions[].activeProducers[].lastTimestamp',
            treat: 'kind',
            why: 'the batch was written at each broker’s own now',
          },
        ],
        body: () => ({
          topics: [
            { name: topic, partitionIndexes: [0, 1, 8] },
            { name: MISSING, partitionIndexes: [0] },
          ],
        }),
      }),
    ],
  };
}

const SCENARIOS = [
  produceScenario(),
  idempotenceScenario(),
  recordValidationScenario(),
  fetchScenario(),
  fetchSessionScenario(),
  listOffsetsScenario(),
  metadataScenario(),
  autoCreationScenario(),
  leaderEpochScenario(),
  deleteRecordsScenario(),
  producersScenario(),
];

describe(`The data path, Sluice against Apache Kafka ${KAFKA_VERSION}`, { skip: javaSkip() }, () => {
  const run = differentialRun(SCENARIOS);
  for (const scenario of SCENARIOS) {
    test(scenario.name, () => {
      const { sluiceAsked, kafkaAsked, differences } = run.compare(scenario);
      assert.deepEqual(sluiceAsked, kafkaAsked, 'both brokers were asked the same questions');
      assert.deepEqual(differences, []);
    });
  }
});
