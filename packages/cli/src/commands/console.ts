/**
 * `sluice console`: serves the web console (@sluice/console) for one cluster on a local port
 * until SIGINT or SIGTERM. It binds to 127.0.0.1 unless `--listen` names another address, because
 * whoever reaches the port sees every topic's records.
 */
import { KafkaClusterReader } from '@sluice/console/cluster-reader.js';
import { loadAssets } from '@sluice/console/assets.js';
import { startConsoleServer } from '@sluice/console/console-server.js';
import { COMMAND_CONFIG_OPTION, parseOptions, UsageError, withCluster, type Command } from './command-support.js';

const USAGE = `usage: sluice console --bootstrap-server HOST:PORT [--command-config FILE] [--listen HOST:PORT]
  Serves a read-only web console of the cluster at http://HOST:PORT/ (default 127.0.0.1:9021).
`;

const OPTIONS = {
  'bootstrap-server': { type: 'string' },
  ...COMMAND_CONFIG_OPTION,
  listen: { type: 'string' },
} as const;

const DEFAULT_LISTEN = '127.0.0.1:9021';

function parseListen(listen: string): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(listen);
  const port = Number(match?.[2]);
  if (match === null || port > 65535) throw new UsageError(`--listen takes HOST:PORT, not '${listen}'`);
  return { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port };
}

/** Resolves with the signal's name at the first SIGINT or SIGTERM, and stops listening for both. */
function untilStopped(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

async function run(args: string[]): Promise<void> {
  const o = parseOptions(args, OPTIONS);
  const { host, port } = parseListen(o.listen ?? DEFAULT_LISTEN);
  const assets = loadAssets();
  await withCluster(o, async (cluster) => {
    const server = await startConsoleServer({ reader: new KafkaClusterReader(cluster), host, port, assets });
    process.stderr.write(`Sluice console for ${o['bootstrap-server']} at ${server.url}\n`);
    const signal = await untilStopped();
    process.stderr.write(`Stopping the console (${signal})\n`);
    await server.close();
  });
}

export const consoleCommand: Command = { usage: USAGE, run };
