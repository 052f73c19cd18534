import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  entityPath,
  InvalidClientEntityError,
  parseEntityPath,
  sanitizeEntityName,
  type ClientEntity,
} from '../../../src/metadata/client-entities.js';
import { ClientEntityStore } from '../../../src/metadata/client-entity-store.js';
import { ConfigResolver } from '../../../src/metadata/config/config-resolver.js';
import { LocalController } from '../../../src/controller/local/local-controller.js';
import { LocalMetadataWriter } from '../../../src/controller/local/local-metadata-writer.js';
import { METADATA_FILE, MetadataFormatError, MetadataStore } from '../../../src/metadata/metadata-store.js';
import { MemoryPartitionAdmin } from '../handlers/admin-harness.js';

test("names are sanitized as Kafka's Sanitizer: letters, digits and .-_ stay, the rest is %XX of UTF-8", () => {
  assert.equal(sanitizeEntityName('alice_1.x-y'), 'alice_1.x-y');
  assert.equal(sanitizeEntityName('CN=a b,O=c'), 'CN%3Da%20b%2CO%3Dc');
  assert.equal(sanitizeEntityName("*!'()~/"), '%2A%21%27%28%29%7E%2F');
  assert.equal(sanitizeEntityName('é'), '%C3%A9');
  assert.equal(sanitizeEntityName('<default>'), '%3Cdefault%3E', 'a user literally named <default> is not the default entity');
});

test('entity paths: every kind, defaults, and round trips through sanitizing', () => {
  const cases: Array<[ClientEntity, string]> = [
    [{ user: 'alice' }, 'users/alice'],
    [{ user: null }, 'users/<default>'],
    [{ user: 'CN=a b', clientId: 'app/1' }, 'users/CN%3Da%20b/clients/app%2F1'],
    [{ user: null, clientId: null }, 'users/<default>/clients/<default>'],
    [{ clientId: 'app' }, 'clients/app'],
    [{ clientId: null }, 'clients/<default>'],
    [{ ip: '10.0.0.1' }, 'ips/10.0.0.1'],
    [{ ip: null }, 'ips/<default>'],
  ];
  for (const [entity, path] of cases) {
    assert.equal(entityPath(entity), path);
    assert.deepEqual(parseEntityPath(path), entity);
  }
  assert.throws(() => entityPath({}), InvalidClientEntityError);
  assert.throws(() => entityPath({ ip: '1.2.3.4', user: 'a' }), InvalidClientEntityError);
  for (const bad of ['users', 'users/', 'topics/t', 'users/a/clients', 'clients/a/users/b', 'users/%E0%A4%A'])
    assert.throws(() => parseEntityPath(bad), InvalidClientEntityError, bad);
});

function open(dir: string): { store: ClientEntityStore; controller: LocalController } {
  const controller = new LocalController(
    'c1uSTeR1dAAAAAAAAAAAAA',
    { nodeId: 0, host: '127.0.0.1', port: 9092, rack: null, endpoints: [] },
    new MetadataStore(dir),
  );
  const configs = new ConfigResolver(new Map(), controller);
  return { store: new ClientEntityStore(new LocalMetadataWriter(controller, new MemoryPartitionAdmin(), configs)), controller };
}

test("a single broker keeps client entities' configs in its metadata file across restarts; an empty map removes one", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-entities-'));
  const first = open(dir).store;
  await first.alter({ user: 'alice' }, () => new Map([['SCRAM-SHA-256', 'salt=YQ==,stored_key=Yg==,server_key=Yw==,iterations=4096']]));
  await first.alter({ user: 'alice', clientId: null }, () => new Map([['producer_byte_rate', '1024']]));
  await first.alter({ clientId: 'gone' }, () => new Map([['consumer_byte_rate', '1']]));
  await first.alter({ clientId: 'gone' }, () => new Map());
  assert.deepEqual((JSON.parse(readFileSync(join(dir, METADATA_FILE), 'utf8')) as { clientEntities: unknown }).clientEntities, {
    'users/alice': { 'SCRAM-SHA-256': 'salt=YQ==,stored_key=Yg==,server_key=Yw==,iterations=4096' },
    'users/alice/clients/<default>': { producer_byte_rate: '1024' },
  });
  const second = open(dir).store;
  assert.deepEqual(second.configs({ user: 'alice', clientId: null }), new Map([['producer_byte_rate', '1024']]));
  assert.deepEqual(second.configs({ clientId: 'gone' }), new Map());
  assert.deepEqual(
    second.entities().map((e) => e.entity),
    [{ user: 'alice' }, { user: 'alice', clientId: null }],
  );
});

test('changes to one entity apply one at a time; a refused change writes nothing', async () => {
  const { store } = open(mkdtempSync(join(tmpdir(), 'sluice-entities-')));
  const add = (key: string) => store.alter({ user: 'bob' }, (current) => new Map([...current, [key, '1']]));
  await Promise.all([add('a'), add('b'), add('c')]);
  assert.deepEqual([...store.configs({ user: 'bob' }).keys()], ['a', 'b', 'c']);
  await assert.rejects(
    store.alter({ user: 'bob' }, () => {
      throw new RangeError('refused');
    }),
    RangeError,
  );
  assert.equal(store.configs({ user: 'bob' }).size, 3);
});

test('a metadata file without clientEntities (older) loads; a malformed one is refused', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-entities-'));
  const path = join(dir, METADATA_FILE);
  writeFileSync(path, JSON.stringify({ version: 2, topics: [], brokerConfigs: { clusterDefault: {}, node: {} } }));
  assert.deepEqual(new MetadataStore(dir).load(0).clientEntities, {});
  writeFileSync(
    path,
    JSON.stringify({ version: 2, topics: [], brokerConfigs: { clusterDefault: {}, node: {} }, clientEntities: { 'topics/x': {} } }),
  );
  assert.throws(() => new MetadataStore(dir).load(0), MetadataFormatError);
  writeFileSync(
    path,
    JSON.stringify({ version: 2, topics: [], brokerConfigs: { clusterDefault: {}, node: {} }, clientEntities: { 'users/x': { a: 1 } } }),
  );
  assert.throws(() => new MetadataStore(dir).load(0), MetadataFormatError);
});
