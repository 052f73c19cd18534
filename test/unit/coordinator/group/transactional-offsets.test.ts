/**
 * TxnOffsetCommit in the group coordinator, as Kafka's OffsetMetadataManager: offsets of an open
 * transaction are pending (invisible to OffsetFetch, UNSTABLE_OFFSET_COMMIT to a requireStable
 * one) until the end marker commits or drops them; the later record wins when transactional and
 * plain commits meet; replay rebuilds the same state, an open transaction included; validation
 * per group type; DeleteGroups, OffsetDelete and expiry with open transactions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TxnOffsetCommitRequestData, TxnOffsetCommitResponseDataInput } from '@sluice/protocol/messages/api/28-txn-offset-commit.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { ZERO_UUID } from '@sluice/protocol/common/uuid.js';
import type { GroupCoordinator } from '../../../../src/coordinator/group/group-coordinator.js';
import { type CoordinatorRecord, decodeRecord } from '../../../../src/coordinator/group/records.js';
import { GROUP, commitRequest, joinCtx, joinRequest, newCoordinator, stableGroup } from './harness.js';
import { Client, FakeTopics, newCoordinator as newConsumerCoordinator, GROUP as CONSUMER_GROUP } from './consumer/harness.js';

const { NONE, UNSTABLE_OFFSET_COMMIT } = ErrorCode;

type Entry = { records: CoordinatorRecord[]; producerId: bigint | null } | { marker: bigint; commit: boolean };

/** A coordinator and the partition log its operations wrote, transactional batches and markers included. */
class Partition {
  readonly log: Entry[] = [];
  constructor(readonly c: GroupCoordinator<string> = newCoordinator()) {}

  txnCommit(producerId: bigint, offsets: Array<[number, bigint]>, overrides: Partial<TxnOffsetCommitRequestData> = {}, now = 0): number[] {
    const result = this.c.commitTransactionalOffsets(txnRequest(producerId, offsets, overrides), now);
    this.log.push({ records: result.records, producerId });
    return errorsOf(result.response);
  }

  commit(offsets: Array<[number, bigint]>, now = 0, groupId = GROUP): void {
    const result = this.c.commitOffsets(
      commitRequest(
        -1,
        '',
        offsets.map(([partition, offset]) => ({ topic: 't', partition, offset })),
        groupId,
      ),
      8,
      now,
    );
    this.log.push({ records: result.records, producerId: null });
  }

  end(producerId: bigint, commit: boolean): void {
    this.c.replayEndTransactionMarker(producerId, 0, commit);
    this.log.push({ marker: producerId, commit });
  }

  /** A new coordinator that replayed this log. */
  replayed(): GroupCoordinator<string> {
    const c = newCoordinator();
    for (const e of this.log) {
      if ('marker' in e) c.replayEndTransactionMarker(e.marker, 0, e.commit);
      else for (const r of e.records) c.replay(r.key, r.value, e.producerId);
    }
    c.loaded(0);
    return c;
  }
}

function txnRequest(
  producerId: bigint,
  offsets: Array<[number, bigint]>,
  overrides: Partial<TxnOffsetCommitRequestData> = {},
): TxnOffsetCommitRequestData {
  return {
    transactionalId: `tx-${producerId}`,
    groupId: GROUP,
    producerId,
    producerEpoch: 0,
    generationIdOrMemberEpoch: -1,
    memberId: '',
    groupInstanceId: null,
    topics: [
      {
        name: 't',
        topicId: ZERO_UUID,
        partitions: offsets.map(([partitionIndex, committedOffset]) => ({
          partitionIndex,
          committedOffset,
          committedLeaderEpoch: -1,
          committedMetadata: null,
        })),
      },
    ],
    ...overrides,
  };
}

function errorsOf(response: TxnOffsetCommitResponseDataInput): number[] {
  return (response.topics ?? []).flatMap((t) => (t.partitions ?? []).map((p) => p.errorCode ?? NONE));
}

