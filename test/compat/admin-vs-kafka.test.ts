/**
 * The differential harness over the admin APIs on topics and the cluster: CreateTopics (with
 * validateOnly, bad configs, bad counts, bad names), DeleteTopics (by name and id),
 * CreatePartitions, DescribeConfigs / AlterConfigs / IncrementalAlterConfigs on topics, brokers
 * (one broker and the cluster default) and groups, DescribeLogDirs and AlterReplicaLogDirs,
 * ElectLeaders, DescribeCluster, ListPartitionReassignments / AlterPartitionReassignments, the
 * ACL, client-quota and SCRAM-credential APIs without an authorizer, SaslHandshake on a plaintext
 * listener, ApiVersions' features and UpdateFeatures (its refusals, and what a disabled
 * `group.version` or `share.version` answers), each at the lowest, a middle and the highest version
 * both brokers serve. Intended differences are masked with the reason in docs/guides/compatibility.md.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KAFKA_VERSION } from '../../tools/kafka/kafka-release.js';
import { javaSkip } from '../helpers/requirements.js';
import * as M from '@sluice/protocol/messages/index.js';
import { createServedTopic } from '../helpers/compat-setup.js';
import { INTENDED, differentialRun, step, type Scenario, type Vars } from '../helpers/differential.js';

const CONFIG_MASK = [INTENDED.configDocumentation, ...INTENDED.kraftMinInsyncReplicas];
import { NO_SUCH_TOPIC_ID } from '../helpers/offset-wire.js';
import { wireCall } from '../helpers/wire-call.js';

const MISSING = 'compat-never-created';
const TOPIC_RESOURCE = 2;
const SET = 0;
const DELETE = 1;
const APPEND = 2;
const SUBTRACT = 3;

function createTopicsScenario(): Scenario {
  const create = (label: string, validateOnly: boolean, topics: (v: number) => M.CreateTopicsRequestCreatableTopicInput[]) =>
    step({
      label,
      request: M.CreateTopicsRequest,
      response: M.CreateTopicsResponse,
      versions: 'spread',
      mask: CONFIG_MASK,
      body: (v) => ({ timeoutMs: 10_000, validateOnly, topics: topics(v) }),
    });
  const topic = (
    name: string,
    numPartitions: number,
    replicationFactor = 1,
    configs: M.CreateTopicsRequestCreatableTopicConfigInput[] = [],
  ) => ({ name, numPartitions, replicationFactor, configs });
  return {
    name: 'CreateTopics: validateOnly, bad configs, bad counts, bad names, a duplicate, an existing topic',
    steps: [
      create('validateOnly: a good topic, bad and unknown configs, bad counts, a bad name', true, (v) => [
        topic(`compat-validate-${v}`, 3, 1, [{ name: 'retention.ms', value: '100000' }]),
        topic('compat-bad-config', 1, 1, [{ name: 'retention.ms', value: 'soon' }]),
        topic('compat-unknown-config', 1, 1, [{ name: 'no.such.config', value: '1' }]),
        topic('compat-no-partitions', 0),
        topic('compat-three-replicas', 1, 3),
        topic('bad name!', 1),
        topic('compat-defaults', -1, -1),
      ]),
      create('validateOnly: a name twice', true, () => [topic('compat-twice', 1), topic('compat-twice', 2)]),
      create('a topic with a config, created', false, (v) => [
        topic(`compat-created-${v}`, 2, 1, [{ name: 'cleanup.policy', value: 'compact' }]),
      ]),
      create('the same topic again', false, (v) => [topic(`compat-created-${v}`, 2)]),
    ],
  };
}

function deleteTopicsScenario(): Scenario {
  const names = [1, 2, 3, 4, 5, 6].map((v) => `compat-delete-${v}`);
  return {
    name: 'DeleteTopics: by name, by id, an unknown name, an unknown id',
    setup: async (bootstrap, vars) => {
      for (const name of names) vars.set(name, await createServedTopic(bootstrap, name, 1));
    },
    steps: [
      step({
        label: 'a topic and an unknown name',
        request: M.DeleteTopicsRequest,
        response: M.DeleteTopicsResponse,
        versions: 'spread',
        // Kafka lists the names it refuses before those it deletes; clients match answers by name.
        unordered: ['responses'],
        body: (v) =>
          v >= 6
            ? { timeoutMs: 10_000, topics: [{ name: `compat-delete-${v}` }, { name: MISSING }] }
            : { timeoutMs: 10_000, topicNames: [`compat-delete-${v}`, MISSING] },
      }),
      step({
        label: 'by id: a topic and an unknown id',
        request: M.DeleteTopicsRequest,
        response: M.DeleteTopicsResponse,
        versions: [6],
        unordered: ['responses'],
        body: (_v, vars) => ({
          timeoutMs: 10_000,
          topics: [
            { name: null, topicId: vars.get('compat-delete-5') as string },
            { name: null, topicId: NO_SUCH_TOPIC_ID },
          ],
        }),
      }),
    ],
  };
}

function createPartitionsScenario(): Scenario {
  const topic = 'compat-grow';
  const grow = (label: string, validateOnly: boolean, topics: (vars: Vars) => M.CreatePartitionsRequestCreatePartitionsTopicInput[]) =>
    step({
      label,
      request: M.CreatePartitionsRequest,
      response: M.CreatePartitionsResponse,
      versions: 'spread',
      body: (_v, vars) => ({ timeoutMs: 10_000, validateOnly, topics: topics(vars) }),
    });
  const next = (vars: Vars): number => {
    const n = ((vars.get('partitions') as number | undefined) ?? 1) + 1;
    vars.set('partitions', n);
    return n;
  };
  return {
    name: 'CreatePartitions: grow, validateOnly, shrink, the same count, an unknown topic, a duplicate, a bad assignment',
    setup: (bootstrap) => createServedTopic(bootstrap, topic, 1),
    steps: [
      grow('grow by one', false, (vars) => [{ name: topic, count: next(vars), assignments: null }]),
      grow('validateOnly: grow by ten', true, (vars) => [
        { name: topic, count: (vars.get('partitions') as number) + 10, assignments: null },
      ]),
      grow('shrink, the same count, an unknown topic', false, () => [
        { name: topic, count: 1, assignments: null },
        { name: MISSING, count: 3, assignments: null },
      ]),
      grow('the same count', false, (vars) => [{ name: topic, count: vars.get('partitions') as number, assignments: null }]),
      grow('a topic twice', true, () => [
        { name: topic, count: 20, assignments: null },
        { name: topic, count: 21, assignments: null },
      ]),
      grow('an assignment to a broker that does not exist', true, (vars) => [
        { name: topic, count: (vars.get('partitions') as number) + 1, assignments: [{ brokerIds: [42] }] },
      ]),
    ],
  };
}

function topicConfigsScenario(): Scenario {
  const topic = 'compat-configs';
  const resource = (name: string, configurationKeys: string[] | null) => ({
    resourceType: TOPIC_RESOURCE,
    resourceName: name,
    configurationKeys,
  });
  const describe = (
    label: string,
    resources: M.DescribeConfigsRequestDescribeConfigsResourceInput[],
    synonyms: boolean,
    settled?: (r: M.DescribeConfigsResponseData) => boolean,
  ) =>
    step({
      label,
      request: M.DescribeConfigsRequest,
      response: M.DescribeConfigsResponse,
      versions: 'spread',
      unordered: ['results[].configs'],
      mask: CONFIG_MASK,
      body: (v) => ({ resources, includeSynonyms: synonyms, includeDocumentation: v >= 3 }),
      settled,
    });
  const alter = (label: string, validateOnly: boolean, name: string, configs: M.AlterConfigsRequestAlterableConfigInput[]) =>
    step({
      label,
      request: M.AlterConfigsRequest,
      response: M.AlterConfigsResponse,
      versions: 'spread',
      body: () => ({ validateOnly, resources: [{ resourceType: TOPIC_RESOURCE, resourceName: name, configs }] }),
    });
  const value = (r: M.DescribeConfigsResponseData, key: string) => r.results[0]?.configs.find((c) => c.name === key)?.value;
  const incremental = (
    label: string,
    validateOnly: boolean,
    name: string,
    configs: M.IncrementalAlterConfigsRequestAlterableConfigInput[],
  ) =>
    step({
      label,
      request: M.IncrementalAlterConfigsRequest,
      response: M.IncrementalAlterConfigsResponse,
      versions: 'spread',
      body: () => ({ validateOnly, resources: [{ resourceType: TOPIC_RESOURCE, resourceName: name, configs }] }),
    });
  return {
    name: 'DescribeConfigs, AlterConfigs and IncrementalAlterConfigs on topics: every key, chosen keys, bad values, unknown keys and topics',
    setup: (bootstrap) => createServedTopic(bootstrap, topic, 1, [{ name: 'retention.ms', value: '100000' }]),
    steps: [
      describe('every config of a topic, with synonyms', [resource(topic, null)], true),
      describe(
        'chosen keys, an unknown key, and an unknown topic',
        [resource(topic, ['retention.ms', 'cleanup.policy', 'no.such.config']), resource(MISSING, null)],
        false,
      ),
      alter('validateOnly: a good value and a bad one', true, topic, [
        { name: 'retention.ms', value: '1' },
        { name: 'segment.bytes', value: 'big' },
      ]),
      alter('an unknown key', false, topic, [{ name: 'no.such.config', value: '1' }]),
      alter('an unknown topic', false, MISSING, [{ name: 'retention.ms', value: '1' }]),
      alter('replace the configs', false, topic, [
        { name: 'retention.ms', value: '200000' },
        { name: 'max.message.bytes', value: '5000' },
      ]),
      incremental('validateOnly: set a bad value', true, topic, [{ name: 'retention.ms', configOperation: SET, value: 'never' }]),
      incremental('set, delete, append to a list', false, topic, [
        { name: 'retention.ms', configOperation: SET, value: '300000' },
        { name: 'max.message.bytes', configOperation: DELETE, value: null },
        { name: 'cleanup.policy', configOperation: APPEND, value: 'compact' },
      ]),
      incremental('subtract from a list', false, topic, [{ name: 'cleanup.policy', configOperation: SUBTRACT, value: 'delete' }]),
      incremental('a key twice', false, topic, [
        { name: 'cleanup.policy', configOperation: APPEND, value: 'compact' },
        { name: 'cleanup.policy', configOperation: SUBTRACT, value: 'delete' },
      ]),
      incremental('append to a key that is not a list', false, topic, [{ name: 'retention.ms', configOperation: APPEND, value: '5' }]),
      incremental('an unknown key', false, topic, [{ name: 'no.such.config', configOperation: SET, value: '1' }]),
      incremental('an unknown topic', false, MISSING, [{ name: 'retention.ms', configOperation: SET, value: '1' }]),
      // Kafka's broker applies the controller's config record a moment after the change is answered.
      describe(
        'the configs after the changes',
        [resource(topic, ['retention.ms', 'cleanup.policy', 'max.message.bytes'])],
        true,
        (r) => value(r, 'retention.ms') === '300000' && value(r, 'cleanup.policy') === 'compact',
      ),
    ],
  };
}

function clusterScenario(): Scenario {
  const topic = 'compat-cluster';
  return {
    name: 'ElectLeaders, DescribeCluster, reassignments, ACLs, quotas and SCRAM users of a single broker',
    setup: (bootstrap) => createServedTopic(bootstrap, topic, 2),
    steps: [
      step({
        label: 'preferred leaders of led partitions, a bad partition and an unknown topic',
        request: M.ElectLeadersRequest,
        response: M.ElectLeadersResponse,
        versions: 'spread',
        unordered: ['replicaElectionResults', 'replicaElectionResults[].partitionResult'],
        body: () => ({
          electionType: 0,
          timeoutMs: 10_000,
          topicPartitions: [
            { topic, partitions: [0, 1, 9] },
            { topic: MISSING, partitions: [0] },
          ],
        }),
      }),
      step({
        label: 'unclean election of a led partition',
        request: M.ElectLeadersRequest,
        response: M.ElectLeadersResponse,
        versions: [1, 2],
        body: () => ({ electionType: 1, timeoutMs: 10_000, topicPartitions: [{ topic, partitions: [0] }] }),
      }),
      step({
        label: 'the cluster, with its authorized operations',
        request: M.DescribeClusterRequest,
        response: M.DescribeClusterResponse,
        versions: 'spread',
        body: () => ({ includeClusterAuthorizedOperations: true }),
      }),
      step({
        label: 'the controllers, asked of a broker',
        request: M.DescribeClusterRequest,
        response: M.DescribeClusterResponse,
        versions: [1, 2],
        body: () => ({ endpointType: 2 }),
      }),
      step({
        label: 'every reassignment, and those of one topic',
        request: M.ListPartitionReassignmentsRequest,
        response: M.ListPartitionReassignmentsResponse,
        versions: 'spread',
        body: () => ({ timeoutMs: 10_000, topics: null }),
      }),
      step({
        label: 'ACLs without an authorizer',
        request: M.DescribeAclsRequest,
        response: M.DescribeAclsResponse,
        versions: 'spread',
        body: () => ({ resourceTypeFilter: 1, patternTypeFilter: 1, operation: 1, permissionType: 1 }),
      }),
      step({
        label: 'every client quota',
        request: M.DescribeClientQuotasRequest,
        response: M.DescribeClientQuotasResponse,
        versions: 'spread',
        body: () => ({ components: [], strict: false }),
      }),
      step({
        label: 'every SCRAM user, and one that does not exist',
        request: M.DescribeUserScramCredentialsRequest,
        response: M.DescribeUserScramCredentialsResponse,
        versions: 'spread',
        body: () => ({ users: [{ name: 'compat-nobody' }] }),
      }),
    ],
  };
}

function securityFreeScenario(): Scenario {
  const topic = 'compat-reassign';
  const user = (name: string) => [{ entityType: 'user', entityName: name }];
  const scram = (name: string, iterations: number) => ({
    name,
    mechanism: 1,
    iterations,
    salt: Buffer.from('salt'),
    saltedPassword: Buffer.alloc(32, 7),
  });
  return {
    name: 'Without an authorizer or SASL: ACLs, quotas, SCRAM users, reassignments, a SASL handshake',
    setup: (bootstrap) => createServedTopic(bootstrap, topic, 1),
    steps: [
      step({
        // v0 only where Sluice serves it: docs/guides/compatibility.md, "SaslHandshake v0".
        label: 'a SASL handshake on a plaintext listener',
        request: M.SaslHandshakeRequest,
        response: M.SaslHandshakeResponse,
        versions: [1],
        body: () => ({ mechanism: 'PLAIN' }),
      }),
      step({
        label: 'create an ACL without an authorizer',
        request: M.CreateAclsRequest,
        response: M.CreateAclsResponse,
        versions: 'spread',
        body: () => ({
          creations: [
            {
              resourceType: 2,
              resourceName: topic,
              resourcePatternType: 3,
              principal: 'User:alice',
              host: '*',
              operation: 3,
              permissionType: 3,
            },
          ],
        }),
      }),
      step({
        label: 'delete ACLs without an authorizer',
        request: M.DeleteAclsRequest,
        response: M.DeleteAclsResponse,
        versions: 'spread',
        body: () => ({
          filters: [
            {
              resourceTypeFilter: 1,
              resourceNameFilter: null,
              patternTypeFilter: 1,
              principalFilter: null,
              hostFilter: null,
              operation: 1,
              permissionType: 1,
            },
          ],
        }),
      }),
      step({
        label: 'quotas: validateOnly, a bad key, then set',
        request: M.AlterClientQuotasRequest,
        response: M.AlterClientQuotasResponse,
        versions: 'spread',
        // Kafka lists the entries it refuses first; clients match entries by entity.
        unordered: ['entries'],
        body: (_v, _vars, i) => ({
          validateOnly: i === 0,
          entries: [
            { entity: user(`compat-user-${i}`), ops: [{ key: 'producer_byte_rate', value: 1024, remove: false }] },
            { entity: user('compat-bad-key'), ops: [{ key: 'no_such_quota', value: 1, remove: false }] },
          ],
        }),
      }),
      step({
        label: 'the quotas of every user',
        request: M.DescribeClientQuotasRequest,
        response: M.DescribeClientQuotasResponse,
        versions: 'spread',
        unordered: ['entries'],
        body: () => ({ components: [{ entityType: 'user', matchType: 2, match: null }], strict: false }),
        // Kafka's broker applies the controller's quota record a moment after answering the change.
        settled: (r) => (r.entries ?? []).length > 0,
      }),
      step({
        label: 'SCRAM users: an upsertion, too few iterations, an unknown mechanism, a deletion of nothing',
        request: M.AlterUserScramCredentialsRequest,
        response: M.AlterUserScramCredentialsResponse,
        versions: 'spread',
        unordered: ['results'],
        body: () => ({
          upsertions: [scram('compat-scram', 8192), scram('compat-weak', 1), { ...scram('compat-odd', 8192), mechanism: 9 }],
          deletions: [{ name: 'compat-nobody', mechanism: 1 }],
        }),
      }),
      step({
        label: 'the SCRAM users',
        request: M.DescribeUserScramCredentialsRequest,
        response: M.DescribeUserScramCredentialsResponse,
        versions: 'spread',
        unordered: ['results'],
        body: () => ({ users: [{ name: 'compat-scram' }, { name: 'compat-nobody' }] }),
        // As with quotas: Kafka's broker applies the controller's credential record a moment later.
        settled: (r) => r.results.some((u) => u.user === 'compat-scram' && u.errorCode === 0),
      }),
      step({
        label: 'reassign to this broker, to a broker that does not exist, an unknown topic, a cancellation of nothing',
        request: M.AlterPartitionReassignmentsRequest,
        response: M.AlterPartitionReassignmentsResponse,
        versions: 'spread',
        unordered: ['responses', 'responses[].partitions'],
        body: () => ({
          timeoutMs: 10_000,
          topics: [
            { name: topic, partitions: [{ partitionIndex: 0, replicas: [1] }] },
            { name: MISSING, partitions: [{ partitionIndex: 0, replicas: [1] }] },
          ],
        }),
      }),
      step({
        label: 'reassign to a broker that does not exist, cancel nothing',
        request: M.AlterPartitionReassignmentsRequest,
        response: M.AlterPartitionReassignmentsResponse,
        versions: 'spread',
        body: () => ({ timeoutMs: 10_000, topics: [{ name: topic, partitions: [{ partitionIndex: 0, replicas: [7] }] }] }),
      }),
      step({
        label: 'cancel a reassignment that is not running',
        request: M.AlterPartitionReassignmentsRequest,
        response: M.AlterPartitionReassignmentsResponse,
        versions: 'spread',
        body: () => ({ timeoutMs: 10_000, topics: [{ name: topic, partitions: [{ partitionIndex: 0, replicas: null }] }] }),
      }),
    ],
  };
}

function apiVersionsScenario(): Scenario {
  return {
    name: 'ApiVersions: the answer beyond the version ranges (features, their epoch, a bad client name)',
    steps: [
      step({
        label: 'a well-named client',
        request: M.ApiVersionsRequest,
        response: M.ApiVersionsResponse,
        versions: 'spread',
        mask: [
          {
            path: 'apiKeys',
            treat: 'ignored',
            why: 'the ranges are compared API by API in api-versions-vs-kafka (Sluice serves a subset)',
          },
          ...INTENDED.features,
        ],
        unordered: ['supportedFeatures', 'finalizedFeatures'],
        body: () => ({ clientSoftwareName: 'sluice-compat', clientSoftwareVersion: '1.0' }),
      }),
      step({
        label: 'a client name Kafka refuses',
        request: M.ApiVersionsRequest,
        response: M.ApiVersionsResponse,
        versions: [3, 4],
        mask: [
          { path: 'apiKeys', treat: 'ignored', why: 'the ranges are compared API by API in api-versions-vs-kafka' },
          ...INTENDED.features,
        ],
        unordered: ['supportedFeatures', 'finalizedFeatures'],
        body: () => ({ clientSoftwareName: 'bad name!', clientSoftwareVersion: '1.0' }),
      }),
    ],
  };
}

/** A feature's finalized level in an ApiVersions answer; 0 when it is absent, as a level-0 feature is. */
function finalizedLevel(answer: M.ApiVersionsResponseData, name: string): number {
  return answer.finalizedFeatures?.find((f) => f.name === name)?.maxVersionLevel ?? 0;
}

