/**
 * The differential harness over the group APIs: FindCoordinator; the classic protocol's
 * JoinGroup / SyncGroup / Heartbeat / DescribeGroups / ListGroups / LeaveGroup / DeleteGroups
 * through a group's whole life, with the errors a member meets (bad session timeout, empty group
 * id, inconsistent protocol, unknown member, wrong generation, a non-empty group); OffsetDelete;
 * KIP-848's ConsumerGroupHeartbeat / ConsumerGroupDescribe; and KIP-932's share-group APIs
 * (ShareGroupHeartbeat, ShareGroupDescribe, the share-group offset APIs, ShareFetch and
 * ShareAcknowledge). Each API at the lowest, a middle
 * and the highest version both brokers serve; the nth version of every API works on the nth
 * group, so each walks a whole life. OffsetCommit and OffsetFetch have their own differential
 * test (offsets-vs-kafka).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KAFKA_VERSION } from '../../tools/kafka/kafka-release.js';
import { javaSkip } from '../helpers/requirements.js';
import * as M from '@sluice/protocol/messages/index.js';
import { createServedTopic } from '../helpers/compat-setup.js';
import { INTENDED, differentialRun, step, type Scenario, type Vars } from '../helpers/differential.js';
import { awaitCoordinator, commitOffsets, committed, joinClassicGroup } from '../helpers/offset-wire.js';
import type { MaskRule } from '../helpers/response-diff.js';

const TOPIC = 'compat-groups';
const CLASSIC = 'compat-classic';
const LIVE = 'compat-classic-live';
const SIMPLE = 'compat-simple-offsets';
const UNKNOWN_GROUP = 'compat-no-such-group';
const CONSUMER = 'compat-consumer';
const MISSING = 'compat-never-created';
/** Enough groups for every version of a step ('spread' sends at most three). */
const GROUPS = [0, 1, 2];

const MEMBER_MASK: readonly MaskRule[] = [
  { path: '**.memberId', treat: 'kind', why: 'each coordinator makes up its own member ids' },
  { path: '**.leader', treat: 'kind', why: 'the leader is a member id' },
  { path: '**.clientHost', treat: 'kind', why: 'the address each broker saw the member connect from' },
];

const groupOf = (i: number): string => `${CLASSIC}-${i}`;
const memberOf = (vars: Vars, i: number): string => (vars.get(`member-${i}`) as string | undefined) ?? '';
const generationOf = (vars: Vars, i: number): number => (vars.get(`generation-${i}`) as number | undefined) ?? -1;
const PROTOCOLS = [{ name: 'range', metadata: Buffer.from('subscription') }];

