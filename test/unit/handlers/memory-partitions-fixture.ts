/**
 * An in-memory partition owner for the data handlers' tests: the `PartitionData` the workers
 * serve, over logs kept as lists of record batches, and the `PartitionAdmin` that opens them
 * from the controller's registrations. Each partition is a replica as the worker's `Partition`
 * keeps it — leader epoch (fenced by the same `leaderEpochError`), leadership, ISR against
 * `min.insync.replicas`, followers' log end offsets from their fetches, the high watermark as
 * the lowest log end in the ISR, the epochs of its batches for a follower's diverging epoch —
 * without the ISR's own changes (lag, proposals; the worker's tests cover them). On one broker
 * its high watermark is its log end. Appends assign offsets and stamp the leader epoch; reads
 * lease `HeldRegion`s and count them, so a test can check that every range a handler was given
 * was released exactly once. What the worker's replies tell the main thread goes to the
 * `PartitionEvents` given to `listen`, as `PartitionService` sends it.
 *
 * Not kept: OffsetForLeaderEpoch and DescribeProducers (their tests run on the worker's logs).
 */
import type { PartitionRegistration } from '../../../src/metadata/metadata-image.js';
import type { TopicConfigValues, TopicRef } from '../../../src/metadata/admin/partition-admin.js';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  BatchScan,
  encodeEndTxnMarkerBatch,
  isTransactional,
  readRecords,
  setBaseOffset,
  setPartitionLeaderEpoch,
  validateProduceRecords,
} from '@sluice/protocol/records/index.js';
import type { ParkedReads } from '../../../src/partitions/fetch-purgatory.js';
import type { PartitionEvents } from '../../../src/partitions/partition-events.js';
import {
  failedRead,
  type AppendReply,
  type AppendRequest,
  type DescribeProducersReply,
  type OffsetReply,
  type PartitionData,
  type TopicPartition,
  type ReadCommand,
  type ReadResult,
  type TxnMarkerEntry,
} from '../../../src/partitions/partition-data.js';
import {
  leaderEpochOf,
  NO_EPOCH,
  NO_EPOCH_CHECK,
  NO_OFFSET,
  offsetOf,
  type LeaderEpoch,
  type Offset,
} from '@sluice/protocol/common/offsets.js';
import { leaderEpochError } from '../../../src/replication/leader-epoch.js';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, MAX_TIMESTAMP } from '@sluice/protocol/offset-requests.js';
import { failedAppend, NO_TIMESTAMP, type AcksWaitRequest, type CompletedAck } from '../../../src/partitions/partition-protocol.js';
import { MemoryPartitionAdmin, type HeldRegion } from './admin-harness.js';
import { topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';

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

interface EpochStart {
  readonly epoch: number;
  readonly startOffset: bigint;
}

class MemoryReplica {
  leader = -1;
  leaderEpoch = -1;
  replicas: readonly number[] = [];
  isr: readonly number[] = [];
  minInsync = 1;
  logStartOffset = 0n;
  highWatermark = 0n;
  readonly batches: StoredBatch[] = [];
  /** `producerId:epoch` of the transactions open here: their batches need no verification (KIP-890). */
  readonly openTransactions = new Set<string>();
  /** Followers' log end offsets as their fetches told them (-1 before the first), while leading. */
  readonly followers = new Map<number, bigint>();
  /** Where each leader epoch starts in the log, as the worker's leader epoch cache keeps it. */
  private epochs: EpochStart[] = [];
  /** acks=all waits held while leading: id, the high watermark that commits them. */
  waits: { readonly id: number; readonly requiredOffset: bigint }[] = [];

  /**
   * The worker's `Partition` answers of its acks=all waits, without its leadership terms or
   * deadlines: NOT_LEADER_OR_FOLLOWER once it does not lead, else once the high watermark passes
   * a wait, NONE or NOT_ENOUGH_REPLICAS_AFTER_APPEND.
   */
  completeWaits(localId: number): CompletedAck[] {
    const done: CompletedAck[] = [];
    this.waits = this.waits.filter((w) => {
      if (this.leader === localId && this.highWatermark < w.requiredOffset) return true;
      const errorCode =
        this.leader !== localId
          ? ErrorCode.NOT_LEADER_OR_FOLLOWER
          : this.isr.length >= this.effectiveMinIsr
            ? ErrorCode.NONE
            : ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND;
      done.push({ id: w.id, errorCode });
      return false;
    });
    return done;
  }

  get logEndOffset(): bigint {
    return this.batches.at(-1)?.nextOffset ?? 0n;
  }

  /** `min.insync.replicas`, never more than the replicas there are (Kafka's effective min ISR). */
  get effectiveMinIsr(): number {
    return Math.min(this.minInsync, this.replicas.length);
  }

  /** The lowest log end offset among the ISR, held while the ISR is below the effective min ISR. */
  advanceHighWatermark(localId: number): boolean {
    if (this.leader !== localId || this.isr.length < this.effectiveMinIsr) return false;
    let committed = this.logEndOffset;
    for (const id of this.isr) {
      const end = id === localId ? committed : (this.followers.get(id) ?? -1n);
      if (end < committed) committed = end;
    }
    if (committed <= this.highWatermark) return false;
    this.highWatermark = committed;
    return true;
  }

  assignEpoch(epoch: number, startOffset: bigint): void {
    const latest = this.epochs.at(-1);
    if (epoch < 0 || (latest !== undefined && latest.epoch === epoch)) return;
    this.epochs = [...this.epochs.filter((e) => e.epoch < epoch && e.startOffset < startOffset), { epoch, startOffset }];
  }

  /** OffsetForLeaderEpoch's answer: the largest epoch not after `requested` and where it ends, or (-1, -1). */
  endOffsetFor(requested: number): { epoch: number; endOffset: bigint } {
    const latest = this.epochs.at(-1);
    if (latest === undefined || requested > latest.epoch) return { epoch: NO_EPOCH, endOffset: -1n };
    if (requested === latest.epoch) return { epoch: requested, endOffset: this.logEndOffset };
    const higher = this.epochs.findIndex((e) => e.epoch > requested);
    return { epoch: higher > 0 ? this.epochs[higher - 1]!.epoch : requested, endOffset: this.epochs[higher]!.startOffset };
  }

  /** The worker's `Partition.checkLeader`: the client's epoch first, then leadership. */
  checkLeader(currentLeaderEpoch: number, localId: number): void {
    const epochError = leaderEpochError(leaderEpochOf(currentLeaderEpoch), leaderEpochOf(this.leaderEpoch));
    if (epochError !== ErrorCode.NONE)
      throw new KafkaError(epochError, `leader epoch ${currentLeaderEpoch} is not the current ${this.leaderEpoch}`);
    if (this.leader !== localId) throw new KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER, `broker ${localId} does not lead this partition`);
  }

  /** Every record at or above the log start offset, in offset order. */
  *records(): Generator<TimestampHit> {
    for (const batch of this.batches) {
      if (batch.nextOffset <= this.logStartOffset) continue;
      for (const header of new BatchScan(batch.bytes)) {
        for (const r of readRecords(batch.bytes, header))
          if (r.offset >= this.logStartOffset) yield { timestamp: r.timestamp, offset: r.offset };
      }
    }
  }
}

