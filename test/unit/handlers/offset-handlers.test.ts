/**
 * OffsetCommit and OffsetFetch handlers over a real LocalController and group coordinator service
 * (in-memory `__consumer_offsets`): topics named by id at v10, and topics or partitions the
 * cluster does not have, answered as Apache Kafka 4.4 answers them (see
 * test/compat/offsets-vs-kafka.test.ts for the same requests sent to both).
 */
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ZERO_UUID } from '@sluice/protocol/common/uuid.js';
import { offsetCommitHandler } from '../../../src/handlers/08-offset-commit.js';
import { offsetFetchHandler } from '../../../src/handlers/09-offset-fetch.js';
import { createTopicsHandler } from '../../../src/handlers/19-create-topics.js';
import { deleteTopicsHandler } from '../../../src/handlers/20-delete-topics.js';
import { consumerGroupHeartbeatHandler } from '../../../src/handlers/68-consumer-group-heartbeat.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import * as M from '@sluice/protocol/messages/index.js';
import type { CoordinatorLog } from '../../../src/coordinator/runtime/coordinator-log.js';
import { call, harness, versions, type Harness } from './admin-harness.js';
import { NO_SUCH_TOPIC_ID } from '../../helpers/offset-wire.js';

const {
  NONE,
  UNKNOWN_TOPIC_OR_PARTITION: UNKNOWN_TP,
  UNKNOWN_TOPIC_ID,
  GROUP_ID_NOT_FOUND,
  ILLEGAL_GENERATION,
  COORDINATOR_NOT_AVAILABLE,
} = ErrorCode;
/** An id no topic has: the harness's topics get random ones. */

/** `__consumer_offsets` in memory; `failAppends` makes every append fail as a full disk would. */
class MemoryGroupLog implements CoordinatorLog {
  failAppends = false;
  exists(): boolean {
    return true;
  }
  async ensureTopic(): Promise<void> {}
  async append(): Promise<number> {
    return this.failAppends ? ErrorCode.KAFKA_STORAGE_ERROR : ErrorCode.NONE;
  }
  async appendMarker(): Promise<number> {
    return this.failAppends ? ErrorCode.KAFKA_STORAGE_ERROR : ErrorCode.NONE;
  }
  async replay(): Promise<number> {
    return ErrorCode.NONE;
  }
}

const open: Harness[] = [];
function fresh(log = new MemoryGroupLog()): Harness {
  const h = harness({ groupLog: log });
  open.push(h);
  return h;
}
afterEach(() => {
  for (const h of open.splice(0)) {
    h.cluster.groups.close();
    h.close();
  }
});

async function createTopic(h: Harness, name: string, numPartitions: number): Promise<string> {
  const res = await call(
    createTopicsHandler,
    M.CreateTopicsRequest,
    M.CreateTopicsResponse,
    7,
    { topics: [{ name, numPartitions, replicationFactor: -1 }] },
    h.cluster,
  );
  assert.equal(res.topics[0]!.errorCode, NONE);
  return res.topics[0]!.topicId;
}

type Topic = { name: string } | { topicId: string };
const part = (partitionIndex: number, committedOffset = 5n) => ({
  partitionIndex,
  committedOffset,
  committedLeaderEpoch: -1,
  committedMetadata: 'm',
});

async function commit(
  h: Harness,
  version: number,
  topics: Array<Topic & { partitions: ReturnType<typeof part>[] }>,
  member = { generationIdOrMemberEpoch: -1, memberId: '' },
  groupId = 'g',
) {
  const res = await call(
    offsetCommitHandler,
    M.OffsetCommitRequest,
    M.OffsetCommitResponse,
    version,
    { groupId, ...member, topics },
    h.cluster,
  );
  return res.topics.map((t) => [version >= 10 ? t.topicId : t.name, t.partitions.map((p) => [p.partitionIndex, p.errorCode])]);
}

