/**
 * The `sluice` client tools end to end against one broker, whichever it is: the caller passes
 * `bootstrap` (resolved when the tests run, after its `before` started the broker). Topic
 * names carry a random suffix, so the scenario can run more than once against one broker.
 * Tests run in order and build on each other.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { COMPRESSION_NAMES, KafkaCluster, parseBootstrapServers, partitionForKey } from '@sluice/client/index.js';
import { FetchRequest, FetchResponse } from '@sluice/protocol/messages/index.js';
import { BatchScan, compressionCodecId, CompressionType } from '@sluice/protocol/records/index.js';
import { failsWith, ok, runCli, type CliResult } from '../../helpers/run-cli.js';

const CODEC_IDS: Record<(typeof COMPRESSION_NAMES)[number], number> = {
  none: CompressionType.None,
  gzip: CompressionType.Gzip,
  snappy: CompressionType.Snappy,
  lz4: CompressionType.Lz4,
  zstd: CompressionType.Zstd,
};

/** Lines as bytes: UTF-8, bytes that are not UTF-8, an empty key and value, CRLF, a separator inside the value, no final newline. */
const PRODUCER_INPUT = Buffer.concat([
  Buffer.from('k1:v1\n'),
  Buffer.from('ключ:значение ✓\n'),
  Buffer.from([0x6b, 0x32, 0x3a, 0xff, 0x00, 0xfe, 0x0a]),
  Buffer.from(':no key\n'),
  Buffer.from('k3:\n'),
  Buffer.from('k4:crlf\r\n'),
  Buffer.from('k5:a:b:c'),
]);
const CONSUMED_WITH_KEYS = Buffer.concat([
  Buffer.from('k1|v1\n'),
  Buffer.from('ключ|значение ✓\n'),
  Buffer.from([0x6b, 0x32, 0x7c, 0xff, 0x00, 0xfe, 0x0a]),
  Buffer.from('|no key\n'),
  Buffer.from('k3|\n'),
  Buffer.from('k4|crlf\n'),
  Buffer.from('k5|a:b:c\n'),
]);
const RECORD_COUNT = 7;

/** The compression codec of every batch stored in partition 0, read with a raw Fetch. */
async function storedCodecs(bootstrap: string, topic: string): Promise<number[]> {
  const cluster = new KafkaCluster({ bootstrap: parseBootstrapServers(bootstrap) });
  try {
    const metadata = (await cluster.metadata([topic])).topics.get(topic)!;
    const connection = await cluster.nodeConnection(metadata.partitions[0]!.leaderId);
    const res = await connection.request(FetchRequest, FetchResponse, () => ({
      maxWaitMs: 0,
      maxBytes: 1 << 20,
      topics: [{ topic, topicId: metadata.topicId, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }],
    }));
    const records = res.responses[0]?.partitions[0]?.records ?? Buffer.alloc(0);
    return [...new BatchScan(records)].map((h) => compressionCodecId(h.attributes));
  } finally {
    cluster.close();
  }
}