function errorCodeOf(err: unknown): number {
  if (err instanceof KafkaError) return err.code;
  throw err;
}

function failedOffset(errorCode: number): OffsetReply {
  return { errorCode, timestamp: NO_TIMESTAMP, offset: NO_OFFSET, leaderEpoch: NO_EPOCH };
}

export class MemoryPartitions extends MemoryPartitionAdmin implements PartitionData {
  private readonly replicas = new Map<string, MemoryReplica>();
  private leased = 0;

  private events: PartitionEvents | null = null;
  private parked: ParkedReads | null = null;
  private readCalls = 0;

  /** `localId` is the broker's `node.id`: the partitions it leads accept appends and reads. */
  constructor(private readonly localId = 0) {
    super();
  }

  /**
   * Where appends, high watermark moves and state changes are told (the harness's purgatories);
   * `parked`: where parked consumer fetches leave the reads an append does for them, as
   * `PartitionService` does them on the workers.
   */
  listen(events: PartitionEvents, parked: ParkedReads | null = null): void {
    this.events = events;
    this.parked = parked;
  }

  /** `readMany` calls so far (a fetch answered from its wake reads makes none). */
  get readManyCalls(): number {
    return this.readCalls;
  }

  /** Read ranges handed out and not yet released. */
  get outstandingLeases(): number {
    return this.leased;
  }

  /** The partition's stored batches, as appended (offsets and leader epoch assigned). */
  batchesOf(ref: TopicPartition): Buffer[] {
    return this.replicaOf(ref).batches.map((b) => b.bytes);
  }