async function fetchGroup(h: Harness, version: number, topics: Array<Topic & { partitionIndexes: number[] }> | null, groupId = 'g') {
  const res = await call(
    offsetFetchHandler,
    M.OffsetFetchRequest,
    M.OffsetFetchResponse,
    version,
    { groups: [{ groupId, topics }] },
    h.cluster,
  );
  const g = res.groups[0]!;
  return {
    errorCode: g.errorCode,
    topics: g.topics.map((t) => [
      version >= 10 ? t.topicId : t.name,
      t.partitions.map((p) => [p.partitionIndex, p.committedOffset, p.errorCode]),
    ]),
  };
}

describe('OffsetCommit', () => {
  test('served and advertised up to v10, as Kafka 4.4', () => {
    assert.deepEqual(offsetCommitHandler.versions, { lo: 2, hi: 10 });
    assert.deepEqual(offsetFetchHandler.versions, { lo: 1, hi: 10 });
  });

  test('v10 by topic id: known ids stored; unknown and zero ids UNKNOWN_TOPIC_ID per partition, the id echoed', async () => {
    const h = fresh();
    const id = await createTopic(h, 't', 2);
    assert.deepEqual(
      await commit(h, 10, [
        { topicId: id, partitions: [part(0), part(1), part(7)] },
        { topicId: NO_SUCH_TOPIC_ID, partitions: [part(0), part(1)] },
        { topicId: ZERO_UUID, partitions: [part(0)] },
      ]),
      // Refused partitions come first, each in its topic's entry, as Kafka's response builder puts them.
      [
        [
          id,
          [
            [7, UNKNOWN_TP],
            [0, NONE],
            [1, NONE],
          ],
        ],
        [
          NO_SUCH_TOPIC_ID,
          [
            [0, UNKNOWN_TOPIC_ID],
            [1, UNKNOWN_TOPIC_ID],
          ],
        ],
        [ZERO_UUID, [[0, UNKNOWN_TOPIC_ID]]],
      ],
    );
    // Stored under the topic's name: an older version finds them.
    assert.deepEqual(await fetchGroup(h, 9, [{ name: 't', partitionIndexes: [0, 1] }]), {
      errorCode: NONE,
      topics: [
        [
          't',
          [
            [0, 5n, NONE],
            [1, 5n, NONE],
          ],
        ],
      ],
    });
  });

  test('v2-v9: a topic that does not exist, or a partition it does not have, is UNKNOWN_TOPIC_OR_PARTITION and not stored', async () => {
    const h = fresh();
    await createTopic(h, 't', 2);
    for (const v of versions(M.OffsetCommitRequest).filter((v) => v < 10)) {
      assert.deepEqual(
        await commit(h, v, [
          { name: 't', partitions: [part(0, BigInt(v)), part(2), part(-1)] },
          { name: 'missing', partitions: [part(0)] },
        ]),
        [
          [
            't',
            [
              [2, UNKNOWN_TP],
              [-1, UNKNOWN_TP],
              [0, NONE],
            ],
          ],
          ['missing', [[0, UNKNOWN_TP]]],
        ],
        `v${v}`,
      );
    }
    assert.deepEqual(await fetchGroup(h, 9, null), { errorCode: NONE, topics: [['t', [[0, 9n, NONE]]]] });
  });

  test('group errors reach only the partitions that exist; with none, the coordinator is not asked', async () => {
    const h = fresh();
    const id = await createTopic(h, 't', 1);
    const stale = { generationIdOrMemberEpoch: 3, memberId: 'm' };
    assert.deepEqual(
      await commit(
        h,
        9,
        [
          { name: 'missing', partitions: [part(0)] },
          { name: 't', partitions: [part(0), part(4)] },
        ],
        stale,
      ),
      [
        ['missing', [[0, UNKNOWN_TP]]],
        [
          't',
          [
            [4, UNKNOWN_TP],
            [0, GROUP_ID_NOT_FOUND],
          ],
        ],
      ],
    );
    assert.deepEqual(
      await commit(
        h,
        8,
        [
          { name: 't', partitions: [part(0)] },
          { name: 'missing', partitions: [part(0)] },
        ],
        stale,
      ),
      [
        ['missing', [[0, UNKNOWN_TP]]],
        ['t', [[0, ILLEGAL_GENERATION]]],
      ],
    );
    assert.deepEqual(
      await commit(
        h,
        10,
        [
          { topicId: NO_SUCH_TOPIC_ID, partitions: [part(0)] },
          { topicId: id, partitions: [part(0)] },
        ],
        stale,
      ),
      [
        [NO_SUCH_TOPIC_ID, [[0, UNKNOWN_TOPIC_ID]]],
        [id, [[0, GROUP_ID_NOT_FOUND]]],
      ],
    );
    // Nothing that exists: no group check, and no simple group left behind.
    assert.deepEqual(
      await commit(
        h,
        9,
        [
          { name: 'missing', partitions: [] },
          { name: 't', partitions: [] },
          { name: 'gone', partitions: [part(1)] },
        ],
        stale,
        'h',
      ),
      [
        ['missing', []],
        ['gone', [[1, UNKNOWN_TP]]],
      ],
    );
    const described = await h.cluster.groups.read('h', (c) => c.describeGroups({ groups: ['h'], includeAuthorizedOperations: false }, 5));
    assert.equal(described.groups?.[0]?.groupState, 'Dead');
  });

  test('a topic named twice is answered in one entry once something was refused, as Kafka merges them', async () => {
    const h = fresh();
    const id = await createTopic(h, 't', 1);
    assert.deepEqual(
      await commit(h, 10, [
        { topicId: id, partitions: [part(0), part(5)] },
        { topicId: id, partitions: [part(0, 7n), part(6)] },
      ]),
      [
        [
          id,
          [
            [5, UNKNOWN_TP],
            [6, UNKNOWN_TP],
            [0, NONE],
            [0, NONE],
          ],
        ],
      ],
    );
    assert.deepEqual(
      await commit(h, 9, [
        { name: 't', partitions: [part(0)] },
        { name: 't', partitions: [part(0, 8n)] },
      ]),
      [
        ['t', [[0, NONE]]],
        ['t', [[0, NONE]]],
      ],
    );
  });

  test('a coordinator that cannot store answers for the partitions that exist; the refused keep their codes', async () => {
    const log = new MemoryGroupLog();
    const h = fresh(log);
    const id = await createTopic(h, 't', 1);
    log.failAppends = true;
    assert.deepEqual(
      await commit(h, 10, [
        { topicId: id, partitions: [part(0), part(3)] },
        { topicId: NO_SUCH_TOPIC_ID, partitions: [part(0)] },
      ]),
      [
        [
          id,
          [
            [3, UNKNOWN_TP],
            [0, COORDINATOR_NOT_AVAILABLE],
          ],
        ],
        [NO_SUCH_TOPIC_ID, [[0, UNKNOWN_TOPIC_ID]]],
      ],
    );
  });
});

