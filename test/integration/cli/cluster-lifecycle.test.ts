// `sluice cluster` as rpk container: `up` supervises three brokers; an acks=all producer writes
// to an RF=3 topic with min.insync.replicas=2 while, from "another terminal", `stop-broker --kill`
// takes a broker away (the producer keeps getting acks, `status` shows it dead and partitions
// under-replicated) and `start-broker` brings it back at once, so that it meets its dead
// session's /brokers/ids/<id> and waits it out before rejoining every ISR. `add-broker` and a
// controlled `stop-broker` follow; every acknowledged record is read back; `down` stops it all
// and the supervisor exits 0.
import { processAlive } from '../../../src/common/process-alive.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchingProducer, KafkaCluster, KafkaConsumerClient, parseBootstrapServers } from '@sluice/client/index.js';
import { repoRoot } from '../../../tools/kafka/kafka-release.js';
import { ok, runCli } from '../../helpers/run-cli.js';
import { zooKeeperSkip } from '../../helpers/requirements.js';
import { waitFor, when } from '../../helpers/wait-for.js';

const SLUICE = join(repoRoot(), 'dist', 'src', 'cli', 'sluice.js');
const TOPIC = 'lifecycle';
const PARTITIONS = 3;
/**
 * The stopped broker's ISRs shrink after the replica lag time, well before ZooKeeper expires its
 * session: `start-broker` right after the shrink meets the dead session's registration.
 */
const SESSION_MS = 10_000;
const REPLICA_LAG_MS = 3_000;

