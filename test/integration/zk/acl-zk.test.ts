/**
 * Kafka's ACL znodes through `KafkaZkClient` against a real ZooKeeper: concurrent writers of one
 * resource lose nothing (conditional writes, retried), an emptied resource's znode goes away, and
 * every change is announced to the watchers of both notification folders, once each.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KafkaZkClient } from '../../../src/zk/index.js';
import {
  AclOperation,
  PatternType,
  PermissionType,
  ResourceType,
  type AccessControlEntry,
  type ResourcePattern,
} from '../../../src/security/acl/index.js';
import { startZooKeeper, type ZooKeeperServer } from '../../helpers/zookeeper-server.js';
import { zooKeeperSkip } from '../../helpers/requirements.js';
import { waitFor, when } from '../../helpers/wait-for.js';
import { SESSION } from './zk-helpers.js';

const literal: ResourcePattern = { resourceType: ResourceType.TOPIC, name: 'orders', patternType: PatternType.LITERAL };
const prefixed: ResourcePattern = { resourceType: ResourceType.GROUP, name: 'team-', patternType: PatternType.PREFIXED };
const reader = (principal: string): AccessControlEntry => ({
  principal,
  host: '*',
  operation: AclOperation.READ,
  permissionType: PermissionType.ALLOW,
});

describe('ACLs in ZooKeeper', { skip: zooKeeperSkip(), timeout: 120_000 }, () => {
  let zk: ZooKeeperServer;
  let a: KafkaZkClient;
  let b: KafkaZkClient;
  before(async () => {
    zk = await startZooKeeper();
    a = await KafkaZkClient.connect({ connect: `${zk.connect}/acl-test`, ...SESSION });
    b = await KafkaZkClient.connect({ connect: `${zk.connect}/acl-test`, ...SESSION });
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await zk?.stop();
  });

  test('concurrent additions to one resource from two sessions all land; the last removal deletes the znode', async (t) => {
    const seen: ResourcePattern[] = [];
    const watch = b.watchAclChanges((p) => seen.push(p));
    t.after(() => watch.close());
    const principals = Array.from({ length: 10 }, (_, i) => `User:u${i}`);
    await Promise.all(principals.map((p, i) => (i % 2 === 0 ? a : b).updateResourceAcls(literal, (current) => [...current, reader(p)])));
    const stored = await a.getResourceAcls(literal);
    assert.deepEqual(stored.entries.map((e) => e.principal).sort(), [...principals].sort());
    await a.updateResourceAcls(prefixed, () => [reader('User:*')]);
    assert.deepEqual((await b.getAllAcls()).length, 11);
    await waitFor(
      'the notifications of every change',
      10_000,
      () => when(seen.filter((p) => p.name === 'orders').length >= 10 && seen.some((p) => p.patternType === PatternType.PREFIXED)),
      50,
    );
    await a.updateResourceAcls(literal, () => []);
    assert.deepEqual(await a.getResourceAcls(literal), { entries: [], zkVersion: -1 });
    assert.equal((await b.getAllAcls()).length, 1);
  });
});
