/**
 * The in-flight state of one share-partition (group, topic-partition) on the partition's leader,
 * as Kafka's SharePartition keeps it: every offset from the start offset to the end of what has
 * been fetched is AVAILABLE, ACQUIRED (by one member, under an acquisition lock that expires
 * after `share.record.lock.duration.ms`), ACKNOWLEDGED or ARCHIVED, with its delivery count.
 *
 * - Acquisition takes whole log batches (one delivery count and one lock for the batch) while a
 *   batch's records all share a state; after a partial acknowledgement its records are acquired
 *   one by one. A record delivered `share.delivery.count.limit` times is archived instead of made
 *   available again.
 * - The start offset moves over acknowledged and archived records; no new records are acquired
 *   while `group.share.partition.max.record.locks` records are in flight.
 * - Every change Kafka persists (acknowledgements, releases, lock timeouts) is written through the
 *   `SharePersister` before the operation completes; a failed write undoes the change.
 * - read_committed: control batches and the batches of aborted transactions are archived, never
 *   acquired (the share consumer has no aborted-transaction list to drop them itself).
 * - Dead-letter queue (KIP-1191), when the group has one: a REJECTed record, or one that reaches
 *   the delivery-count limit, is ARCHIVING first. Once that state is persisted the records go to
 *   the `DeadLetterQueue`, and once it is done they are archived (and that persisted). The start
 *   offset stops at an ARCHIVING record, and a new leader that finds some in the persisted state
 *   writes them to the dead-letter queue itself (docs/design/share-groups.md, "Dead-letter queue").
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ShareDeliveryState, type SharePartitionKey, type SharePersister, type ShareStateBatch } from '../share-state-persister.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { SharePartitionConfig } from './share-partition-config.js';
import { noDeadLetterQueue, restoredCause, type DeadLetterCause, type DeadLetterQueue, type DeadLetterRange } from './dead-letter.js';

/** Kafka's AcknowledgeType ids, as ShareFetch and ShareAcknowledge carry them. */
export const AcknowledgeType = { GAP: 0, ACCEPT: 1, RELEASE: 2, REJECT: 3, RENEW: 4 } as const;

/** One log batch as the acquisition sees it: its offsets and what its attributes say. */
export interface LogBatch {
  readonly firstOffset: bigint;
  readonly lastOffset: bigint;
  readonly producerId: bigint;
  readonly isTransactional: boolean;
  readonly isControl: boolean;
}

/** An aborted transaction overlapping a read, as a read_committed read answers it. */
export interface AbortedTxn {
  readonly producerId: bigint;
  readonly firstOffset: bigint;
}

/** A run of acquired offsets, as ShareFetch's `AcquiredRecords` answers it. */
export interface AcquiredRange {
  readonly firstOffset: bigint;
  readonly lastOffset: bigint;
  readonly deliveryCount: number;
}

export interface AcknowledgementBatch {
  readonly firstOffset: bigint;
  readonly lastOffset: bigint;
  /** One type for the whole range, or one per offset. */
  readonly acknowledgeTypes: readonly number[];
}

export interface AcquireOptions {
  readonly maxRecords: number;
  /** ShareFetch v2's record-limit mode: never more than `maxRecords`, splitting a batch if need be. */
  readonly strictRecordLimit: boolean;
  /** Aborted transactions overlapping the read (read_committed), or null. */
  readonly abortedTransactions: readonly AbortedTxn[] | null;
}

/** Schedules lock expiries; the default uses the event loop's timers, tests drive their own. */
export interface LockTimers {
  schedule(delayMs: number, expire: () => void): () => void;
}