/** UpdateFeatures' answers, and the APIs a feature at level 0 turns off; every level is restored at the end. */
function updateFeaturesScenario(): Scenario {
  const SAFE_DOWNGRADE = 2;
  const update = (
    label: string,
    versions: 'spread' | number[],
    featureUpdates: M.UpdateFeaturesRequestFeatureUpdateKeyInput[],
    validateOnly = false,
  ) =>
    step({
      label,
      request: M.UpdateFeaturesRequest,
      response: M.UpdateFeaturesResponse,
      versions,
      body: () => ({ timeoutMs: 10_000, featureUpdates, validateOnly }),
    });
  // Kafka's broker applies the controller's feature record a moment after UpdateFeatures answers.
  const finalized = (label: string, levels: { readonly group: number; readonly share: number }) =>
    step({
      label: `the finalized features ${label}`,
      request: M.ApiVersionsRequest,
      response: M.ApiVersionsResponse,
      versions: [4],
      mask: [
        { path: 'apiKeys', treat: 'ignored', why: 'the ranges are compared API by API in api-versions-vs-kafka' },
        ...INTENDED.features,
      ],
      unordered: ['supportedFeatures', 'finalizedFeatures'],
      body: () => ({ clientSoftwareName: 'sluice-compat', clientSoftwareVersion: '1.0' }),
      settled: (r) => finalizedLevel(r, 'group.version') === levels.group && finalizedLevel(r, 'share.version') === levels.share,
    });
  const member = 'compatcompatcompatcomp';
  const topicId = 'AAAAAAAAAAAAAAAAAAAAAQ';
  return {
    name: 'UpdateFeatures: refusals, validateOnly, results by version; group.version and share.version at 0 turn their APIs off',
    steps: [
      update('a level above the supported range', 'spread', [{ feature: 'transaction.version', maxVersionLevel: 3 }]),
      update('a feature nobody supports', 'spread', [{ feature: 'compat.version', maxVersionLevel: 1 }]),
      update(
        'v0: a downgrade with allowDowngrade, which Kafka 4.4 does not read',
        [0],
        [{ feature: 'transaction.version', maxVersionLevel: 1, allowDowngrade: true }],
      ),
      update('an unknown upgrade type', [1, 2], [{ feature: 'transaction.version', maxVersionLevel: 1, upgradeType: 4 }]),
      update('a negative level', [1, 2], [{ feature: 'transaction.version', maxVersionLevel: -1, upgradeType: SAFE_DOWNGRADE }]),
      update(
        'a downgrade type to a higher level',
        [1, 2],
        [
          { feature: 'group.version', maxVersionLevel: 0, upgradeType: SAFE_DOWNGRADE },
          { feature: 'share.version', maxVersionLevel: 2, upgradeType: SAFE_DOWNGRADE },
        ],
        true,
      ),
      update(
        'validateOnly: a safe downgrade',
        [1, 2],
        [{ feature: 'transaction.version', maxVersionLevel: 1, upgradeType: SAFE_DOWNGRADE }],
        true,
      ),
      update('the current level again: results by version', 'spread', [{ feature: 'group.version', maxVersionLevel: 1 }]),
      update('nothing to update', [2], []),
      update(
        'group.version and share.version disabled',
        [2],
        [
          { feature: 'group.version', maxVersionLevel: 0, upgradeType: SAFE_DOWNGRADE },
          { feature: 'share.version', maxVersionLevel: 0, upgradeType: SAFE_DOWNGRADE },
        ],
      ),
      finalized('with both disabled', { group: 0, share: 0 }),
      step({
        label: 'ConsumerGroupHeartbeat with group.version 0',
        request: M.ConsumerGroupHeartbeatRequest,
        response: M.ConsumerGroupHeartbeatResponse,
        versions: 'spread',
        body: () => ({
          groupId: 'compat-features',
          memberId: member,
          memberEpoch: 0,
          rebalanceTimeoutMs: 30_000,
          subscribedTopicNames: ['t'],
          topicPartitions: [],
        }),
      }),
      step({
        label: 'ConsumerGroupDescribe with group.version 0',
        request: M.ConsumerGroupDescribeRequest,
        response: M.ConsumerGroupDescribeResponse,
        versions: 'spread',
        body: () => ({ groupIds: ['compat-features'] }),
      }),
      step({
        label: 'ShareGroupHeartbeat with share.version 0',
        request: M.ShareGroupHeartbeatRequest,
        response: M.ShareGroupHeartbeatResponse,
        versions: 'spread',
        body: () => ({ groupId: 'compat-features', memberId: member, memberEpoch: 0, subscribedTopicNames: ['t'] }),
      }),
      step({
        label: 'ShareGroupDescribe with share.version 0',
        request: M.ShareGroupDescribeRequest,
        response: M.ShareGroupDescribeResponse,
        versions: 'spread',
        body: () => ({ groupIds: ['compat-features'] }),
      }),
      step({
        label: 'ShareFetch with share.version 0',
        request: M.ShareFetchRequest,
        response: M.ShareFetchResponse,
        versions: 'spread',
        body: () => ({
          groupId: 'compat-features',
          memberId: member,
          maxWaitMs: 0,
          minBytes: 1,
          maxBytes: 1000,
          maxRecords: 10,
          batchSize: 10,
          topics: [{ topicId, partitions: [{ partitionIndex: 0 }] }],
        }),
      }),
      step({
        label: 'ShareAcknowledge with share.version 0',
        request: M.ShareAcknowledgeRequest,
        response: M.ShareAcknowledgeResponse,
        versions: 'spread',
        body: () => ({
          groupId: 'compat-features',
          memberId: member,
          shareSessionEpoch: 1,
          topics: [
            {
              topicId,
              partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [1] }] }],
            },
          ],
        }),
      }),
      step({
        label: 'DescribeShareGroupOffsets with share.version 0',
        request: M.DescribeShareGroupOffsetsRequest,
        response: M.DescribeShareGroupOffsetsResponse,
        versions: 'spread',
        body: () => ({ groups: [{ groupId: 'compat-features', topics: null }] }),
      }),
      step({
        label: 'AlterShareGroupOffsets with share.version 0',
        request: M.AlterShareGroupOffsetsRequest,
        response: M.AlterShareGroupOffsetsResponse,
        versions: 'spread',
        body: () => ({ groupId: 'compat-features', topics: [{ topicName: 't', partitions: [{ partitionIndex: 0, startOffset: 0n }] }] }),
      }),
      step({
        label: 'DeleteShareGroupOffsets with share.version 0',
        request: M.DeleteShareGroupOffsetsRequest,
        response: M.DeleteShareGroupOffsetsResponse,
        versions: 'spread',
        body: () => ({ groupId: 'compat-features', topics: [{ topicName: 't' }] }),
      }),
      update(
        'group.version and share.version restored',
        [2],
        [
          { feature: 'group.version', maxVersionLevel: 1 },
          { feature: 'share.version', maxVersionLevel: 2 },
        ],
      ),
      finalized('once restored', { group: 1, share: 2 }),
    ],
  };
}

