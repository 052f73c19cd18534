// The Java client (kafka-clients 4.4.0, transaction version 2) in transactions against the broker
// process, through TxnClients.java: commit and abort seen by read_committed and read_uncommitted
// consumers; a second producer with the same transactional id fences the first and aborts its
// open transaction; a transaction past its timeout is aborted by the coordinator; Kafka's
// read-process-write loop with sendOffsetsToTransaction keeps every input exactly once in the
// output across a kill -9 of the broker and a kill -9 of the application.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { freePort, type JsonLine } from '../../helpers/interop.js';
import { javaSkip } from '../../helpers/requirements.js';
import { startJavaProgram, waitFor, type LineProcess } from '../groups/group-helpers.js';

const PARTITIONS = 3;
const PROGRAM = 'test/integration/transactions/TxnClients.java';

function startTxnClient(scenario: string, bootstrap: string, ...args: string[]): LineProcess {
  return startJavaProgram(PROGRAM, `TxnClients ${scenario} ${args.join(' ')}`, [scenario, bootstrap, ...args]);
}

async function runTxnClient(scenario: string, bootstrap: string, ...args: string[]): Promise<JsonLine[]> {
  const p = startTxnClient(scenario, bootstrap, ...args);
  await p.succeeded(120_000);
  return p.json();
}

async function consumed(bootstrap: string, topic: string, isolation: 'read_committed' | 'read_uncommitted'): Promise<string[]> {
  const lines = await runTxnClient('consume', bootstrap, topic, isolation);
  const line = lines.find((l) => l['type'] === 'consumed');
  assert.ok(line !== undefined, 'the consumer read to the end offsets');
  return (line['values'] as string[]).slice().sort();
}

const values = (prefix: string, count: number): string[] => Array.from({ length: count }, (_, i) => `${prefix}-${i}`);

async function createTopics(bootstrap: string, topics: readonly string[]): Promise<void> {
  const admin = new Kafka({ brokers: [bootstrap], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  await admin.createTopics({ topics: topics.map((topic) => ({ topic, numPartitions: PARTITIONS })) });
  await admin.disconnect();
}

describe('Java client transactions', { skip: javaSkip() }, () => {
  let broker: BrokerProcess;

  before(async () => {
    broker = await startBrokerProcess({
      'group.initial.rebalance.delay.ms': '0',
      'transaction.abort.timed.out.transaction.cleanup.interval.ms': '500',
    });
    await createTopics(broker.bootstrap, ['txn-basic', 'txn-fence', 'txn-timeout']);
  });

  after(async () => {
    await broker?.stop();
  });

  test('committed transactions are read by read_committed consumers, aborted ones only by read_uncommitted', async () => {
    const lines = await runTxnClient('commit-abort', broker.bootstrap, 'txn-basic', 'java-basic', '20');
    assert.deepEqual(
      lines.filter((l) => l['type'] === 'ended').map((l) => l['tag']),
      ['c1', 'a2', 'c3'],
    );
    assert.deepEqual(await consumed(broker.bootstrap, 'txn-basic', 'read_committed'), [...values('c1', 20), ...values('c3', 20)].sort());
    assert.deepEqual(
      await consumed(broker.bootstrap, 'txn-basic', 'read_uncommitted'),
      [...values('c1', 20), ...values('a2', 20), ...values('c3', 20)].sort(),
    );
  });

  test('a second producer with the same transactional id fences the first and aborts its transaction', async () => {
    const lines = await runTxnClient('fence', broker.bootstrap, 'txn-fence', 'java-fence');
    const types = lines.map((l) => l['type']);
    assert.ok(types.includes('second-initialized') && types.includes('second-committed'), JSON.stringify(lines));
    const failed = lines.find((l) => l['type'] === 'first-failed');
    assert.ok(failed !== undefined, `the fenced producer cannot commit: ${JSON.stringify(lines)}`);
    assert.match(failed['error'] as string, /ProducerFencedException|InvalidProducerEpochException/);
    assert.deepEqual(await consumed(broker.bootstrap, 'txn-fence', 'read_committed'), values('second', 5));
  });

  test('a transaction past its timeout is aborted and does not hold the last stable offset', async () => {
    const lines = await runTxnClient('timeout', broker.bootstrap, 'txn-timeout', 'java-timeout');
    const outcome = lines.find((l) => l['type'] === 'commit-failed' || l['type'] === 'committed');
    assert.equal(outcome?.['type'], 'commit-failed', JSON.stringify(lines));
    assert.ok(lines.some((l) => l['type'] === 'after-committed'));
    assert.deepEqual(await consumed(broker.bootstrap, 'txn-timeout', 'read_committed'), values('after', 5));
  });
});

describe('Java read-process-write across kill -9 of the broker and of the application', { skip: javaSkip() }, () => {
  const INPUT = 3000;
  let dir: string;
  let listeners: string;
  let broker: BrokerProcess | undefined;
  const start = async (): Promise<BrokerProcess> =>
    startBrokerProcess({ 'log.dirs': dir, listeners, 'group.initial.rebalance.delay.ms': '0', 'num.partitions': String(PARTITIONS) });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-eos-'));
    listeners = `PLAINTEXT://127.0.0.1:${await freePort()}`;
    broker = await start();
    await createTopics(broker.bootstrap, ['eos-in', 'eos-out']);
    await runTxnClient('produce', broker.bootstrap, 'eos-in', String(INPUT));
  });

  after(async () => {
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('every input record appears exactly once in the committed output', async () => {
    const bootstrap = broker!.bootstrap;
    const processed = (p: LineProcess): number =>
      Math.max(
        0,
        ...p
          .json()
          .filter((l) => l['type'] === 'committed')
          .map((l) => l['processed'] as number),
      );
    // The first run outlasts the broker's restart (it is killed); the second stops 15 s after the input runs dry.
    let app = startTxnClient('rpw', bootstrap, 'eos-in', 'eos-out', 'eos-group', 'eos-app', '50', '300000');
    await waitFor('the application to commit 500 records', 90_000, () => (processed(app) >= 500 ? true : undefined));
    broker!.child.kill('SIGKILL');
    await broker!.stop();
    broker = await start();
    const before = processed(app);
    await waitFor('the application to go on after the broker restart', 120_000, () => (processed(app) >= before + 500 ? true : undefined));
    await app.kill('SIGKILL');
    app = startTxnClient('rpw', bootstrap, 'eos-in', 'eos-out', 'eos-group', 'eos-app', '50', '15000');
    await app.succeeded(180_000);
    const output = await consumed(bootstrap, 'eos-out', 'read_committed');
    const expected = Array.from({ length: INPUT }, (_, i) => `out-v-${i}`).sort();
    const seen = new Map<string, number>();
    for (const v of output) seen.set(v, (seen.get(v) ?? 0) + 1);
    const duplicated = [...seen].filter(([, n]) => n > 1).map(([v]) => v);
    const lost = expected.filter((v) => !seen.has(v));
    assert.deepEqual(
      { duplicated: duplicated.length, lost: lost.length },
      { duplicated: 0, lost: 0 },
      `duplicated ${duplicated.slice(0, 5)}, lost ${lost.slice(0, 5)}`,
    );
    assert.equal(output.length, INPUT);
  });
});
