/**
 * The arguments of `sluice cluster <subcommand>` and the errors the commands end with (a usage
 * error exits 2, any other 1).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const CLUSTER_USAGE = [
  'sluice cluster up --brokers N [--dir DIR] [--override key=value]...',
  'sluice cluster status --dir DIR',
  'sluice cluster stop-broker ID [--kill] --dir DIR',
  'sluice cluster start-broker ID --dir DIR',
  'sluice cluster add-broker --dir DIR',
  'sluice cluster down --dir DIR',
];

export class UsageError extends Error {
  constructor(message: string) {
    super(`${message}\nusage: ${CLUSTER_USAGE.join('\n       ')}`);
    this.name = 'UsageError';
  }
}

/** A request the cluster could not carry out: no cluster in the dir, no such broker, a broker that did not start. */
export class ClusterCommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClusterCommandError';
  }
}

export type ClusterArgs =
  | { readonly command: 'up'; readonly brokers: number; readonly dir: string; readonly overrides: readonly string[] }
  | { readonly command: 'status' | 'add-broker' | 'down'; readonly dir: string }
  | { readonly command: 'start-broker'; readonly dir: string; readonly id: number }
  | { readonly command: 'stop-broker'; readonly dir: string; readonly id: number; readonly kill: boolean };

interface Scanned {
  readonly positionals: string[];
  readonly values: Map<string, string[]>;
  readonly flags: Set<string>;
}

function scan(args: readonly string[], valued: readonly string[], flags: readonly string[]): Scanned {
  const out: Scanned = { positionals: [], values: new Map(), flags: new Set() };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (flags.includes(arg)) out.flags.add(arg);
    else if (valued.includes(arg)) {
      const value = args[++i];
      if (value === undefined) throw new UsageError(`${arg} needs a value`);
      out.values.set(arg, [...(out.values.get(arg) ?? []), value]);
    } else if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg}`);
    else out.positionals.push(arg);
  }
  return out;
}

function positiveInteger(value: string, what: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${what} must be a positive integer, not ${value}`);
  return n;
}

function requiredDir(s: Scanned, command: string): string {
  const dir = s.values.get('--dir')?.at(-1);
  if (dir === undefined) throw new UsageError(`sluice cluster ${command} needs the --dir of a running cluster`);
  return resolve(dir);
}

function exactly(s: Scanned, count: number, command: string): void {
  if (s.positionals.length !== count) throw new UsageError(`unexpected arguments to sluice cluster ${command}: ${s.positionals.join(' ')}`);
}

export function parseClusterArgs(args: readonly string[]): ClusterArgs {
  const [command, ...rest] = args;
  switch (command) {
    case 'up': {
      const s = scan(rest, ['--brokers', '--dir', '--override'], []);
      exactly(s, 0, command);
      const overrides = s.values.get('--override') ?? [];
      for (const o of overrides) if (o.indexOf('=') <= 0) throw new UsageError(`--override takes key=value, not ${o}`);
      const brokers = s.values.get('--brokers')?.at(-1);
      const dir = s.values.get('--dir')?.at(-1);
      return {
        command,
        brokers: brokers === undefined ? 3 : positiveInteger(brokers, '--brokers'),
        dir: dir === undefined ? mkdtempSync(join(tmpdir(), 'sluice-cluster-')) : resolve(dir),
        overrides,
      };
    }
    case 'status':
    case 'add-broker':
    case 'down': {
      const s = scan(rest, ['--dir'], []);
      exactly(s, 0, command);
      return { command, dir: requiredDir(s, command) };
    }
    case 'start-broker':
    case 'stop-broker': {
      const s = scan(rest, ['--dir'], command === 'stop-broker' ? ['--kill'] : []);
      exactly(s, 1, command);
      const id = positiveInteger(s.positionals[0]!, 'the broker id');
      const dir = requiredDir(s, command);
      return command === 'stop-broker' ? { command, dir, id, kill: s.flags.has('--kill') } : { command, dir, id };
    }
    default:
      throw new UsageError(command === undefined ? 'sluice cluster needs a subcommand' : `unknown subcommand ${command}`);
  }
}