function classicScenario(): Scenario {
  const join = (label: string, overrides: (vars: Vars, i: number) => Partial<M.JoinGroupRequestDataInput>, keep = false) =>
    step({
      label,
      request: M.JoinGroupRequest,
      response: M.JoinGroupResponse,
      versions: 'spread',
      mask: MEMBER_MASK,
      body: (_v, vars, i) => ({
        groupId: groupOf(i),
        sessionTimeoutMs: 30_000,
        rebalanceTimeoutMs: 5_000,
        memberId: memberOf(vars, i),
        protocolType: 'consumer',
        protocols: PROTOCOLS,
        ...overrides(vars, i),
      }),
      keep: keep
        ? (r, vars, i) => {
            vars.set(`member-${i}`, r.memberId);
            vars.set(`generation-${i}`, r.generationId);
          }
        : undefined,
    });
  const sync = (label: string, member: (vars: Vars, i: number) => { generationId: number; memberId: string }) =>
    step({
      label,
      request: M.SyncGroupRequest,
      response: M.SyncGroupResponse,
      versions: 'spread',
      body: (v, vars, i) => ({
        groupId: groupOf(i),
        ...member(vars, i),
        ...(v >= 5 ? { protocolType: 'consumer', protocolName: 'range' } : {}),
        assignments: [{ memberId: memberOf(vars, i), assignment: Buffer.from(`assignment-${i}`) }],
      }),
    });
  const heartbeat = (label: string, member: (vars: Vars, i: number) => { generationId: number; memberId: string }, group = groupOf) =>
    step({
      label,
      request: M.HeartbeatRequest,
      response: M.HeartbeatResponse,
      versions: 'spread',
      body: (_v, vars, i) => ({ groupId: group(i), ...member(vars, i) }),
    });
  const current = (vars: Vars, i: number) => ({ generationId: generationOf(vars, i), memberId: memberOf(vars, i) });
  return {
    name: 'The classic protocol: a group’s life from join to delete, with the errors a member meets',
    setup: async (bootstrap) => {
      await createServedTopic(bootstrap, TOPIC, 2);
      for (const g of [...GROUPS.map(groupOf), LIVE, UNKNOWN_GROUP]) await awaitCoordinator(bootstrap, g);
      await joinClassicGroup(bootstrap, LIVE);
    },
    steps: [
      step({
        label: 'the coordinator of a group',
        request: M.FindCoordinatorRequest,
        response: M.FindCoordinatorResponse,
        versions: 'spread',
        body: (v) => (v >= 4 ? { keyType: 0, coordinatorKeys: [CLASSIC, UNKNOWN_GROUP] } : { key: CLASSIC, keyType: 0 }),
      }),
      step({
        label: 'a coordinator of an unknown key type',
        request: M.FindCoordinatorRequest,
        response: M.FindCoordinatorResponse,
        versions: [1, 3, 6],
        body: (v) => (v >= 4 ? { keyType: 7, coordinatorKeys: [CLASSIC] } : { key: CLASSIC, keyType: 7 }),
      }),
      join('a session timeout under group.min.session.timeout.ms', () => ({ sessionTimeoutMs: 1 })),
      join('an empty group id', () => ({ groupId: '' })),
      join('the first join', () => ({ memberId: '' }), true),
      join('a join with the member id it was given', () => ({}), true),
      join('a join from an unknown member id', () => ({ memberId: 'compat-stranger' })),
      join('a new member with another protocol type', () => ({ memberId: '', protocolType: 'connect' })),
      sync('sync with a wrong generation', (vars, i) => ({ ...current(vars, i), generationId: generationOf(vars, i) + 3 })),
      sync('sync from an unknown member', (vars, i) => ({ ...current(vars, i), memberId: 'compat-stranger' })),
      sync('sync as the leader', current),
      heartbeat('a heartbeat', current),
      heartbeat('a heartbeat with a wrong generation', (vars, i) => ({ ...current(vars, i), generationId: generationOf(vars, i) + 3 })),
      heartbeat('a heartbeat from an unknown member', (vars, i) => ({ ...current(vars, i), memberId: 'compat-stranger' })),
      heartbeat(
        'a heartbeat to an unknown group',
        (vars, i) => current(vars, i),
        () => UNKNOWN_GROUP,
      ),
      step({
        label: 'the group and an unknown group',
        request: M.DescribeGroupsRequest,
        response: M.DescribeGroupsResponse,
        versions: 'spread',
        mask: MEMBER_MASK,
        body: (v, _vars, i) => ({ groups: [groupOf(i), UNKNOWN_GROUP], includeAuthorizedOperations: v >= 3 }),
      }),
      step({
        label: 'every group, by state and type where the version filters',
        request: M.ListGroupsRequest,
        response: M.ListGroupsResponse,
        versions: 'spread',
        unordered: ['groups'],
        body: (v) => ({ ...(v >= 4 ? { statesFilter: ['Stable'] } : {}), ...(v >= 5 ? { typesFilter: ['classic'] } : {}) }),
      }),
      step({
        label: 'leave: an unknown member, then the member',
        request: M.LeaveGroupRequest,
        response: M.LeaveGroupResponse,
        versions: 'spread',
        mask: MEMBER_MASK,
        body: (v, vars, i) =>
          v >= 3
            ? {
                groupId: groupOf(i),
                members: [
                  { memberId: 'compat-stranger', groupInstanceId: null },
                  { memberId: memberOf(vars, i), groupInstanceId: null },
                ],
              }
            : { groupId: groupOf(i), memberId: memberOf(vars, i) },
      }),
      step({
        label: 'delete: the emptied group, an unknown group, a group with a member',
        request: M.DeleteGroupsRequest,
        response: M.DeleteGroupsResponse,
        versions: 'spread',
        // Kafka lists the groups in the order its coordinator shards answer; clients match by group id.
        unordered: ['results'],
        body: (_v, _vars, i) => ({ groupsNames: [groupOf(i), UNKNOWN_GROUP, LIVE] }),
      }),
    ],
  };
}

