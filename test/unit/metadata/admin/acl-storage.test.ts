/** ACLs on a single broker: kept in its metadata file, so they survive a restart, and changed per resource. */
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AclAdmin } from '../../../../src/metadata/admin/acl-admin.js';
import { ConfigResolver } from '../../../../src/metadata/config/config-resolver.js';
import { LocalController } from '../../../../src/controller/local/local-controller.js';
import { LocalMetadataWriter } from '../../../../src/controller/local/local-metadata-writer.js';
import { MetadataStore, METADATA_FILE } from '../../../../src/metadata/metadata-store.js';
import {
  AclOperation,
  MATCH_ALL_FILTER,
  PatternType,
  PermissionType,
  ResourceType,
  type AclBinding,
} from '../../../../src/security/acl/index.js';
import { MemoryPartitionAdmin } from '../../handlers/admin-harness.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function open(dir: string): { controller: LocalController; acls: AclAdmin } {
  const controller = new LocalController(
    'c1uSTeR1dAAAAAAAAAAAAA',
    { nodeId: 0, host: '127.0.0.1', port: 9092, rack: null, endpoints: [] },
    new MetadataStore(dir),
  );
  const partitions = new MemoryPartitionAdmin();
  const writer = new LocalMetadataWriter(controller, partitions, new ConfigResolver(new Map(), controller));
  return { controller, acls: new AclAdmin(writer) };
}

const readOrders: AclBinding = {
  pattern: { resourceType: ResourceType.TOPIC, name: 'orders', patternType: PatternType.LITERAL },
  entry: { principal: 'User:alice', host: '*', operation: AclOperation.READ, permissionType: PermissionType.ALLOW },
};
const denySales: AclBinding = {
  pattern: { resourceType: ResourceType.TOPIC, name: 'sales-', patternType: PatternType.PREFIXED },
  entry: { principal: 'User:*', host: '10.0.0.2', operation: AclOperation.WRITE, permissionType: PermissionType.DENY },
};

describe('ACL storage on a single broker', () => {
  test('created ACLs are in the image at once and in the metadata file after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-acls-'));
    dirs.push(dir);
    const first = open(dir);
    assert.deepEqual(await first.acls.create([readOrders, denySales, readOrders]), [
      { errorCode: 0, errorMessage: null },
      { errorCode: 0, errorMessage: null },
      { errorCode: 0, errorMessage: null },
    ]);
    assert.equal(first.controller.image.acls.size, 2, 'a binding created twice is held once');
    const file = JSON.parse(readFileSync(join(dir, METADATA_FILE), 'utf8')) as { acls: unknown[] };
    assert.deepEqual(file.acls, [
      {
        resourceType: 'Topic',
        name: 'orders',
        patternType: 'LITERAL',
        principal: 'User:alice',
        host: '*',
        operation: 'Read',
        permissionType: 'Allow',
      },
      {
        resourceType: 'Topic',
        name: 'sales-',
        patternType: 'PREFIXED',
        principal: 'User:*',
        host: '10.0.0.2',
        operation: 'Write',
        permissionType: 'Deny',
      },
    ]);
    const again = open(dir);
    assert.deepEqual(again.controller.image.acls.bindings(), [readOrders, denySales]);
  });

  test('delete removes what each filter matches, reports it under the first filter, and persists', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-acls-'));
    dirs.push(dir);
    const { acls } = open(dir);
    await acls.create([readOrders, denySales]);
    const prefixedOnly = { ...MATCH_ALL_FILTER, pattern: { ...MATCH_ALL_FILTER.pattern, patternType: PatternType.PREFIXED } };
    const results = await acls.delete([prefixedOnly, MATCH_ALL_FILTER]);
    assert.deepEqual(results[0]!.deleted, [denySales]);
    assert.deepEqual(results[1]!.deleted, [readOrders]);
    assert.equal(open(dir).controller.image.acls.size, 0);
  });

  test('a metadata file written before ACLs (no "acls") loads with none; a malformed ACL is refused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-acls-'));
    dirs.push(dir);
    writeFileSync(join(dir, METADATA_FILE), JSON.stringify({ version: 2, topics: [], brokerConfigs: { clusterDefault: {}, node: {} } }));
    assert.equal(open(dir).controller.image.acls.size, 0);
    writeFileSync(
      join(dir, METADATA_FILE),
      JSON.stringify({ version: 2, topics: [], brokerConfigs: { clusterDefault: {}, node: {} }, acls: [{ resourceType: 'Topic' }] }),
    );
    assert.throws(() => open(dir), /malformed ACL/);
  });
});