/** `[partition, offset, error]` of partitions 0-2 of topic t (OffsetFetch v8). */
function fetched(c: GroupCoordinator<string>, requireStable = false, groupId = GROUP): Array<[number, bigint, number]> {
  const response = c.fetchOffsets(
    {
      groupId: '',
      topics: null,
      requireStable,
      groups: [{ groupId, memberId: null, memberEpoch: -1, topics: [{ name: 't', topicId: ZERO_UUID, partitionIndexes: [0, 1, 2] }] }],
    },
    8,
  );
  return (response.groups?.[0]?.topics?.[0]?.partitions ?? []).map((p) => [
    p.partitionIndex ?? -1,
    p.committedOffset ?? -1n,
    p.errorCode ?? NONE,
  ]);
}

test('offsets of a transaction are invisible until its COMMIT marker and dropped by its ABORT; requireStable answers UNSTABLE_OFFSET_COMMIT meanwhile', () => {
  const p = new Partition();
  p.commit([[0, 5n]]);
  assert.deepEqual(
    p.txnCommit(1n, [
      [0, 10n],
      [1, 11n],
    ]),
    [NONE, NONE],
  );
  assert.deepEqual(
    fetched(p.c),
    [
      [0, 5n, NONE],
      [1, -1n, NONE],
      [2, -1n, NONE],
    ],
    'the committed offsets only',
  );
  assert.deepEqual(fetched(p.c, true), [
    [0, -1n, UNSTABLE_OFFSET_COMMIT],
    [1, -1n, UNSTABLE_OFFSET_COMMIT],
    [2, -1n, NONE],
  ]);

  p.end(1n, true);
  assert.deepEqual(fetched(p.c, true), [
    [0, 10n, NONE],
    [1, 11n, NONE],
    [2, -1n, NONE],
  ]);

  p.txnCommit(2n, [[0, 20n]]);
  assert.deepEqual(fetched(p.c, true)[0], [0, -1n, UNSTABLE_OFFSET_COMMIT]);
  p.end(2n, false);
  assert.deepEqual(
    fetched(p.c, true),
    [
      [0, 10n, NONE],
      [1, 11n, NONE],
      [2, -1n, NONE],
    ],
    'aborted offsets are gone',
  );
  // A marker of a producer with nothing pending here changes nothing.
  p.end(3n, true);
  assert.deepEqual(fetched(p.c), [
    [0, 10n, NONE],
    [1, 11n, NONE],
    [2, -1n, NONE],
  ]);
});

test('requireStable in the single-group shape (OffsetFetch v7) and for all of a group’s partitions', () => {
  const p = new Partition();
  p.commit([
    [0, 5n],
    [1, 6n],
  ]);
  p.txnCommit(1n, [[1, 9n]]);
  const v7 = p.c.fetchOffsets({ groupId: GROUP, topics: null, requireStable: true, groups: [] }, 7);
  assert.deepEqual(
    v7.topics?.[0]?.partitions?.map((x) => [x.partitionIndex, x.committedOffset, x.errorCode ?? NONE]),
    [
      [0, 5n, NONE],
      [1, -1n, UNSTABLE_OFFSET_COMMIT],
    ],
  );
  const unstable = p.c.fetchOffsets({ groupId: GROUP, topics: null, requireStable: false, groups: [] }, 7);
  assert.deepEqual(
    unstable.topics?.[0]?.partitions?.map((x) => x.committedOffset),
    [5n, 6n],
    'without requireStable: the committed offsets',
  );
});

test('when transactional and plain commits of a partition meet, the later record wins, live and replayed', () => {
  // The plain commit came after the transaction's record: the COMMIT marker does not overwrite it.
  const plainLater = new Partition();
  plainLater.txnCommit(1n, [[0, 10n]]);
  plainLater.commit([[0, 5n]]);
  plainLater.end(1n, true);
  assert.deepEqual(fetched(plainLater.c)[0], [0, 5n, NONE]);
  assert.deepEqual(fetched(plainLater.replayed())[0], [0, 5n, NONE]);

  // The transaction's record came after the plain commit: its COMMIT replaces it.
  const txnLater = new Partition();
  txnLater.commit([[0, 5n]]);
  txnLater.txnCommit(1n, [[0, 10n]]);
  txnLater.end(1n, true);
  assert.deepEqual(fetched(txnLater.c)[0], [0, 10n, NONE]);
  assert.deepEqual(fetched(txnLater.replayed())[0], [0, 10n, NONE]);
});

