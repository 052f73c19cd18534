/**
 * `sluice tune --observe` on a live kcat (librdkafka) producer against the Sluice broker process
 * with its /metrics endpoint: the window opens, kcat produces with its own client id, lz4 and
 * `batch.num.messages=10` (linger.ms long enough that batches close on the count), the window is
 * closed with SIGINT once kcat is done (no timing in the test), and the summary must show kcat's
 * batching. A second observation of an id that is not producing names kcat's as the one seen.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { KafkaAdminClient } from '@sluice/client/admin-client.js';
import { parseBootstrapServers } from '@sluice/client/broker-address.js';
import { KafkaCluster } from '@sluice/client/cluster.js';
import type { Observation, TopicRate } from '@sluice/tune/observe.js';
import { REPO_ROOT } from '../../../tools/codegen/main.js';
import { metricsUrl, startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { kcat } from '../../helpers/interop.js';
import { kcatSkip } from '../../helpers/requirements.js';

const TOPIC = 'observed';
const CLIENT_ID = 'observed-kcat';
const RECORDS = 1000;
const PER_BATCH = 10;

interface ObserveRun {
  readonly observation: Observation;
  readonly topic: TopicRate | null;
}

/** Starts `sluice tune --observe`; `finish()` ends its window with SIGINT and parses its JSON. */
async function startObserve(args: readonly string[]): Promise<{ finish(): Promise<ObserveRun> }> {
  const child = spawn(
    process.execPath,
    [join(REPO_ROOT, 'dist/src/cli/sluice.js'), 'tune', '--observe', '--json', '--seconds', '300', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  // The window opens once the first scrape is taken, which the command says on stderr.
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (stderr.includes('observing client id')) resolve();
    });
    void exited.then((code) => reject(new Error(`observe exited ${code} before its window: ${stderr}`)));
  });
  return {
    async finish() {
      child.kill('SIGINT');
      const code = await exited;
      assert.equal(code, 0, stderr);
      return JSON.parse(stdout) as ObserveRun;
    },
  };
}

describe('sluice tune --observe on a live kcat producer', { skip: kcatSkip() }, () => {
  let broker: BrokerProcess;
  let common: string[];

  before(async () => {
    broker = await startBrokerProcess({ 'metrics.listener': 'http://127.0.0.1:0' });
    common = ['--bootstrap-server', broker.bootstrap, '--metrics-url', await metricsUrl(broker)];
    const cluster = new KafkaCluster({ bootstrap: parseBootstrapServers(broker.bootstrap) });
    try {
      await new KafkaAdminClient(cluster).createTopic({ name: TOPIC, partitions: 1 });
    } finally {
      cluster.close();
    }
  });
  after(async () => {
    await broker?.stop();
  });

  test("reports kcat's batching under its client id: records per batch, lz4 and its ratio, the topic's records", async () => {
    const observe = await startObserve(['--client-id', CLIENT_ID, '--topic', TOPIC, ...common]);
    const lines = Array.from({ length: RECORDS }, (_, i) => `record ${i} of the observed producer, `.repeat(6)).join('\n');
    await kcat(
      [
        '-b',
        broker.bootstrap,
        '-P',
        '-t',
        TOPIC,
        '-p',
        '0',
        '-z',
        'lz4',
        '-X',
        `client.id=${CLIENT_ID}`,
        '-X',
        'linger.ms=10000',
        '-X',
        `batch.num.messages=${PER_BATCH}`,
      ],
      `${lines}\n`,
    );
    const { observation, topic } = await observe.finish();

    assert.equal(observation.kind, 'observed', JSON.stringify(observation));
    if (observation.kind !== 'observed') return;
    const b = observation.batching;
    assert.equal(b.clientId, CLIENT_ID);
    assert.equal(b.records, RECORDS);
    // Batches close at batch.num.messages; a flush at the end may send one short.
    assert.ok(b.batches >= RECORDS / PER_BATCH && b.batches <= RECORDS / PER_BATCH + 2, `${b.batches} batches`);
    assert.ok(
      b.recordsPerBatch.mean > PER_BATCH - 1 && b.recordsPerBatch.mean <= PER_BATCH,
      `mean ${b.recordsPerBatch.mean} records per batch`,
    );
    assert.ok(b.recordsPerBatch.p50 > 5 && b.recordsPerBatch.p50 <= PER_BATCH, `p50 ${b.recordsPerBatch.p50} (the 5..10 bucket)`);
    assert.ok(b.batchesPerRequest >= 1);
    assert.deepEqual(b.compression, { lz4: b.batches });
    assert.ok(b.compressionRatio !== null && b.compressionRatio > 1.5, `ratio ${b.compressionRatio} of repetitive text`);
    assert.ok(b.fillMs.mean >= 0 && b.ageMs.mean >= b.fillMs.mean, `fill ${b.fillMs.mean} ms, age ${b.ageMs.mean} ms`);
    assert.deepEqual(topic && { topic: topic.topic, records: topic.records }, { topic: TOPIC, records: RECORDS });
  });

  test('an id that produced nothing in the window is idle, and the ids the broker has seen are named', async () => {
    const observe = await startObserve(['--client-id', 'nobody', ...common]);
    const { observation } = await observe.finish();
    assert.equal(observation.kind, 'idle');
    if (observation.kind !== 'idle') return;
    assert.ok(observation.otherClients.includes(CLIENT_ID), JSON.stringify(observation));
  });
});
