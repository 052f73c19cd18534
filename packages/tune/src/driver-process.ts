/**
 * A running client driver: started with the cell's setup, asked for one run at a time, ended by
 * closing its stdin. Its stderr (the client's own logging) is kept, the last few kilobytes, to
 * explain a driver that fails.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { DriverCommand } from './client-drivers.js';
import {
  parseDriverLine,
  runLine,
  setupLines,
  type DriverMessage,
  type DriverResult,
  type DriverRun,
  type DriverSetup,
} from './driver-protocol.js';

export interface DriverRunOutcome {
  readonly result: DriverResult;
  /** librdkafka's statistics JSON emitted during the run, in order. */
  readonly stats: readonly unknown[];
}

export class DriverFailedError extends Error {
  override name = 'DriverFailedError';
}

const STDERR_KEPT = 4096;
/** Beyond its sending time, what a run may take: start-up (a JVM compiling the driver), flush, the end-to-end drain. */
const RUN_GRACE_MS = 180_000;
const EXIT_GRACE_MS = 30_000;

export class DriverProcess {
  private readonly messages: DriverMessage[] = [];
  private wake: (() => void) | null = null;
  private ended = false;
  private stderrTail = '';
  private failure: Error | null = null;

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly name: string,
  ) {
    child.stderr.on('data', (d: Buffer) => (this.stderrTail = (this.stderrTail + d.toString()).slice(-STDERR_KEPT)));
    child.stdin.on('error', () => undefined);
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      if (line.trim() === '') return;
      try {
        this.messages.push(parseDriverLine(line));
      } catch (err) {
        this.failure ??= err instanceof Error ? err : new Error(String(err));
      }
      this.notify();
    });
    child.once('close', () => {
      this.ended = true;
      this.notify();
    });
    child.once('error', (err) => {
      this.failure ??= err;
      this.ended = true;
      this.notify();
    });
  }

  /** Starts the driver, waits for its hello, and hands it the setup; `client` is what it says it is. */
  static async start(command: DriverCommand, setup: DriverSetup): Promise<{ readonly driver: DriverProcess; readonly client: string }> {
    const child = spawn(command.command, [...command.args], { stdio: ['pipe', 'pipe', 'pipe'] });
    const driver = new DriverProcess(child, command.client);
    const hello = await driver.next(RUN_GRACE_MS);
    if (hello.type !== 'hello') throw driver.failed(`said ${hello.type} before hello`);
    child.stdin.write(setupLines(setup));
    return { driver, client: hello.client };
  }

  async run(run: DriverRun): Promise<DriverRunOutcome> {
    this.child.stdin.write(runLine(run));
    const stats: unknown[] = [];
    const deadline = Date.now() + run.seconds * 1000 + RUN_GRACE_MS;
    for (;;) {
      const message = await this.next(deadline - Date.now());
      if (message.type === 'stats' && message.id === run.id) stats.push(message.json);
      else if (message.type === 'result' && message.id === run.id) return { result: message, stats };
      else if (message.type === 'error') throw this.failed(message.message);
      else throw this.failed(`answered run ${run.id} with ${JSON.stringify(message).slice(0, 200)}`);
    }
  }

  /** Ends the driver: stdin closed, then killed if it has not exited after a grace period. */
  async close(): Promise<void> {
    this.child.stdin.end();
    if (this.ended) return;
    const timer = setTimeout(() => this.child.kill('SIGKILL'), EXIT_GRACE_MS);
    await new Promise<void>((resolve) => (this.ended ? resolve() : this.child.once('close', () => resolve())));
    clearTimeout(timer);
  }

  private async next(timeoutMs: number): Promise<DriverMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const message = this.messages.shift();
      if (message !== undefined) return message;
      if (this.failure !== null) throw this.failed(this.failure.message);
      if (this.ended) throw this.failed(`exited (code ${this.child.exitCode ?? this.child.signalCode})`);
      const left = deadline - Date.now();
      if (left <= 0) {
        this.child.kill('SIGKILL');
        throw this.failed(`did not answer within ${Math.round(timeoutMs / 1000)} s`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private failed(what: string): DriverFailedError {
    const tail = this.stderrTail.trim();
    return new DriverFailedError(`the ${this.name} driver ${what}${tail === '' ? '' : `; its stderr ends:\n${tail}`}`);
  }
}
