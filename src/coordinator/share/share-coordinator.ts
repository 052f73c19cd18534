/**
 * The share coordinator of one `__share_group_state` partition: Kafka 4.4's ShareCoordinatorShard
 * as a deterministic state machine the `CoordinatorRuntime` runs (time comes in as `now`). It
 * holds, per share-partition (group, topic id, partition), the state the partition leader
 * persists: state epoch, leader epoch, start offset, delivery-complete count and state batches.
 *
 * - Initialize writes a fresh ShareSnapshot at the given state epoch (fenced by a higher one).
 * - Write requires an initialized share-partition and fences older leader and state epochs; it
 *   writes a ShareUpdate carrying the written batches, or, every
 *   `snapshotUpdateRecordsPerSnapshot` updates, a ShareSnapshot of the combined state. The
 *   leader epoch moves only on Read.
 * - Read by a leader at a new epoch records that epoch (a ShareUpdate or ShareSnapshot), which
 *   fences the older leader's writes; reading at an older epoch is FENCED_LEADER_EPOCH.
 * - Delete writes a tombstone; ReadSummary only reads.
 * - Periodic jobs the service runs: `snapshotColdPartitions` rewrites, as a ShareSnapshot, every
 *   share-partition whose last snapshot is older than `coldPartitionSnapshotIntervalMs` (so old
 *   records stop being needed and can be pruned), and `forgetTopics` tombstones the share-partitions
 *   of deleted topics.
 * Every operation but replay also checks the topic partition exists (`partitionCount`). An
 * operation's records are applied to the shard through `replay` as it returns them, so the
 * state served is always the log's replay.
 *
 * Main thread; not thread-safe.
 */
import { ERRORS, ErrorCode } from '@sluice/protocol/errors.js';
import type { CoordinatorRecord } from '../runtime/coordinator-log.js';
import type { CoordinatorShard, ShardResult } from '../runtime/coordinator-runtime.js';
import { combineStateBatches } from './batch-combiner.js';
import { DEFAULT_SHARE_COORDINATOR_CONFIG, type ShareCoordinatorConfig } from './config.js';
import {
  decodeShareRecord,
  type ShareSnapshot,
  type ShareUpdate,
  shareSnapshotRecord,
  shareStateTombstone,
  shareUpdateRecord,
} from './records.js';
import type { SharePartitionKey, ShareStateBatch } from './share-state-persister.js';

/** An operation's answer for its share-partition: NONE, or an error and its message. */
export interface ShareOpError {
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

export interface ShareReadAnswer extends ShareOpError {
  readonly stateEpoch: number;
  readonly startOffset: bigint;
  readonly stateBatches: readonly ShareStateBatch[];
}

export interface ShareSummaryAnswer extends ShareOpError {
  readonly stateEpoch: number;
  readonly leaderEpoch: number;
  readonly startOffset: bigint;
  readonly deliveryCompleteCount: number;
}

export interface ShareWriteRequest {
  readonly stateEpoch: number;
  readonly leaderEpoch: number;
  readonly startOffset: bigint;
  readonly deliveryCompleteCount: number;
  readonly stateBatches: readonly ShareStateBatch[];
}

/** The partition count of a topic by id, or undefined when the metadata does not know it. */
export type TopicPartitionCount = (topicId: string) => number | undefined;

type Result<R> = ShardResult<R, never>;

const OK: ShareOpError = { errorCode: ErrorCode.NONE, errorMessage: null };
const UNSET = -1;
const NO_OFFSET = -1n;

function fail(errorCode: number, errorMessage?: string): ShareOpError {
  return { errorCode, errorMessage: errorMessage ?? ERRORS.get(errorCode)?.message ?? null };
}

const NEGATIVE_PARTITION = (): ShareOpError => fail(ErrorCode.INVALID_REQUEST, 'The partition id cannot be a negative number.');
const NEGATIVE_LEADER_EPOCH = (): ShareOpError => fail(ErrorCode.INVALID_REQUEST, 'The leader epoch cannot be a negative number.');
const NEGATIVE_STATE_EPOCH = (): ShareOpError => fail(ErrorCode.INVALID_REQUEST, 'The state epoch cannot be a negative number.');

function answer<R>(response: R, records: readonly CoordinatorRecord[] = []): Result<R> {
  return { records, response, released: [] };
}

/** The map key of a share-partition: Kafka's coordinator key `groupId:topicId:partition`. */
export function shareCoordinatorKey(key: SharePartitionKey): string {
  return `${key.groupId}:${key.topicId}:${key.partition}`;
}

/** The share-partition of a coordinator key (the group id may hold ':'; the topic id and partition do not). */
function parseCoordinatorKey(k: string): SharePartitionKey {
  const partitionAt = k.lastIndexOf(':');
  const topicAt = k.lastIndexOf(':', partitionAt - 1);
  return { groupId: k.slice(0, topicAt), topicId: k.slice(topicAt + 1, partitionAt), partition: Number(k.slice(partitionAt + 1)) };
}

export class ShareCoordinator implements CoordinatorShard<never> {
  private readonly config: ShareCoordinatorConfig;
  private readonly states = new Map<string, ShareSnapshot>();
  /** The highest leader and state epochs recorded, which fence older ones. */
  private readonly leaderEpochs = new Map<string, number>();
  private readonly stateEpochs = new Map<string, number>();
  /** ShareUpdates since the last ShareSnapshot, per share-partition. */
  private readonly updateCounts = new Map<string, number>();

