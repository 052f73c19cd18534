// Transactions on a 3-broker cluster (RF 3 everywhere): the Java client's transactions (version 2)
// whose partitions are led by brokers other than the transaction coordinator — so the markers
// travel as WriteTxnMarkers and the leaders verify with the coordinator by AddPartitionsToTxn —
// read back by read_committed and read_uncommitted consumers; and Kafka's read-process-write loop
// keeping every input exactly once in its output while the broker that coordinates its
// transactional id is killed -9 (its coordinator moves to another broker, which resumes it); and
// concurrent transactional producers through a kill -9 and restart of a partition leader, checked
// for Jepsen's anomaly classes (lost writes, aborted and intermediate reads, torn transactions,
// duplicates) by tools/fault/txn-checker.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { startCluster, type TestCluster } from '../../helpers/cluster.js';
import type { JsonLine } from '../../helpers/interop.js';
import { javaSkip, zooKeeperSkip } from '../../helpers/requirements.js';
import { wireCall } from '../../helpers/wire-call.js';
import { FindCoordinatorRequest, FindCoordinatorResponse } from '@sluice/protocol/messages/index.js';
import { startJavaProgram, waitFor, type LineProcess } from '../groups/group-helpers.js';
import { checkTransactions, TXN_ANOMALY_KINDS, type PartitionReads, type TxnOutcome } from '../../../tools/fault/txn-checker.js';

const PARTITIONS = 3;
const PROGRAM = 'test/integration/transactions/TxnClients.java';
const TRANSACTION_KEY = 1;

function startTxnClient(scenario: string, bootstrap: string, ...args: string[]): LineProcess {
  return startJavaProgram(PROGRAM, `TxnClients ${scenario} ${args.join(' ')}`, [scenario, bootstrap, ...args]);
}

async function runTxnClient(scenario: string, bootstrap: string, ...args: string[]): Promise<JsonLine[]> {
  const p = startTxnClient(scenario, bootstrap, ...args);
  await p.succeeded(180_000);
  return p.json();
}

async function consumed(bootstrap: string, topic: string, isolation: string): Promise<string[]> {
  const line = (await runTxnClient('consume', bootstrap, topic, isolation)).find((l) => l['type'] === 'consumed');
  assert.ok(line !== undefined, 'the consumer read to the end offsets');
  return (line['values'] as string[]).slice().sort();
}

const values = (prefix: string, count: number): string[] => Array.from({ length: count }, (_, i) => `${prefix}-${i}`);