  /**
   * Like the worker's `Partition.applyState`: a registration older than the replica's epoch is
   * ignored; a leader starts its epoch at its log end and tracks its followers.
   */
  override async createPartitions(topic: TopicRef, partitions: readonly PartitionRegistration[], config: TopicConfigValues): Promise<void> {
    await super.createPartitions(topic, partitions, config);
    for (const p of partitions) {
      const key = topicPartitionKey(topic.name, p.partition);
      let replica = this.replicas.get(key);
      if (replica === undefined) this.replicas.set(key, (replica = new MemoryReplica()));
      replica.minInsync = minInsyncOf(config);
      if (p.leaderEpoch < replica.leaderEpoch) continue;
      const newEpoch = p.leaderEpoch > replica.leaderEpoch;
      replica.leader = p.leader;
      replica.leaderEpoch = p.leaderEpoch;
      replica.replicas = [...p.replicas];
      replica.isr = [...p.isr];
      if (p.leader !== this.localId) {
        replica.followers.clear();
      } else {
        for (const id of p.replicas) if (id !== this.localId && !replica.followers.has(id)) replica.followers.set(id, -1n);
        if (newEpoch) replica.assignEpoch(p.leaderEpoch, replica.logEndOffset);
        replica.advanceHighWatermark(this.localId);
      }
      this.completeWaits(replica);
      this.events?.stateApplied(topic.name, p.partition);
    }
  }

  /** What a StopReplica, or a LeaderAndIsr not applied yet, leaves: the metadata lists the partition, this owner does not host it. */
  stopHosting(topic: string, partition: number): void {
    this.replicas.delete(topicPartitionKey(topic, partition));
  }

  override async deleteTopic(topic: TopicRef, partitionCount: number): Promise<void> {
    await super.deleteTopic(topic, partitionCount);
    for (let p = 0; p < partitionCount; p++) this.replicas.delete(topicPartitionKey(topic.name, p));
  }

  override async updateTopicConfig(topic: TopicRef, partitionCount: number, config: TopicConfigValues): Promise<void> {
    await super.updateTopicConfig(topic, partitionCount, config);
    for (let p = 0; p < partitionCount; p++) {
      const replica = this.replicas.get(topicPartitionKey(topic.name, p));
      if (replica !== undefined) replica.minInsync = minInsyncOf(config);
    }
  }

  async appendMany(entries: readonly AppendRequest[]): Promise<AppendReply[]> {
    return entries.map((e) => this.append(e));
  }

  async writeTxnMarkers(entries: readonly TxnMarkerEntry[]): Promise<AppendReply[]> {
    return entries.map((e) => this.writeTxnMarker(e));
  }

  async readMany(commands: readonly ReadCommand[]): Promise<ReadResult[]> {
    this.readCalls++;
    return commands.map((c) => this.read(c));
  }

  /** Answers the replica's waits whose outcome is known, as the worker's replies carry them. */
  private completeWaits(replica: MemoryReplica): void {
    const done = replica.completeWaits(this.localId);
    if (done.length > 0) this.events?.acksCompleted(done);
  }

  async listOffset(ref: TopicPartition, currentLeaderEpoch: LeaderEpoch, timestamp: bigint): Promise<OffsetReply> {
    return this.offsetOp(ref, currentLeaderEpoch, (replica) => {
      const none: OffsetReply = { errorCode: ErrorCode.NONE, timestamp: NO_TIMESTAMP, offset: NO_OFFSET, leaderEpoch: NO_EPOCH };
      const leaderEpoch = leaderEpochOf(replica.leaderEpoch);
      const at = (offset: bigint): OffsetReply => ({ ...none, offset: offsetOf(offset), leaderEpoch });
      const hit = (found: TimestampHit | null): OffsetReply =>
        found === null ? none : { ...none, timestamp: found.timestamp, offset: offsetOf(found.offset), leaderEpoch };
      if (timestamp === EARLIEST_TIMESTAMP || timestamp === EARLIEST_LOCAL_TIMESTAMP) return at(replica.logStartOffset);
      if (timestamp === LATEST_TIMESTAMP) return at(replica.highWatermark);
      if (timestamp === LATEST_TIERED_TIMESTAMP) return none;
      if (timestamp === MAX_TIMESTAMP) return hit(maxTimestampRecord(replica));
      if (timestamp < 0n) return failedOffset(ErrorCode.INVALID_REQUEST);
      return hit(firstRecordAtOrAfter(replica, timestamp));
    });
  }

  async deleteRecords(ref: TopicPartition, offset: Offset): Promise<OffsetReply> {
    return this.offsetOp(ref, NO_EPOCH_CHECK, (replica) => {
      const target = offset === NO_OFFSET ? replica.highWatermark : BigInt(offset);
      if (target < 0n || target > replica.highWatermark) return failedOffset(ErrorCode.OFFSET_OUT_OF_RANGE);
      if (target > replica.logStartOffset) replica.logStartOffset = target;
      const low = offsetOf(replica.logStartOffset);
      return { errorCode: ErrorCode.NONE, timestamp: NO_TIMESTAMP, offset: low, leaderEpoch: leaderEpochOf(replica.leaderEpoch) };
    });
  }

