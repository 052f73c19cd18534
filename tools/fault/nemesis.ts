/**
 * The faults, chosen with the run's seeded generator: what to hit, how long to hold the fault,
 * and how to undo it. Each `inject` returns once the fault is healed (broker restarted, process
 * continued, proxy forwarding, ZooKeeper back, disk freed); the runner then waits for the
 * cluster to be whole before the next one.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { FaultCluster } from './fault-cluster.js';
import type { FaultEvent, FaultKind } from './history.js';
import type { Prng } from './prng.js';

export interface NemesisTimings {
  readonly sessionTimeoutMs: number;
  readonly replicaLagMs: number;
}

export interface Nemesis {
  readonly kinds: readonly FaultKind[];
  /** Kinds left out here, with why. */
  readonly skipped: ReadonlyMap<FaultKind, string>;
  inject(): Promise<Omit<FaultEvent, 'recoveredMs'>>;
}

export const ALL_KINDS: readonly FaultKind[] = [
  'kill-leader',
  'kill-follower',
  'kill-controller',
  'pause',
  'zookeeper-restart',
  'partition-reset',
  'partition-blackhole',
  'disk-full',
];

export function nemesis(
  cluster: FaultCluster,
  topic: string,
  prng: Prng,
  timings: NemesisTimings,
  diskBroker: number | undefined,
): Nemesis {
  const skipped = new Map<FaultKind, string>();
  if (diskBroker === undefined || cluster.diskSkip !== undefined)
    skipped.set('disk-full', cluster.diskSkip ?? 'no broker has a tmpfs log dir');
  const kinds = ALL_KINDS.filter((k) => !skipped.has(k));
  const brokerIds = cluster.brokers.map((b) => b.id);

  /** A partition of the workload's topic, and its leader and followers now. */
  const somePartition = async (): Promise<{ leader: number; followers: number[] }> => {
    const m = await cluster.anyMetadata();
    const partitions = m.topics.find((t) => t.name === topic)?.partitions.filter((p) => p.leaderId >= 0) ?? [];
    if (partitions.length === 0) throw new Error(`no partition of ${topic} has a leader`);
    const p = prng.pick(partitions);
    return { leader: p.leaderId, followers: p.isrNodes.filter((id) => id !== p.leaderId) };
  };
  const hold = (lo: number, hi: number): Promise<void> => sleep(prng.int(lo, hi));
  const killAndRestart = async (id: number): Promise<void> => {
    await cluster.kill(id);
    await hold(1_000, 4_000);
    await cluster.restartBroker(id);
  };

  const faults: Record<FaultKind, () => Promise<string>> = {
    'kill-leader': async () => {
      const { leader } = await somePartition();
      await killAndRestart(leader);
      return `broker ${leader}`;
    },
    'kill-follower': async () => {
      const { leader, followers } = await somePartition();
      const id = followers.length > 0 ? prng.pick(followers) : prng.pick(brokerIds.filter((b) => b !== leader));
      await killAndRestart(id);
      return `broker ${id}`;
    },
    'kill-controller': async () => {
      const id = (await cluster.anyMetadata()).controllerId;
      if (id < 0) throw new Error('no controller to kill');
      await killAndRestart(id);
      return `broker ${id}`;
    },
    pause: async () => {
      const id = prng.pick(brokerIds);
      cluster.pause(id);
      await hold(timings.sessionTimeoutMs + 500, timings.sessionTimeoutMs + 2_500);
      cluster.resume(id);
      return `broker ${id}`;
    },
    'zookeeper-restart': async () => {
      await cluster.restartZooKeeper(prng.int(500, 4_000));
      return 'zookeeper';
    },
    'partition-reset': async () => isolate('reset'),
    'partition-blackhole': async () => isolate('blackhole'),
    'disk-full': async () => {
      const id = diskBroker!;
      cluster.fillDisk(id);
      await hold(2_000, 4_000);
      // A log dir that failed stays offline until the broker restarts, as in Kafka.
      cluster.freeDisk(id);
      await cluster.kill(id);
      await cluster.restartBroker(id);
      return `broker ${id}`;
    },
  };
  /** Cuts a broker off from its peers and the clients, both ways; its ZooKeeper session stays. */
  const isolate = async (mode: 'reset' | 'blackhole'): Promise<string> => {
    const id = prng.pick(brokerIds);
    const pid = cluster.broker(id).process?.child.pid;
    if (pid === undefined) throw new Error(`broker ${id} has no process to isolate`);
    for (const b of cluster.brokers) b.proxy.setMode(mode, b.id === id ? undefined : pid);
    await hold(timings.replicaLagMs + 500, timings.replicaLagMs + 3_000);
    for (const b of cluster.brokers) b.proxy.setMode('forward');
    return `broker ${id}`;
  };

  return {
    kinds,
    skipped,
    async inject() {
      const kind = prng.pick(kinds);
      const startMs = Date.now();
      const target = await faults[kind]();
      return { kind, target, startMs, healedMs: Date.now() };
    },
  };
}
