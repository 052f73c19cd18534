/** A ClusterReader over fixed data, for the handlers' and the server's tests. */
import type { ClusterMetadata, ConfigEntry, ConsumedRecord, PartitionMetadata, TopicMetadata } from '@sluice/client/index.js';
import type { ClusterReader, OffsetBound } from '../src/cluster-reader.js';

export function partition(index: number, leader: number, replicas: number[], isr: number[]): PartitionMetadata {
  return { partition: index, errorCode: 0, leaderId: leader, leaderEpoch: 0, replicas, isr, offlineReplicas: [] };
}

export function topicMetadata(name: string, partitions: PartitionMetadata[], isInternal = false): TopicMetadata {
  return { name, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', errorCode: 0, isInternal, partitions };
}

export function clusterMetadata(topics: TopicMetadata[]): ClusterMetadata {
  return {
    clusterId: 'cluster-1',
    controllerId: 2,
    brokers: new Map([
      [2, { nodeId: 2, host: 'b2', port: 9092, rack: 'r2' }],
      [1, { nodeId: 1, host: 'b1', port: 9092, rack: null }],
    ]),
    topics: new Map(topics.map((t) => [t.name, t])),
  };
}

export interface FakeData {
  metadata: ClusterMetadata;
  configs?: ConfigEntry[];
  /** Records by partition, offsets from `start`. */
  records?: Map<number, ConsumedRecord[]>;
  start?: bigint;
  /** While set, every call fails with it, as an unreachable cluster does. */
  failure?: Error;
}

export class FakeReader implements ClusterReader {
  readonly offsetCalls: { partitions: readonly number[]; bound: OffsetBound }[] = [];
  readonly reads: { from: bigint; until: bigint; limit: number }[] = [];

  constructor(readonly data: FakeData) {}

  private check(): void {
    if (this.data.failure !== undefined) throw this.data.failure;
  }

  async metadata(): Promise<ClusterMetadata> {
    this.check();
    return this.data.metadata;
  }

  async topicConfigs(): Promise<ConfigEntry[]> {
    this.check();
    return this.data.configs ?? [];
  }

  async offsets(_topic: string, partitions: readonly number[], bound: OffsetBound): Promise<Map<number, bigint>> {
    this.check();
    this.offsetCalls.push({ partitions, bound });
    const start = this.data.start ?? 0n;
    return new Map(partitions.map((p) => [p, bound === 'earliest' ? start : start + BigInt(this.data.records?.get(p)?.length ?? 0)]));
  }

  async read(_topic: string, partition: number, from: bigint, until: bigint, limit: number): Promise<ConsumedRecord[]> {
    this.check();
    this.reads.push({ from, until, limit });
    return (this.data.records?.get(partition) ?? []).filter((r) => r.offset >= from && r.offset < until).slice(0, limit);
  }
}

export function records(partition: number, count: number, start = 0n): ConsumedRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    partition,
    offset: start + BigInt(i),
    timestamp: 1_700_000_000_000n + BigInt(i),
    key: Buffer.from(`k${i}`),
    value: Buffer.from(`v${i}`),
    headers: [],
  }));
}