export const eventLoopTimers: LockTimers = {
  schedule(delayMs, expire) {
    const timer = setTimeout(expire, delayMs);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

const enum RecordState {
  AVAILABLE,
  ACQUIRED,
  ACKNOWLEDGED,
  ARCHIVING,
  ARCHIVED,
}

/**
 * An ARCHIVING record's way to the dead-letter queue: `persisting` until its ARCHIVING state is
 * durable (a failed write undoes it), `writing` while the dead-letter queue has it, `written` once
 * that is done and its ARCHIVED state is being persisted (a failed write of that is tried again
 * with the next state write, without writing the dead letter again).
 */
interface DeadLetterProgress {
  readonly cause: DeadLetterCause;
  /** Restored from the persisted state: a leader before this one may have written it. */
  readonly resumed: boolean;
  stage: 'persisting' | 'writing' | 'written';
}

/** One acquisition's lock: the records that still hold it return to AVAILABLE when it expires. */
class AcquisitionLock {
  holders = 0;
  cancel: () => void = () => undefined;
}

interface InFlightRecord {
  state: RecordState;
  deliveryCount: number;
  memberId: string | null;
  lock: AcquisitionLock | null;
  /** The last offset of the log batch (or restored state batch) holding the record. */
  readonly batchLast: bigint;
  /** ARCHIVING records only. */
  deadLetter: DeadLetterProgress | null;
}

/** Where the share-partition starts: the persisted state, with an unset start offset resolved by `share.auto.offset.reset`. */
export type StartOffsetResolver = () => Promise<bigint>;

export class SharePartition {
  private startOffset = 0n;
  /** The records from the start offset on, one per offset up to `nextOffset` (exclusive). */
  private records: InFlightRecord[] = [];
  private stateEpoch = 0;
  private initialized = false;
  private closed = false;
  /** Persisted operations run one at a time so that writes reach the share coordinator in order. */
  private writes: Promise<unknown> = Promise.resolve();

  constructor(
    readonly key: SharePartitionKey,
    readonly leaderEpoch: number,
    private readonly persister: SharePersister,
    private readonly config: () => SharePartitionConfig,
    private readonly timers: LockTimers = eventLoopTimers,
    /** Told after each persisted change (a release, an expiry, a moved start offset), which may have made records available to waiting fetches. */
    private readonly changed: () => void = () => undefined,
    private readonly deadLetters: DeadLetterQueue = noDeadLetterQueue,
  ) {}

  /** Loads the persisted state (ReadShareGroupState at this leader epoch); throws its KafkaError. */
  async initialize(resolveStartOffset: StartOffsetResolver): Promise<void> {
    const snapshot = await this.persister.read(this.key, this.leaderEpoch);
    this.stateEpoch = snapshot.stateEpoch;
    this.startOffset = snapshot.startOffset < 0n ? await resolveStartOffset() : snapshot.startOffset;
    const records: InFlightRecord[] = [];
    const batches = [...snapshot.stateBatches]
      .filter((b) => b.lastOffset >= this.startOffset)
      .sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : 1));
    let next = this.startOffset;
    for (const b of batches) {
      // Offsets the share coordinator holds no state for were never more than acquired: they are delivered again.
      for (; next < b.firstOffset; next++) records.push(fresh(b.firstOffset - 1n, RecordState.AVAILABLE));
      const state = restoredState(b.deliveryState);
      // The leader that made these ARCHIVING may have died before or after their dead-letter write: it is done again.
      const deadLetter = (): DeadLetterProgress | null =>
        state === RecordState.ARCHIVING
          ? { cause: restoredCause(b.deliveryCount, this.config().deliveryCountLimit), resumed: true, stage: 'persisting' }
          : null;
      for (let o = next > b.firstOffset ? next : b.firstOffset; o <= b.lastOffset; o++)
        records.push({ ...fresh(b.lastOffset, state), deliveryCount: b.deliveryCount, deadLetter: deadLetter() });
      next = b.lastOffset + 1n;
    }
    this.records = records;
    this.initialized = true;
    this.advanceStart();
    this.sendDeadLetters();
  }

  get isInitialized(): boolean {
    return this.initialized;
  }

  get start(): bigint {
    return this.startOffset;
  }

  /** One past the last in-flight offset: where the next new records are read from. */
  get endOffset(): bigint {
    return this.startOffset + BigInt(this.records.length);
  }

  /**
   * Batches starting at or after this offset are not acquired by the next acquisition: the
   * in-flight window (`group.share.partition.max.record.locks` from the start offset) is full
   * before them. Reads stop there instead of scanning the rest of the log.
   */
  get acquisitionEnd(): bigint {
    const full = this.startOffset + BigInt(this.config().partitionMaxRecordLocks);
    return full > this.endOffset ? full : this.endOffset;
  }

  /** Offsets in flight (between the start offset and the end offset). */
  get inFlightCount(): number {
    return this.records.length;
  }

  /**
   * KIP-1226's delivery-complete count, written with every state write: the in-flight records
   * (all at or after the start offset) that are ACKNOWLEDGED or ARCHIVED. The group coordinator
   * takes it from the partition's end to get the share-partition's lag.
   */
  get deliveryCompleteCount(): number {
    let complete = 0;
    for (const r of this.records) if (r.state === RecordState.ACKNOWLEDGED || r.state === RecordState.ARCHIVED) complete++;
    return complete;
  }

  /** The state of `offset` for tests and descriptions: null outside the in-flight window. */
  stateOf(offset: bigint): {
    state: 'AVAILABLE' | 'ACQUIRED' | 'ACKNOWLEDGED' | 'ARCHIVING' | 'ARCHIVED';
    deliveryCount: number;
    memberId: string | null;
  } | null {
    const r = this.at(offset);
    if (r === undefined) return null;
    const names = ['AVAILABLE', 'ACQUIRED', 'ACKNOWLEDGED', 'ARCHIVING', 'ARCHIVED'] as const;
    return { state: names[r.state], deliveryCount: r.deliveryCount, memberId: r.memberId };
  }

  /**
   * Where the next read starts: the first AVAILABLE record, else the end offset; null when
   * nothing is available and the in-flight window is full.
   */
  nextFetchOffset(): bigint | null {
    const first = this.records.findIndex((r) => r.state === RecordState.AVAILABLE);
    if (first >= 0) return this.startOffset + BigInt(first);
    return this.records.length < this.config().partitionMaxRecordLocks ? this.endOffset : null;
  }

  /** Acquires for `memberId` what it may take of the records available in `batches` (read from the log in offset order). */
  acquire(memberId: string, batches: readonly LogBatch[], options: AcquireOptions): AcquiredRange[] {
    this.requireOpen();
    const config = this.config();
    const lock = new AcquisitionLock();
    const acquired: bigint[] = [];
    const aborted = abortedBatches(batches, options.abortedTransactions);
    for (const batch of batches) {
      if (acquired.length >= options.maxRecords) break;
      if (batch.lastOffset < this.startOffset) continue;
      if (!this.extendTo(batch, config.partitionMaxRecordLocks)) break;
      const unreadable = batch.isControl || aborted.has(batch);
      const from = batch.firstOffset > this.startOffset ? batch.firstOffset : this.startOffset;
      const offsets: bigint[] = [];
      for (let o = from; o <= batch.lastOffset; o++) {
        const r = this.at(o)!;
        if (r.state !== RecordState.AVAILABLE) continue;
        if (unreadable) this.setState(r, RecordState.ARCHIVED);
        else offsets.push(o);
      }
      const whole = !options.strictRecordLimit && this.uniformlyAvailable(from, batch.lastOffset);
      const room = options.maxRecords - acquired.length;
      for (const o of whole ? offsets : offsets.slice(0, room)) {
        const r = this.at(o)!;
        r.state = RecordState.ACQUIRED;
        r.deliveryCount++;
        r.memberId = memberId;
        this.holdLock(r, lock);
        acquired.push(o);
      }
    }
    this.advanceStart();
    if (lock.holders > 0) lock.cancel = this.timers.schedule(config.recordLockDurationMs, () => void this.expire(lock));
    return this.ranges(acquired);
  }

  /**
   * Applies a member's acknowledgements and persists them. All or nothing: a range naming a
   * record this member has not acquired fails the whole call with INVALID_RECORD_STATE, a
   * malformed batch with INVALID_REQUEST; `renewAllowed` is false before ShareFetch/ShareAcknowledge v2.
   */
  acknowledge(memberId: string, batches: readonly AcknowledgementBatch[], renewAllowed: boolean): Promise<void> {
    return this.serially(async () => {
      this.requireOpen();
      const changes: Array<{ offset: bigint; type: number }> = [];
      for (const b of batches) {
        const count = b.lastOffset - b.firstOffset + 1n;
        if (count <= 0n || (b.acknowledgeTypes.length !== 1 && BigInt(b.acknowledgeTypes.length) !== count)) {
          throw new KafkaError(
            ErrorCode.INVALID_REQUEST,
            `acknowledgement batch ${b.firstOffset}-${b.lastOffset} has ${b.acknowledgeTypes.length} types`,
          );
        }
        for (let o = b.firstOffset; o <= b.lastOffset; o++) {
          const type = b.acknowledgeTypes.length === 1 ? b.acknowledgeTypes[0]! : b.acknowledgeTypes[Number(o - b.firstOffset)]!;
          if (type < AcknowledgeType.GAP || type > AcknowledgeType.RENEW || (type === AcknowledgeType.RENEW && !renewAllowed)) {
            throw new KafkaError(ErrorCode.INVALID_REQUEST, `unknown acknowledge type ${type}`);
          }
          const r = this.at(o);
          if (r === undefined || r.state !== RecordState.ACQUIRED || r.memberId !== memberId) {
            throw new KafkaError(ErrorCode.INVALID_RECORD_STATE, `offset ${o} is not acquired by member ${memberId}`);
          }
          changes.push({ offset: o, type });
        }
      }
      const renewed = new AcquisitionLock();
      await this.persistChange(
        changes.map((c) => c.offset),
        () => {
          for (const { offset, type } of changes) {
            const r = this.at(offset)!;
            if (type === AcknowledgeType.RENEW) this.holdLock(r, renewed);
            else if (type === AcknowledgeType.ACCEPT) this.setState(r, RecordState.ACKNOWLEDGED);
            else if (type === AcknowledgeType.RELEASE) this.makeAvailable(r);
            else if (type === AcknowledgeType.REJECT) this.giveUp(r, 'rejected');
            else this.setState(r, RecordState.ARCHIVED);
          }
        },
      );
      if (renewed.holders > 0) renewed.cancel = this.timers.schedule(this.config().recordLockDurationMs, () => void this.expire(renewed));
    });
  }

  /** Releases every record `memberId` holds (its share session ended or its connection closed). */
  releaseMember(memberId: string): Promise<void> {
    return this.serially(async () => {
      if (this.closed) return;
      const held = this.offsetsWhere((r) => r.state === RecordState.ACQUIRED && r.memberId === memberId);
      if (held.length > 0) await this.persistChange(held, () => held.forEach((o) => this.makeAvailable(this.at(o)!)));
    });
  }

  /**
   * The log no longer holds the records before `logStartOffset` (retention, DeleteRecords): the
   * share-partition starts there, forgetting what was in flight before it.
   */
  moveStartTo(logStartOffset: bigint): void {
    if (logStartOffset <= this.startOffset) return;
    const gone = this.records.slice(0, Number(logStartOffset - this.startOffset));
    for (const r of gone) if (r.lock !== null) this.dropLock(r);
    this.records = this.records.slice(gone.length);
    this.startOffset = logStartOffset;
  }

  /** Stops the lock timers: this broker no longer leads the partition (its next leader reads the persisted state). */
  close(): void {
    this.closed = true;
    for (const r of this.records) if (r.lock !== null) this.dropLock(r);
  }

  private expire(lock: AcquisitionLock): Promise<void> {
    return this.serially(async () => {
      if (this.closed) return;
      const held = this.offsetsWhere((r) => r.lock === lock && r.state === RecordState.ACQUIRED);
      if (held.length > 0) await this.persistChange(held, () => held.forEach((o) => this.makeAvailable(this.at(o)!)));
    }).catch(() => undefined);
  }

  /**
   * Applies `apply` to the records at `offsets`, moves the start offset and writes the changed
   * records (WriteShareGroupState); on a failed write the records and the start offset go back
   * to what they were and the write's KafkaError is thrown.
   */
  private async persistChange(offsets: readonly bigint[], apply: () => void): Promise<void> {
    const savedStart = this.startOffset;
    const savedRecords = this.records;
    const before = offsets.map((o) => ({ record: this.at(o)!, saved: { ...this.at(o)! } }));
    apply();
    this.advanceStart();
    const changed = offsets.filter((o) => o >= this.startOffset && this.at(o)!.state !== RecordState.ACQUIRED);
    try {
      if (changed.length > 0 || this.startOffset !== savedStart) {
        await this.persister.write(this.key, {
          stateEpoch: this.stateEpoch,
          leaderEpoch: this.leaderEpoch,
          startOffset: this.startOffset,
          deliveryCompleteCount: this.deliveryCompleteCount,
          stateBatches: this.persistedBatches(changed),
        });
        this.changed();
      }
      this.sendDeadLetters();
    } catch (err) {
      // The records go back to their holders under a fresh lock: the old one may have been cancelled with its last holder.
      const relock = new AcquisitionLock();
      for (const { record, saved } of before) {
        if (record.lock !== null) this.dropLock(record);
        record.state = saved.state;
        record.deliveryCount = saved.deliveryCount;
        record.memberId = saved.memberId;
        record.deadLetter = saved.deadLetter === null ? null : { ...saved.deadLetter };
        if (saved.state === RecordState.ACQUIRED) this.holdLock(record, relock);
      }
      this.restoreStart(savedStart, savedRecords);
      if (relock.holders > 0) relock.cancel = this.timers.schedule(this.config().recordLockDurationMs, () => void this.expire(relock));
      throw err;
    }
  }

  /**
   * Puts the start offset back to `savedStart` after a failed write. An acquisition may have run
   * while the write was in flight and appended records, so the records dropped by the move are
   * put back in front of the current ones rather than the old list restored.
   */
  private restoreStart(savedStart: bigint, savedRecords: readonly InFlightRecord[]): void {
    const dropped = Number(this.startOffset - savedStart);
    const prefix = savedRecords.slice(0, dropped);
    while (prefix.length < dropped) prefix.push(fresh(savedStart + BigInt(prefix.length), RecordState.ARCHIVED));
    this.records = prefix.concat(this.records);
    this.startOffset = savedStart;
    this.advanceStart();
  }

  /** The persisted form of the changed records, in runs of one state and delivery count. */
  private persistedBatches(offsets: readonly bigint[]): ShareStateBatch[] {
    const out: Array<{ firstOffset: bigint; lastOffset: bigint; deliveryState: ShareDeliveryState; deliveryCount: number }> = [];
    for (const o of [...offsets].sort((a, b) => (a < b ? -1 : 1))) {
      const r = this.at(o)!;
      const deliveryState = persistedState(r.state);
      const last = out[out.length - 1];
      if (
        last !== undefined &&
        last.lastOffset + 1n === o &&
        last.deliveryState === deliveryState &&
        last.deliveryCount === r.deliveryCount
      )
        last.lastOffset = o;
      else out.push({ firstOffset: o, lastOffset: o, deliveryState, deliveryCount: r.deliveryCount });
    }
    return out;
  }

  /**
   * Adds the batch's new offsets to the in-flight window (offsets skipped by the log, as after
   * compaction, are archived); false when the window is full and the batch is not yet in it.
   */
  private extendTo(batch: LogBatch, maxInFlight: number): boolean {
    if (batch.lastOffset < this.endOffset) return true;
    if (this.records.length >= maxInFlight) return false;
    for (let o = this.endOffset; o < batch.firstOffset; o++) this.records.push(fresh(o, RecordState.ARCHIVED));
    for (let o = this.endOffset; o <= batch.lastOffset; o++) this.records.push(fresh(batch.lastOffset, RecordState.AVAILABLE));
    return true;
  }

  /** Whether the records from `from` to `last` are all AVAILABLE with one delivery count, so they are acquired as one batch. */
  private uniformlyAvailable(from: bigint, last: bigint): boolean {
    const first = this.at(from)!;
    for (let o = from; o <= last; o++) {
      const r = this.at(o)!;
      if (r.state !== RecordState.AVAILABLE || r.deliveryCount !== first.deliveryCount || r.batchLast !== first.batchLast) return false;
    }
    return true;
  }

  private makeAvailable(r: InFlightRecord): void {
    if (r.deliveryCount >= this.config().deliveryCountLimit) this.giveUp(r, 'delivery-count-exceeded');
    else this.setState(r, RecordState.AVAILABLE);
  }

  /** Archives a record the group gave up on, by way of its dead-letter queue when it has one. */
  private giveUp(r: InFlightRecord, cause: DeadLetterCause): void {
    if (!this.config().deadLetterQueue) {
      this.setState(r, RecordState.ARCHIVED);
      return;
    }
    this.setState(r, RecordState.ARCHIVING);
    r.deadLetter = { cause, resumed: false, stage: 'persisting' };
  }

  private setState(r: InFlightRecord, state: RecordState): void {
    r.state = state;
    r.memberId = null;
    r.deadLetter = null;
    if (r.lock !== null) this.dropLock(r);
  }

  /**
   * Hands the ARCHIVING records whose state is durable to the dead-letter queue, in runs of one
   * delivery count and cause, and archives each run once its write settled; records already
   * written whose ARCHIVED state failed to persist are archived again without a second write.
   */
  private sendDeadLetters(): void {
    if (this.closed) return;
    const written = this.offsetsWhere((r) => r.deadLetter?.stage === 'written');
    if (written.length > 0) this.archiveWritten(written);
    const ready = this.offsetsWhere((r) => r.deadLetter?.stage === 'persisting');
    for (const range of this.deadLetterRanges(ready)) {
      const offsets: bigint[] = [];
      for (let o = range.firstOffset; o <= range.lastOffset; o++) {
        this.at(o)!.deadLetter!.stage = 'writing';
        offsets.push(o);
      }
      void this.deadLetters.write(this.key, range).then(() => {
        if (this.closed) return;
        for (const o of offsets) {
          const r = this.at(o);
          if (r?.deadLetter?.stage === 'writing') r.deadLetter.stage = 'written';
        }
        this.archiveWritten(offsets);
      });
    }
  }

  /**
   * Persists ARCHIVED for the records whose dead-letter write is done. A failed write leaves them
   * ARCHIVING and `written`: the next successful state write (which is what a fenced or moved
   * leader cannot make) tries them again.
   */
  private archiveWritten(offsets: readonly bigint[]): void {
    void this.serially(async () => {
      if (this.closed) return;
      const still = offsets.filter((o) => this.at(o)?.deadLetter?.stage === 'written');
      if (still.length > 0) await this.persistChange(still, () => still.forEach((o) => this.setState(this.at(o)!, RecordState.ARCHIVED)));
    }).catch(() => undefined);
  }

  private deadLetterRanges(offsets: readonly bigint[]): DeadLetterRange[] {
    const out: Array<{ firstOffset: bigint; lastOffset: bigint; deliveryCount: number; cause: DeadLetterCause; resumed: boolean }> = [];
    for (const o of offsets) {
      const r = this.at(o)!;
      const { cause, resumed } = r.deadLetter!;
      const last = out[out.length - 1];
      if (
        last !== undefined &&
        last.lastOffset + 1n === o &&
        last.deliveryCount === r.deliveryCount &&
        last.cause === cause &&
        last.resumed === resumed
      )
        last.lastOffset = o;
      else out.push({ firstOffset: o, lastOffset: o, deliveryCount: r.deliveryCount, cause, resumed });
    }
    return out;
  }

  private holdLock(r: InFlightRecord, lock: AcquisitionLock): void {
    if (r.lock !== null) this.dropLock(r);
    r.lock = lock;
    lock.holders++;
  }

  private dropLock(r: InFlightRecord): void {
    const lock = r.lock!;
    r.lock = null;
    if (--lock.holders === 0) lock.cancel();
  }

  private advanceStart(): void {
    let done = 0;
    while (
      done < this.records.length &&
      (this.records[done]!.state === RecordState.ACKNOWLEDGED || this.records[done]!.state === RecordState.ARCHIVED)
    )
      done++;
    if (done === 0) return;
    this.records = this.records.slice(done);
    this.startOffset += BigInt(done);
  }

  private at(offset: bigint): InFlightRecord | undefined {
    if (offset < this.startOffset) return undefined;
    return this.records[Number(offset - this.startOffset)];
  }

  private offsetsWhere(match: (r: InFlightRecord) => boolean): bigint[] {
    const out: bigint[] = [];
    this.records.forEach((r, i) => {
      if (match(r)) out.push(this.startOffset + BigInt(i));
    });
    return out;
  }

  private ranges(offsets: readonly bigint[]): AcquiredRange[] {
    const out: Array<{ firstOffset: bigint; lastOffset: bigint; deliveryCount: number }> = [];
    for (const o of offsets) {
      const count = this.at(o)?.deliveryCount ?? 1;
      const last = out[out.length - 1];
      if (last !== undefined && last.lastOffset + 1n === o && last.deliveryCount === count) last.lastOffset = o;
      else out.push({ firstOffset: o, lastOffset: o, deliveryCount: count });
    }
    return out;
  }

  private requireOpen(): void {
    if (!this.initialized || this.closed)
      throw new KafkaError(
        ErrorCode.NOT_LEADER_OR_FOLLOWER,
        `share-partition ${this.key.groupId}:${this.key.topicId}:${this.key.partition} is not open on this broker`,
      );
  }

  private serially(op: () => Promise<void>): Promise<void> {
    const run = this.writes.then(op, op);
    this.writes = run.catch(() => undefined);
    return run;
  }
}

