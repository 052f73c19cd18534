/**
 * An in-memory partition owner for the data handlers' tests: the `PartitionData` the workers
 * serve, over logs kept as lists of record batches, and the `PartitionAdmin` that opens them
 * from the controller's registrations. Each partition is a replica as the worker's `Partition`
 * keeps it — leader epoch (fenced by the same `leaderEpochError`), leadership, ISR against
 * `min.insync.replicas` — on one broker, so its high watermark is its log end. Appends assign
 * offsets and stamp the leader epoch; reads lease `HeldRegion`s and count them, so a test can
 * check that every range a handler was given was released exactly once.
 *
 * Not kept: OffsetForLeaderEpoch and DescribeProducers (their tests run on the worker's logs).
 */
import type { PartitionRegistration } from '../../../src/cluster/metadata-image.js';
import type { TopicConfigValues, TopicRef } from '../../../src/cluster/partition-admin.js';
import { KafkaError } from '../../../src/common/kafka-error.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { BatchScan, readRecords, setBaseOffset, setPartitionLeaderEpoch, validateProduceRecords } from '../../../src/protocol/records/index.js';
import {
  NO_EPOCH_CHECK,
  partitionKey,
  type AppendReply,
  type AppendRequest,
  type DescribeProducersReply,
  type OffsetReply,
  type PartitionData,
  type PartitionRef,
  type ReadCommand,
  type ReadResult,
} from '../../../src/router/partition-data.js';
import { leaderEpochError } from '../../../src/worker/leader-epoch.js';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, MAX_TIMESTAMP } from '../../../src/worker/partition-protocol.js';
import { MemoryPartitionAdmin, type HeldRegion } from './admin-harness.js';

const NO_OFFSET = -1n;
/** Kafka's -4 (EARLIEST_LOCAL_TIMESTAMP) and -5 (LATEST_TIERED_TIMESTAMP): without tiered storage, the earliest offset and none. */
const EARLIEST_LOCAL_TIMESTAMP = -4n;
const LATEST_TIERED_TIMESTAMP = -5n;
const ACKS_ALL = -1;

interface StoredBatch {
  /** One past the batch's last offset. */
  readonly nextOffset: bigint;
  readonly bytes: Buffer;
}

interface TimestampHit {
  readonly timestamp: bigint;
  readonly offset: bigint;
}

class MemoryReplica {
  leader = -1;
  leaderEpoch = -1;
  isr: readonly number[] = [];
  minInsync = 1;
  logStartOffset = 0n;
  readonly batches: StoredBatch[] = [];

  get logEndOffset(): bigint {
    return this.batches.at(-1)?.nextOffset ?? 0n;
  }

  /** The worker's `Partition.checkLeader`: the client's epoch first, then leadership. */
  checkLeader(currentLeaderEpoch: number, localId: number): void {
    const epochError = leaderEpochError(currentLeaderEpoch, this.leaderEpoch);
    if (epochError !== ErrorCode.NONE) throw new KafkaError(epochError, `leader epoch ${currentLeaderEpoch} is not the current ${this.leaderEpoch}`);
    if (this.leader !== localId) throw new KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER, `broker ${localId} does not lead this partition`);
  }

  /** Every record at or above the log start offset, in offset order. */
  *records(): Generator<TimestampHit> {
    for (const batch of this.batches) {
      if (batch.nextOffset <= this.logStartOffset) continue;
      for (const header of new BatchScan(batch.bytes)) {
        for (const r of readRecords(batch.bytes, header)) if (r.offset >= this.logStartOffset) yield { timestamp: r.timestamp, offset: r.offset };
      }
    }
  }
}

function errorCodeOf(err: unknown): number {
  if (err instanceof KafkaError) return err.code;
  throw err;
}

function failedOffset(errorCode: number): OffsetReply {
  return { errorCode, timestamp: NO_OFFSET, offset: NO_OFFSET, leaderEpoch: -1 };
}

function failedRead(errorCode: number): ReadResult {
  return { errorCode, highWatermark: NO_OFFSET, lastStableOffset: NO_OFFSET, logStartOffset: NO_OFFSET, records: null };
}

export class MemoryPartitions extends MemoryPartitionAdmin implements PartitionData {
  private readonly replicas = new Map<string, MemoryReplica>();
  private leased = 0;

  /** `localId` is the broker's `node.id`: the partitions it leads accept appends and reads. */
  constructor(private readonly localId = 0) {
    super();
  }

  /** Read ranges handed out and not yet released. */
  get outstandingLeases(): number {
    return this.leased;
  }