  constructor(
    private readonly partitionCount: TopicPartitionCount,
    config: Partial<ShareCoordinatorConfig> = {},
  ) {
    this.config = { ...DEFAULT_SHARE_COORDINATOR_CONFIG, ...config };
  }

  /** The state of a share-partition (tests and tools). */
  state(key: SharePartitionKey): ShareSnapshot | undefined {
    return this.states.get(shareCoordinatorKey(key));
  }

  leaderEpochOf(key: SharePartitionKey): number | undefined {
    return this.leaderEpochs.get(shareCoordinatorKey(key));
  }

  replay(key: Buffer, value: Buffer | null): void {
    const record = decodeShareRecord(key, value);
    if (record.type === 'snapshot') this.replaySnapshot(shareCoordinatorKey(record.key), record.value);
    else if (record.type === 'update' && record.value !== null) this.replayUpdate(shareCoordinatorKey(record.key), record.value);
  }

  private replaySnapshot(k: string, snapshot: ShareSnapshot | null): void {
    if (snapshot === null) {
      this.states.delete(k);
      this.leaderEpochs.delete(k);
      this.stateEpochs.delete(k);
      this.updateCounts.delete(k);
      return;
    }
    raise(this.leaderEpochs, k, snapshot.leaderEpoch);
    raise(this.stateEpochs, k, snapshot.stateEpoch);
    this.states.set(k, snapshot);
    const updates = this.updateCounts.get(k);
    if (updates !== undefined && updates >= this.config.snapshotUpdateRecordsPerSnapshot) this.updateCounts.set(k, 0);
  }

  private replayUpdate(k: string, update: ShareUpdate): void {
    raise(this.leaderEpochs, k, update.leaderEpoch);
    const current = this.states.get(k);
    this.states.set(
      k,
      current === undefined ? { ...update, stateEpoch: 0, createTimestamp: 0n, writeTimestamp: 0n } : applyUpdate(current, update),
    );
    this.updateCounts.set(k, (this.updateCounts.get(k) ?? 0) + 1);
  }

  loaded(): void {}

  tick(): { records: CoordinatorRecord[]; released: never[] } {
    return { records: [], released: [] };
  }

  nextDeadline(): null {
    return null;
  }

  unload(): never[] {
    return [];
  }

  initialize(key: SharePartitionKey, stateEpoch: number, startOffset: bigint, now: number): Result<ShareOpError> {
    const k = shareCoordinatorKey(key);
    if (key.partition < 0) return answer(NEGATIVE_PARTITION());
    if (stateEpoch < 0) return answer(NEGATIVE_STATE_EPOCH());
    if ((this.stateEpochs.get(k) ?? -Infinity) > stateEpoch) return answer(fail(ErrorCode.FENCED_STATE_EPOCH));
    const unknown = this.unknownPartition(key);
    if (unknown !== null) return answer(unknown);
    const current = this.states.get(k);
    const snapshot: ShareSnapshot = {
      snapshotEpoch: current === undefined ? 0 : current.snapshotEpoch + 1,
      stateEpoch,
      leaderEpoch: 0,
      startOffset,
      deliveryCompleteCount: startOffset === NO_OFFSET ? UNSET : 0,
      createTimestamp: BigInt(now),
      writeTimestamp: BigInt(now),
      stateBatches: [],
    };
    return this.applied(OK, [shareSnapshotRecord(key, snapshot)]);
  }

