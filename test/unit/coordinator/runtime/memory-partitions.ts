/**
 * An internal topic's partitions in memory, for the coordinator tests: appended batches get their
 * offsets and are read back as a leader's log; markers become the control batch a partition leader
 * writes. Appends can be held (not durable yet) and refused, to watch what waits for durability.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  encodeEndTxnMarkerBatch,
  isControl,
  isTransactional,
  lastOffsetOf,
  readRecords,
  readBatchHeader,
  setBaseOffset,
  type BatchHeader,
} from '@sluice/protocol/records/index.js';
import { decompress } from '../../../../src/native/index.js';
import { InternalTopicLog, type InternalTopicPartitions } from '../../../../src/coordinator/runtime/coordinator-log.js';
import type { TxnMarker } from '../../../../src/coordinator/runtime/transaction-marker.js';

/** One batch of the log, decoded for assertions. */
export interface LoggedBatch {
  readonly baseOffset: bigint;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly transactional: boolean;
  readonly control: boolean;
  readonly keys: string[];
}

export class MemoryPartitions implements InternalTopicPartitions {
  private readonly logs = new Map<number, Buffer[]>();
  private readonly logStarts = new Map<number, bigint>();
  private holding = false;
  private readonly held: Array<() => void> = [];
  private refusal: number | null = null;
  /** Every marker the port was asked to append, refused ones too. */
  readonly markers: TxnMarker[] = [];

  exists(): boolean {
    return true;
  }
  create(): Promise<{ errorCode: number; errorMessage: string | null }> {
    return Promise.resolve({ errorCode: ErrorCode.NONE, errorMessage: null });
  }
  append(partition: number, batch: Buffer, onAppended?: (baseOffset: bigint) => void): Promise<number> {
    return this.land(partition, Buffer.from(batch), onAppended);
  }
  appendMarker(partition: number, marker: TxnMarker): Promise<number> {
    this.markers.push(marker);
    return this.land(partition, encodeEndTxnMarkerBatch({ ...marker, committed: marker.commit, timestamp: 0n }));
  }
  logStartOffset(partition: number): Promise<{ errorCode: number; offset: bigint }> {
    return Promise.resolve({ errorCode: ErrorCode.NONE, offset: this.logStarts.get(partition) ?? 0n });
  }
  /** DeleteRecords: the log starts at `offset`; batches wholly below it are gone. */
  deleteRecords(partition: number, offset: bigint): void {
    this.logStarts.set(partition, offset);
    this.logs.set(
      partition,
      this.logOf(partition).filter((b) => lastOffsetOf(headerOf(b)) >= offset),
    );
  }
  read(partition: number, offset: bigint): Promise<{ errorCode: number; logEndOffset: bigint; leaderEpoch: number; bytes: Buffer }> {
    const batches = this.logOf(partition);
    const logEndOffset = this.logEndOffset(partition);
    const from = batches.filter((b) => lastOffsetOf(headerOf(b)) >= offset);
    return Promise.resolve({ errorCode: ErrorCode.NONE, logEndOffset, leaderEpoch: 0, bytes: Buffer.concat(from) });
  }
  awaitCommitted(): Promise<number> {
    return Promise.resolve(ErrorCode.NONE);
  }

  /** Appends wait (not durable, not in the log) until `release`. */
  hold(): void {
    this.holding = true;
  }
  /** Lands the held appends, in order, and every later one at once. */
  release(): void {
    this.holding = false;
    for (const land of this.held.splice(0)) land();
  }
  /** The next append is refused with `errorCode` and leaves the log as it was. */
  refuseNext(errorCode: number): void {
    this.refusal = errorCode;
  }

  /** The partition's batches, decoded. */
  batches(partition: number): LoggedBatch[] {
    return this.logOf(partition).map((bytes) => {
      const header = headerOf(bytes);
      return {
        baseOffset: header.baseOffset,
        producerId: header.producerId,
        producerEpoch: header.producerEpoch,
        transactional: isTransactional(header.attributes),
        control: isControl(header.attributes),
        keys: isControl(header.attributes)
          ? []
          : [...readRecords(bytes, header, { decompress })].map((r) => r.key?.toString('latin1') ?? ''),
      };
    });
  }

  private land(partition: number, batch: Buffer, onAppended?: (baseOffset: bigint) => void): Promise<number> {
    const refusal = this.refusal;
    this.refusal = null;
    if (refusal !== null) return Promise.resolve(refusal);
    const write = (): number => {
      const baseOffset = this.logEndOffset(partition);
      setBaseOffset(batch, 0, baseOffset);
      this.logOf(partition).push(batch);
      onAppended?.(baseOffset);
      return ErrorCode.NONE;
    };
    if (!this.holding) return Promise.resolve(write());
    return new Promise((resolve) => this.held.push(() => resolve(write())));
  }

  private logOf(partition: number): Buffer[] {
    let log = this.logs.get(partition);
    if (log === undefined) this.logs.set(partition, (log = []));
    return log;
  }

  private logEndOffset(partition: number): bigint {
    const last = this.logOf(partition).at(-1);
    return last === undefined ? (this.logStarts.get(partition) ?? 0n) : lastOffsetOf(headerOf(last)) + 1n;
  }
}

/** `__consumer_offsets` over `partitions`, as the broker wires it. */
export function memoryOffsetsLog(partitions: MemoryPartitions, numPartitions = 1): InternalTopicLog {
  return new InternalTopicLog({ name: '__consumer_offsets', numPartitions, configs: new Map() }, partitions);
}

function headerOf(batch: Buffer): BatchHeader {
  const header = readBatchHeader(batch, 0);
  if (header === null) throw new Error('a stored batch is whole');
  return header;
}
