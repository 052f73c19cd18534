/**
 * `sluice cluster up --brokers N [--dir DIR] [--override key=value]...`: a whole cluster in one
 * command, for users and tests. Starts a ZooKeeper (Debian's package) on a free port with its
 * data under DIR, then N brokers (ids 1..N) as their own processes, each with a free port and its
 * log dir under DIR, all given the overrides. Their output is streamed with a `[broker-N]` or
 * `[zookeeper]` prefix. Once every broker accepts connections and knows all the others it prints one line,
 * `bootstrap: host:port,host:port,…`. SIGINT/SIGTERM stops the brokers (each does its controlled
 * shutdown) and then ZooKeeper; a broker that dies stops the rest.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startZooKeeper, zooKeeperInstallProblem, type ZooKeeperServer } from '../zk/zookeeper-server.js';
import { BROKER_NODE_FLAGS } from './broker-node-flags.js';
import { LineSplitter } from '@sluice/cli/commands/line-splitter.js';
import { freePort } from '../common/free-port.js';
import { KafkaCluster, parseBootstrapServers } from '@sluice/client/index.js';

const USAGE = 'usage: sluice cluster up --brokers N [--dir DIR] [--override key=value]...';
const READY = /sluice: accepting connections on (\S+)/;
/** How long a broker may take to accept connections. */
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;

interface ClusterArgs {
  readonly brokers: number;
  readonly dir: string;
  readonly overrides: readonly string[];
}

function parse(args: readonly string[]): ClusterArgs {
  if (args[0] !== 'up') throw new UsageError(USAGE);
  let brokers = 3;
  let dir: string | null = null;
  const overrides: string[] = [];
  for (let i = 1; i < args.length; i++) {
    const arg = args[i]!;
    const value = args[++i];
    if (value === undefined) throw new UsageError(`${arg} needs a value\n${USAGE}`);
    if (arg === '--brokers') {
      brokers = Number(value);
      if (!Number.isInteger(brokers) || brokers < 1) throw new UsageError(`--brokers must be a positive integer, not ${value}`);
    } else if (arg === '--dir') dir = resolve(value);
    else if (arg === '--override') {
      if (value.indexOf('=') <= 0) throw new UsageError(`--override takes key=value, not ${value}`);
      overrides.push(value);
    } else throw new UsageError(`unknown option ${arg}\n${USAGE}`);
  }
  return { brokers, dir: dir ?? mkdtempSync(join(tmpdir(), 'sluice-cluster-')), overrides };
}

export class UsageError extends Error {}

function streamWithPrefix(child: ChildProcess, prefix: string, onLine?: (line: string) => void): void {
  for (const stream of [child.stdout, child.stderr]) {
    const lines = new LineSplitter();
    stream?.on('data', (chunk: Buffer) => {
      for (const bytes of lines.push(chunk)) {
        const line = bytes.toString('utf8');
        process.stderr.write(`[${prefix}] ${line}\n`);
        onLine?.(line);
      }
    });
  }
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) done();
    else child.once('exit', () => done());
  });
}

/** Accepting connections is not enough: each broker must also know the others (the controller's first metadata). */
async function untilEveryBrokerSeesAll(bootstraps: readonly string[]): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (const bootstrap of bootstraps) {
    const cluster = new KafkaCluster({ bootstrap: parseBootstrapServers(bootstrap) });
    try {
      while ((await cluster.metadata([])).brokers.size < bootstraps.length) {
        if (Date.now() > deadline)
          throw new Error(`broker ${bootstrap} did not learn of all ${bootstraps.length} brokers within ${START_TIMEOUT_MS} ms`);
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      cluster.close();
    }
  }
}

export async function clusterUp(args: readonly string[]): Promise<void> {
  const parsed = parse(args);
  const problem = zooKeeperInstallProblem();
  if (problem !== undefined) throw new Error(problem);
  mkdirSync(parsed.dir, { recursive: true });
  const zookeeper: ZooKeeperServer = await startZooKeeper({ dataDir: join(parsed.dir, 'zookeeper') });
  process.stderr.write(`[zookeeper] listening on ${zookeeper.connect} (pid ${zookeeper.pid}, log ${zookeeper.logFile})\n`);
  const cli = fileURLToPath(new URL('./sluice.js', import.meta.url));
  const brokers: ChildProcess[] = [];
  let stopping = false;
  const stopAll = async (code: number): Promise<never> => {
    if (!stopping) {
      stopping = true;
      for (const b of brokers) b.kill('SIGTERM');
      const killer = setTimeout(() => brokers.forEach((b) => b.kill('SIGKILL')), STOP_TIMEOUT_MS);
      await Promise.all(brokers.map(exited));
      clearTimeout(killer);
      await zookeeper.stop();
    }
    process.exit(code);
  };
  process.once('SIGINT', () => void stopAll(0));
  process.once('SIGTERM', () => void stopAll(0));

  const ready: Promise<string>[] = [];
  for (let id = 1; id <= parsed.brokers; id++) {
    const port = await freePort();
    const logDir = join(parsed.dir, `broker-${id}`);
    const settings = [
      `node.id=${id}`,
      `listeners=PLAINTEXT://127.0.0.1:${port}`,
      `log.dirs=${logDir}`,
      `zookeeper.connect=${zookeeper.connect}`,
      `default.replication.factor=${Math.min(3, parsed.brokers)}`,
      `offsets.topic.replication.factor=${Math.min(3, parsed.brokers)}`,
      ...parsed.overrides,
    ];
    const child = spawn(process.execPath, [...BROKER_NODE_FLAGS, cli, 'start', ...settings.flatMap((s) => ['--override', s])], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    brokers.push(child);
    process.stderr.write(`[broker-${id}] starting as pid ${child.pid ?? -1} on 127.0.0.1:${port}, log dir ${logDir}\n`);
    ready.push(
      new Promise((resolveReady, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`broker ${id} did not accept connections within ${START_TIMEOUT_MS} ms`)),
          START_TIMEOUT_MS,
        );
        streamWithPrefix(child, `broker-${id}`, (line) => {
          const m = READY.exec(line);
          if (m !== null) {
            clearTimeout(timer);
            resolveReady(m[1]!);
          }
        });
        child.once('exit', (code, signal) => {
          clearTimeout(timer);
          reject(new Error(`broker ${id} exited (${signal ?? `code ${code}`})`));
          if (!stopping) {
            process.stderr.write(`sluice cluster: broker ${id} exited (${signal ?? `code ${code}`}); stopping the cluster\n`);
            void stopAll(1);
          }
        });
      }),
    );
  }
  try {
    const bootstraps = await Promise.all(ready);
    await untilEveryBrokerSeesAll(bootstraps);
    process.stdout.write(`bootstrap: ${bootstraps.join(',')}\n`);
  } catch (err) {
    process.stderr.write(`sluice cluster: ${(err as Error).message}\n`);
    await stopAll(1);
  }
}