const BROKER_RESOURCE = 4;
const GROUP_RESOURCE = 32;

/** Broker configs of broker 1 and the cluster default (""), and a group's configs. */
function brokerAndGroupConfigsScenario(): Scenario {
  const group = 'compat-config-group';
  const describe = (label: string, resources: M.DescribeConfigsRequestDescribeConfigsResourceInput[], synonyms: boolean) =>
    step({
      label,
      request: M.DescribeConfigsRequest,
      response: M.DescribeConfigsResponse,
      versions: 'spread',
      unordered: ['results[].configs'],
      mask: CONFIG_MASK,
      body: (v) => ({ resources, includeSynonyms: synonyms, includeDocumentation: v >= 3 }),
    });
  const incremental = (
    label: string,
    validateOnly: boolean,
    resourceType: number,
    resourceName: string,
    configs: M.IncrementalAlterConfigsRequestAlterableConfigInput[],
  ) =>
    step({
      label,
      request: M.IncrementalAlterConfigsRequest,
      response: M.IncrementalAlterConfigsResponse,
      versions: 'spread',
      body: () => ({ validateOnly, resources: [{ resourceType, resourceName, configs }] }),
    });
  const alter = (
    label: string,
    validateOnly: boolean,
    resourceType: number,
    resourceName: string,
    configs: M.AlterConfigsRequestAlterableConfigInput[],
  ) =>
    step({
      label,
      request: M.AlterConfigsRequest,
      response: M.AlterConfigsResponse,
      versions: 'spread',
      body: () => ({ validateOnly, resources: [{ resourceType, resourceName, configs }] }),
    });
  const brokerKeys = ['log.cleaner.threads', 'message.max.bytes', 'log.retention.ms', 'num.io.threads', 'no.such.config'];
  const groupKeys = [
    'consumer.session.timeout.ms',
    'consumer.heartbeat.interval.ms',
    'share.record.lock.duration.ms',
    'share.auto.offset.reset',
  ];
  return {
    name: 'DescribeConfigs, AlterConfigs and IncrementalAlterConfigs on a broker, the cluster default and a group',
    steps: [
      describe(
        'chosen keys of broker 1, with synonyms',
        [{ resourceType: BROKER_RESOURCE, resourceName: '1', configurationKeys: brokerKeys }],
        true,
      ),
      describe(
        'a broker that does not exist, and a bad broker id',
        [
          { resourceType: BROKER_RESOURCE, resourceName: '42', configurationKeys: null },
          { resourceType: BROKER_RESOURCE, resourceName: 'one', configurationKeys: null },
        ],
        false,
      ),
      incremental('validateOnly: a dynamic key on broker 1', true, BROKER_RESOURCE, '1', [
        { name: 'log.cleaner.threads', configOperation: SET, value: '2' },
      ]),
      incremental('a dynamic key on broker 1', false, BROKER_RESOURCE, '1', [
        { name: 'message.max.bytes', configOperation: SET, value: '2000000' },
      ]),
      incremental('the cluster default', false, BROKER_RESOURCE, '', [{ name: 'log.cleaner.threads', configOperation: SET, value: '2' }]),
      incremental('a thread-pool key', false, BROKER_RESOURCE, '1', [{ name: 'num.io.threads', configOperation: SET, value: '4' }]),
      incremental('a key Kafka refuses dynamically', false, BROKER_RESOURCE, '1', [
        { name: 'log.dirs', configOperation: SET, value: '/compat' },
      ]),
      incremental('a key that is not dynamic at all', false, BROKER_RESOURCE, '', [
        { name: 'broker.id', configOperation: SET, value: '4' },
      ]),
      incremental('a bad value', false, BROKER_RESOURCE, '1', [{ name: 'log.cleaner.threads', configOperation: SET, value: 'many' }]),
      incremental('a value out of range', false, BROKER_RESOURCE, '', [{ name: 'message.max.bytes', configOperation: SET, value: '-5' }]),
      alter('AlterConfigs: validateOnly on broker 1', true, BROKER_RESOURCE, '1', [{ name: 'log.cleaner.threads', value: '3' }]),
      describe(
        'broker 1 and the cluster default after the changes',
        [
          { resourceType: BROKER_RESOURCE, resourceName: '1', configurationKeys: brokerKeys },
          { resourceType: BROKER_RESOURCE, resourceName: '', configurationKeys: brokerKeys },
        ],
        true,
      ),
      describe(
        'a group’s chosen keys, with synonyms',
        [{ resourceType: GROUP_RESOURCE, resourceName: group, configurationKeys: groupKeys }],
        true,
      ),
      incremental('validateOnly: a group key', true, GROUP_RESOURCE, group, [
        { name: 'consumer.session.timeout.ms', configOperation: SET, value: '50000' },
      ]),
      incremental('a group key', false, GROUP_RESOURCE, group, [
        { name: 'share.record.lock.duration.ms', configOperation: SET, value: '20000' },
      ]),
      incremental('a group key out of range, an unknown group key', false, GROUP_RESOURCE, group, [
        { name: 'consumer.session.timeout.ms', configOperation: SET, value: '1' },
        { name: 'no.such.config', configOperation: SET, value: '1' },
      ]),
      incremental('a bad group value', false, GROUP_RESOURCE, group, [
        { name: 'share.auto.offset.reset', configOperation: SET, value: 'sideways' },
      ]),
      describe('the group after the changes', [{ resourceType: GROUP_RESOURCE, resourceName: group, configurationKeys: groupKeys }], true),
    ],
  };
}

