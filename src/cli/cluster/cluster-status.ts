/**
 * `sluice cluster status --dir DIR`: the processes from the state file, each checked alive by
 * its pid (the supervisor may be gone, and a broker's pid stays in the file until the supervisor
 * sees it exit), and from one Metadata request to the live brokers the controller and the
 * under-replicated partitions (an ISR smaller than the replicas, as kafka-topics.sh
 * `--under-replicated-partitions` counts them). It needs nothing of the supervisor.
 */
import { KafkaCluster, type ClusterMetadata } from '@sluice/client/index.js';
import { processAlive } from '../../common/process-alive.js';
import { readClusterState } from './cluster-state.js';

interface UnderReplicated {
  readonly topic: string;
  readonly partition: number;
  readonly leader: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
}

export interface ClusterStatus {
  readonly supervisor: { readonly pid: number; readonly alive: boolean };
  readonly zookeeper: { readonly connect: string; readonly pid: number; readonly alive: boolean };
  readonly brokers: readonly {
    readonly id: number;
    readonly pid: number | null;
    readonly port: number;
    readonly logDir: string;
    readonly alive: boolean;
  }[];
  /** From the live brokers' metadata, or why there is none. */
  readonly metadata:
    { readonly controller: number; readonly underReplicated: readonly UnderReplicated[] } | { readonly unavailable: string };
}

const HOST = '127.0.0.1';

function underReplicated(metadata: ClusterMetadata): UnderReplicated[] {
  return [...metadata.topics.values()]
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((t) =>
      t.partitions
        .filter((p) => p.isr.length < p.replicas.length)
        .map((p) => ({ topic: t.name, partition: p.partition, leader: p.leaderId, replicas: p.replicas, isr: p.isr })),
    );
}

export async function clusterStatus(dir: string): Promise<ClusterStatus> {
  const state = readClusterState(dir);
  const brokers = state.brokers.map((b) => ({ ...b, alive: processAlive(b.pid) }));
  const live = brokers.filter((b) => b.alive);
  let metadata: ClusterStatus['metadata'];
  if (live.length === 0) metadata = { unavailable: 'no broker is running' };
  else {
    const cluster = new KafkaCluster({ bootstrap: live.map((b) => ({ host: HOST, port: b.port })) });
    try {
      const m = await cluster.metadata(null);
      metadata = { controller: m.controllerId, underReplicated: underReplicated(m) };
    } catch (err) {
      metadata = { unavailable: `no broker answered Metadata: ${(err as Error).message}` };
    } finally {
      cluster.close();
    }
  }
  return {
    supervisor: { pid: state.supervisorPid, alive: processAlive(state.supervisorPid) },
    zookeeper: { connect: state.zookeeper.connect, pid: state.zookeeper.pid, alive: processAlive(state.zookeeper.pid) },
    brokers,
    metadata,
  };
}

function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '));
}

const state = (alive: boolean): string => (alive ? 'alive' : 'dead');

export function formatClusterStatus(s: ClusterStatus): string {
  const lines = [
    `supervisor: pid ${s.supervisor.pid} ${s.supervisor.alive ? 'running' : 'not running'}`,
    `zookeeper: ${s.zookeeper.connect} pid ${s.zookeeper.pid} ${state(s.zookeeper.alive)}`,
  ];
  const m = s.metadata;
  lines.push(
    'controller' in m ? `controller: ${m.controller < 0 ? 'none' : `broker ${m.controller}`}` : `controller: unknown (${m.unavailable})`,
  );
  lines.push(
    ...table([
      ['BROKER', 'PID', 'ADDRESS', 'STATE', 'LOG DIR'],
      ...s.brokers.map((b) => [String(b.id), b.pid === null ? '-' : String(b.pid), `${HOST}:${b.port}`, state(b.alive), b.logDir]),
    ]),
  );
  if ('underReplicated' in m) {
    lines.push(`under-replicated partitions: ${m.underReplicated.length}`);
    for (const p of m.underReplicated) {
      lines.push(`  ${p.topic}-${p.partition}  leader ${p.leader}  replicas ${p.replicas.join(',')}  isr ${p.isr.join(',')}`);
    }
  } else lines.push('under-replicated partitions: unknown');
  return `${lines.join('\n')}\n`;
}
