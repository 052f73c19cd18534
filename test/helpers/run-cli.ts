/** Runs `node dist/src/cli/sluice.js ...` as a real process, with stdin, and collects what it wrote. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../../tools/kafka/kafka-release.js';

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

/** The command's stdout, after checking it exited 0. */
export function ok(r: CliResult, what: string): string {
  assert.equal(r.code, 0, `${what} exited ${r.code}: ${r.stderr}`);
  return r.stdout.toString();
}

/** Checks the command failed with `code`, naming the Kafka error on stderr. */
export function failsWith(r: CliResult, errorName: string, code = 1): void {
  assert.equal(r.code, code, `expected exit ${code}, got ${r.code}: ${r.stderr}`);
  assert.match(r.stderr, new RegExp(errorName));
}
