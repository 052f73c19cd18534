/**
 * The brokers under test: Sluice as the `sluice start` process a user runs, Apache Kafka as a
 * KRaft single node from tools/kafka, or an already running broker given by --bootstrap. Both
 * spawned brokers get the same storage settings: 1 GiB segments, no explicit flush (the page
 * cache decides), deleted files removed after 1 s, replication factor 1.
 */
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { freePort } from '../../src/common/free-port.js';
import { startKafka } from '../../tools/kafka/kafka-process.js';
import { spawnSluice } from '../../tools/sluice/sluice-process.js';

export type BrokerName = 'sluice' | 'kafka' | 'target';

export interface BrokerUnderTest {
  readonly name: BrokerName;
  readonly bootstrap: string;
  /** The broker's process id for CPU and RSS; null for a --bootstrap target without --pid. */
  readonly pid: number | null;
  /** From spawn to accepting connections. */
  readonly startSeconds: number | null;
  /** The broker's log.dirs (partition directories directly inside); null for a --bootstrap target. */
  readonly logDir: string | null;
  stop(): Promise<void>;
}

export const SEGMENT_BYTES = 1024 * 1024 * 1024;
/**
 * Deleted topics' files go after a second, not the default minute, so a long run does not fill
 * the disk. Kafka removes deleted partition directories after its broker-level
 * log.segment.delete.delay.ms, whatever the topic says.
 */
export const DELETE_DELAY_MS = 1000;

export { freePort };

export interface SluiceOptions {
  readonly dataDir: string;
  /** Extra node flags, e.g. --cpu-prof for the profiling run. */
  readonly nodeArgs?: readonly string[];
  /** Extra broker settings, key=value. */
  readonly overrides?: readonly string[];
  /** A command that execs the broker, e.g. taskset (bench/e2e/pin.ts). */
  readonly launcher?: readonly string[];
}

export async function startSluice(opts: SluiceOptions): Promise<BrokerUnderTest> {
  mkdirSync(opts.dataDir, { recursive: true });
  const started = process.hrtime.bigint();
  const { child, bootstrap } = await spawnSluice({
    nodeArgs: opts.nodeArgs ?? [],
    overrides: [
      'listeners=PLAINTEXT://127.0.0.1:0',
      `log.dirs=${opts.dataDir}`,
      `log.segment.bytes=${SEGMENT_BYTES}`,
      `log.segment.delete.delay.ms=${DELETE_DELAY_MS}`,
      ...(opts.overrides ?? []),
    ],
    startTimeoutMs: 60_000,
    launcher: opts.launcher ?? [],
  });
  const startSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const exitKill = (): void => void child.kill('SIGKILL');
  process.once('exit', exitKill);
  return {
    name: 'sluice',
    bootstrap,
    pid: child.pid!,
    startSeconds,
    logDir: opts.dataDir,
    async stop() {
      process.removeListener('exit', exitKill);
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** `launcher`: a command that execs the JVM, e.g. taskset (bench/e2e/pin.ts). */
export async function startKafkaBroker(dataDir: string, launcher: readonly string[] = []): Promise<BrokerUnderTest> {
  const [port, controllerPort] = [await freePort(), await freePort()];
  const started = process.hrtime.bigint();
  const kafka = await startKafka({
    port,
    controllerPort,
    logDir: dataDir,
    // Kafka's own start script default; the heap is most of Kafka's RSS, so say which one.
    heap: '1g',
    launcher,
    config: {
      'log.segment.bytes': String(SEGMENT_BYTES),
      'log.segment.delete.delay.ms': String(DELETE_DELAY_MS),
    },
  });
  return {
    name: 'kafka',
    bootstrap: kafka.bootstrap,
    pid: kafka.pid,
    startSeconds: Number(process.hrtime.bigint() - started) / 1e9,
    logDir: kafka.dataDir,
    stop: () => kafka.stop(),
  };
}

export function externalBroker(bootstrap: string, pid: number | null): BrokerUnderTest {
  return { name: 'target', bootstrap, pid, startSeconds: null, logDir: null, stop: async () => undefined };
}
