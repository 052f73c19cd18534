/**
 * `sluice cluster <subcommand>`, like `rpk container`: `up` runs a ZooKeeper and N brokers and
 * stays in the foreground as their supervisor (`supervisor.ts`), printing one line,
 * `bootstrap: host:port,…`, once every broker accepts connections and knows the others; it ends
 * on SIGINT/SIGTERM or `sluice cluster down`, exiting 0 once everything stopped. From another
 * terminal, `status` reads the cluster's directory (`cluster-status.ts`) and `stop-broker`,
 * `start-broker`, `add-broker` and `down` ask the supervisor through its socket there
 * (`control-socket.ts`), each waiting for the outcome.
 */
import type { Server } from 'node:net';
import { ClusterCommandError, parseClusterArgs } from './cluster-args.js';
import { controlSocketPath } from './cluster-state.js';
import { clusterStatus, formatClusterStatus } from './cluster-status.js';
import { requestControl, serveControl, type ControlRequest, type Handled } from './control-socket.js';
import { ClusterSupervisor } from './supervisor.js';

export { ClusterCommandError, UsageError } from './cluster-args.js';

export async function clusterCommand(args: readonly string[]): Promise<void> {
  const parsed = parseClusterArgs(args);
  switch (parsed.command) {
    case 'up':
      return up(parsed);
    case 'status':
      process.stdout.write(formatClusterStatus(await clusterStatus(parsed.dir)));
      return;
    case 'stop-broker':
      return request(parsed.dir, { op: 'stop-broker', id: parsed.id, kill: parsed.kill });
    case 'start-broker':
      return request(parsed.dir, { op: 'start-broker', id: parsed.id });
    case 'add-broker':
      return request(parsed.dir, { op: 'add-broker' });
    case 'down':
      return request(parsed.dir, { op: 'down' });
  }
}

async function request(dir: string, req: ControlRequest): Promise<void> {
  process.stdout.write(`${await requestControl(controlSocketPath(dir), req)}\n`);
}

async function up(options: { dir: string; brokers: number; overrides: readonly string[] }): Promise<void> {
  const socketPath = controlSocketPath(options.dir);
  const supervisor = await ClusterSupervisor.create(options);
  let server: Server | null = null;
  const exit = (code: number): void => {
    server?.close();
    process.exit(code);
  };
  const bringDown = (): Promise<void> =>
    supervisor.down().then(
      () => exit(0),
      (err: unknown) => {
        process.stderr.write(`sluice cluster: stopping the cluster failed: ${err instanceof Error ? err.message : String(err)}\n`);
        exit(1);
      },
    );
  process.once('SIGINT', () => void bringDown());
  process.once('SIGTERM', () => void bringDown());
  let bootstrap: string[];
  try {
    bootstrap = await supervisor.startBrokers(options.brokers);
    server = await serveControl(socketPath, (req) => handle(supervisor, req, exit));
  } catch (err) {
    await supervisor.down();
    throw err;
  }
  process.stderr.write(
    `[cluster] state in ${options.dir}; sluice cluster status|stop-broker|start-broker|add-broker|down --dir ${options.dir}\n`,
  );
  process.stdout.write(`bootstrap: ${bootstrap.join(',')}\n`);
}

async function handle(supervisor: ClusterSupervisor, req: ControlRequest, exit: (code: number) => void): Promise<Handled> {
  switch (req.op) {
    case 'stop-broker':
      return { message: await supervisor.stopBroker(req.id, req.kill) };
    case 'start-broker':
      return { message: await supervisor.startBroker(req.id) };
    case 'add-broker':
      return { message: await supervisor.addBroker() };
    case 'down':
      await supervisor.down();
      return { message: `the cluster in ${supervisor.dir} is down`, afterReply: () => exit(0) };
    default:
      throw new ClusterCommandError(`unknown request ${JSON.stringify(req)}`);
  }
}
