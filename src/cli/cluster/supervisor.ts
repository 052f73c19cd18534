/**
 * The process `sluice cluster up` leaves running: the parent of the cluster's ZooKeeper and
 * broker processes. It starts brokers (ids from 1, each with a free port and its log dir under
 * the cluster's directory, kept across restarts), stops one (SIGTERM: its controlled shutdown;
 * SIGKILL on request), adds one with the next id, and brings everything down. A broker that
 * dies is reported and the others keep serving. After every change it rewrites the state file
 * (`cluster-state.ts`) that `sluice cluster status` reads.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../common/free-port.js';
import { startZooKeeper, zooKeeperInstallProblem, type ZooKeeperServer } from '../../zk/zookeeper-server.js';
import { KafkaCluster, parseBootstrapServers } from '@sluice/client/index.js';
import { ClusterCommandError } from './cluster-args.js';
import { BrokerProcess, START_TIMEOUT_MS, type BrokerSpec } from './broker-process.js';
import { processAlive } from '../../common/process-alive.js';
import { readClusterState, removeClusterState, writeClusterState } from './cluster-state.js';

/** How long a broker's controlled shutdown may take before it is killed. */
const STOP_TIMEOUT_MS = 30_000;
const METADATA_POLL_MS = 100;

interface Slot {
  readonly spec: BrokerSpec;
  process: BrokerProcess | null;
  /** A stop was asked for: its exit is the answer, not news. */
  stopRequested: boolean;
}

/** Accepting connections is not enough: a broker must also know the others (the controller's metadata). */
async function untilEachSeesBrokers(bootstraps: readonly string[], count: number): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (const bootstrap of bootstraps) {
    const cluster = new KafkaCluster({ bootstrap: parseBootstrapServers(bootstrap) });
    try {
      while ((await cluster.metadata([])).brokers.size < count) {
        if (Date.now() > deadline) {
          throw new ClusterCommandError(`broker ${bootstrap} did not learn of all ${count} brokers within ${START_TIMEOUT_MS} ms`);
        }
        await new Promise((r) => setTimeout(r, METADATA_POLL_MS));
      }
    } finally {
      cluster.close();
    }
  }
}

export class ClusterSupervisor {
  private readonly slots = new Map<number, Slot>();
  private stopping: Promise<void> | null = null;

  private constructor(
    readonly dir: string,
    private readonly zookeeper: ZooKeeperServer,
    /** What every broker is given after its own id, listener and log dir. */
    private readonly sharedSettings: readonly string[],
  ) {}

  /** Starts ZooKeeper in `dir` (refused if a supervisor already runs there). */
  static async create(options: { dir: string; brokers: number; overrides: readonly string[] }): Promise<ClusterSupervisor> {
    const problem = zooKeeperInstallProblem();
    if (problem !== undefined) throw new ClusterCommandError(problem);
    mkdirSync(options.dir, { recursive: true });
    const running = ClusterSupervisor.runningIn(options.dir);
    if (running !== null) throw new ClusterCommandError(`a cluster already runs in ${options.dir} (supervisor pid ${running})`);
    const zookeeper = await startZooKeeper({ dataDir: join(options.dir, 'zookeeper') });
    process.stderr.write(`[zookeeper] listening on ${zookeeper.connect} (pid ${zookeeper.pid}, log ${zookeeper.logFile})\n`);
    const replicationFactor = Math.min(3, options.brokers);
    return new ClusterSupervisor(options.dir, zookeeper, [
      `zookeeper.connect=${zookeeper.connect}`,
      `default.replication.factor=${replicationFactor}`,
      `offsets.topic.replication.factor=${replicationFactor}`,
      ...options.overrides,
    ]);
  }

  /** Starts brokers 1..count; their addresses once each accepts connections and knows the others. */
  async startBrokers(count: number): Promise<string[]> {
    const started: BrokerProcess[] = [];
    for (let id = 1; id <= count; id++) started.push(this.launch(await this.newSlot(id)));
    const bootstrap = await Promise.all(started.map((b) => b.ready));
    await untilEachSeesBrokers(bootstrap, bootstrap.length);
    return bootstrap;
  }

