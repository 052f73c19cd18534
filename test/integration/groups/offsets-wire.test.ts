// OffsetCommit and OffsetFetch over real sockets against the broker process: v10 names topics by
// id (commit and fetch, unknown and zero ids, every topic), and a topic or partition that does
// not exist is refused at every version, for a simple consumer and for a group member, while
// what exists is stored. test/compat/offsets-vs-kafka.test.ts checks the same against Kafka.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ZERO_UUID } from '@sluice/protocol/common/uuid.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import * as M from '@sluice/protocol/messages/index.js';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import {
  NO_SUCH_TOPIC_ID,
  awaitCoordinator,
  commitOffsets,
  committed,
  createTopic,
  deleteTopic,
  fetchOffsets,
  joinClassicGroup,
} from '../../helpers/offset-wire.js';
import { wireCall } from '../../helpers/wire-call.js';

const { NONE, UNKNOWN_TOPIC_OR_PARTITION: UNKNOWN_TP, UNKNOWN_TOPIC_ID, ILLEGAL_GENERATION } = ErrorCode;

/** Each topic's (id at v10, name before) partitions and their error codes. */
const codes = (res: M.OffsetCommitResponseData, version: number) =>
  res.topics.map((t) => [version >= 10 ? t.topicId : t.name, t.partitions.map((p) => [p.partitionIndex, p.errorCode])]);
/** One group's topics, each partition's offset and error code. */
const offsets = (res: M.OffsetFetchResponseData, version: number) => {
  const g = res.groups[0]!;
  assert.equal(g.errorCode, NONE);
  return g.topics.map((t) => [
    version >= 10 ? t.topicId : t.name,
    t.partitions.map((p) => [p.partitionIndex, p.committedOffset, p.errorCode]),
  ]);
};