  /** The partition's stored batches, as appended (offsets and leader epoch assigned). */
  batchesOf(ref: PartitionRef): Buffer[] {
    return this.replicaOf(ref).batches.map((b) => b.bytes);
  }

  /** Like the worker's `Partition.applyState`: a registration older than the replica's epoch is ignored. */
  override async createPartitions(topic: TopicRef, partitions: readonly PartitionRegistration[], config: TopicConfigValues): Promise<void> {
    await super.createPartitions(topic, partitions, config);
    for (const p of partitions) {
      const key = partitionKey(topic.name, p.partition);
      let replica = this.replicas.get(key);
      if (replica === undefined) this.replicas.set(key, (replica = new MemoryReplica()));
      replica.minInsync = minInsyncOf(config);
      if (p.leaderEpoch < replica.leaderEpoch) continue;
      replica.leader = p.leader;
      replica.leaderEpoch = p.leaderEpoch;
      replica.isr = [...p.isr];
    }
  }

  override async deleteTopic(topic: TopicRef, partitionCount: number): Promise<void> {
    await super.deleteTopic(topic, partitionCount);
    for (let p = 0; p < partitionCount; p++) this.replicas.delete(partitionKey(topic.name, p));
  }

  override async updateTopicConfig(topic: TopicRef, partitionCount: number, config: TopicConfigValues): Promise<void> {
    await super.updateTopicConfig(topic, partitionCount, config);
    for (let p = 0; p < partitionCount; p++) {
      const replica = this.replicas.get(partitionKey(topic.name, p));
      if (replica !== undefined) replica.minInsync = minInsyncOf(config);
    }
  }

  async appendMany(entries: readonly AppendRequest[]): Promise<AppendReply[]> {
    return entries.map((e) => this.append(e));
  }

  async readMany(commands: readonly ReadCommand[]): Promise<ReadResult[]> {
    return commands.map((c) => this.read(c));
  }

  async listOffset(ref: PartitionRef, currentLeaderEpoch: number, timestamp: bigint): Promise<OffsetReply> {
    return this.offsetOp(ref, currentLeaderEpoch, (replica) => {
      const none = { errorCode: ErrorCode.NONE, timestamp: NO_OFFSET, offset: NO_OFFSET, leaderEpoch: -1 };
      const at = (offset: bigint): OffsetReply => ({ ...none, offset, leaderEpoch: replica.leaderEpoch });
      const hit = (found: TimestampHit | null): OffsetReply => (found === null ? none : { ...none, ...found, leaderEpoch: replica.leaderEpoch });
      if (timestamp === EARLIEST_TIMESTAMP || timestamp === EARLIEST_LOCAL_TIMESTAMP) return at(replica.logStartOffset);
      if (timestamp === LATEST_TIMESTAMP) return at(replica.logEndOffset);
      if (timestamp === LATEST_TIERED_TIMESTAMP) return none;
      if (timestamp === MAX_TIMESTAMP) return hit(maxTimestampRecord(replica));
      if (timestamp < 0n) return failedOffset(ErrorCode.INVALID_REQUEST);
      return hit(firstRecordAtOrAfter(replica, timestamp));
    });
  }

  async deleteRecords(ref: PartitionRef, offset: bigint): Promise<OffsetReply> {
    return this.offsetOp(ref, NO_EPOCH_CHECK, (replica) => {
      const target = offset === -1n ? replica.logEndOffset : offset;
      if (target < 0n || target > replica.logEndOffset) return failedOffset(ErrorCode.OFFSET_OUT_OF_RANGE);
      if (target > replica.logStartOffset) replica.logStartOffset = target;
      return { errorCode: ErrorCode.NONE, timestamp: NO_OFFSET, offset: replica.logStartOffset, leaderEpoch: replica.leaderEpoch };
    });
  }

  offsetForLeaderEpoch(): Promise<OffsetReply> {
    return Promise.reject(new Error('the in-memory owner keeps no leader epoch cache'));
  }

  describeProducers(): Promise<DescribeProducersReply> {
    return Promise.reject(new Error('the in-memory owner keeps no producer state'));
  }

