// `sluice cluster up --brokers 3`: one bootstrap line once every broker accepts connections, an
// RF=3 topic described like kafka-topics.sh (leader, replicas, ISR), and SIGTERM stopping the
// brokers and ZooKeeper (no process of it left). The brokers run with the broker node flags, as
// `npm start` does.
import { processAlive } from '../../../src/common/process-alive.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BROKER_NODE_FLAGS } from '../../../src/cli/broker-node-flags.js';
import { repoRoot } from '../../../tools/kafka/kafka-release.js';
import { ok, runCli } from '../../helpers/run-cli.js';
import { zooKeeperSkip } from '../../helpers/requirements.js';
import { waitFor } from '../../helpers/wait-for.js';

const SLUICE = join(repoRoot(), 'dist', 'src', 'cli', 'sluice.js');

test(
  'sluice cluster up: three brokers on one ZooKeeper, an RF=3 topic described with its ISR, reassigned and its preferred leader elected with the tools, all stopped by SIGTERM',
  { skip: zooKeeperSkip() },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-cluster-up-'));
    const child = spawn(
      process.execPath,
      [SLUICE, 'cluster', 'up', '--brokers', '3', '--dir', dir, '--override', 'num.partition.workers=1'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    t.after(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    });
    const bootstrap = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`no bootstrap line in 60 s; stderr: ${stderr}`)), 60_000);
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /^bootstrap: (\S+)$/m.exec(out);
        if (m !== null) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
    });
    assert.equal(bootstrap.split(',').length, 3);
    assert.match(stderr, /^\[broker-2\] /m, 'broker output is streamed with a prefix');
    ok(
      await runCli([
        'topics',
        '--bootstrap-server',
        bootstrap,
        '--create',
        '--topic',
        'up',
        '--partitions',
        '3',
        '--replication-factor',
        '3',
      ]),
      'create',
    );
    const described = await waitFor(
      'every partition of up with a full ISR',
      10_000,
      async () => {
        const d = ok(await runCli(['topics', '--bootstrap-server', bootstrap, '--describe', '--topic', 'up']), 'describe');
        return (d.match(/Isr: \d,\d,\d/g) ?? []).length === 3 ? d : undefined;
      },
      200,
    );
    assert.match(described, /ReplicationFactor: 3/);
    const rows = described.split('\n').filter((l) => l.includes('Partition:'));
    assert.equal(rows.length, 3);
    for (const row of rows) {
      const m = /Leader: (\d)\tReplicas: (\d,\d,\d)\tIsr: (\d,\d,\d)/.exec(row);
      assert.ok(m !== null, row);
      assert.equal(new Set(m[2]!.split(',')).size, 3);
      assert.ok(m[2]!.split(',').includes(m[1]!), 'the leader is a replica');
    }

    // reassign-partitions: partition 0 onto two of its replicas, reversed, then verified.
    const replicas = /Partition: 0\tLeader: \d\tReplicas: (\d),(\d),(\d)/.exec(described)!.slice(1, 4).map(Number);
    const plan = join(dir, 'plan.json');
    writeFileSync(plan, JSON.stringify({ version: 1, partitions: [{ topic: 'up', partition: 0, replicas: [replicas[1], replicas[0]] }] }));
    assert.match(
      ok(await runCli(['reassign-partitions', '--bootstrap-server', bootstrap, '--reassignment-json-file', plan, '--execute']), 'execute'),
      /Successfully started partition reassignment for up-0/,
    );
    const verified = await waitFor(
      'the reassignment of up-0 completed',
      20_000,
      async () => {
        const v = ok(
          await runCli(['reassign-partitions', '--bootstrap-server', bootstrap, '--reassignment-json-file', plan, '--verify']),
          'verify',
        );
        return v.includes('is completed') ? v : undefined;
      },
      200,
    );
    assert.match(verified, /Reassignment of partition up-0 is completed\./);
    assert.equal(
      ok(await runCli(['reassign-partitions', '--bootstrap-server', bootstrap, '--list']), 'list'),
      'Current partition reassignments:\n',
    );
    // leader-election: the reversed order makes replicas[1] the preferred leader of partition 0.
    const elected = ok(
      await runCli(['leader-election', '--bootstrap-server', bootstrap, '--election-type', 'PREFERRED', '--topic', 'up']),
      'leader-election',
    );
    assert.match(
      elected,
      /Successfully completed leader election \(PREFERRED\) for partitions up-0|Valid replica already elected for partitions .*up-0/,
    );
    const after = ok(await runCli(['topics', '--bootstrap-server', bootstrap, '--describe', '--topic', 'up']), 'describe');
    assert.match(after, new RegExp(`Partition: 0\tLeader: ${replicas[1]}\tReplicas: ${replicas[1]},${replicas[0]}\t`));

    const brokerPids = [...stderr.matchAll(/\[broker-\d+\] starting as pid (\d+)/g)].map((m) => Number(m[1]));
    assert.equal(brokerPids.length, 3);
    for (const pid of brokerPids) {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      assert.deepEqual(argv.slice(1, 1 + BROKER_NODE_FLAGS.length), BROKER_NODE_FLAGS, `broker ${pid} runs with the broker node flags`);
    }

    const pids = [...stderr.matchAll(/pid (\d+)/g)].map((m) => Number(m[1]));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    for (const pid of pids) assert.equal(processAlive(pid), false, `process ${pid} stopped`);
  },
);