export function cliScenario(bootstrap: () => string): void {
  const suffix = randomBytes(4).toString('hex');
  const topic = `cli-${suffix}`;
  const codecTopic = (codec: string): string => `cli-${suffix}-${codec}`;
  const sluice = (...args: string[]): Promise<CliResult> => runCli([args[0]!, '--bootstrap-server', bootstrap(), ...args.slice(1)]);
  const sluiceWithInput = (input: Buffer | string, ...args: string[]): Promise<CliResult> =>
    runCli([args[0]!, '--bootstrap-server', bootstrap(), ...args.slice(1)], input);

  test('topics --create makes a topic with partitions and configs', async () => {
    const out = ok(
      await sluice(
        'topics',
        '--create',
        '--topic',
        topic,
        '--partitions',
        '2',
        '--replication-factor',
        '1',
        '--config',
        'retention.ms=3600000',
      ),
      'create',
    );
    assert.equal(out, `Created topic ${topic}.\n`);
  });

  test('topics --create of an existing topic fails with TOPIC_ALREADY_EXISTS', async () => {
    failsWith(await sluice('topics', '--create', '--topic', topic), 'TOPIC_ALREADY_EXISTS');
  });

  test('topics --list names it', async () => {
    assert.ok(
      ok(await sluice('topics', '--list'), 'list')
        .split('\n')
        .includes(topic),
    );
  });

  test('topics --describe shows its partitions, leaders and own configs', async () => {
    const lines = ok(await sluice('topics', '--describe', '--topic', topic), 'describe')
      .trimEnd()
      .split('\n');
    assert.match(
      lines[0]!,
      new RegExp(`^Topic: ${topic}\\tTopicId: \\S+\\tPartitionCount: 2\\tReplicationFactor: 1\\tConfigs: retention.ms=3600000$`),
    );
    assert.equal(lines.length, 3);
    lines
      .slice(1)
      .forEach((line, i) =>
        assert.match(line, new RegExp(`^\\tTopic: ${topic}\\tPartition: ${i}\\tLeader: \\d+\\tReplicas: \\d+\\tIsr: \\d+$`)),
      );
  });

  test('topics --alter grows it to 3 partitions', async () => {
    ok(await sluice('topics', '--alter', '--topic', topic, '--partitions', '3'), 'alter');
    const out = ok(await sluice('topics', '--describe', '--topic', topic), 'describe');
    assert.match(out, /PartitionCount: 3/);
    failsWith(await sluice('topics', '--alter', '--topic', topic, '--partitions', '2'), 'INVALID_PARTITIONS');
  });

  test('configs --describe and --alter a topic (set, list value in brackets, delete)', async () => {
    const entity = ['--entity-type', 'topics', '--entity-name', topic];
    const before = ok(await sluice('configs', ...entity, '--describe'), 'configs describe');
    assert.match(
      before,
      new RegExp(
        `^Dynamic configs for topic ${topic} are:\\n  retention.ms=3600000 sensitive=false synonyms=\\{DYNAMIC_TOPIC_CONFIG:retention.ms=3600000`,
      ),
    );
    const altered = await sluice(
      'configs',
      ...entity,
      '--alter',
      '--add-config',
      'cleanup.policy=[compact,delete],max.message.bytes=2000000',
      '--delete-config',
      'retention.ms',
    );
    assert.equal(ok(altered, 'configs alter'), `Completed updating config for topic ${topic}.\n`);
    const after = ok(await sluice('configs', ...entity, '--describe'), 'configs describe');
    assert.match(after, /\n {2}cleanup\.policy=compact,delete sensitive=false/);
    assert.match(after, /\n {2}max\.message\.bytes=2000000 sensitive=false/);
    assert.doesNotMatch(after, /retention\.ms/);
    failsWith(await sluice('configs', ...entity, '--alter', '--add-config', 'no.such.config=1'), 'INVALID_CONFIG');
  });

  test('configs of the broker default: set, describe, delete', async () => {
    const entity = ['--entity-type', 'brokers', '--entity-default'];
    ok(await sluice('configs', ...entity, '--alter', '--add-config', 'log.cleaner.threads=2'), 'broker alter');
    assert.match(ok(await sluice('configs', ...entity, '--describe'), 'broker describe'), /\n {2}log\.cleaner\.threads=2 sensitive=false/);
    ok(await sluice('configs', ...entity, '--alter', '--delete-config', 'log.cleaner.threads'), 'broker alter');
    assert.doesNotMatch(ok(await sluice('configs', ...entity, '--describe'), 'broker describe'), /log\.cleaner\.threads/);
  });

  test('configs of a group: set, describe, delete', async () => {
    const entity = ['--entity-type', 'groups', '--entity-name', 'cli-configured-group'];
    assert.equal(
      ok(await sluice('configs', ...entity, '--alter', '--add-config', 'consumer.heartbeat.interval.ms=6000'), 'group alter'),
      'Completed updating config for group cli-configured-group.\n',
    );
    assert.match(
      ok(await sluice('configs', ...entity, '--describe'), 'group describe'),
      /\n {2}consumer\.heartbeat\.interval\.ms=6000 sensitive=false synonyms=\{GROUP_CONFIG:consumer\.heartbeat\.interval\.ms=6000/,
    );
    failsWith(await sluice('configs', ...entity, '--alter', '--add-config', 'consumer.heartbeat.interval.ms=1'), 'INVALID_CONFIG');
    ok(await sluice('configs', ...entity, '--alter', '--delete-config', 'consumer.heartbeat.interval.ms'), 'group alter');
    assert.doesNotMatch(ok(await sluice('configs', ...entity, '--describe'), 'group describe'), /consumer\.heartbeat\.interval\.ms/);
  });

  for (const codec of COMPRESSION_NAMES) {
    test(`produce with ${codec} and consume back byte for byte`, async () => {
      const t = codecTopic(codec);
      ok(await sluice('topics', '--create', '--topic', t, '--partitions', '1'), 'create');
      ok(await sluiceWithInput(PRODUCER_INPUT, 'produce', '--topic', t, '--compression', codec, '--key-separator', ':'), 'produce');
      const consumed = await sluice(
        'consume',
        '--topic',
        t,
        '--from-beginning',
        '--max-messages',
        String(RECORD_COUNT),
        '--print-key',
        '--key-separator',
        '|',
      );
      ok(consumed, 'consume');
      assert.deepEqual(consumed.stdout, CONSUMED_WITH_KEYS);
      assert.match(consumed.stderr, new RegExp(`Processed a total of ${RECORD_COUNT} messages`));
      const codecs = await storedCodecs(bootstrap(), t);
      assert.ok(codecs.length > 0 && codecs.every((c) => c === CODEC_IDS[codec]), `stored batch codecs ${codecs.join(',')}`);
    });
  }

  test('values only by default; --offset N starts inside the partition', async () => {
    const t = codecTopic('none');
    const out = await sluice('consume', '--topic', t, '--partition', '0', '--offset', '5', '--timeout-ms', '1500');
    assert.equal(ok(out, 'consume').toString(), 'crlf\na:b:c\n');
  });

  test('keyed records land in the partition Kafka’s murmur2 partitioner picks', async () => {
    const keys = ['alpha', 'beta', 'gamma', 'delta'];
    ok(
      await sluiceWithInput(
        keys.map((k) => `${k}=${k}-value\n`).join(''),
        'produce',
        '--topic',
        topic,
        '--key-separator',
        '=',
        '--acks',
        '1',
      ),
      'produce',
    );
    for (let partition = 0; partition < 3; partition++) {
      const expected = keys.filter((k) => partitionForKey(Buffer.from(k), 3) === partition);
      const out = await sluice(
        'consume',
        '--topic',
        topic,
        '--partition',
        String(partition),
        '--from-beginning',
        '--timeout-ms',
        '1500',
        '--print-key',
      );
      assert.deepEqual(
        ok(out, 'consume').split('\n').filter(Boolean),
        expected.map((k) => `${k}\t${k}-value`),
        `partition ${partition}`,
      );
    }
  });

  test('--partition with acks=0 and acks=-1, and --from-timestamp', async () => {
    // The topic is compacted since the configs test, so every record needs a key.
    const before = Date.now();
    ok(
      await sluiceWithInput('k:zero-1\nk:zero-2\n', 'produce', '--topic', topic, '--partition', '2', '--acks', '0', '--key-separator', ':'),
      'produce acks=0',
    );
    ok(
      await sluiceWithInput('k:all-1\n', 'produce', '--topic', topic, '--partition', '2', '--acks', '-1', '--key-separator', ':'),
      'produce acks=-1',
    );
    const out = await sluice(
      'consume',
      '--topic',
      topic,
      '--partition',
      '2',
      '--from-timestamp',
      String(before),
      '--max-messages',
      '3',
      '--timeout-ms',
      '5000',
    );
    assert.equal(ok(out, 'consume'), 'zero-1\nzero-2\nall-1\n');
  });

  test('consume from the end with --timeout-ms prints nothing and exits 0', async () => {
    const out = await sluice('consume', '--topic', topic, '--timeout-ms', '700');
    assert.equal(ok(out, 'consume'), '');
    assert.match(out.stderr, /Processed a total of 0 messages/);
  });

  test('bad input and bad usage exit non-zero with a message', async () => {
    const noSeparator = await sluiceWithInput('no separator here\n', 'produce', '--topic', topic, '--key-separator', ':');
    assert.equal(noSeparator.code, 1);
    assert.match(noSeparator.stderr, /no key separator ':' on line 1/);
    assert.equal((await sluice('consume', '--topic', topic, '--partition', '7', '--timeout-ms', '100')).code, 2);
    assert.equal((await sluice('topics', '--list', '--describe')).code, 2);
    failsWith(await sluice('produce', '--topic', topic, '--compression', 'brotli'), 'compression must be one of', 2);
  });

  test('topics --delete removes the topics; deleting again is UNKNOWN_TOPIC_OR_PARTITION', async () => {
    for (const t of [topic, ...COMPRESSION_NAMES.map(codecTopic)]) ok(await sluice('topics', '--delete', '--topic', t), `delete ${t}`);
    const listed = ok(await sluice('topics', '--list'), 'list').split('\n');
    assert.ok(!listed.includes(topic), 'deleted topic still listed');
    failsWith(await sluice('topics', '--delete', '--topic', topic), 'UNKNOWN_TOPIC_OR_PARTITION');
  });
}
