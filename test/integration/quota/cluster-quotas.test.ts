// Client quotas on a 2-broker ZooKeeper cluster: a quota set through one broker is stored in
// ZooKeeper (/config/clients/...) and enforced by the other, which describes it too.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as M from '@sluice/protocol/messages/index.js';
import { startCluster, type TestCluster } from '../../helpers/cluster.js';
import { zooKeeperSkip } from '../../helpers/requirements.js';
import { wireCall } from '../../helpers/wire-call.js';
import { waitFor } from '../../helpers/wait-for.js';

/** The client id `wireCall` sends. */
const WIRE_CLIENT = 'sluice-admin-test';

describe('client quotas on a cluster', { skip: zooKeeperSkip() }, () => {
  let cluster: TestCluster;

  before(async () => {
    cluster = await startCluster(2);
  });

  after(async () => {
    await cluster?.stop();
  });

  test('a quota set through broker 1 is described and enforced by broker 2', async () => {
    const [a, b] = cluster.brokers.map((p) => p.bootstrap);
    const set = await wireCall(a!, M.AlterClientQuotasRequest, M.AlterClientQuotasResponse, 1, {
      entries: [
        {
          entity: [{ entityType: 'client-id', entityName: WIRE_CLIENT }],
          ops: [{ key: 'request_percentage', value: 0.0001, remove: false }],
        },
      ],
      validateOnly: false,
    });
    assert.deepEqual(
      set.entries.map((e) => e.errorCode),
      [0],
    );
    const throttle = await waitFor('broker 2 to throttle the client', 10_000, async () => {
      const ms = (await wireCall(b!, M.MetadataRequest, M.MetadataResponse, 12, { topics: [] })).throttleTimeMs;
      return ms > 0 ? ms : undefined;
    });
    assert.ok(throttle > 0, 'broker 2 throttles the client under the quota set through broker 1');
    const described = await wireCall(b!, M.DescribeClientQuotasRequest, M.DescribeClientQuotasResponse, 1, {
      components: [{ entityType: 'client-id', matchType: 0, match: WIRE_CLIENT }],
      strict: true,
    });
    assert.deepEqual(
      described.entries?.map((e) => e.values),
      [[{ key: 'request_percentage', value: 0.0001 }]],
    );
  });
});
