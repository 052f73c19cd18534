/**
 * N brokers in this process (`Broker.start`), each with its own node id (1..N), temporary log dir
 * and free port, for tests that need several brokers without spawning processes. `stop()` stops
 * them all and removes their data.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Broker } from '../../src/broker/broker.js';

export interface InProcessBrokers {
  readonly brokers: readonly Broker[];
  stop(): Promise<void>;
}

/** Starts `count` brokers one after another; `config` applies to each (node id and log dir are set here). */
export async function startInProcessBrokers(count: number, config: Readonly<Record<string, string>> = {}): Promise<InProcessBrokers> {
  const brokers: Broker[] = [];
  const dirs: string[] = [];
  const stop = async (): Promise<void> => {
    for (const broker of brokers.splice(0)) await broker.stop();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let nodeId = 1; nodeId <= count; nodeId++) {
      const dir = mkdtempSync(join(tmpdir(), `sluice-in-process-${nodeId}-`));
      dirs.push(dir);
      brokers.push(await Broker.start({ port: 0, config: { ...config, 'log.dirs': dir, 'node.id': String(nodeId) } }));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { brokers, stop };
}
