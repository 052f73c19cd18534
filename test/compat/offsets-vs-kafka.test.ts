/**
 * OffsetCommit and OffsetFetch sent alike to Sluice and to Apache Kafka (the pinned release, one
 * KRaft node started here), every answer compared whole: topics by id (v10), unknown and zero
 * ids, topics and partitions that do not exist at every version, for simple consumers and a
 * classic group member and a KIP-848 one, group errors next to refused partitions. Each broker gives the topic its
 * own id; the answers are compared with the ids replaced by what they stand for.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ZERO_UUID } from '@sluice/protocol/common/uuid.js';
import * as M from '@sluice/protocol/messages/index.js';
import { KAFKA_VERSION } from '../../tools/kafka/kafka-release.js';
import {
  NO_SUCH_TOPIC_ID,
  SIMPLE,
  awaitCoordinator,
  commitOffsets,
  committed,
  createTopic,
  fetchOffsets,
  joinClassicGroup,
  joinConsumerGroup,
} from '../helpers/offset-wire.js';
import { wireCall } from '../helpers/wire-call.js';
import { javaSkip } from '../helpers/requirements.js';
import { sideBySide } from '../helpers/side-by-side.js';

const TOPIC = 'compat-offsets';
const PARTITIONS = 2;
const MISSING = 'compat-offsets-missing';
const SIMPLE_GROUP = 'compat-simple';
const MEMBER_GROUP = 'compat-member';
const UNKNOWN_GROUP = 'compat-unknown';
const CONSUMER_GROUP = 'compat-kip848';
/** Not a member of the unknown group: GROUP_ID_NOT_FOUND (v9+) or ILLEGAL_GENERATION before. */
const STRANGER = { generationIdOrMemberEpoch: 3, memberId: 'stranger' };

type Answers = Map<string, string>;

/** The answer as text, the broker's topic id replaced by a name so both brokers' answers compare. */
function normalized(response: unknown, topicId: string): string {
  const names = new Map([
    [topicId, '<topic id>'],
    [NO_SUCH_TOPIC_ID, '<no such id>'],
    [ZERO_UUID, '<zero id>'],
  ]);
  return JSON.stringify(response, (key, value: unknown) => {
    if (key === 'throttleTimeMs' || key === '_unknownTaggedFields') return undefined;
    if (typeof value === 'bigint') return value.toString();
    if (typeof value === 'string') return names.get(value) ?? value;
    return value;
  });
}

