/**
 * Writes the end of a transaction (a COMMIT or ABORT control batch) to its partitions. Those this
 * broker leads are written here, as Kafka's WriteTxnMarkers does: a `__consumer_offsets` partition
 * through its group coordinator, which applies or drops the transaction's pending offsets, every
 * other one through its partition owner. On a cluster the others go to their leaders as
 * WriteTxnMarkers. Each partition is answered once the marker is committed (acks=all), so the
 * coordinator writes CompleteCommit/CompleteAbort only after every marker is safe.
 */
import { groupBy } from '@sluice/protocol/common/group-by.js';
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { CONSUMER_OFFSETS_TOPIC } from '@sluice/protocol/internal-topics.js';
import type { AppendReply, TxnMarkerEntry } from '../partitions/partition-data.js';
import type { ClusterContext } from './cluster-context.js';
import { lookupPartition } from './partition-lookup.js';
import type { PartitionErrorRef } from './txn-partitions.js';
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';

/** A partition without a live leader: its marker waits for one. */
const NO_LEADER = -1;
/** How long a marker waits for the in-sync replicas: Kafka appends markers with the request timeout. */
const MARKER_COMMIT_TIMEOUT_MS = 30_000;

export interface TxnMarkerWrite {
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly coordinatorEpoch: number;
  readonly commit: boolean;
  readonly transactionVersion: number;
  readonly partitions: readonly TopicPartition[];
}

/** The coordinator's marker writes: each partition at its current leader, here or on a peer. */
export async function writeMarkers(c: ClusterContext, write: TxnMarkerWrite): Promise<PartitionErrorRef[]> {
  const peers = c.membership?.transactionPeers;
  if (peers === undefined) return writeMarkersLocally(c, write);
  const byLeader = groupBy(write.partitions, (ref) => c.metadata.partition(ref.topic, ref.partition)?.leader ?? NO_LEADER);
  const answers = new Map<TopicPartition, number>();
  await Promise.all(
    [...byLeader].map(async ([leader, partitions]) => {
      const results =
        leader === c.nodeId
          ? await writeMarkersLocally(c, { ...write, partitions })
          : leader === NO_LEADER
            ? partitions.map((ref) => ({ ...ref, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER }))
            : await peers.writeMarkers(leader, { ...write, partitions });
      results.forEach((r, i) => answers.set(partitions[i]!, r.errorCode));
    }),
  );
  return write.partitions.map((ref) => ({ topic: ref.topic, partition: ref.partition, errorCode: answers.get(ref)! }));
}

export async function writeMarkersLocally(c: ClusterContext, write: TxnMarkerWrite): Promise<PartitionErrorRef[]> {
  const marker = {
    producerId: write.producerId,
    producerEpoch: write.producerEpoch,
    coordinatorEpoch: write.coordinatorEpoch,
    commit: write.commit,
    transactionVersion: write.transactionVersion,
  };
  const answers: Array<Promise<number>> = [];
  const entries: TxnMarkerEntry[] = [];
  const settle: Array<(errorCode: number) => void> = [];
  for (const ref of write.partitions) {
    const found = lookupPartition(c, ref.topic, ref.partition);
    if (!found.ok) answers.push(Promise.resolve(found.errorCode));
    else if (ref.topic === CONSUMER_OFFSETS_TOPIC) {
      // A peer's coordinator may write here before any group request has loaded the coordinators.
      const completed = c.loadCoordinators().then(() => c.groups.completeTransaction(ref.partition, marker));
      answers.push(completed.then(asLeaderAnswer, (err: unknown) => asLeaderAnswer(kafkaErrorCode(err))));
    } else {
      entries.push({ topic: ref.topic, partition: ref.partition, ...marker });
      answers.push(new Promise<number>((resolve) => settle.push(resolve)));
    }
  }
  if (entries.length > 0) {
    const codes = await appendMarkers(c, entries);
    codes.forEach((code, i) => settle[i]!(code));
  }
  const codes = await Promise.all(answers);
  return write.partitions.map((ref, i) => ({ topic: ref.topic, partition: ref.partition, errorCode: codes[i]! }));
}

/**
 * A group coordinator that does not (or not yet) serve the partition means its leadership is
 * moving: the transaction coordinator retries on NOT_LEADER_OR_FOLLOWER, as with Kafka.
 */
const MOVING_COORDINATOR: ReadonlySet<number> = new Set([
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
]);

function asLeaderAnswer(errorCode: number): number {
  return MOVING_COORDINATOR.has(errorCode) ? ErrorCode.NOT_LEADER_OR_FOLLOWER : errorCode;
}

/** Appends the markers on the partitions' owners, then waits until each is committed. */
async function appendMarkers(c: ClusterContext, entries: readonly TxnMarkerEntry[]): Promise<number[]> {
  // Registered before the markers go: a leader may answer a wait in another op's reply first.
  const ids = entries.map((e) => c.producePurgatory.register(e.topic, e.partition));
  let replies: AppendReply[];
  try {
    replies = await c.partitions.writeTxnMarkers(
      entries.map((e, i) => ({ ...e, acksWait: { id: ids[i]!, timeoutMs: MARKER_COMMIT_TIMEOUT_MS } })),
    );
  } catch (err) {
    for (const id of ids) c.producePurgatory.cancel(id);
    throw err;
  }
  const committed = await c.producePurgatory.settle(ids, replies, MARKER_COMMIT_TIMEOUT_MS);
  return replies.map((r, i) => committed[i] ?? r.errorCode);
}
