/**
 * The data operations the Produce, Fetch and offset handlers need from the partition owners.
 * Every result carries a Kafka error code for its partition; none throws for a partition fault.
 */
import type { AppendReply, DescribeProducersReply, OffsetReply, ReadCommand } from '../worker/partition-protocol.js';
import type { AppendRequest, ReadResult } from './partition-service.js';

export type { AppendReply, AppendRequest, DescribeProducersReply, OffsetReply, ReadCommand, ReadResult };

export interface PartitionData {
  /** Replies in the order of `entries`. */
  appendMany(entries: readonly AppendRequest[]): Promise<AppendReply[]>;
  /** Results in the order of `commands`. */
  readMany(commands: readonly ReadCommand[]): Promise<ReadResult[]>;
  listOffset(topic: string, partition: number, timestamp: bigint): Promise<OffsetReply>;
  deleteRecords(topic: string, partition: number, offset: bigint): Promise<OffsetReply>;
  offsetForLeaderEpoch(topic: string, partition: number, leaderEpoch: number): Promise<OffsetReply>;
  describeProducers(topic: string, partition: number): Promise<DescribeProducersReply>;
}

/** The key under which fetches wait for a partition and appends announce it. */
export function partitionKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}