  offsetForLeaderEpoch(): Promise<OffsetReply> {
    return Promise.reject(new Error('the in-memory owner keeps no leader epoch cache'));
  }

  describeProducers(): Promise<DescribeProducersReply> {
    return Promise.reject(new Error('the in-memory owner keeps no producer state'));
  }

  private replicaOf(ref: TopicPartition): MemoryReplica {
    const replica = this.replicas.get(topicPartitionKey(ref.topic, ref.partition));
    if (replica === undefined)
      throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `${ref.topic}-${ref.partition} is not hosted here`);
    return replica;
  }

  /** The worker's offset ops: answered by the leader, fenced by the client's epoch. */
  private async offsetOp(
    ref: TopicPartition,
    currentLeaderEpoch: LeaderEpoch,
    answer: (replica: MemoryReplica) => OffsetReply,
  ): Promise<OffsetReply> {
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
    const replica = this.leaderFor(entry, entry.requiredAcks);
    if (!(replica instanceof MemoryReplica)) return replica;
    const validation = validateProduceRecords(entry.records);
    if (!validation.ok) return failedAppend(validation.error.code, validation.error.message, validation.error.recordErrors);
    const header = validation.batch;
    // The worker's KIP-890 rule, without its sequence bookkeeping: a batch opening a transaction is verified first.
    if (isTransactional(header.attributes) && (entry.origin ?? 'client') === 'client') {
      const txn = `${header.producerId}:${header.producerEpoch}`;
      if (!replica.openTransactions.has(txn)) {
        if (entry.txnVerified !== true)
          return { ...failedAppend(ErrorCode.INVALID_TXN_STATE, 'verification required'), needsVerification: true };
        replica.openTransactions.add(txn);
      }
    }
    // A copy: the request's records are a view on its frame, which the connection reuses.
    const bytes = Buffer.from(entry.records.subarray(header.start, header.end));
    return this.store(entry, replica, bytes, header.lastOffsetDelta, entry.requiredAcks);
  }

  /** A marker as the leader writes it, acks=all; no producer state here, so no epoch checks. */
  private writeTxnMarker(entry: TxnMarkerEntry): AppendReply {
    const replica = this.leaderFor(entry, ACKS_ALL);
    if (!(replica instanceof MemoryReplica)) return replica;
    const { producerId, producerEpoch, coordinatorEpoch, commit } = entry;
    for (const txn of [...replica.openTransactions]) if (txn.startsWith(`${producerId}:`)) replica.openTransactions.delete(txn);
    const bytes = encodeEndTxnMarkerBatch({
      producerId,
      producerEpoch,
      coordinatorEpoch,
      committed: commit,
      timestamp: BigInt(Date.now()),
    });
    return this.store(entry, replica, bytes, 0, ACKS_ALL);
  }

  /** The partition's replica if it leads here and, for acks=all, has enough in-sync replicas; else the append's failure. */
  private leaderFor(ref: TopicPartition, requiredAcks: number): MemoryReplica | AppendReply {
    let replica: MemoryReplica;
    try {
      replica = this.replicaOf(ref);
      replica.checkLeader(NO_EPOCH_CHECK, this.localId);
    } catch (err) {
      if (!(err instanceof KafkaError)) throw err;
      return failedAppend(err.code, err.message);
    }
    if (requiredAcks === ACKS_ALL && replica.isr.length < replica.effectiveMinIsr) {
      return failedAppend(
        ErrorCode.NOT_ENOUGH_REPLICAS,
        `The size of the current ISR ${replica.isr.length} is insufficient to satisfy the min.isr requirement of ${replica.effectiveMinIsr}`,
      );
    }
    return replica;
  }

  /** Stores one batch at the log end with the leader's epoch and answers as the worker does. */
  private store(
    ref: TopicPartition & { readonly acksWait?: AcksWaitRequest },
    replica: MemoryReplica,
    bytes: Buffer,
    lastOffsetDelta: number,
    requiredAcks: number,
  ): AppendReply {
    const baseOffset = replica.logEndOffset;
    setBaseOffset(bytes, 0, baseOffset);
    setPartitionLeaderEpoch(bytes, 0, replica.leaderEpoch);
    const nextOffset = baseOffset + BigInt(lastOffsetDelta) + 1n;
    replica.batches.push({ nextOffset, bytes });
    replica.assignEpoch(replica.leaderEpoch, baseOffset);
    const highWatermarkMoved = replica.advanceHighWatermark(this.localId);
    if (highWatermarkMoved && this.parked !== null) {
      const key = topicPartitionKey(ref.topic, ref.partition);
      for (const { waiter, command } of this.parked.parkedReads(key)) this.parked.offer(waiter, key, this.read(command));
    }
    const waits = requiredAcks === ACKS_ALL && replica.highWatermark < nextOffset;
    if (waits && ref.acksWait !== undefined) replica.waits.push({ id: ref.acksWait.id, requiredOffset: nextOffset });
    else if (highWatermarkMoved) this.completeWaits(replica);
    this.events?.appended(ref.topic, ref.partition, highWatermarkMoved ? offsetOf(replica.highWatermark) : null);
    return {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      recordErrors: [],
      baseOffset: offsetOf(baseOffset),
      logAppendTimeMs: NO_TIMESTAMP,
      logStartOffset: offsetOf(replica.logStartOffset),
      highWatermark: offsetOf(replica.highWatermark),
      highWatermarkMoved,
      leaderEpoch: leaderEpochOf(replica.leaderEpoch),
      requiredOffset: waits ? offsetOf(nextOffset) : NO_OFFSET,
      needsVerification: false,
      wakeReads: [],
      completedAcks: [],
    };
  }

  /**
   * The worker's read: fenced by epoch, out of range outside [log start, log end], whole batches
   * up to `maxBytes` (the first one regardless with `minOneMessage`), below the high watermark
   * for a consumer and the log end for a follower, whose fetch offset is its log end.
   */
  private read(c: ReadCommand): ReadResult {
    let replica: MemoryReplica;
    try {
      replica = this.replicaOf(c);
      replica.checkLeader(c.currentLeaderEpoch, this.localId);
      if (c.replicaId >= 0 && !replica.followers.has(c.replicaId)) {
        throw new KafkaError(
          c.currentLeaderEpoch === NO_EPOCH_CHECK ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.UNKNOWN_LEADER_EPOCH,
          `broker ${c.replicaId} is not a replica`,
        );
      }
    } catch (err) {
      return failedRead(errorCodeOf(err));
    }
    if (c.replicaId >= 0 && c.lastFetchedEpoch !== NO_EPOCH) {
      const end = replica.endOffsetFor(c.lastFetchedEpoch);
      if (end.epoch === NO_EPOCH || c.fetchOffset < replica.logStartOffset) return failedRead(ErrorCode.OFFSET_OUT_OF_RANGE);
      if (end.epoch < c.lastFetchedEpoch || end.endOffset < c.fetchOffset)
        return {
          ...this.state(replica),
          records: null,
          divergingEpoch: { epoch: leaderEpochOf(end.epoch), endOffset: offsetOf(end.endOffset) },
          abortedTransactions: null,
        };
    }
    if (c.fetchOffset < replica.logStartOffset || c.fetchOffset > replica.logEndOffset) return failedRead(ErrorCode.OFFSET_OUT_OF_RANGE);
    const bound = c.replicaId >= 0 ? replica.logEndOffset : replica.highWatermark;
    if (c.replicaId >= 0) {
      replica.followers.set(c.replicaId, BigInt(c.fetchOffset));
      if (replica.advanceHighWatermark(this.localId)) {
        this.completeWaits(replica);
        this.events?.highWatermarkMoved(c.topic, c.partition, offsetOf(replica.highWatermark));
      }
    }
    const taken: Buffer[] = [];
    let bytes = 0;
    for (const batch of replica.batches) {
      if (batch.nextOffset <= c.fetchOffset) continue;
      if (batch.nextOffset > bound) break;
      const fits = bytes + batch.bytes.length <= c.maxBytes || (taken.length === 0 && c.minOneMessage);
      if (!fits) break;
      taken.push(batch.bytes);
      bytes += batch.bytes.length;
    }
    // No transactions here: a read_committed read is bounded by the high watermark and has nothing aborted.
    const abortedTransactions = c.readCommitted && c.replicaId < 0 ? [] : null;
    return {
      ...this.state(replica),
      records: taken.length === 0 ? null : this.lease(Buffer.concat(taken)),
      divergingEpoch: null,
      abortedTransactions,
    };
  }

  private state(replica: MemoryReplica): Pick<ReadResult, 'errorCode' | 'highWatermark' | 'lastStableOffset' | 'logStartOffset'> {
    return {
      errorCode: ErrorCode.NONE,
      highWatermark: offsetOf(replica.highWatermark),
      lastStableOffset: offsetOf(replica.highWatermark),
      logStartOffset: offsetOf(replica.logStartOffset),
    };
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