function offsetDeleteScenario(): Scenario {
  return {
    name: 'OffsetDelete: committed partitions, a partition the topic lacks, an unknown topic, an unknown group',
    setup: async (bootstrap) => {
      await createServedTopic(bootstrap, `${TOPIC}-offsets`, 2);
      await awaitCoordinator(bootstrap, SIMPLE);
      await commitOffsets(bootstrap, 9, SIMPLE, [{ name: `${TOPIC}-offsets`, partitions: [committed(0), committed(1)] }]);
    },
    steps: [
      step({
        label: 'a committed partition, a partition the topic lacks, an unknown topic',
        request: M.OffsetDeleteRequest,
        response: M.OffsetDeleteResponse,
        versions: 'spread',
        body: () => ({
          groupId: SIMPLE,
          topics: [
            { name: `${TOPIC}-offsets`, partitions: [{ partitionIndex: 0 }, { partitionIndex: 7 }] },
            { name: MISSING, partitions: [{ partitionIndex: 0 }] },
          ],
        }),
      }),
      step({
        label: 'an unknown group',
        request: M.OffsetDeleteRequest,
        response: M.OffsetDeleteResponse,
        versions: 'spread',
        body: () => ({ groupId: UNKNOWN_GROUP, topics: [{ name: `${TOPIC}-offsets`, partitions: [{ partitionIndex: 1 }] }] }),
      }),
    ],
  };
}

function consumerGroupScenario(): Scenario {
  const topic = `${TOPIC}-848`;
  const groupFor = (i: number): string => `${CONSUMER}-${i}`;
  const heartbeat = (label: string, body: (v: number, vars: Vars, i: number) => M.ConsumerGroupHeartbeatRequestDataInput, keep = false) =>
    step({
      label,
      request: M.ConsumerGroupHeartbeatRequest,
      response: M.ConsumerGroupHeartbeatResponse,
      versions: 'spread',
      mask: [...MEMBER_MASK, ...INTENDED.consumerGroupEpochs],
      body,
      keep: keep
        ? (r, vars, i) => {
            vars.set(`cg-member-${i}`, r.memberId);
            vars.set(`cg-epoch-${i}`, r.memberEpoch);
          }
        : undefined,
    });
  // From v1 the client makes its member id up; v0 asks the coordinator for one.
  const newMember = (v: number, i: number): string => (v >= 1 ? `compat-consumer-member-${i}-0000` : '');
  const member = (vars: Vars, i: number) => ({
    memberId: (vars.get(`cg-member-${i}`) as string | null) ?? '',
    memberEpoch: vars.get(`cg-epoch-${i}`) as number,
  });
  return {
    name: 'KIP-848: ConsumerGroupHeartbeat and ConsumerGroupDescribe, a member’s join, assignment, fencing and leave',
    setup: async (bootstrap) => {
      await createServedTopic(bootstrap, topic, 2);
      for (const i of GROUPS) await awaitCoordinator(bootstrap, groupFor(i));
    },
    steps: [
      heartbeat('a join without a subscription', (v, _vars, i) => ({
        groupId: groupFor(i),
        memberId: newMember(v, i),
        memberEpoch: 0,
        rebalanceTimeoutMs: 5_000,
        topicPartitions: [],
      })),
      heartbeat(
        'a join',
        (v, _vars, i) => ({
          groupId: groupFor(i),
          memberId: newMember(v, i),
          memberEpoch: 0,
          rebalanceTimeoutMs: 5_000,
          subscribedTopicNames: [topic],
          topicPartitions: [],
        }),
        true,
      ),
      heartbeat('an epoch from the future', (_v, vars, i) => ({
        groupId: groupFor(i),
        ...member(vars, i),
        memberEpoch: member(vars, i).memberEpoch + 5,
      })),
      heartbeat('an unknown member', (_v, _vars, i) => ({ groupId: groupFor(i), memberId: 'compat-nobody-00000000001', memberEpoch: 1 })),
      step({
        label: 'the group, an unknown group and a classic group',
        request: M.ConsumerGroupDescribeRequest,
        response: M.ConsumerGroupDescribeResponse,
        versions: 'spread',
        mask: [...MEMBER_MASK, ...INTENDED.consumerGroupEpochs],
        body: (_v, _vars, i) => ({ groupIds: [groupFor(i), UNKNOWN_GROUP, LIVE], includeAuthorizedOperations: true }),
      }),
      heartbeat('a leave', (_v, vars, i) => ({ groupId: groupFor(i), ...member(vars, i), memberEpoch: -1 })),
    ],
  };
}