/** The same requests, in the same order, to one broker; each answer under its label. */
async function askAll(bootstrap: string): Promise<Answers> {
  const topicId = await createTopic(bootstrap, TOPIC, PARTITIONS);
  for (const g of [SIMPLE_GROUP, MEMBER_GROUP, UNKNOWN_GROUP, CONSUMER_GROUP]) await awaitCoordinator(bootstrap, g);
  const answers: Answers = new Map();
  const ask = async (label: string, request: Promise<unknown>): Promise<void> => {
    answers.set(label, normalized(await request, topicId));
  };
  const byId = (id: string, ...partitions: number[]) => ({ topicId: id, partitions: partitions.map((p) => committed(p, BigInt(10 + p))) });
  const byName = (name: string, offset: bigint, ...partitions: number[]) => ({
    name,
    partitions: partitions.map((p) => committed(p, offset)),
  });

  await ask(
    'commit v10: known, unknown and zero ids, a partition the topic lacks',
    commitOffsets(bootstrap, 10, SIMPLE_GROUP, [byId(topicId, 0, 1, 7), byId(NO_SUCH_TOPIC_ID, 0, 1), byId(ZERO_UUID, 0)]),
  );
  await ask(
    'fetch v10: known, unknown and zero ids',
    fetchOffsets(bootstrap, 10, SIMPLE_GROUP, [
      { topicId, partitionIndexes: [0, 1, 7] },
      { topicId: NO_SUCH_TOPIC_ID, partitionIndexes: [0] },
      { topicId: ZERO_UUID, partitionIndexes: [] },
    ]),
  );
  await ask('fetch v10: every topic', fetchOffsets(bootstrap, 10, SIMPLE_GROUP, null));
  await ask('fetch v9: every topic', fetchOffsets(bootstrap, 9, SIMPLE_GROUP, null));
  for (let v = 2; v <= 9; v++) {
    await ask(
      `commit v${v}: a missing topic, a partition out of range`,
      commitOffsets(bootstrap, v, SIMPLE_GROUP, [byName(TOPIC, BigInt(v), 0, 7, -1), byName(MISSING, 1n, 0)]),
    );
  }
  await ask(
    'fetch v9: a missing topic, a partition out of range',
    fetchOffsets(bootstrap, 9, SIMPLE_GROUP, [
      { name: TOPIC, partitionIndexes: [0, 1, 7] },
      { name: MISSING, partitionIndexes: [0] },
    ]),
  );
  await ask(
    'commit v9: a missing topic and no partitions',
    commitOffsets(bootstrap, 9, SIMPLE_GROUP, [
      { name: MISSING, partitions: [] },
      { name: TOPIC, partitions: [] },
    ]),
  );
  await ask('commit v10: no topics', commitOffsets(bootstrap, 10, UNKNOWN_GROUP, [], STRANGER));
  await ask('commit v10: a topic named twice', commitOffsets(bootstrap, 10, SIMPLE_GROUP, [byId(topicId, 0, 5), byId(topicId, 1, 6)]));
  await ask(
    'commit v9: a topic named twice, nothing refused',
    commitOffsets(bootstrap, 9, SIMPLE_GROUP, [byName(TOPIC, 30n, 0), byName(TOPIC, 31n, 1)]),
  );

  for (const v of [8, 9]) {
    await ask(
      `commit v${v} to an unknown group: refused partitions and the group error`,
      commitOffsets(bootstrap, v, UNKNOWN_GROUP, [byName(MISSING, 1n, 0), byName(TOPIC, 1n, 0, 9)], STRANGER),
    );
  }
  await ask(
    'commit v10 to an unknown group: refused partitions and the group error',
    commitOffsets(bootstrap, 10, UNKNOWN_GROUP, [byId(NO_SUCH_TOPIC_ID, 0), byId(topicId, 0)], STRANGER),
  );
  await ask(
    'commit v9 to an unknown group, nothing that exists: no group error',
    commitOffsets(bootstrap, 9, UNKNOWN_GROUP, [byName(MISSING, 1n, 0)], STRANGER),
  );
  await ask(
    'fetch v10: an unknown group',
    fetchOffsets(bootstrap, 10, UNKNOWN_GROUP, [
      { topicId: NO_SUCH_TOPIC_ID, partitionIndexes: [0] },
      { topicId, partitionIndexes: [0] },
    ]),
  );

  const member = await joinClassicGroup(bootstrap, MEMBER_GROUP);
  for (const v of [2, 7, 9]) {
    await ask(
      `commit v${v} as a member: a missing topic, a partition out of range`,
      commitOffsets(bootstrap, v, MEMBER_GROUP, [byName(TOPIC, BigInt(v), 0, 7), byName(MISSING, 1n, 0)], member),
    );
  }
  await ask(
    'commit v10 as a member: an unknown id, a partition out of range',
    commitOffsets(bootstrap, 10, MEMBER_GROUP, [byId(topicId, 1, 7), byId(NO_SUCH_TOPIC_ID, 0)], member),
  );
  const stale = { ...member, generationIdOrMemberEpoch: member.generationIdOrMemberEpoch + 5 };
  await ask(
    'commit v9 with a stale generation',
    commitOffsets(bootstrap, 9, MEMBER_GROUP, [byName(MISSING, 1n, 0), byName(TOPIC, 1n, 0)], stale),
  );
  await ask(
    'commit v10 with a stale generation',
    commitOffsets(bootstrap, 10, MEMBER_GROUP, [byId(NO_SUCH_TOPIC_ID, 0), byId(topicId, 0)], stale),
  );
  await ask(
    'commit v10 as a simple consumer to a live group',
    commitOffsets(bootstrap, 10, MEMBER_GROUP, [byId(NO_SUCH_TOPIC_ID, 0), byId(topicId, 0)], SIMPLE),
  );
  await ask('fetch v10: the member group, every topic', fetchOffsets(bootstrap, 10, MEMBER_GROUP, null));
  await ask('fetch v8: the member group, every topic', fetchOffsets(bootstrap, 8, MEMBER_GROUP, null));

  // A KIP-848 member, as Kafka's Java consumer commits and fetches once v10 is advertised.
  const consumer = await joinConsumerGroup(bootstrap, CONSUMER_GROUP, TOPIC, 'compat-kip848-member-01');
  const epoch = consumer.generationIdOrMemberEpoch;
  await ask(
    'commit v10 as a KIP-848 member',
    commitOffsets(bootstrap, 10, CONSUMER_GROUP, [byId(NO_SUCH_TOPIC_ID, 0), byId(topicId, 0, 3)], consumer),
  );
  await ask(
    'commit v10 as a KIP-848 member with a stale epoch',
    commitOffsets(bootstrap, 10, CONSUMER_GROUP, [byId(NO_SUCH_TOPIC_ID, 0), byId(topicId, 1)], {
      ...consumer,
      generationIdOrMemberEpoch: epoch + 1,
    }),
  );
  const asked = [
    { topicId: NO_SUCH_TOPIC_ID, partitionIndexes: [0] },
    { topicId, partitionIndexes: [0, 1] },
  ];
  await ask(
    'fetch v10 as a KIP-848 member: current, stale and unknown members',
    wireCall(bootstrap, M.OffsetFetchRequest, M.OffsetFetchResponse, 10, {
      groups: [
        { groupId: CONSUMER_GROUP, memberId: consumer.memberId, memberEpoch: epoch, topics: asked },
        { groupId: CONSUMER_GROUP, memberId: consumer.memberId, memberEpoch: epoch + 1, topics: asked },
        { groupId: CONSUMER_GROUP, memberId: 'compat-nobody-000000001', memberEpoch: 1, topics: asked },
        { groupId: CONSUMER_GROUP, memberId: consumer.memberId, memberEpoch: epoch, topics: null },
      ],
    }),
  );
  return answers;
}

describe(`OffsetCommit and OffsetFetch, Sluice against Apache Kafka ${KAFKA_VERSION}`, { skip: javaSkip() }, () => {
  const brokers = sideBySide({ 'group.initial.rebalance.delay.ms': '0' });
  let ours: Answers;
  let theirs: Answers;

  before(async () => {
    [ours, theirs] = await Promise.all([askAll(brokers().sluice.bootstrap), askAll(brokers().kafka.bootstrap)]);
  });

  test('every answer is the same, field by field and in the same order', () => {
    assert.deepEqual([...ours.keys()], [...theirs.keys()], 'both brokers were asked the same questions');
    // All differences at once, each under the request it answers.
    const differences = [...theirs].flatMap(([label, kafkaAnswer]) =>
      ours.get(label) === kafkaAnswer ? [] : [`${label}\n  Kafka:  ${kafkaAnswer}\n  Sluice: ${ours.get(label)}`],
    );
    assert.deepEqual(differences, []);
  });
});
