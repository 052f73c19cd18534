// Runs Apache Kafka (KRaft, one combined broker/controller node) as the reference broker for
// differential tests, storage compatibility checks, benchmarks and golden-frame capture.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, openSync, closeSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { ensureKafkaLibs, KAFKA_VERSION, kafkaClasspath, repoRoot } from './kafka-release.js';

const execFileAsync = promisify(execFile);

export interface KafkaOptions {
  /** Port of the PLAINTEXT listener. */
  port: number;
  /** Port advertised to clients in Metadata; differs from `port` when a proxy sits in front. */
  advertisedPort?: number;
  /** Port of the CONTROLLER listener; any free port. Defaults to `port + 1`. */
  controllerPort?: number;
  /** Directory for the broker's config, data and log; created if missing. */
  logDir: string;
  version?: string;
  /** Extra server.properties entries; they override the defaults. */
  config?: Record<string, string>;
  heap?: string;
  startTimeoutMs?: number;
  /** The cluster id the log dir is formatted with; the nodes of one KRaft cluster share it. Default: a new one. */
  clusterId?: string;
  /** A command that execs the broker's JVM, e.g. `taskset -c 0` to pin it (the pid stays the JVM's). */
  launcher?: readonly string[];
}

export interface KafkaHandle {
  bootstrap: string;
  libsDir: string;
  /** The Java classpath of this Kafka version, for running Kafka's tools. */
  classpath: string;
  /** log.dirs: partitions live in <dataDir>/<topic>-<partition>/, for kafka-dump-log. */
  dataDir: string;
  logFile: string;
  pid: number;
  stop(): Promise<void>;
}

export class KafkaStartError extends Error {
  constructor(
    message: string,
    readonly logFile: string,
  ) {
    super(`${message} (see ${logFile})`);
    this.name = 'KafkaStartError';
  }
}

/**
 * A cluster id in Kafka's Uuid text form: 16 random bytes, unpadded base64url. Like Kafka's
 * Uuid.randomUuid, reject ids starting with '-', which command-line parsers take for an option.
 */
export function randomClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

function serverProperties(opts: KafkaOptions, dataDir: string, controllerPort: number): string {
  const advertisedPort = opts.advertisedPort ?? opts.port;
  const props: Record<string, string> = {
    'process.roles': 'broker,controller',
    'node.id': '1',
    'controller.quorum.voters': `1@127.0.0.1:${controllerPort}`,
    listeners: `PLAINTEXT://127.0.0.1:${opts.port},CONTROLLER://127.0.0.1:${controllerPort}`,
    'advertised.listeners': `PLAINTEXT://127.0.0.1:${advertisedPort}`,
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'log.dirs': dataDir,
    'num.partitions': '1',
    'offsets.topic.replication.factor': '1',
    'offsets.topic.num.partitions': '1',
    'transaction.state.log.replication.factor': '1',
    'transaction.state.log.min.isr': '1',
    'share.coordinator.state.topic.replication.factor': '1',
    'share.coordinator.state.topic.min.isr': '1',
    'group.initial.rebalance.delay.ms': '0',
    'auto.create.topics.enable': 'true',
    ...opts.config,
  };
  return (
    Object.entries(props)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n') + '\n'
  );
}

/** Resolves once the listener answers an ApiVersions v0 request without error. */
function probeApiVersions(port: number): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const socket = connect({ host: '127.0.0.1', port });
    const clientId = Buffer.from('sluice-probe');
    const body = Buffer.alloc(2 + 2 + 4 + 2 + clientId.length);
    body.writeInt16BE(18, 0); // ApiVersions
    body.writeInt16BE(0, 2);
    body.writeInt32BE(1, 4);
    body.writeInt16BE(clientId.length, 8);
    clientId.copy(body, 10);
    const frame = Buffer.concat([Buffer.alloc(4), body]);
    frame.writeInt32BE(body.length, 0);
    let received = Buffer.alloc(0);
    const finish = (ok: boolean): void => {
      socket.destroy();
      resolvePromise(ok);
    };
    socket.setTimeout(2000, () => finish(false));
    socket.on('error', () => finish(false));
    socket.on('close', () => finish(false));
    socket.on('connect', () => socket.write(frame));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      // size(4) + correlation id(4) + error code(2)
      if (received.length >= 10) finish(received.readInt32BE(4) === 1 && received.readInt16BE(8) === 0);
    });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolvePromise) => {
    const timer = setTimeout(() => resolvePromise(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolvePromise(true);
    });
  });
}

export async function startKafka(opts: KafkaOptions): Promise<KafkaHandle> {
  const version = opts.version ?? KAFKA_VERSION;
  const libsDir = await ensureKafkaLibs(version);
  const classpath = kafkaClasspath(libsDir);
  const logDir = resolve(opts.logDir);
  const dataDir = join(logDir, 'data');
  mkdirSync(dataDir, { recursive: true });
  const controllerPort = opts.controllerPort ?? opts.port + 1;
  const propsFile = join(logDir, 'server.properties');
  writeFileSync(propsFile, serverProperties(opts, dataDir, controllerPort));
  const logFile = join(logDir, 'kafka.log');
  const java = process.env['JAVA'] ?? 'java';
  const log4j = `-Dlog4j2.configurationFile=${join(repoRoot(), 'tools', 'kafka', 'log4j2.properties')}`;

  if (!existsSync(join(dataDir, 'meta.properties'))) {
    await execFileAsync(java, [
      '-Xmx256m',
      log4j,
      '-cp',
      classpath,
      'kafka.tools.StorageTool',
      'format',
      '--config',
      propsFile,
      '--cluster-id',
      opts.clusterId ?? randomClusterId(),
    ]);
  }

  const logFd = openSync(logFile, 'a');
  const [command, ...launcherArgs] = [...(opts.launcher ?? []), java];
  const child = spawn(
    command,
    [
      ...launcherArgs,
      `-Xmx${opts.heap ?? '512m'}`,
      `-Xms${opts.heap ?? '512m'}`,
      '-XX:+UseG1GC',
      '-Djava.awt.headless=true',
      log4j,
      '-cp',
      classpath,
      'kafka.Kafka',
      propsFile,
    ],
    { stdio: ['ignore', logFd, logFd] },
  );
  closeSync(logFd);
  if (child.pid === undefined) throw new KafkaStartError('java did not start', logFile);
  const pid = child.pid;
  // A test runner that dies without calling stop() must not leave a broker behind.
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  child.once('exit', () => process.removeListener('exit', killOnExit));

  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    if (!(await waitForExit(child, 30_000))) {
      child.kill('SIGKILL');
      await waitForExit(child, 5_000);
    }
  };

  const deadline = Date.now() + (opts.startTimeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null) throw new KafkaStartError(`Kafka exited with code ${child.exitCode}`, logFile);
    if (await probeApiVersions(opts.port)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new KafkaStartError(`Kafka did not answer on 127.0.0.1:${opts.port} in time`, logFile);
    }
    await sleep(250);
  }
  return { bootstrap: `127.0.0.1:${opts.advertisedPort ?? opts.port}`, libsDir, classpath, dataDir, logFile, pid, stop };
}