  write(key: SharePartitionKey, request: ShareWriteRequest, now: number): Result<ShareOpError> {
    const k = shareCoordinatorKey(key);
    if (key.partition < 0) return answer(NEGATIVE_PARTITION());
    if (request.leaderEpoch < 0) return answer(NEGATIVE_LEADER_EPOCH());
    if (request.stateEpoch < 0) return answer(NEGATIVE_STATE_EPOCH());
    if (!this.states.has(k))
      return answer(fail(ErrorCode.INVALID_REQUEST, 'Write operation on uninitialized share partition not allowed.'));
    if ((this.leaderEpochs.get(k) ?? -Infinity) > request.leaderEpoch) return answer(fail(ErrorCode.FENCED_LEADER_EPOCH));
    if ((this.stateEpochs.get(k) ?? -Infinity) > request.stateEpoch) return answer(fail(ErrorCode.FENCED_STATE_EPOCH));
    const unknown = this.unknownPartition(key);
    if (unknown !== null) return answer(unknown);
    return this.applied(OK, [this.stateRecord(key, request, false, now)]);
  }

  read(key: SharePartitionKey, leaderEpoch: number, now: number): Result<ShareReadAnswer> {
    const k = shareCoordinatorKey(key);
    const failed = (error: ShareOpError): Result<ShareReadAnswer> => answer({ ...error, stateEpoch: 0, startOffset: 0n, stateBatches: [] });
    if (key.partition < 0) return failed(NEGATIVE_PARTITION());
    if (leaderEpoch < 0) return failed(NEGATIVE_LEADER_EPOCH());
    const current = this.states.get(k);
    if (current === undefined)
      return failed(fail(ErrorCode.INVALID_REQUEST, 'Read operation on uninitialized share partition not allowed.'));
    const recorded = this.leaderEpochs.get(k);
    if (recorded !== undefined && recorded > leaderEpoch) return failed(fail(ErrorCode.FENCED_LEADER_EPOCH));
    const unknown = this.unknownPartition(key);
    if (unknown !== null) return failed(unknown);
    const response: ShareReadAnswer = {
      ...OK,
      stateEpoch: current.stateEpoch,
      startOffset: current.startOffset,
      stateBatches: current.stateBatches,
    };
    if (recorded === leaderEpoch) return answer(response);
    // A new leader: its epoch is recorded, fencing the writes of the one before.
    const epochOnly: ShareWriteRequest = {
      stateEpoch: current.stateEpoch,
      leaderEpoch,
      startOffset: current.startOffset,
      deliveryCompleteCount: current.deliveryCompleteCount,
      stateBatches: [],
    };
    return this.applied(response, [this.stateRecord(key, epochOnly, true, now)]);
  }

  readSummary(key: SharePartitionKey): Result<ShareSummaryAnswer> {
    if (key.partition < 0)
      return answer({ ...NEGATIVE_PARTITION(), stateEpoch: 0, leaderEpoch: 0, startOffset: 0n, deliveryCompleteCount: 0 });
    const unknown = this.unknownPartition(key);
    if (unknown !== null) return answer({ ...unknown, stateEpoch: 0, leaderEpoch: 0, startOffset: 0n, deliveryCompleteCount: 0 });
    const current = this.states.get(shareCoordinatorKey(key));
    if (current === undefined)
      return answer({ ...OK, stateEpoch: 0, leaderEpoch: 0, startOffset: NO_OFFSET, deliveryCompleteCount: UNSET });
    return answer({
      ...OK,
      stateEpoch: current.stateEpoch,
      leaderEpoch: current.leaderEpoch,
      startOffset: current.startOffset,
      deliveryCompleteCount: current.deliveryCompleteCount,
    });
  }

  delete(key: SharePartitionKey): Result<ShareOpError> {
    if (key.partition < 0) return answer(NEGATIVE_PARTITION());
    const unknown = this.unknownPartition(key);
    if (unknown !== null) return answer(unknown);
    // Deleting what was never there (or is gone) succeeds without a record, as in Kafka.
    if (!this.states.has(shareCoordinatorKey(key))) return answer(OK);
    return this.applied(OK, [shareStateTombstone(key)]);
  }