test('replay rebuilds committed and pending offsets; a transaction still open at the log end stays pending and a later marker applies it', () => {
  const p = new Partition();
  p.commit([[0, 1n]]);
  p.txnCommit(1n, [[0, 2n]]);
  p.end(1n, true);
  p.txnCommit(2n, [[1, 3n]]);
  p.txnCommit(3n, [[2, 4n]]);
  p.end(3n, false);
  const replayed = p.replayed();
  assert.deepEqual(fetched(replayed, true), fetched(p.c, true));
  assert.deepEqual(fetched(replayed, true), [
    [0, 2n, NONE],
    [1, -1n, UNSTABLE_OFFSET_COMMIT],
    [2, -1n, NONE],
  ]);
  replayed.replayEndTransactionMarker(2n, 0, true);
  assert.deepEqual(fetched(replayed, true), [
    [0, 2n, NONE],
    [1, 3n, NONE],
    [2, -1n, NONE],
  ]);
});

test('the records are the OffsetCommit records, one per accepted partition; refused partitions write nothing', () => {
  const c = newCoordinator({ offsetMetadataMaxBytes: 4 });
  const result = c.commitTransactionalOffsets(
    txnRequest(1n, [], {
      topics: [
        {
          name: 't',
          topicId: ZERO_UUID,
          partitions: [
            { partitionIndex: 0, committedOffset: 7n, committedLeaderEpoch: 3, committedMetadata: 'abcd' },
            { partitionIndex: 1, committedOffset: 8n, committedLeaderEpoch: -1, committedMetadata: 'abcde' },
          ],
        },
      ],
    }),
    42,
  );
  assert.deepEqual(errorsOf(result.response), [NONE, ErrorCode.OFFSET_METADATA_TOO_LARGE]);
  assert.deepEqual(
    result.records.map((r) => decodeRecord(r.key, r.value)),
    [
      {
        type: 'offset-commit',
        key: { group: GROUP, topic: 't', partition: 0 },
        value: { offset: 7n, leaderEpoch: 3, metadata: 'abcd', commitTimestamp: 42n, expireTimestamp: -1n, topicId: ZERO_UUID },
      },
    ],
  );
});

test('classic and simple groups: Kafka’s transactional validation (no member needed, the group state not enforced)', () => {
  const p = new Partition();
  const txn = (overrides: Partial<TxnOffsetCommitRequestData>): number => p.txnCommit(1n, [[0, 1n]], overrides)[0]!;
  assert.equal(txn({ groupId: '' }), ErrorCode.INVALID_GROUP_ID);
  assert.equal(txn({ groupId: 'unknown', generationIdOrMemberEpoch: 3, memberId: 'm' }), ErrorCode.ILLEGAL_GENERATION);
  assert.equal(txn({ groupId: 'simple' }), NONE, 'an unknown group with generation -1 becomes a simple group');
  assert.deepEqual(
    p.c.listGroups({ statesFilter: [], typesFilter: [] }).groups?.map((g) => g.groupId),
    ['simple'],
  );

  const {
    members: [a],
    generation,
  } = stableGroup(p.c, 1);
  assert.equal(txn({}), NONE, 'a memberless commit to a live group (OffsetCommit answers UNKNOWN_MEMBER_ID)');
  assert.equal(txn({ generationIdOrMemberEpoch: generation, memberId: 'ghost' }), ErrorCode.UNKNOWN_MEMBER_ID);
  assert.equal(txn({ generationIdOrMemberEpoch: generation - 1, memberId: a! }), ErrorCode.ILLEGAL_GENERATION);
  assert.equal(txn({ generationIdOrMemberEpoch: generation, memberId: a! }), NONE);
  // The leader rejoins: the group completes the join and waits for the assignment.
  p.c.joinGroup(joinRequest({ memberId: a! }), joinCtx(20, 'j'));
  assert.equal(txn({ generationIdOrMemberEpoch: generation + 1, memberId: a! }), NONE, 'OffsetCommit answers REBALANCE_IN_PROGRESS here');
});

test('static members: a commit in another member’s name is fenced', () => {
  const p = new Partition();
  p.c.joinGroup(joinRequest({ groupInstanceId: 'i1' }), joinCtx(0, 'j1'));
  // The initial rebalance delay passes; the join is answered with the member id and generation.
  const answer = p.c.tick(p.c.nextDeadline()!).released.find((r) => r.to === 'j1');
  assert.ok(answer?.api === 'JoinGroup');
  const { memberId = '', generationId: generation = -1 } = answer.response;
  const txn = (memberIdUsed: string): number =>
    p.txnCommit(1n, [[0, 1n]], { generationIdOrMemberEpoch: generation, memberId: memberIdUsed, groupInstanceId: 'i1' })[0]!;
  assert.equal(txn('impostor'), ErrorCode.FENCED_INSTANCE_ID);
  assert.equal(txn(memberId), NONE);
});

