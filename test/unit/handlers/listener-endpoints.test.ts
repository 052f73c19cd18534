import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as M from '@sluice/protocol/messages/index.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { MetadataImage, topicImage, type BrokerRegistration } from '../../../src/metadata/metadata-image.js';
import { ANONYMOUS_PRINCIPAL, type Session } from '../../../src/common/session.js';
import type { ClusterContext } from '../../../src/handlers/cluster-context.js';
import { metadataHandler } from '../../../src/handlers/03-metadata.js';
import { describeClusterHandler } from '../../../src/handlers/60-describe-cluster.js';
import { describeConfigsHandler } from '../../../src/handlers/32-describe-configs.js';
import { call, harness } from './admin-harness.js';

const session = (listenerName: string): Session => ({
  listenerName,
  securityProtocol: listenerName === 'SSL' ? 'SSL' : 'PLAINTEXT',
  principal: ANONYMOUS_PRINCIPAL,
  clientAddress: '127.0.0.1:1',
  clientHost: '127.0.0.1',
});

const broker = (nodeId: number, listeners: readonly string[]): BrokerRegistration => ({
  nodeId,
  host: 'internal',
  port: 9000 + nodeId,
  rack: null,
  endpoints: listeners.map((l, i) => ({
    listenerName: l,
    securityProtocol: l === 'SSL' ? 'SSL' : 'PLAINTEXT',
    host: `${l.toLowerCase()}-${nodeId}`,
    port: 9100 + nodeId * 10 + i,
  })),
});

/** Brokers 1 and 2 have PLAINTEXT and SSL; broker 3 has PLAINTEXT only and leads partition 2. */
function twoListenerCluster(): ClusterContext {
  const h = harness();
  const partitions = [1, 2, 3].map((leader, i) => ({
    partition: i,
    leader,
    leaderEpoch: 0,
    partitionEpoch: 0,
    replicas: [1, 2, 3],
    isr: [1, 2, 3],
    offlineReplicas: [],
  }));
  const image = new MetadataImage({
    clusterId: 'c1uSTeR1dAAAAAAAAAAAAA',
    controllerId: 1,
    brokers: [broker(1, ['PLAINTEXT', 'SSL']), broker(2, ['PLAINTEXT', 'SSL']), broker(3, ['PLAINTEXT'])],
    topics: [topicImage('t', 'AAAAAAAAAAAAAAAAAAAAAQ', partitions, new Map())],
    dynamicConfigs: { clusterDefault: new Map(), node: new Map() },
    clientEntities: new Map(),
  });
  return { ...h.cluster, metadata: image };
}

test("Metadata answers with the endpoints of the request's listener; a broker without it is left out, its partitions LISTENER_NOT_FOUND (v6+)", async () => {
  const c = twoListenerCluster();
  const viaSsl = await call(metadataHandler, M.MetadataRequest, M.MetadataResponse, 12, { topics: null }, c, undefined, session('SSL'));
  assert.deepEqual(
    viaSsl.brokers.map((b) => [b.nodeId, b.host, b.port]),
    [
      [1, 'ssl-1', 9111],
      [2, 'ssl-2', 9121],
    ],
  );
  assert.deepEqual(
    viaSsl.topics[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode, p.leaderId]),
    [
      [0, ErrorCode.NONE, 1],
      [1, ErrorCode.NONE, 2],
      [2, ErrorCode.LISTENER_NOT_FOUND, -1],
    ],
  );
  const old = await call(metadataHandler, M.MetadataRequest, M.MetadataResponse, 5, { topics: null }, c, undefined, session('SSL'));
  assert.equal(old.topics[0]!.partitions[2]!.errorCode, ErrorCode.LEADER_NOT_AVAILABLE, 'before v6 Kafka answers LEADER_NOT_AVAILABLE');
  const viaPlain = await call(
    metadataHandler,
    M.MetadataRequest,
    M.MetadataResponse,
    12,
    { topics: null },
    c,
    undefined,
    session('PLAINTEXT'),
  );
  assert.deepEqual(
    viaPlain.brokers.map((b) => [b.nodeId, b.host, b.port]),
    [
      [1, 'plaintext-1', 9110],
      [2, 'plaintext-2', 9120],
      [3, 'plaintext-3', 9130],
    ],
  );
  assert.ok(viaPlain.topics[0]!.partitions.every((p) => p.errorCode === ErrorCode.NONE));
});

test("DescribeCluster lists the brokers at their endpoint on the request's listener", async () => {
  const c = twoListenerCluster();
  const res = await call(
    describeClusterHandler,
    M.DescribeClusterRequest,
    M.DescribeClusterResponse,
    1,
    { endpointType: 1 },
    c,
    undefined,
    session('SSL'),
  );
  assert.deepEqual(
    res.brokers.map((b) => [b.brokerId, b.host, b.port]),
    [
      [1, 'ssl-1', 9111],
      [2, 'ssl-2', 9121],
    ],
  );
});

test('DescribeConfigs never returns a password: ssl.keystore.password is sensitive and has no value', async () => {
  const h = harness({
    staticSettings: new Map([
      ['ssl.keystore.password', 'hunter2'],
      ['ssl.client.auth', 'required'],
    ]),
  });
  const res = await call(
    describeConfigsHandler,
    M.DescribeConfigsRequest,
    M.DescribeConfigsResponse,
    4,
    {
      resources: [{ resourceType: 4, resourceName: '0', configurationKeys: ['ssl.keystore.password', 'ssl.client.auth'] }],
      includeSynonyms: true,
      includeDocumentation: false,
    },
    h.cluster,
  );
  const entries = Object.fromEntries(
    res.results[0]!.configs.map((e) => [e.name, [e.value, e.isSensitive, e.synonyms.map((s) => s.value)]]),
  );
  assert.deepEqual(entries['ssl.keystore.password'], [null, true, [null]]);
  assert.deepEqual(entries['ssl.client.auth'], ['required', false, ['required', 'none']]);
  assert.doesNotMatch(JSON.stringify(res), /hunter2/);
});