describe('OffsetFetch', () => {
  test('v10 by topic id: offsets of known ids, -1 for partitions without one; then unknown and zero ids, UNKNOWN_TOPIC_ID', async () => {
    const h = fresh();
    const id = await createTopic(h, 't', 2);
    await commit(h, 9, [{ name: 't', partitions: [part(0, 11n)] }]);
    assert.deepEqual(
      await fetchGroup(h, 10, [
        { topicId: NO_SUCH_TOPIC_ID, partitionIndexes: [0] },
        { topicId: id, partitionIndexes: [0, 1, 7] },
        { topicId: ZERO_UUID, partitionIndexes: [] },
      ]),
      {
        errorCode: NONE,
        // Kafka answers the ids it knows first, in request order, then the others.
        topics: [
          [
            id,
            [
              [0, 11n, NONE],
              [1, -1n, NONE],
              [7, -1n, NONE],
            ],
          ],
          [NO_SUCH_TOPIC_ID, [[0, -1n, UNKNOWN_TOPIC_ID]]],
          [ZERO_UUID, []],
        ],
      },
    );
  });

  test('v10 for every topic fills in the ids, and leaves out topics deleted since their commit', async () => {
    const h = fresh();
    const id = await createTopic(h, 't', 1);
    await createTopic(h, 'doomed', 1);
    await commit(h, 9, [
      { name: 't', partitions: [part(0, 3n)] },
      { name: 'doomed', partitions: [part(0, 4n)] },
    ]);
    const deleted = await call(
      deleteTopicsHandler,
      M.DeleteTopicsRequest,
      M.DeleteTopicsResponse,
      6,
      { topics: [{ name: 'doomed' }] },
      h.cluster,
    );
    assert.equal(deleted.responses[0]!.errorCode, NONE);
    assert.deepEqual(await fetchGroup(h, 10, null), { errorCode: NONE, topics: [[id, [[0, 3n, NONE]]]] });
    // Named, the offsets are still there: Kafka would have dropped them with the topic.
    assert.deepEqual((await fetchGroup(h, 9, null)).topics.map(([name]) => name).sort(), ['doomed', 't']);
  });

  test('by name (v1-v9), a topic or partition that does not exist is offset -1 with no error', async () => {
    const h = fresh();
    await createTopic(h, 't', 1);
    for (const v of [8, 9]) {
      assert.deepEqual(
        await fetchGroup(h, v, [
          { name: 't', partitionIndexes: [0, 4] },
          { name: 'missing', partitionIndexes: [0] },
        ]),
        {
          errorCode: NONE,
          topics: [
            [
              't',
              [
                [0, -1n, NONE],
                [4, -1n, NONE],
              ],
            ],
            ['missing', [[0, -1n, NONE]]],
          ],
        },
      );
    }
    const v7 = await call(
      offsetFetchHandler,
      M.OffsetFetchRequest,
      M.OffsetFetchResponse,
      7,
      { groupId: 'g', topics: [{ name: 'missing', partitionIndexes: [0] }] },
      h.cluster,
    );
    assert.deepEqual(
      v7.topics.map((t) => [t.name, t.partitions.map((p) => [p.committedOffset, p.errorCode])]),
      [['missing', [[-1n, NONE]]]],
    );
  });

  test('KIP-848 members commit and fetch by id with their epoch; a stale epoch fails only its own group', async () => {
    const h = fresh();
    const id = await createTopic(h, 't', 1);
    const memberId = 'kip848-member-00000001';
    const joined = await call(
      consumerGroupHeartbeatHandler,
      M.ConsumerGroupHeartbeatRequest,
      M.ConsumerGroupHeartbeatResponse,
      1,
      { groupId: 'cg', memberId, memberEpoch: 0, rebalanceTimeoutMs: 5000, subscribedTopicNames: ['t'], topicPartitions: [] },
      h.cluster,
    );
    assert.equal(joined.errorCode, NONE);
    const epoch = joined.memberEpoch;
    assert.deepEqual(
      await commit(h, 10, [{ topicId: id, partitions: [part(0, 21n)] }], { generationIdOrMemberEpoch: epoch, memberId }, 'cg'),
      [[id, [[0, NONE]]]],
    );
    const res = await call(
      offsetFetchHandler,
      M.OffsetFetchRequest,
      M.OffsetFetchResponse,
      10,
      {
        groups: [
          {
            groupId: 'cg',
            memberId,
            memberEpoch: epoch + 1,
            topics: [
              { topicId: NO_SUCH_TOPIC_ID, partitionIndexes: [0] },
              { topicId: id, partitionIndexes: [0] },
            ],
          },
          {
            groupId: 'cg',
            memberId,
            memberEpoch: epoch,
            topics: [
              { topicId: NO_SUCH_TOPIC_ID, partitionIndexes: [0] },
              { topicId: id, partitionIndexes: [0] },
            ],
          },
        ],
      },
      h.cluster,
    );
    assert.deepEqual(
      res.groups.map((g) => [g.errorCode, g.topics.map((t) => [t.topicId, t.partitions.map((p) => [p.committedOffset, p.errorCode])])]),
      [
        [ErrorCode.STALE_MEMBER_EPOCH, []],
        [
          NONE,
          [
            [id, [[21n, NONE]]],
            [NO_SUCH_TOPIC_ID, [[-1n, UNKNOWN_TOPIC_ID]]],
          ],
        ],
      ],
    );
  });
});