test('consumer groups: unknown member, and a stale member epoch answered as ILLEGAL_GENERATION', () => {
  const c = newConsumerCoordinator();
  const topics = new FakeTopics();
  topics.add('t', 2);
  const member = new Client(c, topics, 'm1', []);
  member.join(0);
  const txn = (memberId: string, epoch: number): number =>
    errorsOf(
      c.commitTransactionalOffsets(txnRequest(1n, [[0, 1n]], { groupId: CONSUMER_GROUP, memberId, generationIdOrMemberEpoch: epoch }), 0)
        .response,
    )[0]!;
  assert.equal(txn('ghost', member.memberEpoch), ErrorCode.UNKNOWN_MEMBER_ID);
  assert.equal(txn('m1', member.memberEpoch + 1), ErrorCode.ILLEGAL_GENERATION);
  assert.equal(txn('m1', member.memberEpoch), NONE);
  assert.equal(txn('', -1), ErrorCode.UNKNOWN_MEMBER_ID, 'memberless commits only while the group is empty');
});

test('DeleteGroups and OffsetDelete tombstone pending offsets too; the COMMIT marker that follows brings nothing back', () => {
  const p = new Partition();
  p.commit([[0, 1n]], 0, 'other');
  p.commit([[0, 5n]]);
  p.txnCommit(1n, [
    [0, 6n],
    [1, 7n],
  ]);
  const deleted = p.c.deleteGroups({ groupsNames: [GROUP] });
  assert.deepEqual(
    deleted.response.results?.map((r) => r.errorCode),
    [NONE],
  );
  const tombstones = deleted.records.map((r) => decodeRecord(r.key, r.value)).filter((r) => r.type === 'offset-commit');
  assert.deepEqual(
    tombstones.map((t) => (t.type === 'offset-commit' ? [t.key.partition, t.value] : null)).sort(),
    [
      [0, null],
      [1, null],
    ],
    'one tombstone per partition',
  );
  p.log.push({ records: deleted.records, producerId: null });
  p.end(1n, true);
  assert.deepEqual(fetched(p.c), [
    [0, -1n, NONE],
    [1, -1n, NONE],
    [2, -1n, NONE],
  ]);
  assert.deepEqual(fetched(p.replayed()), [
    [0, -1n, NONE],
    [1, -1n, NONE],
    [2, -1n, NONE],
  ]);

  const q = new Partition();
  q.txnCommit(2n, [[2, 9n]]);
  const offsetDelete = q.c.deleteOffsets({ groupId: GROUP, topics: [{ name: 't', partitions: [{ partitionIndex: 2 }] }] });
  assert.equal(offsetDelete.records.length, 1, 'a tombstone for a partition with only a pending offset');
  q.c.replayEndTransactionMarker(2n, 0, true);
  assert.deepEqual(fetched(q.c)[2], [2, -1n, NONE]);
});

test('expiry spares offsets an open transaction is about to replace and groups with an open transaction', () => {
  const config = { offsetsRetentionMs: 1000, offsetsRetentionCheckIntervalMs: 100 };
  const p = new Partition(newCoordinator(config));
  p.c.loaded(0);
  p.commit([[0, 1n]], 0);
  p.txnCommit(1n, [[0, 2n]], {}, 0);
  p.txnCommit(2n, [[1, 3n]], { groupId: 'only-txn' }, 0);
  assert.deepEqual(p.c.tick(5000).records, [], 'nothing expires while the transactions are open');
  p.end(1n, false);
  p.end(2n, false);
  const expired = p.c.tick(5100).records.map((r) => decodeRecord(r.key, r.value));
  assert.deepEqual(expired, [
    { type: 'offset-commit', key: { group: GROUP, topic: 't', partition: 0 }, value: null },
    { type: 'group-metadata', group: GROUP, value: null },
    { type: 'group-metadata', group: 'only-txn', value: null },
  ]);
});