  /**
   * Kafka's cold-partition snapshot: a share-partition written only through ShareUpdates (or not
   * at all) keeps its last snapshot, and with it every later record, needed; one whose snapshot is
   * `coldPartitionSnapshotIntervalMs` old gets a new snapshot of its state (same creation time).
   * Nothing is written while every share-partition's last snapshot is such a rewrite.
   */
  snapshotColdPartitions(now: number): Result<void> {
    const states = [...this.states.entries()];
    if (states.every(([, s]) => s.createTimestamp !== s.writeTimestamp)) return answer(undefined);
    const records: CoordinatorRecord[] = [];
    for (const [k, s] of states) {
      if (BigInt(now) - s.writeTimestamp < BigInt(this.config.coldPartitionSnapshotIntervalMs)) continue;
      records.push(shareSnapshotRecord(parseCoordinatorKey(k), { ...s, snapshotEpoch: s.snapshotEpoch + 1, writeTimestamp: BigInt(now) }));
    }
    return this.applied(undefined, records);
  }

  /** Tombstones every share-partition of the deleted topics `topicIds` (Kafka's maybeCleanupShareState). */
  forgetTopics(topicIds: ReadonlySet<string>): Result<void> {
    const records: CoordinatorRecord[] = [];
    for (const k of this.states.keys()) {
      const key = parseCoordinatorKey(k);
      if (topicIds.has(key.topicId)) records.push(shareStateTombstone(key));
    }
    return this.applied(undefined, records);
  }

  /** Applies an operation's records as their replay will, and answers with them. */
  private applied<R>(response: R, records: readonly CoordinatorRecord[]): Result<R> {
    for (const r of records) this.replay(r.key, r.value);
    return answer(response, records);
  }

  private unknownPartition(key: SharePartitionKey): ShareOpError | null {
    const count = this.partitionCount(key.topicId);
    return count === undefined || key.partition >= count ? fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) : null;
  }

  /**
   * The record of a write (or of a read's new leader epoch): a ShareUpdate with what changed, or a
   * ShareSnapshot of the combined state once enough updates followed the last snapshot. The start
   * offset never moves back; the delivery-complete count follows the start offset it was counted from.
   */
  private stateRecord(key: SharePartitionKey, request: ShareWriteRequest, newLeaderEpoch: boolean, now: number): CoordinatorRecord {
    const k = shareCoordinatorKey(key);
    const current = this.states.get(k)!;
    const leaderEpoch = newLeaderEpoch ? request.leaderEpoch : current.leaderEpoch;
    const startOffset = request.startOffset > current.startOffset ? request.startOffset : current.startOffset;
    const deliveryCompleteCount =
      request.startOffset === current.startOffset
        ? Math.max(request.deliveryCompleteCount, current.deliveryCompleteCount)
        : request.startOffset < current.startOffset
          ? current.deliveryCompleteCount
          : request.deliveryCompleteCount;
    if ((this.updateCounts.get(k) ?? 0) >= this.config.snapshotUpdateRecordsPerSnapshot) {
      return shareSnapshotRecord(key, {
        snapshotEpoch: current.snapshotEpoch + 1,
        stateEpoch: current.stateEpoch,
        leaderEpoch,
        startOffset,
        deliveryCompleteCount,
        createTimestamp: BigInt(now),
        writeTimestamp: BigInt(now),
        stateBatches: combineStateBatches(current.stateBatches, request.stateBatches, startOffset),
      });
    }
    return shareUpdateRecord(key, {
      snapshotEpoch: current.snapshotEpoch,
      leaderEpoch,
      startOffset,
      deliveryCompleteCount,
      stateBatches: combineStateBatches([], request.stateBatches, startOffset),
    });
  }
}

function raise(epochs: Map<string, number>, k: string, epoch: number): void {
  const current = epochs.get(k);
  if (current === undefined || current < epoch) epochs.set(k, epoch);
}

/** A ShareUpdate on top of the state: -1 keeps the start offset and leader epoch, batches combine. */
function applyUpdate(current: ShareSnapshot, update: ShareUpdate): ShareSnapshot {
  const startOffset = update.startOffset === NO_OFFSET ? current.startOffset : update.startOffset;
  return {
    ...current,
    startOffset,
    leaderEpoch: update.leaderEpoch === UNSET ? current.leaderEpoch : update.leaderEpoch,
    deliveryCompleteCount: update.deliveryCompleteCount,
    stateBatches: combineStateBatches(current.stateBatches, update.stateBatches, startOffset),
  };
}
