/**
 * Share-group dead-letter queues (KIP-1191), Sluice against Apache Kafka (the pinned release):
 * the same topics, group configs, records and Kafka share consumer (ShareClients.java) on both,
 * one record REJECTed and one released up to the delivery-count limit, in a group that copies
 * records into an existing dead-letter topic and in one whose dead-letter topic the broker
 * creates; then what lands in each dead-letter topic, read with Kafka's consumer, is compared
 * (timestamps aside: each is its broker's write time), and so is the refusal of a `__` name.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KAFKA_VERSION } from '../../tools/kafka/kafka-release.js';
import { javaSkip } from '../helpers/requirements.js';
import { runCli, ok, type CliResult } from '../helpers/run-cli.js';
import { sideBySide } from '../helpers/side-by-side.js';
import { startJavaProgram } from '../integration/groups/group-helpers.js';

const PROGRAM = 'test/integration/share/ShareClients.java';
/** The same settings on both brokers: a limit of two deliveries, and dead-letter topics created on demand. */
const SHARED = { 'group.share.delivery.count.limit': '2', 'errors.deadletterqueue.auto.create.topics.enable': 'true' };

interface Letter {
  readonly partition: number;
  readonly key: string | null;
  readonly value: string | null;
  readonly headers: Record<string, string>;
}

async function shareClient(bootstrap: string, ...args: string[]): Promise<Array<Record<string, unknown>>> {
  const p = startJavaProgram(PROGRAM, `ShareClients ${args.join(' ')}`, [args[0]!, bootstrap, ...args.slice(1)]);
  await p.succeeded(150_000);
  return p.json();
}

const cli = (bootstrap: string, ...args: string[]): Promise<CliResult> =>
  runCli([args[0]!, '--bootstrap-server', bootstrap, ...args.slice(1)]);

/** Everything a broker does for the scenario, and the dead letters it wrote, sorted. */
async function scenario(bootstrap: string): Promise<{ copied: Letter[]; created: Letter[]; refusal: string }> {
  ok(await cli(bootstrap, 'topics', '--create', '--topic', 'orders', '--partitions', '3'), 'create orders');
  ok(await cli(bootstrap, 'topics', '--create', '--topic', 'payments'), 'create payments');
  ok(
    await cli(
      bootstrap,
      'topics',
      '--create',
      '--topic',
      'dlq.orders',
      '--partitions',
      '2',
      '--config',
      'errors.deadletterqueue.group.enable=true',
    ),
    'create dlq.orders',
  );
  const lines = (prefix: string) => [0, 1, 2, 3].map((i) => `k-${i}:${prefix}-${i}`).join('\n') + '\n';
  const produce = async (topic: string, partition: string, prefix: string) => {
    const r = await runCli(
      ['produce', '--bootstrap-server', bootstrap, '--topic', topic, '--partition', partition, '--key-separator', ':'],
      lines(prefix),
    );
    ok(r, `produce to ${topic}`);
  };
  await produce('orders', '2', 'o');
  await produce('payments', '0', 'p');
  await shareClient(
    bootstrap,
    'group-config',
    'copying',
    'share.auto.offset.reset=earliest',
    'errors.deadletterqueue.topic.name=dlq.orders',
    'errors.deadletterqueue.copy.record.enable=true',
  );
  await shareClient(
    bootstrap,
    'group-config',
    'creating',
    'share.auto.offset.reset=earliest',
    'errors.deadletterqueue.topic.name=dlq.payments',
  );
  await shareClient(bootstrap, 'consume', 'orders', 'copying', '1', 'dead-letter', '0', '4000');
  await shareClient(bootstrap, 'consume', 'payments', 'creating', '1', 'dead-letter', '0', '4000');
  const letters = async (topic: string): Promise<Letter[]> =>
    (await shareClient(bootstrap, 'dump', topic, '2'))
      .filter((l) => l['type'] === 'dead-letter')
      .map((l) => ({ partition: l['partition'], key: l['key'], value: l['value'], headers: l['headers'] }) as Letter)
      .sort((a, b) => (a.headers['__dlq.errors.offset']! < b.headers['__dlq.errors.offset']! ? -1 : 1));
  const refused = await cli(
    bootstrap,
    'configs',
    '--entity-type',
    'groups',
    '--entity-name',
    'bad',
    '--alter',
    '--add-config',
    'errors.deadletterqueue.topic.name=__x',
  );
  return {
    copied: await letters('dlq.orders'),
    created: await letters('dlq.payments'),
    refusal: `${refused.code} ${refused.stderr.trim()}`,
  };
}

describe(`Share-group dead-letter queues, Sluice against Apache Kafka ${KAFKA_VERSION}`, { skip: javaSkip() }, () => {
  const brokers = sideBySide(SHARED, SHARED);

  test('the same records, headers, keys, values and partitions land in the dead-letter topics; the same refusal', async () => {
    const { kafka, sluice } = brokers();
    const [onKafka, onSluice] = await Promise.all([scenario(kafka.bootstrap), scenario(sluice.bootstrap)]);
    assert.equal(onKafka.copied.length, 2, `Kafka wrote the two dead letters: ${JSON.stringify(onKafka)}`);
    assert.equal(onKafka.created.length, 2, `Kafka created dlq.payments and wrote to it: ${JSON.stringify(onKafka)}`);
    assert.deepEqual(onSluice, onKafka);
  });
});
