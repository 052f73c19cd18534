#!/usr/bin/env -S node --single-threaded-gc --max-semi-space-size=8
/**
 * `sluice start [server.properties] [--override key=value]...`: runs one broker in the
 * foreground until SIGINT/SIGTERM. `sluice cluster up|status|stop-broker|start-broker|add-broker|down`
 * runs and manages a ZooKeeper and N brokers (`cluster/cluster-command.ts`). `sluice topics|configs|produce|consume|groups ...` are client
 * tools for any Kafka-compatible broker (`@sluice/cli`); `sluice tune` profiles producer
 * batching against one. Each command loads its own modules when it runs: a client tool starts
 * without loading the broker, and the broker without the tools.
 */
import { readFileSync } from 'node:fs';
import { CLIENT_COMMANDS } from '@sluice/cli/commands/index.js';
import { ACCELERATORS_MODULE_ENV } from '@sluice/protocol/accelerators.js';
import { CLUSTER_USAGE } from './cluster/cluster-args.js';

const COMMANDS = CLIENT_COMMANDS;

const USAGE = [
  'usage: sluice start [server.properties] [--override key=value]...',
  ...CLUSTER_USAGE.map((line) => `       ${line}`),
  `       sluice ${[...COMMANDS.keys()].join('|')} --bootstrap-server HOST:PORT ... (--help for each)`,
  '       sluice --version | --help',
].join('\n');

function usage(): never {
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}

/** The installed package's version: dist/src/cli/ is three folders below its package.json. */
function version(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

async function start(args: string[]): Promise<void> {
  const { loadPropertiesFile } = await import('@sluice/protocol/common/properties-file.js');
  const { Broker } = await import('../broker/broker.js');
  const { native } = await import('../native/binding.js');
  const { keepFreedHeap } = await import('../native/allocator.js');
  const settings = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--override') {
      const kv = args[++i];
      const eq = kv?.indexOf('=') ?? -1;
      if (kv === undefined || eq <= 0) usage();
      settings.set(kv.slice(0, eq), kv.slice(eq + 1));
    } else if (!arg.startsWith('-')) {
      for (const [k, v] of loadPropertiesFile(arg)) if (!settings.has(k)) settings.set(k, v);
    } else {
      usage();
    }
  }
  const broker = await Broker.start({
    config: Object.fromEntries(settings),
    // Kafka halts here: nothing more is written to dirs that failed.
    onFatal: (reason) => {
      process.stderr.write(`sluice: ${reason}; exiting\n`);
      process.exit(1);
    },
  });
  for (const l of broker.boundListeners) process.stdout.write(`sluice: listener ${l.name} on ${l.address}\n`);
  process.stdout.write(`sluice: accepting connections on ${broker.bootstrap}\n`);
  // The addon loads on first use to keep it out of the start-up time; a stale or broken build
  // must still stop the broker now rather than fail its first Fetch.
  native();
  keepFreedHeap();
  const shutdown = (): void => {
    broker.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`sluice: shutdown failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

const [command, ...rest] = process.argv.slice(2);
const clientCommand = command === undefined ? undefined : COMMANDS.get(command);
if (command === '--version') process.stdout.write(`sluice ${version()}\n`);
else if (command === '--help' || command === '-h') process.stdout.write(`${USAGE}\n`);
else if (clientCommand !== undefined) {
  // The client library loads with the tool, not with every `sluice start`. The addon's codecs and
  // CRC32C serve the tool, and the Node processes it starts, through the protocol's accelerators.
  const accelerators = new URL('../native/index.js', import.meta.url).href;
  process.env[ACCELERATORS_MODULE_ENV] = accelerators;
  void Promise.all([clientCommand(), import('@sluice/cli/commands/command-support.js'), import(accelerators)]).then(
    ([loaded, { runCommand }]) => runCommand(command!, loaded, rest),
  );
} else if (command === 'cluster') {
  // clusterCommand's errors are caught below; a failed import crashes with its stack, as it should.
  void import('./cluster/cluster-command.js').then(({ clusterCommand, UsageError }) =>
    clusterCommand(rest).catch((err: unknown) => {
      process.stderr.write(`sluice cluster: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(err instanceof UsageError ? 2 : 1);
    }),
  );
} else if (command !== 'start') usage();
else {
  start(rest).catch(async (err: unknown) => {
    const { ConfigError } = await import('../broker/config.js');
    process.stderr.write(`sluice: ${err instanceof ConfigError ? err.message : err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
