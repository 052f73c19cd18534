/**
 * The cluster a fault run works on: a ZooKeeper server that can be restarted on its port and
 * data, and N broker processes, each behind a fault proxy (fault-proxy.ts) that is its advertised
 * listener, so every peer and client reaches it only through the proxy. The runner talks to
 * each broker's real port for its own questions (metadata), which no network fault cuts.
 * Optionally one broker's log dir is a small tmpfs that can be filled to the last byte.
 */
import { once } from 'node:events';
import { appendFileSync, mkdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../src/common/free-port.js';
import { MetadataRequest, MetadataResponse, type MetadataResponseData } from '@sluice/protocol/messages/index.js';
import { fourLetterWord, startZooKeeper, type ZooKeeperServer } from '../../src/zk/zookeeper-server.js';
import { startBrokerProcess, type BrokerProcess } from '../../test/helpers/broker-process.js';
import { fillUntilFull, mountTmpfs, unmountTmpfs } from '../../test/helpers/tmpfs.js';
import { wireCall } from '../../test/helpers/wire-call.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';

const HOST = '127.0.0.1';
const METADATA_VERSION = 12;
const ZOOKEEPER_START_MS = 30_000;

export interface FaultClusterOptions {
  readonly size: number;
  /** Everything of the run goes under it: data, ZooKeeper, broker logs. */
  readonly dir: string;
  /** Broker settings on top of the cluster's own (ids, listeners, log dirs, ZooKeeper). */
  readonly settings: Readonly<Record<string, string>>;
  /** The broker whose log dir is a tmpfs of `diskBytes`, for the full-disk fault. */
  readonly diskBroker?: number;
  readonly diskBytes?: number;
}

export interface FaultBroker {
  readonly id: number;
  readonly port: number;
  readonly proxy: FaultProxy;
  process: BrokerProcess | null;
  paused: boolean;
}

export class FaultCluster {
  /** Why the full-disk fault cannot run here, or undefined when the tmpfs is mounted. */
  diskSkip: string | undefined = 'no broker was given a tmpfs log dir';

  private constructor(
    private readonly options: FaultClusterOptions,
    private zookeeper: ZooKeeperServer,
    private readonly zkData: string,
    readonly brokers: readonly FaultBroker[],
  ) {}

  static async start(options: FaultClusterOptions): Promise<FaultCluster> {
    const zkData = join(options.dir, 'zookeeper');
    mkdirSync(join(options.dir, 'logs'), { recursive: true });
    const zookeeper = await startZooKeeper({ dataDir: zkData, startTimeoutMs: ZOOKEEPER_START_MS });
    const brokers: FaultBroker[] = [];
    for (let id = 1; id <= options.size; id++) {
      const port = await freePort();
      brokers.push({ id, port, proxy: await startFaultProxy(port), process: null, paused: false });
    }
    const cluster = new FaultCluster(options, zookeeper, zkData, brokers);
    try {
      if (options.diskBroker !== undefined) cluster.mountDisk(options.diskBroker, options.diskBytes ?? 64 << 20);
      for (const b of brokers) await cluster.startBroker(b.id);
      await cluster.waitFor(
        `${options.size} brokers and a controller`,
        (m) => m.brokers.length === options.size && m.controllerId > 0,
        60_000,
      );
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    return cluster;
  }

  /** The brokers' advertised (proxied) addresses, for clients. */
  bootstrap(): string {
    return this.brokers.map((b) => `${HOST}:${b.proxy.port}`).join(',');
  }

  broker(id: number): FaultBroker {
    const b = this.brokers[id - 1];
    if (b === undefined) throw new RangeError(`no broker ${id}`);
    return b;
  }

  logDir(id: number): string {
    return join(this.options.dir, `broker-${id}`);
  }

  async startBroker(id: number): Promise<void> {
    const b = this.broker(id);
    const process = await startBrokerProcess({
      'node.id': String(id),
      listeners: `PLAINTEXT://${HOST}:${b.port}`,
      'advertised.listeners': `PLAINTEXT://${HOST}:${b.proxy.port}`,
      'log.dirs': this.logDir(id),
      'zookeeper.connect': `${this.zookeeper.connect}/sluice`,
      ...this.options.settings,
    });
    // Each process's log is kept for the investigation of an anomaly.
    process.child.once('exit', (code, signal) => {
      appendFileSync(join(this.options.dir, 'logs', `broker-${id}.log`), `${process.stderr()}\n--- exited: ${code ?? signal}\n`);
    });
    b.process = process;
    b.paused = false;
  }

  /**
   * Starts broker `id` again after a crash. Its previous ZooKeeper session holds its
   * registration until the session times out, and a broker refuses to start while it does
   * (Kafka's too): start again until that session has expired, as a supervisor would.
   */
  async restartBroker(id: number): Promise<void> {
    const deadline = Date.now() + this.sessionTimeoutMs() * 3 + 10_000;
    for (;;) {
      try {
        await this.startBroker(id);
        return;
      } catch (err) {
        const inUse = err instanceof Error && err.message.includes('BrokerIdInUseError');
        if (!inUse || Date.now() > deadline) throw err;
        await sleep(500);
      }
    }
  }

  private sessionTimeoutMs(): number {
    return Number(this.options.settings['zookeeper.session.timeout.ms'] ?? 18_000);
  }

  /** Undoes whatever fault is still on: paused brokers continue, proxies forward, stopped brokers start. */
  async healAll(): Promise<void> {
    for (const b of this.brokers) {
      if (b.paused) this.resume(b.id);
      b.proxy.setMode('forward');
    }
    for (const b of this.brokers) {
      const child = b.process?.child;
      if (child === undefined || child.exitCode !== null || child.signalCode !== null) await this.restartBroker(b.id);
    }
  }

  /** kill -9, waiting for the exit. */
  async kill(id: number): Promise<void> {
    const child = this.broker(id).process?.child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }

  pause(id: number): void {
    this.broker(id).process?.child.kill('SIGSTOP');
    this.broker(id).paused = true;
  }

  resume(id: number): void {
    this.broker(id).process?.child.kill('SIGCONT');
    this.broker(id).paused = false;
  }

  /** Stops ZooKeeper, waits `downMs`, starts it again on the same port with the same data. */
  async restartZooKeeper(downMs: number): Promise<void> {
    const { port } = this.zookeeper;
    await this.zookeeper.stop();
    await sleep(downMs);
    this.zookeeper = await startZooKeeper({ port, dataDir: this.zkData, startTimeoutMs: ZOOKEEPER_START_MS });
  }

  /** The first line of ZooKeeper's `srvr` answer: "Zookeeper version: …". */
  async zooKeeperVersion(): Promise<string> {
    return (await fourLetterWord(this.zookeeper.port, 'srvr')).split('\n')[0]!.replace(/^Zookeeper version: /, '');
  }

  private mountDisk(id: number, bytes: number): void {
    const problem = mountTmpfs(this.logDir(id), bytes);
    this.diskSkip = problem === undefined ? undefined : `broker ${id}'s log dir: ${problem}`;
  }

  private fillFile(id: number): string {
    return join(this.logDir(id), 'fault-fill');
  }

  /** Writes to the tmpfs until it has no byte left. */
  fillDisk(id: number): void {
    fillUntilFull(this.fillFile(id));
  }

  freeDisk(id: number): void {
    unlinkSync(this.fillFile(id));
  }

  /** The metadata broker `id` serves, asked on its real port. */
  metadata(id: number): Promise<MetadataResponseData> {
    return wireCall(`${HOST}:${this.broker(id).port}`, MetadataRequest, MetadataResponse, METADATA_VERSION, {
      topics: null,
      allowAutoTopicCreation: false,
    });
  }

  /** The metadata of some running, unpaused broker. */
  async anyMetadata(): Promise<MetadataResponseData> {
    let last: unknown;
    for (const b of this.brokers) {
      if (b.paused || b.process === null || b.process.child.exitCode !== null || b.process.child.signalCode !== null) continue;
      try {
        return await this.metadata(b.id);
      } catch (err) {
        last = err;
      }
    }
    throw new Error(`no broker answered Metadata: ${String(last)}`);
  }

  /** Polls until `ready` holds for the metadata of every broker (or of one, with `via`). */
  async waitFor(what: string, ready: (m: MetadataResponseData) => boolean, timeoutMs: number, via?: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    for (;;) {
      const ids = via === undefined ? this.brokers.map((b) => b.id) : [via];
      const answers = await Promise.all(
        ids.map((id) =>
          this.metadata(id).then(
            (m) => ({ id, m }),
            (err: unknown) => ({ id, err }),
          ),
        ),
      );
      const unready = answers.filter((a) => !('m' in a) || !ready(a.m));
      if (unready.length === 0) return;
      last = unready.map((a) => `broker ${a.id}: ${'m' in a ? describe(a.m) : String(a.err)}`).join('; ');
      if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; ${last}`);
      await sleep(200);
    }
  }

  async stop(): Promise<void> {
    for (const b of this.brokers) if (b.paused) this.resume(b.id);
    for (const b of this.brokers) b.proxy.setMode('forward');
    await Promise.all(this.brokers.map(async (b) => b.process?.stop()));
    await Promise.all(this.brokers.map((b) => b.proxy.close()));
    await this.zookeeper.stop();
    if (this.options.diskBroker !== undefined && this.diskSkip === undefined) {
      unmountTmpfs(this.logDir(this.options.diskBroker));
    }
  }
}

/** The part of a metadata answer that says why a cluster is not whole yet. */
function describe(m: MetadataResponseData): string {
  const partial = m.topics.flatMap((t) =>
    t.partitions
      .filter((p) => p.isrNodes.length < p.replicaNodes.length || p.leaderId < 0)
      .map((p) => `${t.name}-${p.partitionIndex} leader ${p.leaderId} isr [${p.isrNodes.join(',')}]`),
  );
  return `brokers [${m.brokers.map((b) => b.nodeId).join(',')}], controller ${m.controllerId}${partial.length > 0 ? `, ${partial.join(', ')}` : ''}`;
}

/** Every broker registered, a controller, and every partition led with its full replica set in sync. */
export function whole(size: number): (m: MetadataResponseData) => boolean {
  return (m) =>
    m.brokers.length === size &&
    m.controllerId > 0 &&
    m.topics.every((t) => t.errorCode === 0 && t.partitions.every((p) => p.leaderId >= 0 && p.isrNodes.length === p.replicaNodes.length));
}