/**
 * KIP-932's share groups: a member's join, heartbeat, fencing and leave; the group described; its
 * start offsets described, altered and deleted with a member and without; ShareFetch and
 * ShareAcknowledge refused (no session, a bad session epoch) and a session opened on a known and
 * an unknown topic id. The client makes its member id up (a uuid), so both brokers see the same one.
 */
function shareGroupScenario(): Scenario {
  const topic = `${TOPIC}-share`;
  const group = 'compat-share';
  const member = Buffer.alloc(16, 7).toString('base64url');
  const unknownTopicId = Buffer.alloc(16, 9).toString('base64url');
  const heartbeat = (label: string, body: (vars: Vars) => M.ShareGroupHeartbeatRequestDataInput, keep = false) =>
    step({
      label,
      request: M.ShareGroupHeartbeatRequest,
      response: M.ShareGroupHeartbeatResponse,
      versions: 'spread',
      mask: INTENDED.consumerGroupEpochs,
      body: (_v, vars) => body(vars),
      keep: keep ? (r, vars) => vars.set('share-epoch', r.memberEpoch) : undefined,
    });
  const epoch = (vars: Vars): number => (vars.get('share-epoch') as number | undefined) ?? 0;
  // Every topic of a group (topics null) only once it has no member: docs/guides/compatibility.md,
  // "Known differences, not yet fixed".
  const offsets = (label: string, every: boolean) =>
    step({
      label,
      request: M.DescribeShareGroupOffsetsRequest,
      response: M.DescribeShareGroupOffsetsResponse,
      versions: 'spread',
      body: () => ({
        groups: [
          { groupId: group, topics: every ? null : [{ topicName: topic, partitions: [0, 1] }] },
          { groupId: UNKNOWN_GROUP, topics: [{ topicName: topic, partitions: [0] }] },
        ],
      }),
    });
  const alter = (label: string) =>
    step({
      label,
      request: M.AlterShareGroupOffsetsRequest,
      response: M.AlterShareGroupOffsetsResponse,
      versions: 'spread',
      // Kafka lists the topics it refuses before the coordinator's answers; clients match by name.
      unordered: ['responses'],
      body: () => ({
        groupId: group,
        topics: [
          {
            topicName: topic,
            partitions: [
              { partitionIndex: 0, startOffset: 0n },
              { partitionIndex: 5, startOffset: 0n },
            ],
          },
          { topicName: MISSING, partitions: [{ partitionIndex: 0, startOffset: 0n }] },
        ],
      }),
    });
  const remove = (label: string) =>
    step({
      label,
      request: M.DeleteShareGroupOffsetsRequest,
      response: M.DeleteShareGroupOffsetsResponse,
      versions: 'spread',
      unordered: ['responses'],
      body: () => ({ groupId: group, topics: [{ topicName: topic }, { topicName: MISSING }] }),
    });
  const fetch = (
    label: string,
    shareSessionEpoch: number,
    topics: (vars: Vars) => M.ShareFetchRequestFetchTopicInput[],
    settled?: (r: M.ShareFetchResponseData) => boolean,
  ) =>
    step({
      label,
      request: M.ShareFetchRequest,
      response: M.ShareFetchResponse,
      versions: 'spread',
      // Kafka answers the partitions it refuses before those it fetches; clients match by topic id.
      unordered: ['responses'],
      settled,
      body: (_v, vars) => ({
        groupId: group,
        memberId: member,
        shareSessionEpoch,
        maxWaitMs: 0,
        minBytes: 1,
        maxBytes: 1_000_000,
        maxRecords: 10,
        batchSize: 10,
        topics: topics(vars),
      }),
    });
  const acknowledge = (label: string, shareSessionEpoch: number) =>
    step({
      label,
      request: M.ShareAcknowledgeRequest,
      response: M.ShareAcknowledgeResponse,
      versions: 'spread',
      body: (_v, vars) => ({
        groupId: group,
        memberId: member,
        shareSessionEpoch,
        topics: [
          {
            topicId: vars.get('topic-id') as string,
            partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [1] }] }],
          },
        ],
      }),
    });
  return {
    name: 'KIP-932: ShareGroupHeartbeat, ShareGroupDescribe, the share-group offset APIs, ShareFetch and ShareAcknowledge refusals',
    setup: async (bootstrap, vars) => {
      vars.set('topic-id', await createServedTopic(bootstrap, topic, 2));
      await awaitCoordinator(bootstrap, group);
    },
    steps: [
      heartbeat('a join with an empty group id', () => ({ groupId: '', memberId: member, memberEpoch: 0, subscribedTopicNames: [topic] })),
      heartbeat('a join without a subscription', () => ({ groupId: group, memberId: member, memberEpoch: 0, subscribedTopicNames: null })),
      heartbeat('a join', () => ({ groupId: group, memberId: member, memberEpoch: 0, subscribedTopicNames: [topic] }), true),
      heartbeat('a heartbeat', (vars) => ({ groupId: group, memberId: member, memberEpoch: epoch(vars) }), true),
      heartbeat('an epoch from the future', (vars) => ({ groupId: group, memberId: member, memberEpoch: epoch(vars) + 5 })),
      heartbeat('an unknown member', () => ({ groupId: group, memberId: Buffer.alloc(16, 8).toString('base64url'), memberEpoch: 1 })),
      step({
        label: 'the group, an unknown group and a classic group',
        request: M.ShareGroupDescribeRequest,
        response: M.ShareGroupDescribeResponse,
        versions: 'spread',
        mask: INTENDED.consumerGroupEpochs,
        body: () => ({ groupIds: [group, UNKNOWN_GROUP, LIVE], includeAuthorizedOperations: true }),
      }),
      offsets('the start offsets of the group with a member, and of an unknown group', false),
      alter('alter the start offsets of a group with a member'),
      remove('delete the start offsets of a group with a member'),
      fetch('ShareFetch without a session', 3, (vars) => [
        { topicId: vars.get('topic-id') as string, partitions: [{ partitionIndex: 0 }] },
      ]),
      acknowledge('ShareAcknowledge without a session', 1),
      fetch(
        'ShareFetch opening a session on a known and an unknown topic id',
        0,
        (vars) => [
          { topicId: vars.get('topic-id') as string, partitions: [{ partitionIndex: 0 }] },
          { topicId: unknownTopicId, partitions: [{ partitionIndex: 0 }] },
          // Kafka leaves out a share partition still loading its state, and answers UNKNOWN_SERVER_ERROR
          // (-1) for one whose load timed out on a busy machine; a new session asks again.
        ],
        (r) => r.responses.length === 2 && r.responses.every((t) => t.partitions.every((p) => p.errorCode !== -1)),
      ),
      acknowledge('ShareAcknowledge at epoch 1 after the session was opened at each version', 1),
      fetch('ShareFetch with a bad session epoch', 7, () => []),
      acknowledge('ShareAcknowledge with a bad session epoch', 7),
      heartbeat('a leave', () => ({ groupId: group, memberId: member, memberEpoch: -1 })),
      alter('alter the start offsets of the emptied group'),
      offsets('every start offset after the change', true),
      remove('delete the start offsets of the emptied group'),
      offsets('every start offset after the deletion', true),
    ],
  };
}

const SCENARIOS = [classicScenario(), offsetDeleteScenario(), consumerGroupScenario(), shareGroupScenario()];

describe(`Group APIs, Sluice against Apache Kafka ${KAFKA_VERSION}`, { skip: javaSkip() }, () => {
  const run = differentialRun(SCENARIOS);
  for (const scenario of SCENARIOS) {
    test(scenario.name, () => {
      const { sluiceAsked, kafkaAsked, differences } = run.compare(scenario);
      assert.deepEqual(sluiceAsked, kafkaAsked, 'both brokers were asked the same questions');
      assert.deepEqual(differences, []);
    });
  }
});
