/**
 * One broker of `sluice cluster up` as a child process of the supervisor: `sluice start` with
 * the broker node flags and its settings as overrides, its output streamed to the supervisor's
 * stderr with a `[broker-N]` prefix. `ready` resolves with its address once it accepts
 * connections, which a broker says only after registering in ZooKeeper.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { LineSplitter } from '@sluice/cli/commands/line-splitter.js';
import { BROKER_NODE_FLAGS } from '../broker-node-flags.js';
import { ClusterCommandError } from './cluster-args.js';

const READY = /sluice: accepting connections on (\S+)/;
/**
 * How long a broker may take to accept connections: log recovery, and a restart right after a
 * kill waits out its previous ZooKeeper session (up to the session timeout, 18 s by default).
 */
export const START_TIMEOUT_MS = 60_000;

export interface BrokerSpec {
  readonly id: number;
  readonly port: number;
  readonly logDir: string;
}

/** Copies a child's output to stderr, each line prefixed with `[name] `. */
function streamWithPrefix(child: ChildProcess, name: string, onLine?: (line: string) => void): void {
  for (const stream of [child.stdout, child.stderr]) {
    const lines = new LineSplitter();
    stream?.on('data', (chunk: Buffer) => {
      for (const bytes of lines.push(chunk)) {
        const line = bytes.toString('utf8');
        process.stderr.write(`[${name}] ${line}\n`);
        onLine?.(line);
      }
    });
  }
}

export class BrokerProcess {
  readonly pid: number;
  /** The address it accepts connections on; rejects if it exits or times out first. */
  readonly ready: Promise<string>;
  /** How it ended, as the messages say it: `signal SIGKILL` or `code 1`. */
  readonly exited: Promise<string>;

  private constructor(
    readonly spec: BrokerSpec,
    private readonly child: ChildProcess,
  ) {
    this.pid = child.pid ?? -1;
    this.exited = new Promise((resolveExit) =>
      child.once('exit', (code, signal) => resolveExit(signal === null ? `code ${code ?? -1}` : `signal ${signal}`)),
    );
    this.ready = new Promise((resolveReady, reject) => {
      const name = `broker ${spec.id}`;
      const timer = setTimeout(
        () => reject(new ClusterCommandError(`${name} did not accept connections within ${START_TIMEOUT_MS} ms`)),
        START_TIMEOUT_MS,
      );
      streamWithPrefix(child, `broker-${spec.id}`, (line) => {
        const m = READY.exec(line);
        if (m === null) return;
        clearTimeout(timer);
        resolveReady(m[1]!);
      });
      void this.exited.then((ending) => {
        clearTimeout(timer);
        reject(new ClusterCommandError(`${name} exited (${ending})`));
      });
    });
    // Whoever waits on `ready` sees its failure; a broker nobody waits on is reported by its exit.
    this.ready.catch(() => undefined);
  }

  static spawn(spec: BrokerSpec, settings: readonly string[]): BrokerProcess {
    const cli = fileURLToPath(new URL('../sluice.js', import.meta.url));
    const child = spawn(process.execPath, [...BROKER_NODE_FLAGS, cli, 'start', ...settings.flatMap((s) => ['--override', s])], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new BrokerProcess(spec, child);
  }

  signal(signal: 'SIGTERM' | 'SIGKILL'): void {
    this.child.kill(signal);
  }
}