describe('transactions on a cluster', { skip: zooKeeperSkip() ?? javaSkip() }, () => {
  let cluster: TestCluster;

  before(async () => {
    cluster = await startCluster(3, {
      'group.initial.rebalance.delay.ms': '0',
      'transaction.state.log.num.partitions': '5',
      'offsets.topic.num.partitions': '5',
    });
    const admin = new Kafka({ brokers: cluster.bootstrap().split(','), logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    await admin.createTopics({
      topics: ['ctxn', 'ceos-in', 'ceos-out', 'cwork'].map((topic) => ({ topic, numPartitions: PARTITIONS, replicationFactor: 3 })),
      waitForLeaders: true,
    });
    await admin.disconnect();
  });

  after(async () => {
    await cluster?.stop();
  });

  test('commit and abort across partitions led by other brokers than the coordinator', { timeout: 240_000 }, async () => {
    const lines = await runTxnClient('commit-abort', cluster.bootstrap(), 'ctxn', 'cluster-basic', '30');
    assert.deepEqual(
      lines.filter((l) => l['type'] === 'ended').map((l) => l['tag']),
      ['c1', 'a2', 'c3'],
    );
    const leaders = new Set((await cluster.metadata(['ctxn'])).topics[0]!.partitions.map((p) => p.leaderId));
    assert.ok(leaders.size > 1, `the partitions have several leaders: ${[...leaders]}`);
    assert.deepEqual(await consumed(cluster.bootstrap(), 'ctxn', 'read_committed'), [...values('c1', 30), ...values('c3', 30)].sort());
    assert.deepEqual(
      await consumed(cluster.bootstrap(), 'ctxn', 'read_uncommitted'),
      [...values('c1', 30), ...values('a2', 30), ...values('c3', 30)].sort(),
    );
  });

  test(
    'read-process-write stays exactly once while the broker coordinating its transactional id is killed -9',
    { timeout: 420_000 },
    async () => {
      const INPUT = 2000;
      await runTxnClient('produce', cluster.bootstrap(), 'ceos-in', String(INPUT));
      const bootstrap = cluster.bootstrap();
      const processed = (p: LineProcess): number =>
        Math.max(
          0,
          ...p
            .json()
            .filter((l) => l['type'] === 'committed')
            .map((l) => l['processed'] as number),
        );
      const app = startTxnClient('rpw', bootstrap, 'ceos-in', 'ceos-out', 'ceos-group', 'ceos-app', '25', '20000');
      await waitFor('the application to commit 300 records', 120_000, () => (processed(app) >= 300 ? true : undefined));
      const found = await wireCall(cluster.anyBroker(), FindCoordinatorRequest, FindCoordinatorResponse, 3, {
        key: 'ceos-app',
        keyType: TRANSACTION_KEY,
      });
      assert.equal(found.errorCode, 0);
      cluster.brokers[found.nodeId - 1]!.child.kill('SIGKILL');
      await app.succeeded(300_000);
      const survivors = [1, 2, 3]
        .filter((id) => id !== found.nodeId)
        .map((id) => cluster.brokers[id - 1]!.bootstrap)
        .join(',');
      const output = await consumed(survivors, 'ceos-out', 'read_committed');
      const seen = new Map<string, number>();
      for (const v of output) seen.set(v, (seen.get(v) ?? 0) + 1);
      const duplicated = [...seen].filter(([, n]) => n > 1).map(([v]) => v);
      const lost = Array.from({ length: INPUT }, (_, i) => `out-v-${i}`).filter((v) => !seen.has(v));
      assert.deepEqual(
        { duplicated: duplicated.length, lost: lost.length },
        { duplicated: 0, lost: 0 },
        `duplicated ${duplicated.slice(0, 5)}, lost ${lost.slice(0, 5)}`,
      );
      assert.equal(output.length, INPUT);
    },
  );

  test('concurrent transactions through a kill -9 and restart of a partition leader: no anomaly', { timeout: 420_000 }, async (t) => {
    const workload = startTxnClient('workload', cluster.bootstrap(), 'cwork', '3', '40', '8');
    const ended = (): number => workload.json().filter((l) => l['type'] === 'txn').length;
    await waitFor('30 transactions', 120_000, () => (ended() >= 30 ? true : undefined));
    const victim = (await cluster.metadata(['cwork'])).topics[0]!.partitions[0]!.leaderId;
    const endedBeforeKill = ended();
    cluster.brokers[victim - 1]!.child.kill('SIGKILL');
    await cluster.brokers[victim - 1]!.stop();
    // Its registration goes with its ZooKeeper session (6 s); then it may register again.
    await cluster.waitFor(`broker ${victim} to leave`, (m) => !m.brokers.some((b) => b.nodeId === victim), 30_000);
    await cluster.startBroker(victim);
    await workload.succeeded(300_000);
    const lines = workload.json();
    const txns: TxnOutcome[] = lines
      .filter((l) => l['type'] === 'txn')
      .map((l) => ({ id: l['id'] as string, outcome: l['outcome'] as TxnOutcome['outcome'], values: l['values'] as string[] }));
    const partitionsOf = (type: string): PartitionReads => lines.find((l) => l['type'] === type)!['partitions'] as PartitionReads;
    const result = checkTransactions(txns, partitionsOf('final'), [partitionsOf('observed')]);
    t.diagnostic(`transactions ${JSON.stringify(result.transactions)}, broker ${victim} killed after ${endedBeforeKill} had ended`);
    assert.deepEqual(result.counts, Object.fromEntries(TXN_ANOMALY_KINDS.map((k) => [k, 0])), JSON.stringify(result.anomalies.slice(0, 5)));
    assert.equal(txns.length, 120);
    assert.ok(result.transactions.committed > 0 && result.transactions.aborted > 0, JSON.stringify(result.transactions));
  });
});
