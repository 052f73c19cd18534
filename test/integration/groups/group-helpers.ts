/**
 * Shared pieces of the consumer group interop tests: polling for a condition, checking that a
 * set of members' assignments split a topic's partitions, and long-running client processes
 * (group members that must run side by side, be killed, or be watched while they rebalance)
 * whose output is read line by line as it arrives.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../../../tools/codegen/main.js';
import { INTEROP_DIR, type JsonLine } from '../../helpers/interop.js';
import { kafkaClasspath } from '../../../tools/kafka/kafka-release.js';

export { waitFor } from '../../helpers/wait-for.js';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * True when every member owns at least one partition, no partition is owned twice and together
 * they own exactly partitions 0..n-1: the state of a group that finished rebalancing.
 */
export function splitsPartitions(assignments: ReadonlyArray<readonly number[]>, partitions: number): boolean {
  const all = assignments.flat().sort((a, b) => a - b);
  return assignments.every((a) => a.length > 0) && all.length === partitions && all.every((p, i) => p === i);
}

/**
 * A client process whose stdout lines are kept as they arrive, so a test can wait for a line
 * while the process keeps running. Lines that are not JSON (a client's chatter) are kept as text.
 */
export class LineProcess {
  readonly lines: string[] = [];
  private partial = '';
  private stderrText = '';
  /** Why the process could not be started (a missing binary: `spawn kcat ENOENT`), once known. */
  private spawnError: Error | undefined;
  /**
   * Settles when the process is gone: on `close`, or on `error` for a process that never started
   * (which emits no `close`, so waiting for that alone would hang).
   */
  readonly exited: Promise<number | null>;

  constructor(
    readonly name: string,
    private readonly child: ChildProcess,
  ) {
    child.stdout!.on('data', (d: Buffer) => {
      const parts = (this.partial + d.toString('utf8')).split('\n');
      this.partial = parts.pop()!;
      this.lines.push(...parts.filter((l) => l.trim() !== ''));
    });
    child.stderr!.on('data', (d: Buffer) => (this.stderrText += d.toString('utf8')));
    child.stdin?.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      child.once('close', (code) => resolve(code));
      child.once('error', (err) => {
        this.spawnError ??= err;
        if (child.pid === undefined) resolve(null);
      });
    });
  }

  static start(name: string, command: string, args: readonly string[]): LineProcess {
    return new LineProcess(name, spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] }));
  }

  get stderr(): string {
    return this.spawnError === undefined ? this.stderrText : `${this.stderrText}${this.name}: ${this.spawnError.message}\n`;
  }

  /** Throws when the process could not be started, so a wait on its output fails at once, naming the binary. */
  assertStarted(): void {
    if (this.spawnError !== undefined && this.child.pid === undefined)
      throw new Error(`${this.name} did not start: ${this.spawnError.message}`);
  }

  /** stdout lines that parse as JSON objects. */
  json(): JsonLine[] {
    return this.lines.flatMap((l) => {
      if (!l.startsWith('{')) return [];
      return [JSON.parse(l) as JsonLine];
    });
  }

  /** Writes one line to the process's stdin (the Java members take commands this way). */
  send(line: string): void {
    this.child.stdin!.write(line + '\n');
  }

  /** Waits for the process to exit by itself and fails with its stderr if it did not exit 0. */
  async succeeded(timeoutMs: number): Promise<void> {
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    const code = await this.exited;
    clearTimeout(timer);
    this.assertStarted();
    if (code !== 0) throw new Error(`${this.name} exited with ${code}:\n${this.stderrText.slice(-4000)}`);
  }

  /** Sends `signal` if the process is still running and waits until it is gone. */
  async kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    await this.exited;
  }
}

/**
 * Launches a single-file Java program of the tests (source launch, the pinned Kafka release's
 * jars) with `args`; the program prints one JSON object per line. Same JVM flags and log4j setup
 * as the interop tests' `runJava`, which runs a different program to completion.
 */
/** A single-file Java program against the Kafka jars; `systemProperties` become `-Dkey=value`. */
export function startJavaProgram(
  program: string,
  name: string,
  args: readonly string[],
  systemProperties: Readonly<Record<string, string>> = {},
): LineProcess {
  return LineProcess.start(name, 'java', [
    '-Xmx192m',
    ...Object.entries(systemProperties).map(([k, v]) => `-D${k}=${v}`),
    '-XX:TieredStopAtLevel=1', // short-lived programs: quick start beats peak speed
    `-Dlog4j2.configurationFile=${join(INTEROP_DIR, 'log4j2-stderr.properties')}`,
    '-cp',
    kafkaClasspath(),
    join(REPO_ROOT, program),
    ...args,
  ]);
}

/** `GroupClients.java` with `args`. */
export function startJava(name: string, args: readonly string[]): LineProcess {
  return startJavaProgram('test/integration/groups/GroupClients.java', name, args);
}

/** One record as a group member read it. */
export interface Consumed {
  member: string;
  partition: number;
  offset: number;
  value: string;
}