test(
  'sluice cluster: a killed broker is reported while the others serve acks=all, restarted at once it waits out its old session and rejoins the ISRs, down stops everything',
  { skip: zooKeeperSkip(), timeout: 180_000 },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-cluster-life-'));
    const settings = [
      'num.partition.workers=1',
      `zookeeper.session.timeout.ms=${SESSION_MS}`,
      `replica.lag.time.max.ms=${REPLICA_LAG_MS}`,
      // `down` stops every broker at once: the last leaders have nowhere to move and retry.
      'controlled.shutdown.retry.backoff.ms=500',
    ];
    const supervisor = spawn(
      process.execPath,
      [SLUICE, 'cluster', 'up', '--brokers', '3', '--dir', dir, ...settings.flatMap((s) => ['--override', s])],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    let stdout = '';
    supervisor.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    supervisor.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => supervisor.once('exit', (code) => resolve(code)));
    t.after(() => {
      if (supervisor.exitCode === null) supervisor.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    });
    const cluster = (...args: string[]) => runCli(['cluster', ...args, '--dir', dir], '', 90_000);
    const status = async (): Promise<string> => ok(await cluster('status'), 'status');
    const started = Date.now();
    const elapsed = (): string => `${((Date.now() - started) / 1000).toFixed(1)} s`;

    const bootstrap = await waitFor(
      `the bootstrap line (stderr: ${stderr.slice(-2000)})`,
      60_000,
      () => /^bootstrap: (\S+)$/m.exec(stdout)?.[1],
      100,
    );
    t.diagnostic(`up after ${elapsed()}`);
    ok(
      await runCli([
        'topics',
        '--bootstrap-server',
        bootstrap,
        '--create',
        '--topic',
        TOPIC,
        '--partitions',
        String(PARTITIONS),
        '--replication-factor',
        '3',
        '--config',
        'min.insync.replicas=2',
      ]),
      'create',
    );
    await waitFor(
      'every partition with a full ISR',
      20_000,
      async () => when((await status()).includes('under-replicated partitions: 0')),
      200,
    );
    const initial = await status();
    const controller = Number(/^controller: broker (\d+)$/m.exec(initial)![1]);
    // ISR changes go through the controller: with it gone they would wait for its session to expire.
    const victim = controller === 2 ? 3 : 2;

    const client = new KafkaCluster({ bootstrap: parseBootstrapServers(bootstrap) });
    t.after(() => client.close());
    const producer = new BatchingProducer(client, { acks: -1, lingerMs: 2 });
    const acked = new Map<string, string>();
    const failures: Error[] = [];
    let sent = 0;
    let producing = true;
    const pump = (async () => {
      while (producing) {
        for (let i = 0; i < 5; i++, sent++) {
          const value = `record-${sent}`;
          producer.send(TOPIC, { key: null, value: Buffer.from(value), partition: sent % PARTITIONS }, (err, delivery) => {
            if (err !== null) failures.push(err);
            else acked.set(`${delivery!.partition}@${delivery!.offset}`, value);
          });
        }
        await producer.bufferSpace();
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    await waitFor('the producer to get acks', 20_000, () => when(acked.size >= 200));

    assert.equal(
      ok(await cluster('stop-broker', String(victim), '--kill'), 'stop-broker --kill'),
      `broker ${victim} stopped (signal SIGKILL)\n`,
    );
    const killedAt = Date.now();
    const ackedAtKill = acked.size;
    const degraded = await waitFor(
      `broker ${victim} dead and partitions under-replicated`,
      30_000,
      async () => {
        const s = await status();
        return new RegExp(`^${victim}\\s+-\\s+\\S+\\s+dead\\s`, 'm').test(s) && /under-replicated partitions: [1-9]/.test(s)
          ? s
          : undefined;
      },
      200,
    );
    t.diagnostic(`under-replicated ${Date.now() - killedAt} ms after the kill:\n${degraded}`);
    assert.match(degraded, new RegExp(`^controller: broker ${controller}$`, 'm'));
    await waitFor('acks with the broker gone', 20_000, () => when(acked.size >= ackedAtKill + 200));

    const restartedAt = Date.now();
    assert.match(
      ok(await cluster('start-broker', String(victim)), 'start-broker'),
      new RegExp(`^broker ${victim} started as pid \\d+ on 127\\.0\\.0\\.1:\\d+\\n$`),
    );
    t.diagnostic(`start-broker took ${Date.now() - restartedAt} ms (${Date.now() - killedAt} ms after the kill)`);
    const waits = stderr.match(new RegExp(`^\\[broker-${victim}\\] .*waiting for it to expire.*"session":"0x[0-9a-f]+"`, 'gm')) ?? [];
    assert.equal(waits.length, 1, `broker ${victim} said once that it waits out its old session:\n${stderr.slice(-4000)}`);
    const healed = await waitFor(
      `broker ${victim} back in every ISR`,
      30_000,
      async () => {
        const s = await status();
        return new RegExp(`^${victim}\\s+\\d+\\s+\\S+\\s+alive\\s`, 'm').test(s) && s.includes('under-replicated partitions: 0')
          ? s
          : undefined;
      },
      200,
    );
    t.diagnostic(`healed ${Date.now() - restartedAt} ms after start-broker`);
    assert.doesNotMatch(healed, /dead/);

    assert.match(ok(await cluster('add-broker'), 'add-broker'), /^broker 4 started as pid \d+ on 127\.0\.0\.1:\d+\n$/);
    assert.match(await status(), /^4\s+\d+\s+\S+\s+alive\s/m);
    assert.equal(ok(await cluster('stop-broker', '4'), 'stop-broker'), 'broker 4 stopped (code 0)\n');
    assert.match(await status(), /^4\s+-\s+\S+\s+dead\s/m);

    producing = false;
    await pump;
    await producer.flush();
    await producer.close();
    assert.deepEqual(failures, []);
    t.diagnostic(`${acked.size} records acknowledged of ${sent} sent`);
    assert.equal(acked.size, sent);

    const consumer = new KafkaConsumerClient(client, TOPIC);
    const all = Array.from({ length: PARTITIONS }, (_, p) => p);
    const positions = await consumer.listOffsets(all, 'earliest');
    const ends = await consumer.listOffsets(all, 'latest');
    const read = new Map<string, string>();
    await waitFor(
      'every record read back',
      30_000,
      async () => {
        for (const r of await consumer.fetch(positions)) read.set(`${r.partition}@${r.offset}`, r.value!.toString());
        return when(all.every((p) => positions.get(p)! >= ends.get(p)!));
      },
      0,
    );
    for (const [at, value] of acked) assert.equal(read.get(at), value, `the record acknowledged at ${at}`);

    const pids = [...stderr.matchAll(/pid (\d+)/g)].map((m) => Number(m[1]));
    assert.equal(ok(await cluster('down'), 'down'), `the cluster in ${dir} is down\n`);
    assert.equal(await exited, 0);
    for (const pid of pids) assert.equal(processAlive(pid), false, `process ${pid} stopped`);
    assert.equal(existsSync(join(dir, 'cluster.json')), false, 'the state file goes with the cluster');
    assert.equal((await cluster('status')).code, 1);
    t.diagnostic(`whole run ${elapsed()}`);
  },
);