describe('OffsetCommit and OffsetFetch: topic ids, topics and partitions that do not exist', () => {
  let broker: BrokerProcess;
  let bootstrap: string;
  let topicId: string;

  before(async () => {
    broker = await startBrokerProcess({ 'group.initial.rebalance.delay.ms': '0', 'auto.create.topics.enable': 'false' });
    bootstrap = broker.bootstrap;
    topicId = await createTopic(bootstrap, 'offsets', 2);
    await awaitCoordinator(bootstrap, 'by-id');
  });
  after(async () => {
    await broker?.stop();
  });

  test('ApiVersions: OffsetCommit v2-v10 and OffsetFetch v1-v10, as Kafka 4.4', async () => {
    const res = await wireCall(bootstrap, M.ApiVersionsRequest, M.ApiVersionsResponse, 3, {
      clientSoftwareName: 'test',
      clientSoftwareVersion: '1',
    });
    const range = (key: number) => res.apiKeys.filter((k) => k.apiKey === key).map((k) => [k.minVersion, k.maxVersion]);
    assert.deepEqual([range(8), range(9)], [[[2, 10]], [[1, 10]]]);
  });

  test('v10 by topic id: commit and fetch round-trip; older versions see the same offsets by name', async () => {
    assert.deepEqual(
      codes(await commitOffsets(bootstrap, 10, 'by-id', [{ topicId, partitions: [committed(0, 40n), committed(1, 41n)] }]), 10),
      [
        [
          topicId,
          [
            [0, NONE],
            [1, NONE],
          ],
        ],
      ],
    );
    assert.deepEqual(offsets(await fetchOffsets(bootstrap, 10, 'by-id', [{ topicId, partitionIndexes: [1, 0] }]), 10), [
      [
        topicId,
        [
          [1, 41n, NONE],
          [0, 40n, NONE],
        ],
      ],
    ]);
    assert.deepEqual(offsets(await fetchOffsets(bootstrap, 9, 'by-id', [{ name: 'offsets', partitionIndexes: [0, 1] }]), 9), [
      [
        'offsets',
        [
          [0, 40n, NONE],
          [1, 41n, NONE],
        ],
      ],
    ]);
    // Every topic: v10 fills in the ids (and sends no names), v9 the names.
    const all = await fetchOffsets(bootstrap, 10, 'by-id', null);
    assert.deepEqual(
      all.groups[0]!.topics.map((t) => [t.name, t.topicId]),
      [['', topicId]],
    );
    assert.deepEqual(offsets(await fetchOffsets(bootstrap, 9, 'by-id', null), 9), [
      [
        'offsets',
        [
          [0, 40n, NONE],
          [1, 41n, NONE],
        ],
      ],
    ]);
  });

  test('v10: an unknown or zero topic id is UNKNOWN_TOPIC_ID per partition, the id echoed; a partition the topic lacks UNKNOWN_TOPIC_OR_PARTITION', async () => {
    const res = await commitOffsets(bootstrap, 10, 'by-id', [
      { topicId: NO_SUCH_TOPIC_ID, partitions: [committed(0), committed(1)] },
      { topicId, partitions: [committed(0, 50n), committed(2)] },
      { topicId: ZERO_UUID, partitions: [committed(0)] },
    ]);
    assert.deepEqual(codes(res, 10), [
      [
        NO_SUCH_TOPIC_ID,
        [
          [0, UNKNOWN_TOPIC_ID],
          [1, UNKNOWN_TOPIC_ID],
        ],
      ],
      [
        topicId,
        [
          [2, UNKNOWN_TP],
          [0, NONE],
        ],
      ],
      [ZERO_UUID, [[0, UNKNOWN_TOPIC_ID]]],
    ]);
    const fetched = await fetchOffsets(bootstrap, 10, 'by-id', [
      { topicId: ZERO_UUID, partitionIndexes: [0] },
      { topicId, partitionIndexes: [0, 2] },
      { topicId: NO_SUCH_TOPIC_ID, partitionIndexes: [0] },
    ]);
    assert.deepEqual(offsets(fetched, 10), [
      [
        topicId,
        [
          [0, 50n, NONE],
          [2, -1n, NONE],
        ],
      ],
      [ZERO_UUID, [[0, -1n, UNKNOWN_TOPIC_ID]]],
      [NO_SUCH_TOPIC_ID, [[0, -1n, UNKNOWN_TOPIC_ID]]],
    ]);
  });

  test('v2-v9, simple consumer: a missing topic or partition is UNKNOWN_TOPIC_OR_PARTITION and nothing of it is stored', async () => {
    await awaitCoordinator(bootstrap, 'simple');
    for (let v = 2; v <= 9; v++) {
      const res = await commitOffsets(bootstrap, v, 'simple', [
        { name: 'offsets', partitions: [committed(0, BigInt(v)), committed(2)] },
        { name: 'no-such-topic', partitions: [committed(0)] },
      ]);
      assert.deepEqual(
        codes(res, v),
        [
          [
            'offsets',
            [
              [2, UNKNOWN_TP],
              [0, NONE],
            ],
          ],
          ['no-such-topic', [[0, UNKNOWN_TP]]],
        ],
        `v${v}`,
      );
    }
    assert.deepEqual(offsets(await fetchOffsets(bootstrap, 9, 'simple', null), 9), [['offsets', [[0, 9n, NONE]]]]);
    // Named in a fetch, a missing topic or partition is offset -1 with no error, as on Kafka.
    assert.deepEqual(
      offsets(
        await fetchOffsets(bootstrap, 9, 'simple', [
          { name: 'no-such-topic', partitionIndexes: [0] },
          { name: 'offsets', partitionIndexes: [5] },
        ]),
        9,
      ),
      [
        ['no-such-topic', [[0, -1n, NONE]]],
        ['offsets', [[5, -1n, NONE]]],
      ],
    );
  });

  test('a group member: the same refusals; generation errors reach only the partitions that exist', async () => {
    await awaitCoordinator(bootstrap, 'member');
    const member = await joinClassicGroup(bootstrap, 'member');
    for (const v of [2, 9]) {
      const res = await commitOffsets(
        bootstrap,
        v,
        'member',
        [
          { name: 'no-such-topic', partitions: [committed(0)] },
          { name: 'offsets', partitions: [committed(1, 60n), committed(-1)] },
        ],
        member,
      );
      assert.deepEqual(
        codes(res, v),
        [
          ['no-such-topic', [[0, UNKNOWN_TP]]],
          [
            'offsets',
            [
              [-1, UNKNOWN_TP],
              [1, NONE],
            ],
          ],
        ],
        `v${v}`,
      );
    }
    const stale = { ...member, generationIdOrMemberEpoch: member.generationIdOrMemberEpoch + 1 };
    const res = await commitOffsets(
      bootstrap,
      10,
      'member',
      [
        { topicId: NO_SUCH_TOPIC_ID, partitions: [committed(0)] },
        { topicId, partitions: [committed(0), committed(3)] },
      ],
      stale,
    );
    assert.deepEqual(codes(res, 10), [
      [NO_SUCH_TOPIC_ID, [[0, UNKNOWN_TOPIC_ID]]],
      [
        topicId,
        [
          [3, UNKNOWN_TP],
          [0, ILLEGAL_GENERATION],
        ],
      ],
    ]);
    assert.deepEqual(offsets(await fetchOffsets(bootstrap, 10, 'member', null), 10), [[topicId, [[1, 60n, NONE]]]]);
  });

  test('v10 for every topic leaves out a topic deleted since its commit', async () => {
    await awaitCoordinator(bootstrap, 'deleted');
    const doomedId = await createTopic(bootstrap, 'doomed', 1);
    const res = await commitOffsets(bootstrap, 10, 'deleted', [
      { topicId, partitions: [committed(0, 70n)] },
      { topicId: doomedId, partitions: [committed(0, 71n)] },
    ]);
    assert.deepEqual(codes(res, 10), [
      [topicId, [[0, NONE]]],
      [doomedId, [[0, NONE]]],
    ]);
    await deleteTopic(bootstrap, 'doomed');
    assert.deepEqual(offsets(await fetchOffsets(bootstrap, 10, 'deleted', null), 10), [[topicId, [[0, 70n, NONE]]]]);
    assert.deepEqual(offsets(await fetchOffsets(bootstrap, 10, 'deleted', [{ topicId: doomedId, partitionIndexes: [0] }]), 10), [
      [doomedId, [[0, -1n, UNKNOWN_TOPIC_ID]]],
    ]);
  });
});
