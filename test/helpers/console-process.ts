/**
 * `sluice console` as a real process on a free port: its URL is the one it prints once it
 * listens. Stopped by its PID with SIGTERM, as a user's Ctrl-C would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { repoRoot } from '../../tools/kafka/kafka-release.js';
import { waitFor } from './wait-for.js';

export interface ConsoleProcess {
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

export async function startConsoleProcess(bootstrap: string): Promise<ConsoleProcess> {
  const child = spawn(
    process.execPath,
    [join(repoRoot(), 'dist', 'src', 'cli', 'sluice.js'), 'console', '--bootstrap-server', bootstrap, '--listen', '127.0.0.1:0'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  };
  try {
    const url = await waitFor('the console to print its URL', 30_000, () => {
      if (child.exitCode !== null) throw new Error(`sluice console exited ${child.exitCode}: ${stderr}`);
      return / at (http:\/\/\S+)$/m.exec(stderr)?.[1];
    });
    return { url, child, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
