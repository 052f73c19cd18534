/**
 * Workload 2: OffsetCommit throughput of simple consumers (generation -1, no member id, no
 * group membership), each connection committing for its own group in a closed loop — the next
 * request goes out when the previous answer is in, as a consumer's synchronous commit does.
 * Every partition's answer must be NONE; the broker's CPU time over the timed window is read
 * from /proc, so cost per request can be compared too.
 */
import { performance } from 'node:perf_hooks';
import { errorName } from '@sluice/protocol/errors.js';
import { OffsetCommitRequest, OffsetCommitResponse, type OffsetCommitRequestDataInput } from '@sluice/protocol/messages/index.js';
import { cpuSeconds } from '../e2e/proc-stats.js';
import { awaitCoordinator, type RunningBroker } from './brokers.js';
import { PINNED_VERSIONS, WireConnection } from './wire.js';

export interface CommitOptions {
  readonly topic: string;
  readonly partitionsPerRequest: number;
  readonly connections: number;
  readonly warmupMs: number;
  readonly durationMs: number;
}

export interface CommitSample {
  readonly requests: number;
  readonly seconds: number;
  readonly requestsPerSecond: number;
  readonly partitionsPerSecond: number;
  /** Median and p99 request round trip, ms. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Broker CPU seconds per 1000 requests over the timed window. */
  readonly brokerCpuMsPerRequest: number;
}

export async function runCommits(broker: RunningBroker, opts: CommitOptions, tag: string): Promise<CommitSample> {
  const groups = Array.from(
    { length: opts.connections },
    (_, i) => `bench-commit-${tag}-${opts.partitionsPerRequest}p-${opts.connections}c-${i}`,
  );
  const conns = await Promise.all(groups.map((_, i) => WireConnection.open(broker.host, broker.port, `bench-committer-${i}`)));
  try {
    for (const g of groups) await awaitCoordinator(conns[0]!, g);
    let offset = 0n;
    const body = (groupId: string): OffsetCommitRequestDataInput => {
      offset++;
      return {
        groupId,
        generationIdOrMemberEpoch: -1,
        memberId: '',
        groupInstanceId: null,
        topics: [
          {
            name: opts.topic,
            partitions: Array.from({ length: opts.partitionsPerRequest }, (_, p) => ({
              partitionIndex: p,
              committedOffset: offset,
              committedLeaderEpoch: -1,
              committedMetadata: '',
            })),
          },
        ],
      };
    };

    let measuring = false;
    let stopping = false;
    let requests = 0;
    const latencies: number[] = [];
    const loop = async (conn: WireConnection, groupId: string): Promise<void> => {
      while (!stopping) {
        const sent = performance.now();
        const res = await conn.request(OffsetCommitRequest, OffsetCommitResponse, PINNED_VERSIONS.OffsetCommit, body(groupId));
        for (const t of res.topics)
          for (const p of t.partitions)
            if (p.errorCode !== 0) throw new Error(`OffsetCommit ${groupId} ${t.name}-${p.partitionIndex}: ${errorName(p.errorCode)}`);
        if (measuring) {
          requests++;
          latencies.push(performance.now() - sent);
        }
      }
    };

    await settleTopic(conns[0]!, groups[0]!, body);
    const loops = conns.map((c, i) => loop(c, groups[i]!));
    const failed = Promise.all(loops);
    await Promise.race([sleep(opts.warmupMs), failed]);
    measuring = true;
    const cpu0 = cpuSeconds(broker.pid);
    const t0 = performance.now();
    await Promise.race([sleep(opts.durationMs), failed]);
    measuring = false;
    const seconds = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds(broker.pid) - cpu0;
    stopping = true;
    await failed;
    latencies.sort((a, b) => a - b);
    return {
      requests,
      seconds,
      requestsPerSecond: requests / seconds,
      partitionsPerSecond: (requests * opts.partitionsPerRequest) / seconds,
      p50Ms: quantile(latencies, 0.5),
      p99Ms: quantile(latencies, 0.99),
      brokerCpuMsPerRequest: (cpu * 1000) / requests,
    };
  } finally {
    for (const c of conns) c.close();
  }
}

/**
 * Kafka's metadata cache may not list a topic created a moment ago, and answers
 * UNKNOWN_TOPIC_OR_PARTITION to commits for it; wait until one commit goes through.
 */
async function settleTopic(conn: WireConnection, groupId: string, body: (g: string) => OffsetCommitRequestDataInput): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await conn.request(OffsetCommitRequest, OffsetCommitResponse, PINNED_VERSIONS.OffsetCommit, body(groupId));
    const bad = res.topics.flatMap((t) => t.partitions).find((p) => p.errorCode !== 0);
    if (bad === undefined) return;
    if (Date.now() > deadline) throw new Error(`OffsetCommit keeps failing: ${errorName(bad.errorCode)}`);
    await sleep(200);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
