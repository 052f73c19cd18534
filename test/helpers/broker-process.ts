/**
 * Starts the real broker as a child process (`sluice start`) on a free port and stops it,
 * so integration tests talk to exactly what a user runs.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSluice } from '../../tools/sluice/sluice-process.js';
import { waitFor } from './wait-for.js';

export interface BrokerProcess {
  readonly bootstrap: string;
  /** Each listener's bound host:port by (upper-case) name. */
  readonly listeners: ReadonlyMap<string, string>;
  readonly host: string;
  readonly port: number;
  readonly child: ChildProcess;
  /** Everything the broker wrote to stderr so far. */
  stderr(): string;
  stop(): Promise<number | null>;
}

/**
 * Starts `sluice start` on a free port. Without `log.dirs`/`log.dir` in `overrides` the broker
 * gets a fresh temporary log dir, removed when it stops; with one, the caller owns the data.
 */
export async function startBrokerProcess(overrides: Record<string, string> = {}): Promise<BrokerProcess> {
  const ownsData = overrides['log.dirs'] === undefined && overrides['log.dir'] === undefined;
  const settings = ownsData ? { ...overrides, 'log.dirs': mkdtempSync(join(tmpdir(), 'sluice-broker-')) } : overrides;
  const { child, bootstrap, listeners, stderr } = await spawnSluice({
    overrides: ['listeners=PLAINTEXT://127.0.0.1:0', ...Object.entries(settings).map(([k, v]) => `${k}=${v}`)],
    env: { ...process.env, SLUICE_LOG_LEVEL: 'info' },
    // A cluster member's start (ZooKeeper session, registration, loading its logs) can take seconds on a loaded 2-core machine,
    // and 30 s was seen exceeded at a load average of 28: the bound only says how long a broken start takes to be reported.
    startTimeoutMs: 60_000,
  });
  const colon = bootstrap.lastIndexOf(':');
  return {
    bootstrap,
    listeners,
    host: bootstrap.slice(0, colon),
    port: Number(bootstrap.slice(colon + 1)),
    child,
    stderr,
    async stop() {
      const code = await stopChild(child);
      if (ownsData) rmSync(settings['log.dirs']!, { recursive: true, force: true });
      return code;
    },
  };
}

/** A clean stop includes a controlled shutdown, whose controller round trips can take a while under load. */
const STOP_GRACE_MS = 30_000;

/**
 * SIGTERM, then SIGKILL if the broker has not exited within the grace period, so a broker that
 * hangs in shutdown fails its test instead of holding the suite. Resolves with the exit code
 * (null when a signal ended the process, as after a test's own kill -9).
 */
async function stopChild(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = once(child, 'exit') as Promise<[number | null]>;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  const [code] = await exited;
  clearTimeout(timer);
  return code;
}

/** The `/metrics` URL of a broker started with `metrics.listener`: it logs the URL once it listens (port 0 picks one). */
export async function metricsUrl(broker: BrokerProcess): Promise<string> {
  return waitFor(
    "a metrics endpoint in the broker's log",
    5_000,
    () => /metrics endpoint listening \{"url":"([^"]+)"\}/.exec(broker.stderr())?.[1],
    50,
  ).catch((err: unknown) => {
    throw new Error(`${(err as Error).message}: ${broker.stderr()}`);
  });
}