function fresh(batchLast: bigint, state: RecordState): InFlightRecord {
  return { state, deliveryCount: 0, memberId: null, lock: null, batchLast, deadLetter: null };
}

/** A restart delivers again what was acquired: the acquisition was never persisted. */
function restoredState(state: ShareDeliveryState): RecordState {
  if (state === ShareDeliveryState.ACKNOWLEDGED) return RecordState.ACKNOWLEDGED;
  if (state === ShareDeliveryState.ARCHIVING) return RecordState.ARCHIVING;
  if (state === ShareDeliveryState.ARCHIVED) return RecordState.ARCHIVED;
  return RecordState.AVAILABLE;
}

function persistedState(state: RecordState): ShareDeliveryState {
  if (state === RecordState.ACKNOWLEDGED) return ShareDeliveryState.ACKNOWLEDGED;
  if (state === RecordState.ARCHIVING) return ShareDeliveryState.ARCHIVING;
  if (state === RecordState.ARCHIVED) return ShareDeliveryState.ARCHIVED;
  return ShareDeliveryState.AVAILABLE;
}

/**
 * The data batches of aborted transactions among `batches`, as a read_committed consumer finds
 * them: a producer's transactional batches from its aborted transaction's first offset up to its
 * abort marker.
 */
function abortedBatches(batches: readonly LogBatch[], aborted: readonly AbortedTxn[] | null): Set<LogBatch> {
  const out = new Set<LogBatch>();
  if (aborted === null || aborted.length === 0) return out;
  const pending = [...aborted].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : 1));
  const open = new Set<bigint>();
  let next = 0;
  for (const b of batches) {
    while (next < pending.length && pending[next]!.firstOffset <= b.lastOffset) open.add(pending[next++]!.producerId);
    if (!b.isTransactional || !open.has(b.producerId)) continue;
    if (b.isControl) open.delete(b.producerId);
    else out.add(b);
  }
  return out;
}
