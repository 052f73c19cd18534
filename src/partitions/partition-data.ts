/**
 * The data operations the Produce, Fetch and offset handlers need from the partition owners.
 * Every result carries a Kafka error code for its partition; none throws for a partition fault.
 * A `currentLeaderEpoch` is the one the client named (NO_EPOCH_CHECK for none): the partition's
 * replica checks it, so a client with stale metadata is fenced where the epoch is known.
 */
import type {
  AbortedTransaction,
  AppendReply,
  AppendRequest,
  DescribeProducersReply,
  DivergingEpoch,
  OffsetReply,
  ReadCommand,
  TxnMarkerEntry,
} from './partition-protocol.js';
import type { ReadResult } from './partition-service.js';
import type { LeaderEpoch, Offset } from '@sluice/protocol/common/offsets.js';

export { failedRead } from './partition-service.js';
export type {
  AbortedTransaction,
  AppendReply,
  AppendRequest,
  DescribeProducersReply,
  DivergingEpoch,
  OffsetReply,
  TopicPartition,
  ReadCommand,
  ReadResult,
  TxnMarkerEntry,
};

export interface PartitionData {
  /** Replies in the order of `entries`. */
  appendMany(entries: readonly AppendRequest[]): Promise<AppendReply[]>;
  /** Results in the order of `commands`. */
  readMany(commands: readonly ReadCommand[]): Promise<ReadResult[]>;
  /** `readCommitted` (default false): LATEST (-1) is the last stable offset rather than the high watermark. */
  listOffset(ref: TopicPartition, currentLeaderEpoch: LeaderEpoch, timestamp: bigint, readCommitted?: boolean): Promise<OffsetReply>;
  /** `NO_OFFSET`: up to the high watermark. */
  deleteRecords(ref: TopicPartition, offset: Offset): Promise<OffsetReply>;
  offsetForLeaderEpoch(ref: TopicPartition, currentLeaderEpoch: LeaderEpoch, leaderEpoch: LeaderEpoch): Promise<OffsetReply>;
  describeProducers(ref: TopicPartition): Promise<DescribeProducersReply>;
  /**
   * WriteTxnMarkers: each entry's marker written by its partition's leader. Replies in the order
   * of `entries`, as appends (acks=all: an entry's `acksWait` is answered as Produce's are); a partition's failure is its `errorCode` (INVALID_PRODUCER_EPOCH,
   * TRANSACTION_COORDINATOR_FENCED, NOT_LEADER_OR_FOLLOWER, ...).
   */
  writeTxnMarkers(entries: readonly TxnMarkerEntry[]): Promise<AppendReply[]>;
}

import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';
