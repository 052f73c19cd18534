/**
 * What every client subcommand shares: option parsing that reports mistakes as usage errors,
 * the connection to `--bootstrap-server`, and one place that turns a failure into Kafka's
 * error name and message on stderr and a non-zero exit code.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { errorName } from '@sluice/protocol/errors.js';
import { clientSecurity, KafkaCluster, parseBootstrapServers } from '@sluice/client/index.js';
import { loadPropertiesFile } from '@sluice/protocol/common/properties-file.js';

/** Bad command line or input: the message and the command's usage, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Input a command cannot use (a stdin line without its key separator): the message, exit code 1. */
export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
  }
}

export interface Command {
  readonly usage: string;
  run(args: string[]): Promise<void>;
}

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * Kafka-tool style long options (`--topic t`, `--topic=t`); no positionals. As in Kafka's tools,
 * the token after an option that takes a value is that value even if it starts with a dash
 * (`--acks -1`, `--key-separator -`), which node's parseArgs alone would refuse.
 */
export function parseOptions<O extends Options>(
  args: string[],
  options: O,
): ReturnType<typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: false }>>['values'] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const takesValue = arg.startsWith('--') && !arg.includes('=') && options[arg.slice(2)]?.type === 'string';
    if (takesValue && i + 1 < args.length) joined.push(`${arg}=${args[++i]!}`);
    else joined.push(arg);
  }
  try {
    return parseArgs({ args: joined, options, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

export function required(value: string | undefined, option: string): string {
  if (value === undefined || value === '') throw new UsageError(`missing required option --${option}`);
  return value;
}

export function integerOption(value: string | undefined, option: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^-?\d+$/.test(value) || n < min || n > max)
    throw new UsageError(`--${option} must be an integer in [${min}, ${max}], not '${value}'`);
  return n;
}

/** Exactly one of the action flags must be set; returns its name. */
export function oneAction<A extends string>(flags: Record<A, boolean | undefined>): A {
  const set = (Object.keys(flags) as A[]).filter((k) => flags[k] === true);
  if (set.length !== 1) throw new UsageError(`give exactly one of ${(Object.keys(flags) as A[]).map((k) => `--${k}`).join(', ')}`);
  return set[0]!;
}

/** `--command-config FILE`, as Kafka's tools take it: client settings (security.protocol, sasl.*, ssl.*). */
export const COMMAND_CONFIG_OPTION = { 'command-config': { type: 'string' } } as const;

export interface ConnectOptions {
  readonly 'bootstrap-server'?: string | undefined;
  /** The `--command-config` file whose security settings the connections use. */
  readonly 'command-config'?: string | undefined;
}

/** Runs `use` with a cluster for `--bootstrap-server` and closes every connection afterwards. */
export async function withCluster<T>(options: ConnectOptions, use: (cluster: KafkaCluster) => Promise<T>): Promise<T> {
  const commandConfig = options['command-config'];
  const security = commandConfig === undefined ? {} : clientSecurity(loadPropertiesFile(commandConfig));
  const cluster = new KafkaCluster({
    bootstrap: parseBootstrapServers(required(options['bootstrap-server'], 'bootstrap-server')),
    clientId: 'sluice-cli',
    ...security,
  });
  try {
    return await use(cluster);
  } finally {
    cluster.close();
  }
}

/** Writes to stdout, waiting when the pipe is full so a slow reader is not buffered in memory. */
export async function writeOut(data: string | Uint8Array): Promise<void> {
  if (!process.stdout.write(data)) await new Promise<void>((resolve) => process.stdout.once('drain', resolve));
}

/**
 * Runs a subcommand and sets the exit code: 0, 1 for a Kafka or other failure, 2 for a usage error.
 * @public loaded by cli/sluice.ts through a dynamic import that knip does not follow
 */
export async function runCommand(name: string, command: Command, args: string[]): Promise<void> {
  if (args.includes('--help')) {
    process.stdout.write(command.usage);
    return;
  }
  try {
    await command.run(args);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`sluice ${name}: ${err.message}\n${command.usage}`);
      process.exitCode = 2;
    } else if (err instanceof InputError) {
      process.stderr.write(`sluice ${name}: ${err.message}\n`);
      process.exitCode = 1;
    } else if (err instanceof KafkaError) {
      process.stderr.write(`sluice ${name}: ${errorName(err.code)}: ${err.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`sluice ${name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    }
  }
}