/** DescribeLogDirs (one log dir on each broker) and AlterReplicaLogDirs' refusals. */
function logDirsScenario(): Scenario {
  const topic = 'compat-log-dirs';
  const dirMask = [
    { path: 'results[].logDir', treat: 'kind', why: 'each broker’s log dir is its own temporary directory' },
    { path: 'results[].totalBytes', treat: 'kind', why: 'the size of the disk each broker writes to' },
    { path: 'results[].usableBytes', treat: 'kind', why: 'the free space of the disk each broker writes to' },
  ] as const;
  return {
    name: 'DescribeLogDirs, and AlterReplicaLogDirs to an unknown dir and for a partition not hosted',
    setup: async (bootstrap, vars) => {
      await createServedTopic(bootstrap, topic, 2);
      const dirs = await wireCall(bootstrap, M.DescribeLogDirsRequest, M.DescribeLogDirsResponse, 1, { topics: [] });
      vars.set('dir', dirs.results[0]?.logDir);
    },
    steps: [
      step({
        label: 'a topic’s partitions, one it lacks, an unknown topic',
        request: M.DescribeLogDirsRequest,
        response: M.DescribeLogDirsResponse,
        versions: [1, 2, 3, 4, 5],
        mask: dirMask,
        body: () => ({
          topics: [
            { topic, partitions: [0, 1, 9] },
            { topic: MISSING, partitions: [0] },
          ],
        }),
      }),
      step({
        label: 'AlterReplicaLogDirs: an unknown dir',
        request: M.AlterReplicaLogDirsRequest,
        response: M.AlterReplicaLogDirsResponse,
        versions: 'spread',
        body: () => ({ dirs: [{ path: '/compat/no/such/dir', topics: [{ name: topic, partitions: [0] }] }] }),
      }),
      step({
        label: 'AlterReplicaLogDirs: the broker’s own dir, for a partition not hosted and an unknown topic',
        request: M.AlterReplicaLogDirsRequest,
        response: M.AlterReplicaLogDirsResponse,
        versions: 'spread',
        unordered: ['results', 'results[].partitions'],
        body: (_v, vars) => ({
          dirs: [
            {
              path: vars.get('dir') as string,
              topics: [
                { name: topic, partitions: [9] },
                { name: MISSING, partitions: [0] },
              ],
            },
          ],
        }),
      }),
    ],
  };
}

const SCENARIOS = [
  createTopicsScenario(),
  deleteTopicsScenario(),
  createPartitionsScenario(),
  topicConfigsScenario(),
  brokerAndGroupConfigsScenario(),
  logDirsScenario(),
  clusterScenario(),
  securityFreeScenario(),
  apiVersionsScenario(),
  updateFeaturesScenario(),
];

describe(`Admin APIs, Sluice against Apache Kafka ${KAFKA_VERSION}`, { skip: javaSkip() }, () => {
  const run = differentialRun(SCENARIOS);
  for (const scenario of SCENARIOS) {
    test(scenario.name, () => {
      const { sluiceAsked, kafkaAsked, differences } = run.compare(scenario);
      assert.deepEqual(sluiceAsked, kafkaAsked, 'both brokers were asked the same questions');
      assert.deepEqual(differences, []);
    });
  }
});