  /** The pid of a supervisor still running in `dir` (by its state file), or null. */
  private static runningIn(dir: string): number | null {
    try {
      const pid = readClusterState(dir).supervisorPid;
      return processAlive(pid) ? pid : null;
    } catch (err) {
      if (err instanceof ClusterCommandError) return null;
      throw err;
    }
  }

  async stopBroker(id: number, kill: boolean): Promise<string> {
    const slot = this.slot(id);
    const broker = slot.process;
    if (broker === null) throw new ClusterCommandError(`broker ${id} is not running`);
    slot.stopRequested = true;
    return `broker ${id} stopped (${await stopProcess(broker, kill)})`;
  }

  async startBroker(id: number): Promise<string> {
    const slot = this.slot(id);
    if (slot.process !== null) throw new ClusterCommandError(`broker ${id} is already running (pid ${slot.process.pid})`);
    return this.startAndAwait(slot);
  }

  async addBroker(): Promise<string> {
    return this.startAndAwait(await this.newSlot(Math.max(0, ...this.slots.keys()) + 1));
  }

  /** Stops every broker (each does its controlled shutdown, killed if it takes too long), then ZooKeeper. */
  down(): Promise<void> {
    this.stopping ??= (async () => {
      await Promise.all([...this.slots.values()].flatMap((s) => (s.process === null ? [] : [stopProcess(s.process, false)])));
      await this.zookeeper.stop();
      removeClusterState(this.dir);
    })();
    return this.stopping;
  }

  private slot(id: number): Slot {
    const slot = this.slots.get(id);
    if (slot === undefined) throw new ClusterCommandError(`there is no broker ${id} (brokers: ${[...this.slots.keys()].join(', ')})`);
    return slot;
  }

  private async newSlot(id: number): Promise<Slot> {
    const slot: Slot = {
      spec: { id, port: await freePort(), logDir: join(this.dir, `broker-${id}`) },
      process: null,
      stopRequested: false,
    };
    this.slots.set(id, slot);
    return slot;
  }

  private async startAndAwait(slot: Slot): Promise<string> {
    const broker = this.launch(slot);
    const address = await broker.ready;
    const live = [...this.slots.values()].filter((s) => s.process !== null).length;
    await untilEachSeesBrokers([address], live);
    return `broker ${slot.spec.id} started as pid ${broker.pid} on ${address}`;
  }

  private launch(slot: Slot): BrokerProcess {
    if (this.stopping !== null) throw new ClusterCommandError('the cluster is going down');
    const { id, port, logDir } = slot.spec;
    const broker = BrokerProcess.spawn(slot.spec, [
      `node.id=${id}`,
      `listeners=PLAINTEXT://127.0.0.1:${port}`,
      `log.dirs=${logDir}`,
      ...this.sharedSettings,
    ]);
    slot.process = broker;
    slot.stopRequested = false;
    process.stderr.write(`[broker-${id}] starting as pid ${broker.pid} on 127.0.0.1:${port}, log dir ${logDir}\n`);
    void broker.exited.then((ending) => {
      if (slot.process === broker) slot.process = null;
      if (this.stopping !== null) return;
      this.saveState();
      if (!slot.stopRequested) {
        process.stderr.write(
          `sluice cluster: broker ${id} exited (${ending}); the others keep serving ` +
            `(sluice cluster start-broker ${id} --dir ${this.dir} starts it again)\n`,
        );
      }
    });
    this.saveState();
    return broker;
  }

  private saveState(): void {
    writeClusterState(this.dir, {
      supervisorPid: process.pid,
      zookeeper: { connect: this.zookeeper.connect, port: this.zookeeper.port, pid: this.zookeeper.pid },
      brokers: [...this.slots.values()].map((s) => ({ ...s.spec, pid: s.process?.pid ?? null })),
    });
  }
}

/** SIGKILL, or SIGTERM (the broker's controlled shutdown) and SIGKILL if it outlasts `STOP_TIMEOUT_MS`; how it ended. */
async function stopProcess(broker: BrokerProcess, kill: boolean): Promise<string> {
  broker.signal(kill ? 'SIGKILL' : 'SIGTERM');
  const killer = kill ? undefined : setTimeout(() => broker.signal('SIGKILL'), STOP_TIMEOUT_MS);
  const ending = await broker.exited;
  clearTimeout(killer);
  return ending;
}
