// The Java client (kafka-clients 4.4.0) against the broker process: the idempotent producer with
// every codec, KafkaConsumer with assign + seekToBeginning, offsetsForTimes, and Admin.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { runJava, type JsonLine } from '../../helpers/interop.js';
import { assertRoundtrip, CODECS, linesOfType, makeRecords, recordsAsJson, timeQueries } from '../../helpers/interop-records.js';
import { javaSkip } from '../../helpers/requirements.js';

const PARTITIONS = 3;

describe('Java client (kafka-clients 4.4.0)', { skip: javaSkip() }, () => {
  let dir: string;
  let broker: BrokerProcess;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-interop-java-'));
    broker = await startBrokerProcess({ 'log.dirs': dir, 'auto.create.topics.enable': 'false' });
  });
  after(async () => {
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('idempotent producer with every codec, read back byte-exact by KafkaConsumer, offsetsForTimes', async () => {
    const records = makeRecords('java', PARTITIONS, 12);
    const queries = timeQueries(records);
    const lines = await runJava('roundtrip', broker.bootstrap, {
      topic: 'java',
      partitions: PARTITIONS,
      codecs: [...CODECS],
      records: recordsAsJson(records),
      queries: queries.map(({ partition, timestamp }) => ({ partition, timestamp })),
    });
    assertRoundtrip(lines, {
      records,
      queries,
      topicPrefix: 'java',
      codecs: CODECS,
      partitions: PARTITIONS,
      createTime: 'CreateTime',
      logDir: dir,
    });
  });

  test('Admin: create, describe, configs, partitions, deleteRecords, listOffsets, cluster, delete', async () => {
    const lines = await runJava('admin', broker.bootstrap, { topic: 'java-admin' });
    const one = (type: string): JsonLine => {
      const found = linesOfType(lines, type);
      assert.equal(found.length, 1, `one ${type} line in ${JSON.stringify(lines)}`);
      return found[0]!;
    };
    assert.equal(one('duplicateCreate')['error'], 'TopicExistsException');
    const [before, after] = linesOfType(lines, 'described');
    assert.deepEqual(before!['partitions'], [
      [0, 0, 1, 1],
      [1, 0, 1, 1],
    ]);
    assert.deepEqual(
      after!['partitions'],
      [0, 1, 2, 3].map((p) => [p, 0, 1, 1]),
    );
    assert.equal(after!['topicId'], before!['topicId'], 'createPartitions keeps the topic id');
    assert.match(String(before!['topicId']), /^[A-Za-z0-9_-]{22}$/);

    const configs = Object.fromEntries(
      linesOfType(lines, 'config').map((l) => [l['name'], [l['value'], l['source'], l['isDefault']]]),
    ) as Record<string, unknown>;
    assert.deepEqual(configs, {
      'cleanup.policy': ['compact,delete', 'DYNAMIC_TOPIC_CONFIG', false],
      'retention.ms': ['604800000', 'DEFAULT_CONFIG', true],
      'max.message.bytes': ['1048588', 'DEFAULT_CONFIG', true],
    });
    assert.equal(one('deleteRecords')['lowWatermark'], 6);
    assert.deepEqual([one('listOffsets')['earliest'], one('listOffsets')['latest']], [6, 10]);
    const cluster = one('cluster');
    assert.equal(cluster['controller'], 0);
    assert.deepEqual(cluster['nodes'], [broker.bootstrap]);
    assert.equal(one('deleted')['stillListed'], false);
  });
});