  private replicaOf(ref: PartitionRef): MemoryReplica {
    const replica = this.replicas.get(partitionKey(ref.topic, ref.partition));
    if (replica === undefined) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `${ref.topic}-${ref.partition} is not hosted here`);
    return replica;
  }

  /** The worker's offset ops: answered by the leader, fenced by the client's epoch. */
  private async offsetOp(ref: PartitionRef, currentLeaderEpoch: number, answer: (replica: MemoryReplica) => OffsetReply): Promise<OffsetReply> {
    try {
      const replica = this.replicaOf(ref);
      replica.checkLeader(currentLeaderEpoch, this.localId);
      return answer(replica);
    } catch (err) {
      return failedOffset(errorCodeOf(err));
    }
  }

  /** The worker's append: as leader, acks=all refused below `min.insync.replicas`, one validated batch. */
  private append(entry: AppendRequest): AppendReply {
    const failed = (errorCode: number, errorMessage: string, recordErrors: AppendReply['recordErrors'] = []): AppendReply => ({
      errorCode,
      errorMessage,
      recordErrors,
      baseOffset: NO_OFFSET,
      logAppendTimeMs: NO_OFFSET,
      logStartOffset: NO_OFFSET,
      highWatermark: NO_OFFSET,
      highWatermarkMoved: false,
    });
    let replica: MemoryReplica;
    try {
      replica = this.replicaOf(entry);
      replica.checkLeader(NO_EPOCH_CHECK, this.localId);
    } catch (err) {
      if (!(err instanceof KafkaError)) throw err;
      return failed(err.code, err.message);
    }
    if (entry.requiredAcks === ACKS_ALL && replica.isr.length < replica.minInsync) {
      return failed(ErrorCode.NOT_ENOUGH_REPLICAS, `The size of the current ISR ${replica.isr.length} is insufficient to satisfy the min.isr requirement of ${replica.minInsync}`);
    }
    const validation = validateProduceRecords(entry.records);
    if (!validation.ok) return failed(validation.error.code, validation.error.message, validation.error.recordErrors);
    const baseOffset = replica.logEndOffset;
    // A copy: the request's records are a view on its frame, which the connection reuses.
    const bytes = Buffer.from(entry.records.subarray(validation.batch.start, validation.batch.end));
    setBaseOffset(bytes, 0, baseOffset);
    setPartitionLeaderEpoch(bytes, 0, replica.leaderEpoch);
    replica.batches.push({ nextOffset: baseOffset + BigInt(validation.batch.lastOffsetDelta) + 1n, bytes });
    return {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      recordErrors: [],
      baseOffset,
      logAppendTimeMs: NO_OFFSET,
      logStartOffset: replica.logStartOffset,
      highWatermark: replica.logEndOffset,
      highWatermarkMoved: true,
    };
  }

  /** The worker's read: fenced by epoch, out of range outside [log start, log end], whole batches up to `maxBytes` (the first one regardless with `minOneMessage`). */
  private read(c: ReadCommand): ReadResult {
    let replica: MemoryReplica;
    try {
      replica = this.replicaOf(c);
      replica.checkLeader(c.currentLeaderEpoch, this.localId);
    } catch (err) {
      return failedRead(errorCodeOf(err));
    }
    if (c.fetchOffset < replica.logStartOffset || c.fetchOffset > replica.logEndOffset) return failedRead(ErrorCode.OFFSET_OUT_OF_RANGE);
    const highWatermark = replica.logEndOffset;
    const state = { errorCode: ErrorCode.NONE, highWatermark, lastStableOffset: highWatermark, logStartOffset: replica.logStartOffset };
    const taken: Buffer[] = [];
    let bytes = 0;
    for (const batch of replica.batches) {
      if (batch.nextOffset <= c.fetchOffset) continue;
      const fits = bytes + batch.bytes.length <= c.maxBytes || (taken.length === 0 && c.minOneMessage);
      if (!fits) break;
      taken.push(batch.bytes);
      bytes += batch.bytes.length;
    }
    return { ...state, records: taken.length === 0 ? null : this.lease(Buffer.concat(taken)) };
  }

  private lease(bytes: Buffer): HeldRegion {
    this.leased++;
    let released = false;
    return {
      fd: -1,
      position: 0,
      byteLength: bytes.length,
      bytes,
      release: () => {
        if (released) throw new Error('a read range was released twice');
        released = true;
        this.leased--;
      },
    };
  }
}

function minInsyncOf(config: TopicConfigValues): number {
  return Number(config.get('min.insync.replicas') ?? '1');
}

function firstRecordAtOrAfter(replica: MemoryReplica, timestamp: bigint): TimestampHit | null {
  for (const r of replica.records()) if (r.timestamp >= timestamp) return r;
  return null;
}

/** KIP-734: the record with the largest timestamp, the earliest of equals. */
function maxTimestampRecord(replica: MemoryReplica): TimestampHit | null {
  let best: TimestampHit | null = null;
  for (const r of replica.records()) if (best === null || r.timestamp > best.timestamp) best = r;
  return best;
}
