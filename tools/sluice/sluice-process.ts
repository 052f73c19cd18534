/**
 * Starts `sluice start` as a child process, the way `npm start` runs it (with the broker node
 * flags), and waits for its "accepting connections on HOST:PORT" line. Shared by the test
 * helpers and the benchmarks, which add their own settings and life cycle around it.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { BROKER_NODE_FLAGS } from '../../src/cli/broker-node-flags.js';
import { repoRoot } from '../kafka/kafka-release.js';

export interface SluiceChildOptions {
  /** Broker settings as `--override key=value` pairs. */
  readonly overrides: readonly string[];
  /** Node flags besides the broker's own, e.g. --cpu-prof. */
  readonly nodeArgs?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly startTimeoutMs: number;
  /** A command that execs node, e.g. `taskset -c 0` to pin the broker (the pid stays node's). */
  readonly launcher?: readonly string[];
}

export interface SluiceChild {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  readonly bootstrap: string;
  /** Each listener's bound host:port by name (upper-case), as `sluice start` prints them. */
  readonly listeners: ReadonlyMap<string, string>;
  /** Everything the broker wrote to stderr so far. */
  stderr(): string;
}

export async function spawnSluice(options: SluiceChildOptions): Promise<SluiceChild> {
  const args = [
    ...BROKER_NODE_FLAGS,
    ...(options.nodeArgs ?? []),
    join(repoRoot(), 'dist', 'src', 'cli', 'sluice.js'),
    'start',
    ...options.overrides.flatMap((kv) => ['--override', kv]),
  ];
  const [command, ...launcherArgs] = [...(options.launcher ?? []), process.execPath];
  const child = spawn(command, [...launcherArgs, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: options.env ?? process.env });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  let out = '';
  const bootstrap = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`sluice did not start in ${options.startTimeoutMs} ms: ${err}`)),
      options.startTimeoutMs,
    );
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /accepting connections on (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sluice exited with ${code}: ${err}`));
    });
  });
  const listeners = new Map([...out.matchAll(/listener (\S+) on (\S+)/g)].map((m) => [m[1]!, m[2]!]));
  return { child, bootstrap, listeners, stderr: () => err };
}
