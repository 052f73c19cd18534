/**
 * What a running `sluice cluster up` leaves in its directory for the other `sluice cluster`
 * commands: `cluster.json`, the processes (the supervisor's, ZooKeeper's, each broker's with its
 * id, port and log dir), rewritten by the supervisor after every change, and `supervisor.sock`,
 * the socket the supervisor takes requests on (`control-socket.ts`). Both go when the cluster is
 * brought down; the data (ZooKeeper's, the log dirs) stays.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClusterCommandError } from './cluster-args.js';

interface BrokerEntry {
  readonly id: number;
  readonly port: number;
  readonly logDir: string;
  /** null while the broker is stopped. */
  readonly pid: number | null;
}

export interface ClusterState {
  readonly supervisorPid: number;
  readonly zookeeper: { readonly connect: string; readonly port: number; readonly pid: number };
  readonly brokers: readonly BrokerEntry[];
}

const STATE_FILE = 'cluster.json';
const SOCKET_FILE = 'supervisor.sock';
/** sockaddr_un's sun_path holds 108 bytes, the terminating NUL included. */
const MAX_SOCKET_PATH_BYTES = 107;

export function controlSocketPath(dir: string): string {
  const path = join(dir, SOCKET_FILE);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
    throw new ClusterCommandError(`${path} is too long for a Unix socket (at most ${MAX_SOCKET_PATH_BYTES} bytes): give a shorter --dir`);
  }
  return path;
}

/** Written to a temporary file and renamed over the old one, so a reader never sees half of it. */
export function writeClusterState(dir: string, state: ClusterState): void {
  const path = join(dir, STATE_FILE);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}

export function readClusterState(dir: string): ClusterState {
  const path = join(dir, STATE_FILE);
  if (!existsSync(path))
    throw new ClusterCommandError(`no cluster runs in ${dir} (no ${STATE_FILE}; start one with sluice cluster up --dir ${dir})`);
  const state = JSON.parse(readFileSync(path, 'utf8')) as Partial<ClusterState>;
  if (typeof state.supervisorPid !== 'number' || state.zookeeper === undefined || !Array.isArray(state.brokers)) {
    throw new ClusterCommandError(`${path} is not a cluster state file`);
  }
  return state as ClusterState;
}

export function removeClusterState(dir: string): void {
  rmSync(join(dir, STATE_FILE), { force: true });
  rmSync(join(dir, SOCKET_FILE), { force: true });
}
