/**
 * Requests that name the same topic-partition more than once, or the same topic twice with
 * different partitions, sent alike to Sluice and to Apache Kafka (the pinned release, one KRaft
 * node), every answer compared whole: which entries are refused, in which order the response
 * lists them, and whether the other partitions are served. The topic is created identically on
 * both and the requests run in the same order, so even offsets and fetched bytes compare.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as M from '@sluice/protocol/messages/index.js';
import { encodeRecordBatch } from '@sluice/protocol/records/index.js';
import { KAFKA_VERSION } from '../../tools/kafka/kafka-release.js';
import { awaitCoordinator, createTopic } from '../helpers/offset-wire.js';
import { wireCall } from '../helpers/wire-call.js';
import { javaSkip } from '../helpers/requirements.js';
import { sideBySide } from '../helpers/side-by-side.js';

const TOPIC = 'compat-dups';
const PARTITIONS = 3;
const GROUP = 'compat-dups-group';
/** A fixed timestamp, so that the stored batches (and what Fetch returns) are byte-identical. */
const TIMESTAMP = 1_700_000_000_000n;

type Answers = Map<string, string>;

type Order = 'ordered' | 'any partition order';

/** A partition answer's index, under either of the names the responses give it. */
function indexOf(entry: unknown): number {
  const e = entry as { partitionIndex?: number; index?: number };
  return e.partitionIndex ?? e.index ?? -1;
}

/**
 * The answer as text, without what legitimately differs between two brokers. Where Kafka
 * gathers the partitions in a hash map first (ListOffsets, DeleteRecords, Produce) it lists
 * them in the map's iteration order, which no client relies on: those are compared by index.
 */
function normalized(response: unknown, order: Order): string {
  return JSON.stringify(response, (key, value: unknown) => {
    if (key === 'throttleTimeMs' || key === '_unknownTaggedFields' || key === 'sessionId') return undefined;
    if (order !== 'ordered' && (key === 'partitions' || key === 'partitionResponses') && Array.isArray(value)) {
      return [...(value as unknown[])].sort((a, b) => indexOf(a) - indexOf(b));
    }
    if (typeof value === 'bigint') return value.toString();
    if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
    return value;
  });
}

const batch = (value: string): Uint8Array =>
  encodeRecordBatch({ records: [{ key: null, value: Buffer.from(value), timestamp: TIMESTAMP }] });

