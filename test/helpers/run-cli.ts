/** Runs `node dist/src/cli/sluice.js ...` as a real process, with stdin, and collects what it wrote. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../../tools/kafka/kafka-process.js';

export interface CliResult {
  readonly code: number | null;
  readonly stdout: Buffer;
  readonly stderr: string;
}

const SLUICE = join(repoRoot(), 'dist', 'src', 'cli', 'sluice.js');

export function runCli(args: readonly string[], stdin: Buffer | string = '', timeoutMs = 60_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SLUICE, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`sluice ${args.join(' ')} did not finish in ${timeoutMs} ms; stderr: ${err}`));
    }, timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out), stderr: err });
    });
    child.stdin.end(stdin);
  });
}