/** The same requests, in the same order, to one broker; each answer (or the broker's refusal) under its label. */
async function askAll(bootstrap: string): Promise<Answers> {
  await createTopic(bootstrap, TOPIC, PARTITIONS);
  await awaitCoordinator(bootstrap, GROUP);
  const answers: Answers = new Map();
  const ask = async (label: string, request: Promise<unknown>, order: Order = 'ordered'): Promise<void> => {
    try {
      answers.set(label, normalized(await request, order));
    } catch (e) {
      answers.set(label, `failed: ${(e as Error).message}`);
    }
  };
  // Data first, one record a partition, so that the offset APIs have something to answer.
  await ask(
    'produce v9: one record a partition',
    wireCall(bootstrap, M.ProduceRequest, M.ProduceResponse, 9, {
      acks: -1,
      timeoutMs: 10_000,
      topicData: [{ name: TOPIC, partitionData: [0, 1, 2].map((index) => ({ index, records: batch(`seed-${index}`) })) }],
    }),
    'any partition order',
  );

  for (const v of [1, 5, 9]) {
    await ask(
      `list offsets v${v}: a partition twice in a topic, and the topic twice`,
      wireCall(bootstrap, M.ListOffsetsRequest, M.ListOffsetsResponse, v, {
        replicaId: -1,
        topics: [
          {
            name: TOPIC,
            partitions: [
              { partitionIndex: 0, timestamp: -1n },
              { partitionIndex: 1, timestamp: -1n },
              { partitionIndex: 0, timestamp: -2n },
            ],
          },
          {
            name: TOPIC,
            partitions: [
              { partitionIndex: 2, timestamp: -1n },
              { partitionIndex: 1, timestamp: -2n },
            ],
          },
        ],
      }),
      'any partition order',
    );
    await ask(
      `list offsets v${v}: the topic twice, different partitions`,
      wireCall(bootstrap, M.ListOffsetsRequest, M.ListOffsetsResponse, v, {
        replicaId: -1,
        topics: [
          { name: TOPIC, partitions: [{ partitionIndex: 0, timestamp: -1n }] },
          { name: TOPIC, partitions: [{ partitionIndex: 1, timestamp: -1n }] },
        ],
      }),
      'any partition order',
    );
  }
  const epochFor = (partition: number) => ({ partition, currentLeaderEpoch: -1, leaderEpoch: 0 });
  await ask(
    'offset for leader epoch v4: a partition twice, the topic twice',
    wireCall(bootstrap, M.OffsetForLeaderEpochRequest, M.OffsetForLeaderEpochResponse, 4, {
      replicaId: -1,
      topics: [
        { topic: TOPIC, partitions: [epochFor(0), epochFor(1), epochFor(0)] },
        { topic: TOPIC, partitions: [epochFor(2), epochFor(1)] },
      ],
    }),
  );
  await ask(
    'describe producers: a partition twice, the topic twice',
    wireCall(bootstrap, M.DescribeProducersRequest, M.DescribeProducersResponse, 0, {
      topics: [
        { name: TOPIC, partitionIndexes: [0, 1, 0] },
        { name: TOPIC, partitionIndexes: [2, 1] },
      ],
    }),
  );
  const fetchOf = (partition: number) => ({ partition, fetchOffset: 0n, partitionMaxBytes: 1 << 20 });
  await ask(
    'fetch v12: a partition twice, the topic twice',
    wireCall(bootstrap, M.FetchRequest, M.FetchResponse, 12, {
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 1 << 20,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [
        { topic: TOPIC, partitions: [fetchOf(0), fetchOf(1), fetchOf(0)] },
        { topic: TOPIC, partitions: [fetchOf(2), fetchOf(1)] },
      ],
    }),
  );
  const commitOf = (partitionIndex: number, offset: number) => ({ partitionIndex, committedOffset: BigInt(offset), committedMetadata: '' });
  for (const v of [2, 8, 9]) {
    await ask(
      `offset commit v${v}: a partition twice, the topic twice`,
      wireCall(bootstrap, M.OffsetCommitRequest, M.OffsetCommitResponse, v, {
        groupId: GROUP,
        generationIdOrMemberEpoch: -1,
        memberId: '',
        topics: [
          { name: TOPIC, partitions: [commitOf(0, 10 + v), commitOf(1, 20 + v), commitOf(0, 30 + v)] },
          { name: TOPIC, partitions: [commitOf(2, 40 + v), commitOf(1, 50 + v)] },
        ],
      }),
    );
  }
  for (const v of [1, 7]) {
    await ask(
      `offset fetch v${v}: a partition twice, the topic twice`,
      wireCall(bootstrap, M.OffsetFetchRequest, M.OffsetFetchResponse, v, {
        groupId: GROUP,
        topics: [
          { name: TOPIC, partitionIndexes: [0, 1, 0] },
          { name: TOPIC, partitionIndexes: [2, 1] },
        ],
      }),
    );
  }
  await ask(
    'offset fetch v9: a partition twice, the topic twice',
    wireCall(bootstrap, M.OffsetFetchRequest, M.OffsetFetchResponse, 9, {
      groups: [
        {
          groupId: GROUP,
          topics: [
            { name: TOPIC, partitionIndexes: [0, 1, 0] },
            { name: TOPIC, partitionIndexes: [2, 1] },
          ],
        },
      ],
    }),
  );
  await ask(
    'delete records v2: a partition twice, the topic twice',
    wireCall(bootstrap, M.DeleteRecordsRequest, M.DeleteRecordsResponse, 2, {
      timeoutMs: 10_000,
      topics: [
        {
          name: TOPIC,
          partitions: [
            { partitionIndex: 0, offset: 1n },
            { partitionIndex: 1, offset: 0n },
            { partitionIndex: 0, offset: 0n },
          ],
        },
        {
          name: TOPIC,
          partitions: [
            { partitionIndex: 2, offset: 1n },
            { partitionIndex: 1, offset: 1n },
          ],
        },
      ],
    }),
    'any partition order',
  );
  await ask(
    'produce v9: a partition twice, the topic twice',
    wireCall(bootstrap, M.ProduceRequest, M.ProduceResponse, 9, {
      acks: -1,
      timeoutMs: 10_000,
      topicData: [
        {
          name: TOPIC,
          partitionData: [
            { index: 0, records: batch('a') },
            { index: 1, records: batch('b') },
            { index: 0, records: batch('c') },
          ],
        },
        {
          name: TOPIC,
          partitionData: [
            { index: 2, records: batch('d') },
            { index: 1, records: batch('e') },
          ],
        },
      ],
    }),
    'any partition order',
  );
  await ask(
    'list offsets v9 after the duplicated produce',
    wireCall(bootstrap, M.ListOffsetsRequest, M.ListOffsetsResponse, 9, {
      replicaId: -1,
      topics: [{ name: TOPIC, partitions: [0, 1, 2].map((partitionIndex) => ({ partitionIndex, timestamp: -1n })) }],
    }),
    'any partition order',
  );
  await ask(
    'fetch v12 after the duplicated produce: which copy was appended',
    wireCall(bootstrap, M.FetchRequest, M.FetchResponse, 12, {
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 1 << 20,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [{ topic: TOPIC, partitions: [0, 1, 2].map((partition) => ({ partition, fetchOffset: 1n, partitionMaxBytes: 1 << 20 })) }],
    }),
  );
  return answers;
}

describe(`Duplicate partitions in one request, Sluice against Apache Kafka ${KAFKA_VERSION}`, { skip: javaSkip() }, () => {
  // The records' fixed 2023 timestamp is past the 7-day retention: Sluice checks retention every
  // second (Kafka every 5 minutes), and deleting them mid-run made the answers differ by chance.
  const brokers = sideBySide({ 'group.initial.rebalance.delay.ms': '0', 'log.retention.ms': '-1' });
  let ours: Answers;
  let theirs: Answers;

  before(async () => {
    [ours, theirs] = await Promise.all([askAll(brokers().sluice.bootstrap), askAll(brokers().kafka.bootstrap)]);
    if (process.env['SLUICE_COMPAT_PRINT'] !== undefined)
      for (const [label, answer] of theirs) console.log(`${label}\n  Kafka:  ${answer}\n  Sluice: ${ours.get(label)}`);
  });

  test('every answer is the same, field by field and in the same order', () => {
    assert.deepEqual([...ours.keys()], [...theirs.keys()], 'both brokers were asked the same questions');
    const differences = [...theirs].flatMap(([label, kafkaAnswer]) =>
      ours.get(label) === kafkaAnswer ? [] : [`${label}\n  Kafka:  ${kafkaAnswer}\n  Sluice: ${ours.get(label)}`],
    );
    assert.deepEqual(differences, []);
  });
});
